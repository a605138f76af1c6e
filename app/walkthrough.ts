import { Webhook } from 'standardwebhooks'
import { type Address, createWalletClient, encodeFunctionData, erc20Abi, type Hex, hexToBigInt, http } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { contracts, mnemonic } from '../adapters/chain/devnet.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import * as RobotRequest from '../core/RobotRequest.js'
import { clients } from './clients.js'
import { connectDevnet, gatewayUrl } from './devnet-client.js'

// Dev command: walks a running gateway on a devnet through a robot task (register, task, deposit, dispatch, complete,
// release) and a supply-chain payment (supplier, PO, invoice, verify, pay, paid), paying each paid call with x402
// and sending every transaction the gateway hands out. Devnet accounts: #1 requester and buyer, #2 robot operator and
// supplier, #5 the supplier's wallet. The robot's endpoint is served here on 127.0.0.1, so start the gateway with
// OUTBOUND_ALLOW=127.0.0.1 for the delivery to land.
// Usage: npm run walkthrough -- [robots|sctp]   (GATEWAY_URL or PORT, DEVNET_RPC_URL or DEVNET_RPC_PORT)

const which = process.argv[2] ?? 'both'
const gateway = gatewayUrl()
const discovery = await fetch(`${gateway}/.well-known/x402.json`).catch(() => undefined)
if (!discovery) {
  process.stderr.write(`No gateway answers at ${gateway}: start one with \`npm start\` (or set GATEWAY_URL).\n`)
  process.exit(1)
}
const terms = (await discovery.json()) as PaymentTerms
const { chain, client, url } = await connectDevnet({
  expected: { name: 'escrow contract', address: contracts().escrow },
})
const buyer = mnemonicToAccount(mnemonic, { addressIndex: 1 })
const operator = mnemonicToAccount(mnemonic, { addressIndex: 2 })
const supplierWallet = mnemonicToAccount(mnemonic, { addressIndex: 5 }).address
const pay = clients({ terms, fetch })
const step = (text: string, value?: unknown) =>
  process.stdout.write(`${text}${value === undefined ? '' : `\n  ${JSON.stringify(value)}`}\n`)

/** Calls the gateway, paying with x402 when it answers 402; stops on anything but a 200. */
async function call(payer: typeof buyer | undefined, method: string, path: string, body?: unknown) {
  const init = {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  }
  const response = await (payer ? pay.x402(payer) : fetch)(`${gateway}${path}`, init)
  const text = await response.text()
  if (response.status !== 200) {
    process.stderr.write(`${method} ${path} answered ${response.status}: ${text}\n`)
    process.exit(1)
  }
  return JSON.parse(text)
}

/** Sends a transaction the gateway built, from `account`, and waits for it. */
async function send(account: typeof buyer, transaction: { to: Address; data: Hex; gasLimit?: Hex }) {
  const wallet = createWalletClient({ account, chain, transport: http(url, { retryCount: 0 }) })
  const hash = await wallet.sendTransaction({
    to: transaction.to,
    data: transaction.data,
    ...(transaction.gasLimit ? { gas: hexToBigInt(transaction.gasLimit) } : {}),
  })
  await client.waitForTransactionReceipt({ hash })
  return hash
}

let nonce = BigInt(Date.now())
async function signed(action: RobotRequest.Action, fields: Record<string, unknown>) {
  nonce += 1n
  const request = {
    ...fields,
    operator: operator.address,
    nonce: nonce.toString(),
    expiry: Math.floor(Date.now() / 1000) + 600,
  }
  const signature = await operator.signTypedData(RobotRequest.typedData({ chainId: chain.id, action, request }))
  return { ...request, signature }
}

