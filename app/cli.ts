import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { Receipt } from 'mppx'
import { getAddress, type Hex, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import * as Price from '../core/Price.js'
import { clients } from './clients.js'
import { mintDevnetUsdc } from './devnet-client.js'
import { priceTextOf, type ManifestResource as Resource } from './discovery/terms.js'

// The agent-pay command line (`npx agent-pay ...`): pays a gateway's calls with the official x402 and MPP clients from a
// key in the environment, and reads its manifest. Run with no arguments for the usage.

const usage = `Usage: agent-pay <command>

  call METHOD PATH [--data JSON] [--mpp]   pay for one call (x402, or MPP with --mpp); prints the answer and the receipt
  price PATH [--method METHOD]             the price and availability of an endpoint
  discover [URL]                           what a gateway sells: network, asset, payee, every endpoint and its price
  fund ADDRESS AMOUNT                      mint devnet USDC to ADDRESS (the devnet at DEVNET_RPC_URL)
  receipts                                 the receipts of the calls this machine paid with agent-pay

Environment:
  GATEWAY_URL            the gateway (default http://127.0.0.1:3402)
  AGENT_PAY_PRIVATE_KEY  the key that pays (0x + 64 hex digits); required by call
  AGENT_PAY_MAX          most one call may pay, in USD (default 1.00); a dearer one is refused before signing
  AGENT_PAY_RECEIPTS     where receipts are kept (default ~/.agent-pay/receipts.jsonl)
  DEVNET_RPC_URL         the devnet fund mints on (default http://127.0.0.1:8545)
`

/** A receipt as `call` keeps it and `receipts` prints it. */
type Kept = {
  at: string
  method: string
  url: string
  status: number
  protocol: 'x402' | 'mpp'
  amount: string | undefined
  transaction: string
  payer: string
}

const gateway = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:3402').replace(/\/+$/, '')
const receiptsPath = process.env.AGENT_PAY_RECEIPTS ?? join(homedir(), '.agent-pay', 'receipts.jsonl')
const [command, ...rest] = process.argv.slice(2)

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

/** The value after `--name`, and the arguments without the pair. */
function option(args: string[], name: string): [string | undefined, string[]] {
  const index = args.indexOf(`--${name}`)
  if (index === -1) return [undefined, args]
  if (index + 1 >= args.length) fail(`--${name} needs a value.\n\n${usage}`, 2)
  return [args[index + 1], [...args.slice(0, index), ...args.slice(index + 2)]]
}

async function manifestOf(base: string): Promise<PaymentTerms & { resources: Resource[]; free: Resource[] }> {
  const response = await fetch(`${base}/.well-known/x402.json`).catch(() => undefined)
  if (!response) fail(`No gateway answers at ${base}: start one with \`npm start\` (or set GATEWAY_URL).`)
  if (!response.ok) fail(`${base}/.well-known/x402.json answered HTTP ${response.status}: not a gateway manifest.`)
  return (await response.json()) as PaymentTerms & { resources: Resource[]; free: Resource[] }
}

/** The catalog path pattern `pattern` (with `:id` parameters) matches `path`. */
function matches(pattern: string, path: string): boolean {
  return new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(path)
}

async function call(args: string[]): Promise<void> {
  const [data, withoutData] = option(args, 'data')
  const mpp = withoutData.includes('--mpp')
  const [method, path] = withoutData.filter((arg) => arg !== '--mpp')
  if (!method || !path?.startsWith('/')) fail(`call needs METHOD and a PATH starting with /.\n\n${usage}`, 2)
  const key = process.env.AGENT_PAY_PRIVATE_KEY
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key))
    fail('Set AGENT_PAY_PRIVATE_KEY to the key that pays (0x + 64 hex digits).', 2)
  let body: string | undefined
  if (data !== undefined) {
    try {
      body = JSON.stringify(JSON.parse(data))
    } catch {
      fail('--data is not JSON.', 2)
    }
  }
  const max = Price.toAtomic(process.env.AGENT_PAY_MAX ?? '1.00')
  const payer = privateKeyToAccount(key as Hex)
  const terms = await manifestOf(gateway)
  // The client's own cap stays at least its default: AGENT_PAY_MAX is checked below, where the refusal can say why.
  const pay = clients({ terms, fetch, maxAtomicPerPayment: max > 1_000_000n ? max : 1_000_000n })
  let amount: bigint | undefined
  const paying = mpp
    ? pay.mpp(payer)
    : pay.x402(payer, {
        beforePayment: (asked) => {
          if (asked > max) return `asks $${Price.fromAtomic(asked)}, above AGENT_PAY_MAX ($${Price.fromAtomic(max)})`
          amount = asked
          return undefined
        },
      })
  const url = `${gateway}${path}`
  const response = await paying(url, {
    method: method.toUpperCase(),
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  }).catch((error: unknown) => fail(`Not paid: ${error instanceof Error ? error.message : String(error)}`))
  process.stdout.write(`HTTP ${response.status}\n${await response.text()}\n`)
  const x402 = response.headers.get('payment-response')
  const receipt = response.headers.get('payment-receipt')
  let kept: Kept | undefined
  if (x402 && response.ok) {
    const settled = decodePaymentResponseHeader(x402)
    kept = {
      at: new Date().toISOString(),
      method: method.toUpperCase(),
      url,
      status: response.status,
      protocol: 'x402',
      amount: amount === undefined ? undefined : Price.fromAtomic(amount),
      transaction: settled.transaction,
      payer: settled.payer ?? payer.address,
    }
  } else if (receipt && response.ok) {
    const settled = Receipt.deserialize(receipt)
    const entry = [...terms.resources, ...terms.free].find(
      (resource) => resource.method === method.toUpperCase() && matches(resource.path, new URL(url).pathname),
    )
    kept = {
      at: new Date().toISOString(),
      method: method.toUpperCase(),
      url,
      status: response.status,
      protocol: 'mpp',
      amount: entry && entry.price !== 'free' ? entry.price.amount : undefined,
      transaction: settled.reference,
      payer: payer.address,
    }
  }
  if (kept) {
    process.stdout.write(`receipt: ${JSON.stringify(kept)}\n`)
    mkdirSync(dirname(receiptsPath), { recursive: true })
    appendFileSync(receiptsPath, `${JSON.stringify(kept)}\n`)
  }
  if (!response.ok) process.exit(1)
}

