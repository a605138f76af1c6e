import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client, x402HTTPClient } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, bytesToHex, erc20Abi, hashTypedData } from 'viem'
import { batchSettlementAddress } from '../../../adapters/chain/channel.js'
import type { channels } from '../../../app/payment/channel.js'
import * as Idempotency from '../../../app/payment/idempotency.js'
import * as Channel from '../../../core/Channel.js'
import type { Store } from '../../../core/Store.js'
import { otherProcessChannels } from '../../support/channels.js'
import { origin, paidGateway } from '../../support/paid.js'

// A paid GET with no input and no upstream: the official client's refund probes the route with GET.
const path = '/api/v1/rpc/chains'
const url = `${origin}${path}`

let gateway: Awaited<ReturnType<typeof paidGateway>>

/**
 * A second gateway's channel side, as another process builds it: its own relayer, its own connection to the same
 * store file (SQLite, `BEGIN IMMEDIATE` across connections as across processes), the same chain.
 */
let other: ReturnType<typeof channels>
let otherStore: Store

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'channels-'))
  gateway = await paidGateway({ env: { DATA_DIR: dataDir } })
  ;({ channels: other, store: otherStore } = otherProcessChannels({ gateway, dataDir, relayerIndex: 27 }))
})
afterAll(async () => {
  await otherStore?.close()
  await gateway?.close()
})

/** The official @x402/evm batch-settlement client of test account `index`, through @x402/fetch. */
function officialClient(index: number, deposit: bigint) {
  const signer = toClientEvmSigner(gateway.account(index), gateway.devnet.publicClient as never)
  // One deposit that covers every call: the channel is funded once.
  const scheme = new BatchSettlementEvmScheme(signer, { depositStrategy: () => deposit.toString() })
  const client = new x402Client().register(gateway.terms.network, scheme)
  const allowed = {
    network: gateway.terms.network,
    asset: gateway.terms.asset.address,
    maxAmountPerPayment: '100000000',
  }
  client.setSpendControls({ allowedAssets: [allowed] })
  return { scheme, fetch: wrapFetchWithPayment(gateway.fetch, client), http: new x402HTTPClient(client) }
}

const usdc = (address: Address) =>
  gateway.devnet.publicClient.readContract({
    address: gateway.terms.asset.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })

