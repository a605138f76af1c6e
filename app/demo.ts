import { decodePaymentResponseHeader } from '@x402/core/http'
import { Receipt } from 'mppx'
import { formatUnits, type Hex, verifyMessage } from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { settleResponseFromHeader } from 'x402/types'
import { mnemonic } from '../adapters/chain/devnet.js'
import * as Messaging from '../core/Messaging.js'
import { chainIdOf, type PaymentTerms } from '../core/PaymentTerms.js'
import * as Price from '../core/Price.js'
import { clients } from './clients.js'
import { gatewayUrl } from './devnet-client.js'

// A demo agent: pays a running gateway once with each official client and prints cost and transaction, then sends an
// end-to-end encrypted wallet message to a second wallet, which reads its inbox and decrypts it.
// GATEWAY_URL (default http://127.0.0.1:${PORT:-3402}), DEMO_PRIVATE_KEY (default: devnet test account #1) and
// DEMO_RECIPIENT_PRIVATE_KEY (the message's recipient, who pays to read its inbox; default: devnet test account #2).

const gateway = gatewayUrl()
const payer = process.env.DEMO_PRIVATE_KEY
  ? privateKeyToAccount(process.env.DEMO_PRIVATE_KEY as Hex)
  : mnemonicToAccount(mnemonic, { addressIndex: 1 })
const recipient = process.env.DEMO_RECIPIENT_PRIVATE_KEY
  ? privateKeyToAccount(process.env.DEMO_RECIPIENT_PRIVATE_KEY as Hex)
  : mnemonicToAccount(mnemonic, { addressIndex: 2 })

const discovery = await fetch(`${gateway}/.well-known/x402.json`).catch(() => undefined)
if (!discovery) {
  process.stderr.write(`No gateway answers at ${gateway}: start one with \`npm start\` (or set GATEWAY_URL).\n`)
  process.exit(1)
}
const manifest = (await discovery.json()) as PaymentTerms & {
  resources: { method: string; path: string; price: { amount: string }; available: boolean }[]
}
const terms: PaymentTerms = {
  network: manifest.network,
  asset: manifest.asset,
  payTo: manifest.payTo,
  maxTimeoutSeconds: manifest.maxTimeoutSeconds,
}
const pay = clients({ terms, fetch })
const priceOf = (method: string, path: string) =>
  manifest.resources.find((resource) => resource.method === method && resource.path === path)?.price.amount ?? '?'
const rpcCall = (method: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ chain: 'devnet', method, params: [] }),
})

process.stdout.write(`Agent ${payer.address} paying ${gateway} on ${terms.network}\n\n`)
const rows: string[][] = [['protocol', 'call', 'status', 'cost (USD)', 'transaction']]

{
  const response = await pay.x402(payer)(`${gateway}/api/v1/rpc/chains`)
  const settled = response.ok ? decodePaymentResponseHeader(response.headers.get('payment-response')!) : undefined
  rows.push([
    'x402 v2 (@x402/fetch)',
    'GET /api/v1/rpc/chains',
    String(response.status),
    priceOf('GET', '/api/v1/rpc/chains'),
    settled?.transaction ?? (await response.text()),
  ])
}
{
  const unpaid = await fetch(`${gateway}/api/v1/rpc/call`, rpcCall('eth_blockNumber'))
  const header = await pay.x402v1Header(payer, unpaid)
  const init = rpcCall('eth_blockNumber')
  const response = await fetch(`${gateway}/api/v1/rpc/call`, {
    ...init,
    headers: { ...init.headers, 'X-PAYMENT': header },
  })
  const settled = response.ok ? settleResponseFromHeader(response.headers.get('x-payment-response')!) : undefined
  rows.push([
    'x402 v1 (x402 client)',
    'POST /api/v1/rpc/call eth_blockNumber',
    String(response.status),
    priceOf('POST', '/api/v1/rpc/call'),
    settled?.transaction ?? (await response.text()),
  ])
}
{
  const response = await pay.mpp(payer)(`${gateway}/api/v1/rpc/call`, rpcCall('eth_chainId'))
  const receipt = response.ok ? Receipt.deserialize(response.headers.get('payment-receipt')!) : undefined
  rows.push([
    'MPP (mppx client)',
    'POST /api/v1/rpc/call eth_chainId',
    String(response.status),
    priceOf('POST', '/api/v1/rpc/call'),
    receipt?.reference ?? (await response.text()),
  ])
}