async function price(args: string[]): Promise<void> {
  const [method = 'GET', rest2] = option(args, 'method')
  const [path] = rest2
  if (!path?.startsWith('/')) fail(`price needs a PATH starting with /.\n\n${usage}`, 2)
  const manifest = await manifestOf(gateway)
  const pathname = new URL(path, gateway).pathname
  const found = [...manifest.resources, ...manifest.free].filter(
    (resource) =>
      matches(resource.path, pathname) && (args.includes('--method') ? resource.method === method.toUpperCase() : true),
  )
  if (found.length === 0) fail(`No endpoint at ${path} on ${gateway}.`)
  for (const resource of found)
    process.stdout.write(
      `${resource.method} ${resource.path}  ${priceTextOf(resource)}  ${
        resource.available
          ? 'available'
          : `unavailable (${resource.unavailable?.code}): ${resource.unavailable?.reason}`
      }\n`,
    )
}

async function discover(args: string[]): Promise<void> {
  const base = (args[0] ?? gateway).replace(/\/+$/, '').replace(/\/\.well-known\/x402\.json$/, '')
  const manifest = await manifestOf(base)
  const all = [...manifest.resources, ...manifest.free]
  process.stdout.write(
    `${base}: network ${manifest.network}, asset ${manifest.asset.address} (${manifest.asset.name} v${manifest.asset.version}), payTo ${manifest.payTo}\n` +
      `${manifest.resources.length} paid and ${manifest.free.length} free endpoints, ${all.filter((resource) => resource.available).length} available now\n\n`,
  )
  for (const resource of all.filter((candidate) => candidate.available))
    process.stdout.write(`${`${resource.method} ${resource.path}`.padEnd(48)} ${priceTextOf(resource)}\n`)
}

async function fund(args: string[]): Promise<void> {
  const [address, amount] = args
  if (!address || !isAddress(address, { strict: false }) || !amount || !/^\d+(\.\d{1,6})?$/.test(amount))
    fail(`fund needs an 0x ADDRESS and an AMOUNT of USDC (up to 6 decimals).\n\n${usage}`, 2)
  const { hash, balance } = await mintDevnetUsdc({ address: getAddress(address), amount })
  process.stdout.write(
    `Minted ${amount} devnet USDC to ${getAddress(address)} in ${hash}; balance ${Price.fromAtomic(balance)} USDC.\n`,
  )
}

function receipts(): void {
  if (!existsSync(receiptsPath)) {
    process.stdout.write(`No receipts yet (${receiptsPath}).\n`)
    return
  }
  const kept = readFileSync(receiptsPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Kept)
  for (const receipt of kept)
    process.stdout.write(
      `${receipt.at}  ${receipt.protocol.padEnd(4)}  ${`$${receipt.amount ?? '?'}`.padEnd(10)} ${receipt.method} ${receipt.url}  ${receipt.transaction}\n`,
    )
  const total = kept.reduce((sum, receipt) => sum + (receipt.amount ? Price.toAtomic(receipt.amount) : 0n), 0n)
  process.stdout.write(`${kept.length} receipts, $${Price.fromAtomic(total)} in all.\n`)
}

switch (command) {
  case 'call':
    await call(rest)
    break
  case 'price':
    await price(rest)
    break
  case 'discover':
    await discover(rest)
    break
  case 'fund':
    await fund(rest)
    break
  case 'receipts':
    receipts()
    break
  case undefined:
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(usage)
    break
  default:
    fail(`Unknown command ${command}.\n\n${usage}`, 2)
}