describe('payment channels (x402 batch-settlement)', () => {
  test("the voucher digest hashed by hand equals viem's EIP-712 hash of the same voucher", () => {
    const channelId = `0x${'ab'.repeat(32)}` as const
    for (const amount of [0n, 1n, 1_000n, 2n ** 128n - 1n])
      expect(bytesToHex(Channel.voucherDigest(Channel.domainOf(84_532), channelId, amount))).toBe(
        hashTypedData({
          domain: Channel.domainOf(84_532),
          types: {
            Voucher: [
              { name: 'channelId', type: 'bytes32' },
              { name: 'maxClaimableAmount', type: 'uint128' },
            ],
          },
          primaryType: 'Voucher',
          message: { channelId, maxClaimableAmount: amount },
        }),
      )
  })

  test('the 402 offers batch-settlement beside exact, with the channel terms', async () => {
    const response = await gateway.fetch(url)
    expect(response.status).toBe(402)
    const required = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
    expect(required.accepts.map((offer) => offer.scheme)).toEqual(['exact', Channel.scheme])
    const offer = required.accepts[1]!
    expect(offer.extra).toMatchObject({ withdrawDelay: 86_400, assetTransferMethod: 'eip3009' })
    expect(BigInt(String(offer.extra.minDeposit))).toBe(BigInt(offer.amount) * 10n)
    expect(offer.extra.receiverAuthorizer).toMatch(/^0x[0-9a-fA-F]{40}$/)
  })

  test('the official client deposits, makes 1,000 paid calls, and gets the rest back; the receiver gains exactly the prices', async () => {
    const payer = gateway.account(4)
    const { scheme, fetch } = officialClient(4, 1_500_000n)
    const receiverBefore = await usdc(gateway.terms.payTo)
    const payerBefore = await usdc(payer.address)
    const calls = 1000
    let price = 0n
    for (let call = 0; call < calls; call++) {
      const response = await fetch(url)
      expect(response.status).toBe(200)
      const settled = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
      price = BigInt(settled.amount ?? 0)
      await response.arrayBuffer()
    }
    const total = price * BigInt(calls)
    expect(price).toBeGreaterThan(0n)
    // Nothing moved per call: the gateway's record of the channel holds the charges, the chain only the deposit.
    const stored = (await gateway.store.list<Channel.State>(Channel.collection, { owner: gateway.terms.payTo })).find(
      (record) => record.value.config.payer === payer.address,
    )!.value
    expect(BigInt(stored.charged)).toBe(total)
    expect(await usdc(payer.address)).toBe(payerBefore - 1_500_000n)

    const refunded = await scheme.refund(url, { fetch: gateway.fetch })
    expect(refunded.success).toBe(true)
    // The refund claimed the vouchers first; the sweep settles the claimed funds to the receiver.
    await gateway.jobs.find((job) => job.name === 'claim-channels')!.run()
    expect(await usdc(gateway.terms.payTo)).toBe(receiverBefore + total)
    expect(await usdc(payer.address)).toBe(payerBefore - total)
    expect(await usdc(batchSettlementAddress)).toBe(0n)
  }, 60_000)

  test('two gateways sharing the store serve one channel and never charge one voucher twice; a failed call charges nothing', async () => {
    const { scheme, fetch } = officialClient(5, 100_000n)
    // The first call deposits through the gateway.
    expect((await fetch(url)).status).toBe(200)
    const offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts[1]!
    const amount = BigInt(offer.amount)
    const signed = await scheme.createPaymentPayload(2, offer)
    const payload = { ...signed, accepted: offer, resource: { url } }
    const header = encodePaymentSignatureHeader(payload as never)
    const channelId = (signed.payload as { voucher: { channelId: string } }).voucher.channelId.toLowerCase()
    const charged = async () =>
      BigInt((await gateway.store.get<Channel.State>(Channel.collection, channelId))!.value.charged)
    const before = await charged()

    // The same voucher at both processes at once: one serves it, the other refuses it.
    const refuse = () => new Response(null, { status: 402 })
    const call = { amount, fingerprint: Idempotency.fingerprint({ request: new Request(url), body: undefined }) }
    const [here, there] = await Promise.all([
      gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } }),
      other.before(payload, { ...call, refuse }),
    ])
    const served = [here.status === 200, !(there instanceof Response)].filter(Boolean)
    expect(served).toHaveLength(1)
    if (!(there instanceof Response)) await other.after(there, { ok: true }, { refuse })
    expect(await charged()).toBe(before + amount)

    // Spent once served, on another request: the corrective 402 with the channel's state and its last voucher.
    const replay = await gateway.fetch(`${url}?another=request`, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(replay.status).toBe(402)
    const corrective = decodePaymentRequiredHeader(replay.headers.get('PAYMENT-REQUIRED')!)
    expect(corrective.error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch')
    const state = corrective.accepts.find((item) => item.scheme === Channel.scheme)!.extra
    expect(state.channelState).toMatchObject({ channelId, chargedCumulativeAmount: (before + amount).toString() })
    expect(state.voucherState).toMatchObject({ signedMaxClaimable: (before + amount).toString() })
    expect(await charged()).toBe(before + amount)

    // A call whose handler fails: the reservation is dropped and the same ceiling serves the next call.
    // The client did not see the concurrent answer above, so it signs from its own state; resync it first.
    await scheme.processCorrectivePaymentRequired(corrective)
    const resynced = { ...payload, payload: (await scheme.createPaymentPayload(2, offer)).payload }
    const held = await other.before(resynced, { ...call, refuse })
    expect(held).not.toBeInstanceOf(Response)
    await other.after(held as never, { ok: false }, { refuse })
    expect(await charged()).toBe(before + amount)
    const retried = await other.before(resynced, { ...call, refuse })
    expect(retried).not.toBeInstanceOf(Response)
    await other.after(retried as never, { ok: true }, { refuse })
    expect(await charged()).toBe(before + 2n * amount)
  }, 30_000)

  test('the claim job claims what is charged and not yet claimed, then settles it to the receiver', async () => {
    const receiverBefore = await usdc(gateway.terms.payTo)
    const states = (await gateway.store.list<Channel.State>(Channel.collection, { owner: gateway.terms.payTo })).map(
      (record) => record.value,
    )
    const unclaimed = states.reduce((sum, state) => sum + BigInt(state.charged) - BigInt(state.totalClaimed), 0n)
    expect(unclaimed).toBeGreaterThan(0n)
    // Claims without a withdrawal request wait for the batch interval: none before it, all of them after it.
    expect((await other.sweep()).claimed).toBeUndefined()
    const swept = await other.sweep(Date.now() + 3_601_000)
    expect(swept.claimed).toBeDefined()
    expect(swept.settled).toBeDefined()
    expect(await usdc(gateway.terms.payTo)).toBe(receiverBefore + unclaimed)
    for (const record of await gateway.store.list<Channel.State>(Channel.collection, { owner: gateway.terms.payTo }))
      expect(record.value.totalClaimed).toBe(record.value.charged)
  })
})
