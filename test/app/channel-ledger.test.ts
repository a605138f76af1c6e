import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createWalletClient, getAddress, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import walletJson from '../../adapters/chain/contracts/artifacts/MinimalERC1271Wallet.json' with { type: 'json' }
import type { channels } from '../../app/payment/channel.js'
import * as Idempotency from '../../app/payment/idempotency.js'
import * as Channel from '../../core/Channel.js'
import type { Store } from '../../core/Store.js'
import { otherProcessChannels } from '../support/channels.js'
import { origin, paidGateway } from '../support/paid.js'

// A call paid over a channel keeps the ledger's guarantees of an exact payment: a retry of the same request with the
// same voucher gets the kept answer and is charged once; a call that is not charged (its handler failed, its
// reservation was lost, its process died) leaves none of its writes behind.

const path = '/api/v1/rpc/chains'
const url = `${origin}${path}`
const refuse = () => new Response(null, { status: 402 })
const writes = 'channel-ledger-test-writes'

let gateway: Awaited<ReturnType<typeof paidGateway>>
/** The channel side of another process on the gateway's store, whose reservations expire after 1 ms. */
let other: ReturnType<typeof channels>
let otherStore: Store
let payer: LocalAccount
let offer: PaymentRequirements
let config: Channel.Config
let channelId: `0x${string}`
let price: bigint

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'channel-ledger-'))
  gateway = await paidGateway({ env: { DATA_DIR: dataDir } })
  ;({ channels: other, store: otherStore } = otherProcessChannels({
    gateway,
    dataDir,
    relayerIndex: 26,
    reservationMs: 1,
  }))
  payer = gateway.account(6)
  const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(payer, gateway.devnet.publicClient as never), {
    depositStrategy: () => '100000',
  })
  const client = new x402Client().register(gateway.terms.network, scheme)
  client.setSpendControls({
    allowedAssets: [
      { network: gateway.terms.network, asset: gateway.terms.asset.address, maxAmountPerPayment: '100000' },
    ],
  })
  // The official client opens the channel with its deposit and first call.
  expect((await wrapFetchWithPayment(gateway.fetch, client)(url)).status).toBe(200)
  offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
    (accept) => accept.scheme === Channel.scheme,
  )!
  price = BigInt(offer.amount)
  config = scheme.buildChannelConfig(offer) as Channel.Config
  channelId = computeChannelId(config, gateway.terms.network).toLowerCase() as `0x${string}`
})
afterAll(async () => {
  await otherStore?.close()
  await gateway?.close()
})

const charged = async () =>
  BigInt((await gateway.store.get<Channel.State>(Channel.collection, channelId))!.value.charged)

/** The payer's voucher for the next call, as a decoded payload and as the request header. */
async function nextVoucher() {
  const voucher = await signVoucher(payer, channelId, ((await charged()) + price).toString(), gateway.terms.network)
  const payload = {
    x402Version: 2,
    accepted: offer,
    resource: { url },
    payload: { type: 'voucher', channelConfig: config, voucher },
  }
  return { payload, header: encodePaymentSignatureHeader(payload as never) }
}

const call = () => ({
  amount: price,
  fingerprint: Idempotency.fingerprint({ request: new Request(url), body: undefined }),
})

/** A write of the call's handler, recorded with its reservation as the journaled store does. */
async function write(held: Exclude<Awaited<ReturnType<typeof other.before>>, Response>, id: string) {
  const inserted = await otherStore.insert({
    collection: writes,
    id,
    owners: [payer.address],
    value: { id },
    createdAt: new Date(),
  })
  expect(inserted.ok).toBe(true)
  await other.record(held, { type: 'insert', collection: writes, id })
}

