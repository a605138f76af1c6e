import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hex,
  hexToBigInt,
  type PrivateKeyAccount,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { batchChain } from '../../adapters/chain/batch.js'
import { devnet } from '../../adapters/chain/devnet.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory } from '../../adapters/store/memory.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { type Event, events, outboxQueue } from '../../core/Events.js'
import { manifest } from '../../modules/supplychain/index.js'
import { usdcBalance } from '../support/chain.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'

let chain: devnet.Devnet
let app: ReturnType<typeof moduleGateway>
let ports: Record<string, unknown>
/** The outbox of the store and of the events port. */
const queue = memoryQueue()

const signer = (index: number): PrivateKeyAccount => privateKeyToAccount(chain.accounts[index]!.privateKey)
const buyer = () => signer(1)
const supplierOwner = () => signer(2)
const stranger = () => signer(3)
const supplierWallet = () => signer(5).address

beforeAll(async () => {
  chain = await devnet()
  const tokens = Object.fromEntries(Object.entries(chain.tokens).map(([symbol, token]) => [symbol, token.address]))
  ports = {
    store: memory({ queue }),
    queue,
    events: events({ queue }),
    batch: {
      base: batchChain({ client: chain.publicClient, address: chain.batch.address, chainId: chain.chainId, tokens }),
    },
    onchain: {
      chainId: chain.chainId,
      transfers: transfers({ client: chain.publicClient }),
      tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: 6 }],
    },
  }
  app = moduleGateway(manifest, { ports: ports as never })
})

afterAll(async () => {
  await chain.close()
})

async function call(payer: PrivateKeyAccount, method: 'GET' | 'POST', path: string, body?: unknown) {
  return app.send(method, path, body, payer)
}

async function send(account: PrivateKeyAccount, transaction: { to: Address; data: Hex; gasLimit?: Hex }) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction({
    to: transaction.to,
    data: transaction.data,
    ...(transaction.gasLimit ? { gas: hexToBigInt(transaction.gasLimit) } : {}),
  })
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return hash
}

/** Sends the approval and the batch transaction of a `pay` answer from the buyer; the batch's hash. */
async function paid(payment: {
  approvalRequired: { token: Address; spender: Address; amount: string }
  transaction: any
}) {
  const { token, spender, amount } = payment.approvalRequired
  await send(buyer(), {
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, BigInt(amount)] }),
  })
  return send(buyer(), payment.transaction)
}

const balanceOf = (address: Address) => usdcBalance(chain, address)

/** A supplier and a purchase order of 10 bolts at 1.5 USDC and 2 crates at 20 USDC. */
async function ordered() {
  const { supplier } = await ok(
    await call(supplierOwner(), 'POST', '/api/v1/sctp/supplier', {
      name: 'Bolt & Crate GmbH',
      wallet: supplierWallet(),
      paymentTerms: 'net15',
    }),
  )
  const { po } = await ok(
    await call(buyer(), 'POST', '/api/v1/sctp/po', {
      supplierId: supplier.id,
      currency: 'USDC',
      lines: [
        { sku: 'BOLT-M8', quantity: '10', unitPriceRaw: '1500000' },
        { sku: 'CRATE', quantity: '2', unitPriceRaw: '20000000' },
      ],
    }),
  )
  // total is a human decimal of the token, as the original gateway's `total`; totalRaw the atomic units.
  expect([po.total, po.totalRaw]).toEqual(['55', '55000000'])
  return { supplier, po }
}

/** An invoice body of one crate at 1 atomic unit, with the stated `total`. */
const oneCrate = (poId: string, number: string, total: string) => ({
  poId,
  number,
  currency: 'USDC',
  lines: [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '1' }],
  total,
})

let numbers = 0
async function invoiced(
  poId: string,
  lines: { sku: string; quantity: string; unitPriceRaw: string }[],
  number?: string,
) {
  const total = formatUnits(
    lines.reduce((sum, line) => sum + BigInt(line.quantity) * BigInt(line.unitPriceRaw), 0n),
    6,
  )
  const { invoice } = await ok(
    await call(supplierOwner(), 'POST', '/api/v1/sctp/invoice', {
      poId,
      number: number ?? `INV-${++numbers}`,
      currency: 'USDC',
      lines,
      total,
    }),
  )
  return invoice as { id: string; number: string }
}

