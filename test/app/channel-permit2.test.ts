import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createWalletClient, erc20Abi, maxUint256 } from 'viem'
import { batchSettlementAddress } from '../../adapters/chain/channel.js'
import * as Channel from '../../core/Channel.js'
import * as Permit2 from '../../core/Permit2.js'
import { origin, paidGateway } from '../support/paid.js'

// Channel deposits through x402's Permit2 deposit collector (at its canonical address on the devnet, beside the
// Permit2 the devnet already places), made by the official @x402/evm client when the offer names `permit2`.

const url = `${origin}/api/v1/rpc/chains`
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({ env: { CHANNEL_DEPOSIT_METHOD: 'permit2' } })
})
afterAll(async () => {
  await gateway?.close()
})

/** The official client of test account `index`, depositing `deposit` at its first call. */
function officialClient(index: number, deposit: bigint) {
  const signer = toClientEvmSigner(gateway.account(index), gateway.devnet.publicClient as never)
  const scheme = new BatchSettlementEvmScheme(signer, { depositStrategy: () => deposit.toString() })
  const client = new x402Client().register(gateway.terms.network, scheme)
  client.setSpendControls({
    allowedAssets: [
      { network: gateway.terms.network, asset: gateway.terms.asset.address, maxAmountPerPayment: '1000000' },
    ],
  })
  return { scheme, fetch: wrapFetchWithPayment(gateway.fetch, client) }
}

/** The payer's one-time approval of Permit2 for the token, sent by the payer. */
async function approvePermit2(index: number) {
  const wallet = createWalletClient({
    account: gateway.account(index),
    chain: gateway.devnet.chain,
    transport: gateway.devnet.transport,
  })
  const hash = await wallet.writeContract({
    address: gateway.terms.asset.address,
    abi: erc20Abi,
    functionName: 'approve',
    args: [Permit2.address, maxUint256],
  })
  expect((await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
}

describe('payment channels: Permit2 deposits', () => {
  test('the offer names permit2; the official client deposits through the Permit2 collector, pays calls and is refunded the rest', async () => {
    const offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
      (accept) => accept.scheme === Channel.scheme,
    )!
    expect(offer.extra.assetTransferMethod).toBe('permit2')
    const payer = gateway.account(7)
    await approvePermit2(7)
    const before = await gateway.balance(payer.address)
    const { scheme, fetch } = officialClient(7, 200_000n)

    const first = await fetch(url)
    expect(first.status).toBe(200)
    const deposit = decodePaymentResponseHeader(first.headers.get('PAYMENT-RESPONSE')!).transaction as `0x${string}`
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({ hash: deposit })
    // The deposit moved the payer's tokens through Permit2 straight into the channel contract.
    const transfers = receipt.logs.filter(
      (log) => log.address.toLowerCase() === gateway.terms.asset.address.toLowerCase(),
    )
    expect(transfers).toHaveLength(1)
    expect(await gateway.balance(payer.address)).toBe(before - 200_000n)
    for (let call = 0; call < 9; call++) expect((await fetch(url)).status).toBe(200)

    const price = BigInt(offer.amount)
    const refunded = await scheme.refund(url, { fetch: gateway.fetch })
    expect(refunded.success).toBe(true)
    expect(await gateway.balance(payer.address)).toBe(before - 10n * price)
    expect(await gateway.balance(batchSettlementAddress)).toBe(10n * price)
  })

  test('a Permit2 deposit without the approval fails before the call, 402 with nothing moved', async () => {
    const payer = gateway.account(8)
    const before = await gateway.balance(payer.address)
    const { scheme } = officialClient(8, 200_000n)
    const offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
      (accept) => accept.scheme === Channel.scheme,
    )!
    const signed = await scheme.createPaymentPayload(2, offer)
    const header = encodePaymentSignatureHeader({ ...signed, accepted: offer, resource: { url } } as never)
    const response = await gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(response.status).toBe(402)
    expect(decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).error).toBe(
      'invalid_batch_settlement_evm_deposit_transaction_failed',
    )
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('a Permit2 permit for another channel is refused before any transaction', async () => {
    const { scheme } = officialClient(9, 200_000n)
    const offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
      (accept) => accept.scheme === Channel.scheme,
    )!
    const signed = await scheme.createPaymentPayload(2, offer)
    const payload = signed.payload as {
      deposit: { authorization: { permit2Authorization: { witness: { channelId: string } } } }
    }
    payload.deposit.authorization.permit2Authorization.witness.channelId = `0x${'11'.repeat(32)}`
    const header = encodePaymentSignatureHeader({ ...signed, accepted: offer, resource: { url } } as never)
    const response = await gateway.fetch(url, { headers: { 'PAYMENT-SIGNATURE': header } })
    expect(response.status).toBe(402)
    expect(decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).error).toBe(
      'invalid_batch_settlement_evm_payload_type',
    )
  })
})

describe('discovery of payment channels', () => {
  test('the manifest lists batch-settlement on every paid operation with the channel terms its 402 offers', async () => {
    const manifest = (await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()) as {
      channels: Record<string, unknown>
      resources: {
        method: string
        path: string
        schemes: string[]
        price: { mode: string; amount?: string }
        channel: Record<string, unknown>
      }[]
    }
    expect(manifest.channels).toMatchObject({ offered: true, scheme: Channel.scheme, minDepositCalls: 10 })
    expect(manifest.resources.length).toBeGreaterThan(0)
    for (const resource of manifest.resources) {
      expect(resource.schemes).toEqual(['exact', Channel.scheme])
      expect(resource.channel).toMatchObject({ scheme: Channel.scheme, assetTransferMethod: 'permit2' })
    }
    // The terms are the ones the 402 offers: a channel config built from the manifest is accepted.
    const listed = manifest.resources.find((resource) => resource.path === '/api/v1/rpc/chains')!
    const offer = decodePaymentRequiredHeader((await gateway.fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
      (accept) => accept.scheme === Channel.scheme,
    )!
    expect(listed.channel).toEqual({
      scheme: Channel.scheme,
      receiverAuthorizer: offer.extra.receiverAuthorizer,
      withdrawDelay: offer.extra.withdrawDelay,
      assetTransferMethod: offer.extra.assetTransferMethod,
      minDeposit: (Number(offer.extra.minDeposit) / 1e6).toFixed(6),
    })
  })
})
