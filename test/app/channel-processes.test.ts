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
import { createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import { fundedPayers } from '../../bench/payers.js'
import { type Server, startDevnet, startGateways } from '../../bench/processes.js'
import type * as Channel from '../../core/Channel.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { gatewayDatabases } from '../support/backends.js'
import { relayerMnemonic } from '../support/chain.js'

// One channel served by two gateway processes on one PostgreSQL database, the devnet in a process of its own (as
// `npm run devnet` runs it): whichever process serves a call, the channel is charged once per served call, and a
// voucher one process served is refused by the other.

const postgres = gatewayDatabases('channel_processes').find((database) => database.name === 'PostgreSQL')
const path = '/api/v1/rpc/chains'
const servers: Server[] = []
let rpcUrl: string
let gateways: Server[]
let terms: PaymentTerms
let client: PublicClient
let teardown: (() => Promise<void>) | undefined

beforeAll(async () => {
  if (!postgres) return
  const dataDir = mkdtempSync(join(tmpdir(), 'channel-processes-'))
  const devnet = await startDevnet({ dataDir: join(dataDir, 'devnet'), persist: false })
  servers.push(devnet)
  rpcUrl = devnet.rpcUrl
  const database = await postgres.open()
  teardown = database.teardown
  const env = {
    RPC_URL: rpcUrl,
    RELAYER_MNEMONIC: await relayerMnemonic(rpcUrl),
    LOG_LEVEL: 'warn',
    ...database.env,
    // The chain-data endpoint reads its chains from the devnet's node: no call leaves the machine.
    ...Object.fromEntries(
      ['ETHEREUM', 'ARBITRUM', 'POLYGON', 'OPTIMISM', 'AVALANCHE', 'BSC'].map((chain) => [
        `CHAIN_RPC_${chain}`,
        rpcUrl,
      ]),
    ),
  }
  gateways = await startGateways({ names: ['first', 'second'], env, dataDir })
  servers.push(...gateways)
  terms = (await (await fetch(`${gateways[0]!.origin}/.well-known/x402.json`)).json()) as PaymentTerms
  client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) }) as PublicClient
}, 90_000)

afterAll(async () => {
  for (const server of servers.reverse()) await server.stop()
  await teardown?.()
})

const usdc = (address: `0x${string}`) =>
  client.readContract({ address: terms.asset.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

describe.skipIf(!postgres)('one channel, two gateway processes on one PostgreSQL', () => {
  test('alternating and concurrent calls: the channel is charged exactly the served calls, each voucher once', async () => {
    const [payer] = await fundedPayers({ rpcUrl, terms, count: 1, usdc: '10' })
    const start = await usdc(payer!.address)
    const deposit = 1_000_000n
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(payer!, client as never), {
      depositStrategy: () => deposit.toString(),
    })
    const paying = new x402Client().register(terms.network, scheme)
    paying.setSpendControls({
      allowedAssets: [{ network: terms.network, asset: terms.asset.address, maxAmountPerPayment: '1000000' }],
    })
    const officialFetch = wrapFetchWithPayment(fetch, paying)
    const urlOf = (index: number) => `${gateways[index % 2]!.origin}${path}`
    const offer = decodePaymentRequiredHeader((await fetch(urlOf(0))).headers.get('PAYMENT-REQUIRED')!).accepts.find(
      (accept) => accept.scheme === 'batch-settlement',
    ) as PaymentRequirements
    const price = BigInt(offer.amount)
    let served = 0

    // The official client, one call after another, alternating between the processes (the first deposits).
    const sequential = 30
    for (let call = 0; call < sequential; call++) {
      const response = await officialFetch(urlOf(call))
      expect(response.status).toBe(200)
      const settled = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
      expect((settled.extra as { channelState: { chargedCumulativeAmount: string } }).channelState).toMatchObject({
        chargedCumulativeAmount: (price * BigInt(call + 1)).toString(),
      })
      await response.arrayBuffer()
      served++
    }

    // Concurrent calls: each round signs the next voucher and sends it to both processes at once, three times each.
    const config = scheme.buildChannelConfig(offer) as Channel.Config
    const channelId = computeChannelId(config, terms.network)
    const headerOf = async (ceiling: bigint, type: 'voucher' | 'refund' = 'voucher') =>
      encodePaymentSignatureHeader({
        x402Version: 2,
        accepted: offer,
        resource: { url: urlOf(0) },
        payload: {
          type,
          channelConfig: config,
          voucher: await signVoucher(payer!, channelId, ceiling.toString(), terms.network),
        },
      } as never)
    const answers: ('charged' | 'replayed' | 'refused')[] = []
    const rounds = 20
    for (let round = 0; round < rounds; round++) {
      const header = await headerOf(price * BigInt(served + 1))
      const round = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          fetch(urlOf(index), { headers: { 'PAYMENT-SIGNATURE': header } }).then(async (response) => {
            await response.arrayBuffer()
            if (response.status === 402) return 'refused' as const
            expect(response.status).toBe(200)
            const amount = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!).amount
            return amount === '0' ? ('replayed' as const) : ('charged' as const)
          }),
        ),
      )
      answers.push(...round)
      // One voucher, six identical requests over two processes: exactly one is charged; the others are refused
      // (the channel is busy) or, once it is served, get its kept answer for nothing.
      expect(round.filter((answer) => answer === 'charged')).toHaveLength(1)
      served++
    }
    const count = (kind: string) => answers.filter((answer) => answer === kind).length

    // A voucher served by one process: a retry of the same request at the other gets the kept answer, charged once;
    // on any other request it is refused, with the channel's state to resync from.
    const spent = await headerOf(price * BigInt(served + 1))
    const answer = await fetch(urlOf(0), { headers: { 'PAYMENT-SIGNATURE': spent } })
    expect(answer.status).toBe(200)
    served++
    const retried = await fetch(urlOf(1), { headers: { 'PAYMENT-SIGNATURE': spent } })
    expect(retried.status).toBe(200)
    expect(await retried.text()).toBe(await answer.text())
    expect(decodePaymentResponseHeader(retried.headers.get('PAYMENT-RESPONSE')!).amount).toBe('0')
    const reused = await fetch(`${urlOf(1)}?another=request`, { headers: { 'PAYMENT-SIGNATURE': spent } })
    expect(reused.status).toBe(402)
    const corrective = decodePaymentRequiredHeader(reused.headers.get('PAYMENT-REQUIRED')!)
    expect(corrective.error).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch')
    const charged = (
      corrective.accepts.find((accept) => accept.scheme === 'batch-settlement')!.extra as {
        channelState: { chargedCumulativeAmount: string }
      }
    ).channelState.chargedCumulativeAmount
    expect(BigInt(charged)).toBe(price * BigInt(served))

    // The refund claims what was charged and returns the rest: on chain, the payer paid exactly the served calls.
    const refund = await fetch(urlOf(1), {
      headers: { 'PAYMENT-SIGNATURE': await headerOf(BigInt(charged), 'refund') },
    })
    expect(refund.status).toBe(200)
    expect(await usdc(payer!.address)).toBe(start - price * BigInt(served))
    console.log(
      `two processes: ${sequential} alternating calls, then ${rounds} rounds of one voucher sent 6 times at once (${count('charged')} charged, ${count('replayed')} replayed, ${count('refused')} refused), then 1 call, its replay at the other process and 1 reuse: ${served} charged calls, cumulative ${charged} = ${served} x ${price}`,
    )
  }, 90_000)
})