describe('channel calls keep the ledger guarantees', () => {
  test('a retry of the same request with the same voucher gets the kept answer, charged once; another request is refused', async () => {
    const { header } = await nextVoucher()
    const before = await charged()
    const first = await gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(first.status).toBe(200)
    const body = await first.text()
    expect(await charged()).toBe(before + price)

    const retry = await gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(retry.status).toBe(200)
    expect(await retry.text()).toBe(body)
    const settled = decodePaymentResponseHeader(retry.headers.get('PAYMENT-RESPONSE')!)
    expect(settled.amount).toBe('0')
    expect(settled.extra).toMatchObject({
      replayed: true,
      channelState: { chargedCumulativeAmount: (before + price).toString() },
    })
    expect(await charged()).toBe(before + price)

    const elsewhere = await gateway.fetch(`${url}?another=request`, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(elsewhere.status).toBe(402)
    expect(decodePaymentRequiredHeader(elsewhere.headers.get('PAYMENT-REQUIRED')!).error).toBe(
      'invalid_batch_settlement_evm_cumulative_amount_mismatch',
    )
    expect(await charged()).toBe(before + price)
  })

  test('a failed handler charges nothing and its writes are taken back', async () => {
    const before = await charged()
    const held = await other.before((await nextVoucher()).payload, { ...call(), refuse })
    if (held instanceof Response) throw new Error(`refused: ${held.status}`)
    await write(held, 'failed-handler')
    expect(await other.after(held, { ok: false }, { refuse })).toEqual({ headers: {} })
    expect(await otherStore.get(writes, 'failed-handler')).toBeUndefined()
    expect(await charged()).toBe(before)
  })

  test('a served call whose reservation was taken over is withheld, not charged, and its writes are taken back', async () => {
    const before = await charged()
    const held = await other.before((await nextVoucher()).payload, { ...call(), refuse })
    if (held instanceof Response) throw new Error(`refused: ${held.status}`)
    await write(held, 'lost-reservation')
    // Another process took the expired reservation and finished its own call meanwhile.
    await otherStore.update<Channel.State>(Channel.collection, channelId, ({ value }) => ({
      ...value,
      pending: undefined,
    }))
    const outcome = await other.after(held, { ok: true }, { refuse })
    expect('withheld' in outcome && outcome.withheld.status).toBe(402)
    expect(await otherStore.get(writes, 'lost-reservation')).toBeUndefined()
    expect(await charged()).toBe(before)
  })

  test('the writes of a call whose process died are taken back by the next call on the channel, which is charged once', async () => {
    const before = await charged()
    const voucher = (await nextVoucher()).payload
    const dead = await other.before(voucher, { ...call(), refuse })
    if (dead instanceof Response) throw new Error(`refused: ${dead.status}`)
    await write(dead, 'dead-process')
    // The process dies here: no `after`. Its reservation expires (1 ms) and the next call takes the same ceiling.
    await Bun.sleep(5)
    const next = await other.before(voucher, { ...call(), refuse })
    if (next instanceof Response) throw new Error(`refused: ${next.status}`)
    expect(await otherStore.get(writes, 'dead-process')).toBeUndefined()
    expect('headers' in (await other.after(next, { ok: true }, { refuse }))).toBe(true)
    expect(await charged()).toBe(before + price)
  })
})

describe('vouchers of a smart-wallet payer authorizer (ERC-1271)', () => {
  test("the official client pays with vouchers its contract wallet signs; another key's voucher for that channel is refused", async () => {
    const payer = gateway.account(9)
    const owner = privateKeyToAccount(generatePrivateKey())
    const deployer = createWalletClient({
      account: payer,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    const hash = await deployer.deployContract({
      abi: walletJson.abi as never,
      bytecode: walletJson.bytecode as Hex,
      args: [owner.address],
    })
    const wallet = (await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })).contractAddress!
    // The wallet's address authorizes the channel; its owner's key signs for it, as a smart wallet's signer does.
    const voucherSigner = { address: wallet, signTypedData: (typed: never) => owner.signTypedData(typed) }
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(payer, gateway.devnet.publicClient as never), {
      depositStrategy: () => '100000',
      voucherSigner: voucherSigner as never,
    })
    const client = new x402Client().register(gateway.terms.network, scheme)
    client.setSpendControls({
      allowedAssets: [
        { network: gateway.terms.network, asset: gateway.terms.asset.address, maxAmountPerPayment: '100000' },
      ],
    })
    const pay = wrapFetchWithPayment(gateway.fetch, client)
    for (let call = 0; call < 3; call++) expect((await pay(url)).status).toBe(200)
    const walletConfig = scheme.buildChannelConfig(offer) as Channel.Config
    expect(getAddress(walletConfig.payerAuthorizer)).toBe(getAddress(wallet))
    const walletChannel = computeChannelId(walletConfig, gateway.terms.network).toLowerCase()
    const state = (await gateway.store.get<Channel.State>(Channel.collection, walletChannel))!.value
    expect(BigInt(state.charged)).toBe(3n * price)

    // The owner's key alone is not the payer authorizer: recovery names the owner, the wallet refuses another key.
    const stranger = privateKeyToAccount(generatePrivateKey())
    const forged = await signVoucher(stranger, walletChannel as Hex, (4n * price).toString(), gateway.terms.network)
    const header = encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: offer,
      resource: { url },
      payload: { type: 'voucher', channelConfig: walletConfig, voucher: forged },
    } as never)
    const refused = await gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(refused.status).toBe(402)
    expect(decodePaymentRequiredHeader(refused.headers.get('PAYMENT-REQUIRED')!).error).toBe(
      'invalid_batch_settlement_evm_voucher_signature',
    )
    expect(BigInt((await gateway.store.get<Channel.State>(Channel.collection, walletChannel))!.value.charged)).toBe(
      3n * price,
    )
  })
})