describe('supplier to paid invoice on the devnet batch contract', () => {
  test('PO, invoice, verify, pay in one batch transaction, and the watcher marks it paid with the transfer', async () => {
    const { po } = await ordered()
    const invoice = await invoiced(po.id, [{ sku: 'BOLT-M8', quantity: '10', unitPriceRaw: '1500000' }])

    // Paying before verification is a 409, and nothing is built.
    await refused(await call(buyer(), 'POST', '/api/v1/sctp/pay', { invoiceIds: [invoice.id] }), 409)

    const verified = await ok(await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: invoice.id }))
    expect(verified.status).toBe('verified')
    expect(verified.checks.map((check: { name: string }) => check.name)).toEqual([
      'supplier',
      'currency',
      'duplicate_invoice_number',
      'lines_on_order',
      'quantities',
      'unit_prices',
      'total',
      'distinct_lines',
    ])
    expect(verified.checks.every((check: { ok: boolean }) => check.ok)).toBe(true)
    expect(verified).toMatchObject({
      poId: po.id,
      recommendation: 'approve_payment',
      totalMatch: true,
      itemsMatch: true,
      discrepancies: [],
      verifiedBy: 'deterministic',
    })

    const payment = await ok(await call(buyer(), 'POST', '/api/v1/sctp/pay', { invoiceIds: [invoice.id] }))
    expect(payment.invoices).toEqual([
      { id: invoice.id, status: 'payment_pending', to: supplierWallet(), amount: '15', amountRaw: '15000000' },
    ])
    expect(payment.approvalRequired.spender).toBe(chain.batch.address)
    const before = await balanceOf(supplierWallet())
    const hash = await paid(payment)
    expect((await balanceOf(supplierWallet())) - before).toBe(15_000_000n)

    const seen = await ok(await call(supplierOwner(), 'GET', `/api/v1/sctp/invoice/${invoice.id}`))
    expect(seen.invoice.status).toBe('paid')
    expect(seen).toMatchObject({
      invoiceId: invoice.id,
      poId: po.id,
      supplierName: 'Bolt & Crate GmbH',
      total: '15',
      status: 'paid',
      txHash: hash,
      paidAt: seen.invoice.payment.paidAt,
    })
    expect(seen.invoice.payment.transaction).toBe(hash)
    const po2 = await ok(await call(buyer(), 'GET', `/api/v1/sctp/po/${po.id}`))
    expect(po2).toMatchObject({ poId: po.id, supplierName: 'Bolt & Crate GmbH', total: '55', totalRaw: '55000000' })
    // Our lines carry the unit price RAW (unitPriceRaw); the original's items HUMAN (unitPrice), the raw one beside.
    expect(po2.po.lines).toEqual([
      { sku: 'BOLT-M8', quantity: '10', unitPriceRaw: '1500000' },
      { sku: 'CRATE', quantity: '2', unitPriceRaw: '20000000' },
    ])
    expect(po2.items).toEqual([
      { sku: 'BOLT-M8', quantity: '10', unitPrice: '1.5', unitPriceRaw: '1500000' },
      { sku: 'CRATE', quantity: '2', unitPrice: '20', unitPriceRaw: '20000000' },
    ])
    expect(po2.invoices).toEqual([
      { id: invoice.id, number: invoice.number, status: 'paid', total: '15', totalRaw: '15000000' },
    ])
    expect([seen.invoice.payment.amount, seen.invoice.payment.amountRaw]).toEqual(['15', '15000000'])
    await refused(await call(buyer(), 'POST', '/api/v1/sctp/pay', { invoiceIds: [invoice.id] }), 409)
  })

  test('the watcher job finds a payment nobody polled for', async () => {
    const { po } = await ordered()
    const invoice = await invoiced(po.id, [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '20000000' }])
    await ok(await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: invoice.id }))
    const payment = await ok(await call(buyer(), 'POST', '/api/v1/sctp/pay', { invoiceIds: [invoice.id] }))
    const hash = await paid(payment)
    const [job] = manifest.jobs!
    const scanned = (await job!.run({ ports: ports as never, env: { SCTP_PRICE_TOLERANCE_BPS: 50 } })) as {
      paid: number
    }
    expect(scanned.paid).toBe(1)
    const seen = await ok(await call(buyer(), 'GET', `/api/v1/sctp/invoice/${invoice.id}`))
    expect(seen.invoice.payment.transaction).toBe(hash)
    // The buyer and the supplier each get invoice.paid and the transfer's transfer.seen, with the invoice's update.
    const recorded = (await queue.claim<Event>(outboxQueue, { limit: 1_000 })).map((item) => item.payload)
    for (const party of [buyer().address, supplierOwner().address]) {
      expect(recorded.find((event) => event.id === `invoice.paid:${invoice.id}:${party}`)).toMatchObject({
        type: 'invoice.paid',
        data: { invoiceId: invoice.id, amountRaw: '20000000', token: chain.token.address, transaction: hash },
      })
      const seen = recorded.filter((event) => event.type === 'transfer.seen' && event.owner === party)
      expect(seen.map((event) => event.data)).toContainEqual(
        expect.objectContaining({ transaction: hash, to: supplierWallet(), amountRaw: '20000000' }),
      )
    }
  })
})

