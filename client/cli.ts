#!/usr/bin/env node
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import * as Price from '../core/Price.js'
import { ClientError, createClient, manifestOf, priceTextOf } from './index.js'

// The agent-pay command line (`npx agent-pay ...`): pays a gateway's calls with the client (agent-pay-gateway/client)
// from a key in the environment, and reads its manifest. It runs on plain Node from the package (the `agent-pay` bin
// of dist/package.json); in this repository app/cli.ts runs it on Bun with `fund`, which mints on the devnet.

/** What `agent-pay help` prints. */
export const usage = `Usage: agent-pay <command>

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

/** A command: its arguments after its name. */
export type Command = (args: string[]) => Promise<void>

const gateway = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:3402').replace(/\/+$/, '')
const receiptsPath = process.env.AGENT_PAY_RECEIPTS ?? join(homedir(), '.agent-pay', 'receipts.jsonl')

/** Writes `message` to stderr and exits with `code`. */
export function fail(message: string, code = 1): never {
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

async function manifest(base: string) {
  return manifestOf(base).catch((error: Error) =>
    fail(
      error.message.startsWith('No gateway')
        ? `No gateway answers at ${base}: start one with \`npm start\` (or set GATEWAY_URL).`
        : error.message,
    ),
  )
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
  let body: unknown
  if (data !== undefined) {
    try {
      body = JSON.parse(data)
    } catch {
      fail('--data is not JSON.', 2)
    }
  }
  const max = Price.toAtomic(process.env.AGENT_PAY_MAX ?? '1.00')
  const account = privateKeyToAccount(key as Hex)
  const client = createClient({ url: gateway, account, maxPerCall: max, protocol: mpp ? 'mpp' : 'x402' })
  const answer = await client
    .request({ method: method.toUpperCase(), path, body })
    .catch((error: unknown) =>
      fail(
        error instanceof ClientError
          ? `Not paid: asks $${Price.fromAtomic(error.amount)}, above AGENT_PAY_MAX ($${Price.fromAtomic(max)})`
          : `Not paid: ${error instanceof Error ? error.message : String(error)}`,
      ),
    )
  const text = typeof answer.data === 'string' ? answer.data : JSON.stringify(answer.data)
  process.stdout.write(`HTTP ${answer.status}\n${text}\n`)
  if (answer.receipt) {
    const kept: Kept = {
      at: new Date().toISOString(),
      method: method.toUpperCase(),
      url: `${gateway}${path}`,
      status: answer.status,
      protocol: answer.receipt.protocol,
      amount: Price.fromAtomic(answer.paid),
      transaction: answer.receipt.transaction,
      payer: answer.receipt.payer ?? account.address,
    }
    process.stdout.write(`receipt: ${JSON.stringify(kept)}\n`)
    mkdirSync(dirname(receiptsPath), { recursive: true })
    appendFileSync(receiptsPath, `${JSON.stringify(kept)}\n`)
  }
  if (!answer.ok) process.exit(1)
}

async function price(args: string[]): Promise<void> {
  const [method = 'GET', rest] = option(args, 'method')
  const [path] = rest
  if (!path?.startsWith('/')) fail(`price needs a PATH starting with /.\n\n${usage}`, 2)
  const { resources, free } = await manifest(gateway)
  const pathname = new URL(path, gateway).pathname
  const found = [...resources, ...free].filter(
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
  const found = await manifest(base)
  const all = [...found.resources, ...found.free]
  process.stdout.write(
    `${base}: network ${found.network}, asset ${found.asset.address} (${found.asset.name} v${found.asset.version}), payTo ${found.payTo}\n` +
      `${found.resources.length} paid and ${found.free.length} free endpoints, ${all.filter((resource) => resource.available).length} available now\n\n`,
  )
  for (const resource of all.filter((candidate) => candidate.available))
    process.stdout.write(`${`${resource.method} ${resource.path}`.padEnd(48)} ${priceTextOf(resource)}\n`)
}

async function receipts(): Promise<void> {
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

/** Outside a checkout there is no devnet to mint on. */
async function fundElsewhere(): Promise<void> {
  fail('fund mints on the devnet of a checkout of agent-pay-gateway: run `npx agent-pay fund ...` there.', 2)
}

/** Runs the command `args` names; `fund` is the one given (the repository's mints on its devnet). */
export async function main(args: string[], fund: Command = fundElsewhere): Promise<void> {
  const [command, ...rest] = args
  const commands: Record<string, Command> = { call, price, discover, fund, receipts: () => receipts() }
  if (command === undefined || ['help', '--help', '-h'].includes(command)) process.stdout.write(usage)
  else if (command in commands) await commands[command]!(rest)
  else fail(`Unknown command ${command}.\n\n${usage}`, 2)
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href)
  await main(process.argv.slice(2))