const json = { 'content-type': 'application/json' }
const notes: string[] = []
{
  // The recipient binds a fresh messaging key (never its wallet key) to its address with a signature, for free.
  const messaging = Messaging.createKeyPair()
  const chainId = chainIdOf(terms.network)
  const issuedAt = new Date().toISOString()
  const message = Messaging.keyMessage({
    address: recipient.address,
    publicKey: messaging.publicKey,
    chainId,
    issuedAt,
  })
  const registration = {
    address: recipient.address,
    publicKey: messaging.publicKey,
    signature: await recipient.signMessage({ message }),
    issuedAt,
  }
  const registered = await fetch(`${gateway}/api/v1/msg/keys`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(registration),
  })
  if (!registered.ok) notes.push(`Key registration refused: ${registered.status} ${await registered.text()}`)
  // The sender fetches the key and checks the recipient's signature itself, rebuilding the signed text from the fields.
  const key = (await (await fetch(`${gateway}/api/v1/msg/keys/${recipient.address}`)).json()) as {
    publicKey: Hex
    signature: Hex
    issuedAt: string
  }
  const signed = Messaging.keyMessage({
    address: recipient.address,
    publicKey: key.publicKey,
    chainId,
    issuedAt: key.issuedAt,
  })
  const bound = await verifyMessage({ address: recipient.address, message: signed, signature: key.signature }).catch(
    () => false,
  )
  const text = `gm from ${payer.address}, sent at ${new Date().toISOString()}`
  const sent = bound
    ? await pay.x402(payer)(`${gateway}/api/v1/msg/send`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          to: recipient.address,
          content: Messaging.encrypt({ content: text, publicKey: key.publicKey }),
        }),
      })
    : new Response(`the key served for ${recipient.address} is not signed by it`, { status: 409 })
  rows.push([
    'x402 v2 (@x402/fetch)',
    'POST /api/v1/msg/send (ciphertext only)',
    String(sent.status),
    priceOf('POST', '/api/v1/msg/send'),
    sent.ok ? decodePaymentResponseHeader(sent.headers.get('payment-response')!).transaction : await sent.text(),
  ])
  const read = await pay.x402(recipient)(`${gateway}/api/v1/msg/inbox?address=${recipient.address}&limit=1`)
  const inbox = read.ok ? ((await read.clone().json()) as { messages: { envelope: string }[] }) : undefined
  rows.push([
    'x402 v2 (@x402/fetch)',
    'GET /api/v1/msg/inbox (recipient pays)',
    String(read.status),
    priceOf('GET', '/api/v1/msg/inbox'),
    read.ok ? decodePaymentResponseHeader(read.headers.get('payment-response')!).transaction : await read.text(),
  ])
  const envelope = inbox?.messages[0]?.envelope
  if (envelope)
    notes.push(
      `${recipient.address} decrypted its newest message: "${Messaging.decrypt({ envelope, privateKey: messaging.privateKey })}"`,
    )
}

const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}\n`)
const spent = rows
  .slice(1)
  .filter((row) => row[2] === '200')
  .reduce((sum, row) => sum + Price.toAtomic(row[3]!), 0n)
process.stdout.write(`\nSpent ${formatUnits(spent, 6)} USDC in ${rows.length - 1} calls.\n`)
for (const note of notes) process.stdout.write(`${note}\n`)
if (rows.slice(1).some((row) => row[2] !== '200')) process.exit(1)