describe('the match', () => {
  test('over-billing, an unknown SKU, a wrong total and a reused number are rejected; a dearer price needs review', async () => {
    const { po } = await ordered()
    const verify = async (id: string) =>
      ok(await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: id }))
    const failed = (result: { checks: { name: string; ok: boolean }[] }) =>
      result.checks.filter((check) => !check.ok).map((check) => check.name)

    const first = await invoiced(po.id, [{ sku: 'BOLT-M8', quantity: '6', unitPriceRaw: '1500000' }])
    expect((await verify(first.id)).status).toBe('verified')
    const over = await verify((await invoiced(po.id, [{ sku: 'BOLT-M8', quantity: '5', unitPriceRaw: '1500000' }])).id)
    expect([over.status, failed(over)]).toEqual(['rejected', ['quantities']])
    const unknown = await verify((await invoiced(po.id, [{ sku: 'NUT', quantity: '1', unitPriceRaw: '1' }])).id)
    expect([unknown.status, failed(unknown)]).toEqual(['rejected', ['lines_on_order']])
    const reused = await verify(
      (
        await invoiced(
          po.id,
          [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '20000000' }],
          ` ${first.number.toLowerCase()}`,
        )
      ).id,
    )
    expect([reused.status, failed(reused)]).toEqual(['rejected', ['duplicate_invoice_number']])
    // 0.5% over is within the default tolerance; 0.6% is not.
    const within = await verify((await invoiced(po.id, [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '20100000' }])).id)
    expect(within.status).toBe('verified')
    const dear = await verify((await invoiced(po.id, [{ sku: 'BOLT-M8', quantity: '1', unitPriceRaw: '1509000' }])).id)
    expect([dear.status, failed(dear)]).toEqual(['review_required', ['unit_prices']])
    expect(dear).toMatchObject({ recommendation: 'review_required', totalMatch: true, itemsMatch: false })
    expect(dear.discrepancies).toEqual([expect.stringMatching(/^unit_prices: /)])
    await refused(await call(buyer(), 'POST', '/api/v1/sctp/pay', { invoiceIds: [dear.invoiceId] }), 409)

    const { invoice: wrongTotal } = await ok(
      await call(supplierOwner(), 'POST', '/api/v1/sctp/invoice', oneCrate(po.id, 'WT-1', '2')),
    )
    const totalled = await verify(wrongTotal.id)
    expect([totalled.status, failed(totalled)]).toEqual(['rejected', ['total']])
    expect(totalled).toMatchObject({ recommendation: 'reject', totalMatch: false, itemsMatch: true })
    await refused(await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: first.id }), 409)
  })

  test('others get 404: a stranger reading the PO or the invoice, the buyer invoicing its own order', async () => {
    const { po, supplier } = await ordered()
    const invoice = await invoiced(po.id, [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '20000000' }])
    await refused(await call(stranger(), 'GET', `/api/v1/sctp/po/${po.id}`), 404)
    await refused(await call(stranger(), 'GET', `/api/v1/sctp/invoice/${invoice.id}`), 404)
    await refused(await call(stranger(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: invoice.id }), 404)
    await refused(await call(buyer(), 'POST', '/api/v1/sctp/invoice', oneCrate(po.id, 'B-1', '1')), 404)
    expect((await ok(await call(stranger(), 'GET', `/api/v1/sctp/supplier/${supplier.id}`))).supplier.wallet).toBe(
      supplierWallet(),
    )
  })

  test('bad input is 400 before payment', async () => {
    await refused(await app.post('/api/v1/sctp/po', { supplierId: 'x', currency: 'USDC', lines: [] }), 400)
    await refused(await app.fetch('/api/v1/sctp/invoice/nope'), 400)
  })
})