const balanceOf = (address: Address) =>
  client.readContract({ address: terms.asset.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

if (which === 'robots' || which === 'both') {
  const received: { verified: unknown }[] = []
  let secret = ''
  const robot = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const body = await request.text()
      received.push({
        verified: new Webhook(secret.slice('whsec_'.length)).verify(body, Object.fromEntries(request.headers)),
      })
      return new Response(null, { status: 204 })
    },
  })
  const registered = await call(
    undefined,
    'POST',
    '/api/v1/robots/register',
    await signed('register', {
      name: 'Forklift 7',
      capabilities: ['delivery'],
      pricing: { delivery: '2500000' },
      token: 'USDC',
      location: { label: 'Hamburg port, berth 4', country: 'DE' },
      availability: 'available',
      endpoint: `http://127.0.0.1:${robot.port}/tasks`,
      maxTaskSeconds: 600,
    }),
  )
  secret = registered.webhookSecret
  step('1. register (free, signed by the operator):', registered.robot)
  const created = await call(buyer, 'POST', '/api/v1/robots/task', {
    robotId: registered.robot.id,
    taskType: 'delivery',
    input: { from: 'A1', to: 'B4' },
  })
  step('2. task (0.05 USDC): escrow terms, approve and deposit to sign', {
    id: created.task_id,
    escrow: created.escrow_id,
  })
  step('3. deposit sent by the requester:', [
    await send(buyer, created.transactions.approve),
    await send(buyer, created.transactions.deposit),
  ])
  const dispatched = await call(buyer, 'GET', `/api/v1/robots/status?task_id=${created.task_id}`)
  step('4. status (0.002 USDC):', { status: dispatched.status, delivery: dispatched.taskRecord.delivery })
  step(
    '   the robot received a signed webhook:',
    received.at(-1)?.verified ?? 'nothing (is OUTBOUND_ALLOW=127.0.0.1 set?)',
  )
  const before = await balanceOf(operator.address)
  const done = await call(
    undefined,
    'POST',
    '/api/v1/robots/complete',
    await signed('complete', { taskId: created.task_id, result: { delivered: true } }),
  )
  step('5. complete (free, signed by the operator): released', done.taskRecord.settlement)
  step(`   the operator received ${(await balanceOf(operator.address)) - before} atomic USDC`)
  robot.stop(true)
}

if (which === 'sctp' || which === 'both') {
  const { supplier } = await call(operator, 'POST', '/api/v1/sctp/supplier', {
    name: 'Bolt & Crate GmbH',
    wallet: supplierWallet,
    paymentTerms: 'net15',
  })
  step('6. supplier (0.02 USDC):', supplier)
  const { po } = await call(buyer, 'POST', '/api/v1/sctp/po', {
    supplierId: supplier.id,
    currency: 'USDC',
    lines: [
      { sku: 'BOLT-M8', quantity: '10', unitPriceRaw: '1500000' },
      { sku: 'CRATE', quantity: '2', unitPriceRaw: '20000000' },
    ],
  })
  step('7. po (0.02 USDC):', { id: po.id, total: po.total, totalRaw: po.totalRaw })
  const { invoice } = await call(operator, 'POST', '/api/v1/sctp/invoice', {
    poId: po.id,
    number: `INV-${Date.now()}`,
    currency: 'USDC',
    lines: [{ sku: 'BOLT-M8', quantity: '10', unitPriceRaw: '1500000' }],
    total: '15',
  })
  step('8. invoice (0.02 USDC, by the supplier):', { id: invoice.id, status: invoice.status })
  const verified = await call(buyer, 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: invoice.id })
  step('9. invoice/verify (0.03 USDC):', {
    status: verified.status,
    checks: verified.checks.map((check: { name: string; ok: boolean }) => `${check.name}: ${check.ok}`),
  })
  const payment = await call(buyer, 'POST', '/api/v1/sctp/pay', { invoiceIds: [invoice.id] })
  step('10. pay (0.10 USDC): approval and batch transaction', payment.invoices)
  const { approvalRequired } = payment
  await send(buyer, {
    to: approvalRequired.token,
    data: encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [approvalRequired.spender, BigInt(approvalRequired.amount)],
    }),
  })
  step('   batch sent by the buyer:', await send(buyer, payment.transaction))
  const paid = await call(buyer, 'GET', `/api/v1/sctp/invoice/${invoice.id}`)
  step('11. invoice (0.005 USDC):', { status: paid.invoice.status, payment: paid.invoice.payment })
}
