import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x402Client, x402HTTPClient } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, erc20Abi } from 'viem'
import { batchSettlementAddress } from '../../../adapters/chain/channel.js'
import * as Channel from '../../../core/Channel.js'
import { origin, paidGateway } from '../../support/paid.js'

// A paid GET with no input and no upstream: the official client's refund probes the route with GET.
const path = '/api/v1/rpc/chains'
const url = `${origin}${path}`

let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway?.close()
})

/** The official @x402/evm batch-settlement client of test account `index`, through @x402/fetch. */
function officialClient(index: number) {
  const signer = toClientEvmSigner(gateway.account(index), gateway.devnet.publicClient as never)
  const scheme = new BatchSettlementEvmScheme(signer)
  const client = new x402Client().register(gateway.terms.network, scheme)
  const allowed = { network: gateway.terms.network, asset: gateway.terms.asset.address, maxAmountPerPayment: '100000000' }
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
    const { scheme, fetch } = officialClient(4)
    const receiverBefore = await usdc(gateway.terms.payTo)
    const payerBefore = await usdc(payer.address)
    const calls = Number(process.env.CHANNEL_CALLS ?? 1000)
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
    // Nothing moved per call: only the deposit left the payer.
    const config = scheme.buildChannelConfig({
      ...(decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts[1]! as never),
    })
    const channelId = gateway.devnet.publicClient
    expect(channelId).toBeDefined()
    const stored = (await gateway.store.list<Channel.State>(Channel.collection, { owner: gateway.terms.payTo })).find(
      (record) => record.value.config.payer === config.payer,
    )!.value
    expect(BigInt(stored.charged)).toBe(total)

    const refunded = await scheme.refund(url, { fetch: gateway.fetch })
    expect(refunded.success).toBe(true)
    // The refund claimed the vouchers first; the sweep settles the claimed funds to the receiver.
    await gateway.jobs.find((job) => job.name === 'claim-channels')!.run()
    expect(await usdc(gateway.terms.payTo)).toBe(receiverBefore + total)
    expect(await usdc(payer.address)).toBe(payerBefore - total)
    expect(await usdc(batchSettlementAddress)).toBe(0n)
  }, 60_000)
})