describe("the original gateway's clients", () => {
  test('supplier in the original names (chain, preferredToken, contactEmail, metadata) answers its flat fields', async () => {
    const created = await ok(
      await call(supplierOwner(), 'POST', '/api/v1/sctp/supplier', {
        name: 'Acme Parts',
        wallet: supplierWallet(),
        chain: 'base',
        preferredToken: 'USDC',
        contactEmail: 'ap@acme.example',
        metadata: { vendorNo: 7 },
      }),
    )
    expect(created).toMatchObject({
      supplierId: created.supplier.id,
      name: 'Acme Parts',
      wallet: supplierWallet(),
      chain: 'base',
      preferredToken: 'USDC',
      contactEmail: 'ap@acme.example',
      metadata: { vendorNo: 7 },
      createdAt: created.supplier.createdAt,
    })
    const read = await ok(await call(stranger(), 'GET', `/api/v1/sctp/supplier/${created.supplierId}`))
    expect(read).toMatchObject({ supplierId: created.supplierId, contactEmail: 'ap@acme.example', chain: 'base' })
  })

  test("supplier from its MCP server's tool: paymentPrefs' token and chain honoured, its other keys kept and answered back", async () => {
    const paymentPrefs = { token: 'usdc', chain: 'Base', schedule: 'monthly', net: 30 }
    const created = await ok(
      await call(supplierOwner(), 'POST', '/api/v1/sctp/supplier', {
        name: 'Acme Parts',
        wallet: supplierWallet(),
        paymentPrefs,
      }),
    )
    expect(created).toMatchObject({ chain: 'base', preferredToken: 'USDC', paymentPrefs })
    expect(created.supplier.currency).toBe('USDC')
    const read = await ok(await call(stranger(), 'GET', `/api/v1/sctp/supplier/${created.supplierId}`))
    expect(read).toMatchObject({ supplierId: created.supplierId, preferredToken: 'USDC', paymentPrefs })
  })

  test('po and invoice take its free-form items: unitPrice (or price) HUMAN, quantity 1 by default, matched by position', async () => {
    const { supplier } = await ordered()
    const created = await ok(
      await call(buyer(), 'POST', '/api/v1/sctp/po', {
        supplierId: supplier.id,
        items: [
          { description: 'Bolts M8', quantity: 10, unitPrice: '1.5' },
          { description: 'Crate', quantity: '2', price: 20 },
          { description: 'Pallet', unitPrice: 0.25 },
        ],
        total: '55.25',
        metadata: { costCenter: 'ops' },
      }),
    )
    expect(created).toMatchObject({
      poId: created.po.id,
      supplierId: supplier.id,
      currency: 'USDC',
      total: '55.25',
      totalRaw: '55250000',
      status: 'open',
      items: [
        { sku: '1', description: 'Bolts M8', quantity: '10', unitPrice: '1.5', unitPriceRaw: '1500000' },
        { sku: '2', description: 'Crate', quantity: '2', unitPrice: '20', unitPriceRaw: '20000000' },
        { sku: '3', description: 'Pallet', quantity: '1', unitPrice: '0.25', unitPriceRaw: '250000' },
      ],
    })
    expect(created.po.lines[0]).toEqual({ sku: '1', description: 'Bolts M8', quantity: '10', unitPriceRaw: '1500000' })
    expect(created.po.metadata).toEqual({ costCenter: 'ops' })

    // Its invoice: supplierId named, no number or currency (the invoice id and the order's token), items by position.
    const submitted = await ok(
      await call(supplierOwner(), 'POST', '/api/v1/sctp/invoice', {
        poId: created.poId,
        supplierId: supplier.id,
        items: [{ description: 'Bolts M8', quantity: 10, unitPrice: 1.5 }],
        total: 15,
      }),
    )
    expect(submitted).toMatchObject({
      invoiceId: submitted.invoice.id,
      poId: created.poId,
      supplierId: supplier.id,
      items: [{ sku: '1', quantity: '10', unitPrice: '1.5', unitPriceRaw: '1500000' }],
      total: '15',
      totalRaw: '15000000',
      status: 'submitted',
    })
    expect([submitted.invoice.number, submitted.invoice.currency]).toEqual([submitted.invoiceId, 'USDC'])
    const verified = await ok(
      await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: submitted.invoiceId }),
    )
    expect(verified).toMatchObject({ status: 'verified', recommendation: 'approve_payment', itemsMatch: true })
  })

  test('pay as the original: supplierId and amount "2500" is 2,500 USDC in the batch calldata, with the approval for it and the fee', async () => {
    const { supplier } = await ordered()
    const answer = await ok(
      await call(buyer(), 'POST', '/api/v1/sctp/pay', { supplierId: supplier.id, amount: '2500' }),
    )
    expect(answer).toMatchObject({
      status: 'ready',
      batch: false,
      count: 1,
      payments: [
        {
          invoiceId: null,
          supplierId: supplier.id,
          supplierWallet: supplierWallet(),
          amount: '2500',
          amountRaw: '2500000000',
          token: 'USDC',
        },
      ],
      summary: { token: 'USDC', chain: 'base', totalAmount: '2500', totalAmountRaw: '2500000000', recipientCount: 1 },
    })
    const { args } = decodeFunctionData({ abi: BatchPayment.abi, data: answer.transactions.batchPayment.data })
    expect(args[1]).toEqual([{ recipient: supplierWallet(), amount: 2_500_000_000n }])
    const approval = decodeFunctionData({ abi: erc20Abi, data: answer.transactions.approval.data })
    expect(approval.args).toEqual([chain.batch.address, BigInt(answer.summary.totalWithFeeRaw)])
    expect(answer.summary.totalWithFeeRaw).toBe(answer.approvalRequired.amount)
  })

  test('pay as the original: payments[] naming a verified invoice of its exact total marks it paid once the batch lands', async () => {
    const { po, supplier } = await ordered()
    const invoice = await invoiced(po.id, [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '20000000' }])
    await ok(await call(buyer(), 'POST', '/api/v1/sctp/invoice/verify', { invoiceId: invoice.id }))
    const wrong = await refused(
      await call(buyer(), 'POST', '/api/v1/sctp/pay', {
        payments: [{ supplierId: supplier.id, invoiceId: invoice.id, amount: 19.5 }],
      }),
      400,
    )
    expect(wrong.field).toBe('payments.0.amount')
    const answer = await ok(
      await call(buyer(), 'POST', '/api/v1/sctp/pay', {
        payments: [{ supplierId: supplier.id, invoiceId: invoice.id, amount: 20 }],
        sender: buyer().address,
      }),
    )
    expect(answer).toMatchObject({ batch: true, count: 1, payments: [{ invoiceId: invoice.id, amount: '20' }] })
    const before = await balanceOf(supplierWallet())
    await send(buyer(), answer.transactions.approval)
    const hash = await send(buyer(), answer.transactions.batchPayment)
    expect((await balanceOf(supplierWallet())) - before).toBe(20_000_000n)
    const seen = await ok(await call(buyer(), 'GET', `/api/v1/sctp/invoice/${invoice.id}`))
    expect([seen.invoice.status, seen.invoice.payment.transaction]).toEqual(['paid', hash])
  })

  test('error: the original names and human amounts refused as bad input before any payment', async () => {
    const { supplier, po } = await ordered()
    const unpaid = (path: string, body: unknown) =>
      app.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const cases: [string, unknown, string][] = [
      ['/api/v1/sctp/pay', { supplierId: supplier.id, amount: '2500.0000001' }, 'amount'],
      ['/api/v1/sctp/pay', { supplierId: supplier.id, amount: '0' }, 'amount'],
      ['/api/v1/sctp/pay', { payments: [{ supplierId: supplier.id, amount: '1e3' }] }, 'payments.0.amount'],
      ['/api/v1/sctp/pay', { supplierId: supplier.id, amount: '1', token: 'DAI' }, 'token'],
      ['/api/v1/sctp/pay', { supplierId: supplier.id, amount: '1', chain: 'polygon' }, 'chain'],
      ['/api/v1/sctp/pay', { invoiceIds: [`inv_${'0'.repeat(24)}`], amount: '1' }, 'amount'],
      ['/api/v1/sctp/pay', { amount: '1' }, 'supplierId'],
      [
        '/api/v1/sctp/invoice',
        {
          poId: po.id,
          number: 'H-1',
          currency: 'USDC',
          lines: [{ sku: 'CRATE', quantity: '1', unitPriceRaw: '1' }],
          total: '55.0000001',
        },
        'total',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), currency: 'USDC', preferredToken: 'USDC' },
        'currency',
      ],
      ['/api/v1/sctp/supplier', { name: 'X', wallet: supplierWallet(), chain: 'solana' }, 'chain'],
      // Its MCP server's paymentPrefs: a token and chain paid in here, and one name of each.
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), paymentPrefs: { chain: 'solana' } },
        'paymentPrefs.chain',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), paymentPrefs: { token: 'DOGE' } },
        'paymentPrefs.token',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), preferredToken: 'USDC', paymentPrefs: { token: 'USDC' } },
        'paymentPrefs.token',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), chain: 'base', paymentPrefs: { chain: 'base' } },
        'paymentPrefs.chain',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), paymentPrefs: { note: 'x'.repeat(17_000) } },
        'paymentPrefs',
      ],
      // Items: HUMAN prices of the token, whole quantities, one price name, one form per body, a true total.
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ unitPrice: '1.0000001' }] }, 'items.0.unitPrice'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ price: 1e-7 }] }, 'items.0.price'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ unitPrice: 1, price: 1 }] }, 'items.0.unitPrice'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ description: 'no price' }] }, 'items.0.unitPrice'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ unitPrice: 1, quantity: '1.5' }] }, 'items.0.quantity'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ unitPrice: 1, quantity: '0' }] }, 'items.0.quantity'],
      ['/api/v1/sctp/po', { supplierId: supplier.id, items: [{ unitPrice: 1 }], total: '2' }, 'total'],
      [
        '/api/v1/sctp/po',
        {
          supplierId: supplier.id,
          items: [{ unitPrice: 1 }],
          lines: [{ sku: 'A', quantity: '1', unitPriceRaw: '1' }],
        },
        'lines',
      ],
      [
        '/api/v1/sctp/po',
        {
          supplierId: supplier.id,
          lines: [
            { sku: 'A', quantity: '1', unitPriceRaw: '1' },
            { sku: 'A', quantity: '2', unitPriceRaw: '1' },
          ],
        },
        'lines',
      ],
      ['/api/v1/sctp/po', { supplierId: supplier.id }, 'lines'],
      [
        '/api/v1/sctp/invoice',
        { poId: po.id, supplierId: `sup_${'0'.repeat(24)}`, items: [{ sku: 'CRATE', unitPrice: 20 }], total: 20 },
        'supplierId',
      ],
      [
        '/api/v1/sctp/invoice',
        { poId: po.id, items: [{ sku: 'CRATE', unitPrice: '20.0000001' }], total: 20 },
        'items.0.unitPrice',
      ],
      [
        '/api/v1/sctp/supplier',
        { name: 'X', wallet: supplierWallet(), contact: 'a', contactEmail: 'a@b.c' },
        'contact',
      ],
    ]
    for (const [path, body, field] of cases) {
      const problem = await refused(await unpaid(path, body), 400)
      expect(`${path} ${problem.field}`).toBe(`${path} ${field}`)
    }
  })

  test("error: our lines' former unitPrice (RAW) is refused, naming unitPriceRaw: unitPrice is the items' HUMAN price", async () => {
    const { supplier } = await ordered()
    const problem = await refused(
      await app.post('/api/v1/sctp/po', {
        supplierId: supplier.id,
        currency: 'USDC',
        lines: [{ sku: 'BOLT-M8', quantity: '10', unitPrice: '1500000' }],
      }),
      400,
    )
    expect(problem.field).toBe('lines.0.unitPrice')
    expect(problem.detail).toContain('unitPriceRaw')
  })
})
