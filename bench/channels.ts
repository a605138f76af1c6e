import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme, computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, defineChain, type Hash, type Hex, http, type LocalAccount, type PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { channelAuthorizerIndex, channelChain } from '../adapters/chain/channel.js'
import { mnemonic } from '../adapters/chain/devnet.js'
import type { Config } from '../core/Channel.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import type { Row } from './index.js'
import { run } from './load.js'

// Payment channels (x402 `batch-settlement`) against `exact` on the same gateway: each payer deposits once through
// the official client, then pays every call with a voucher signed before the clock starts (as the exact rows
// pre-sign their authorizations), so the figure is the gateway's alone. Gas per call counts everything the chain
// did for those calls: the deposits, one batched `claimWithSignature` over every channel, and the `settle`.

/** The channel rows of the table, measured against the `exact` figures of the same run. */
export async function channelRows(parameters: channelRows.Parameters): Promise<channelRows.ReturnType> {
  const { url, rpcUrl, terms, payers, exact, roundMs, log } = parameters
  const transport = http(rpcUrl, { retryCount: 0 })
  const chain = defineChain({
    id: Number(terms.network.split(':')[1]),
    name: 'Devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const client = createPublicClient({ chain, transport }) as PublicClient
  const offer = decodePaymentRequiredHeader((await fetch(url)).headers.get('PAYMENT-REQUIRED')!).accepts.find(
    (accept) => accept.scheme === 'batch-settlement',
  ) as PaymentRequirements | undefined
  if (!offer) throw new Error('The gateway offers no batch-settlement channel.')
  const price = BigInt(offer.amount)

  log(`payment channels: ${payers.length} deposits through the official client`)
  const deposits: Hash[] = []
  const channels = await Promise.all(
    payers.map(async (payer) => {
      const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(payer, client as never), {
        depositStrategy: () => '5000000',
      })
      const paying = new x402Client().register(terms.network, scheme)
      paying.setSpendControls({
        allowedAssets: [{ network: terms.network, asset: terms.asset.address, maxAmountPerPayment: '5000000' }],
      })
      const response = await wrapFetchWithPayment(fetch, paying)(url)
      if (response.status !== 200)
        throw new Error(`A channel deposit failed: ${response.status} ${await response.text()}`)
      deposits.push(decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!).transaction as Hash)
      const config = scheme.buildChannelConfig(offer) as Config
      return {
        payer,
        config,
        channelId: computeChannelId(config, terms.network),
        charged: price,
        last: undefined as { ceiling: bigint; signature: Hex } | undefined,
      }
    }),
  )
  let calls = payers.length

  /** `count` vouchers per channel, each the next cumulative ceiling, as request headers. */
  async function presign(count: number) {
    return Promise.all(
      channels.map(async (channel) => {
        const headers: { header: string; ceiling: bigint; signature: Hex }[] = []
        for (let call = 1; call <= count; call++) {
          const ceiling = channel.charged + price * BigInt(call)
          const voucher = await signVoucher(channel.payer, channel.channelId, ceiling.toString(), terms.network)
          const payload = { type: 'voucher', channelConfig: channel.config, voucher }
          const header = encodePaymentSignatureHeader({
            x402Version: 2,
            accepted: offer!,
            payload,
            resource: { url },
          } as never)
          headers.push({ header, ceiling, signature: voucher.signature as Hex })
        }
        return headers
      }),
    )
  }

  async function round(durationMs: number, perChannel: number) {
    const supply = await presign(perChannel)
    const served = channels.map(() => 0)
    const result = await run({
      url,
      concurrency: channels.length,
      durationMs,
      request: (worker, call) => {
        const next = supply[worker]![call]
        return next === undefined ? undefined : { headers: { 'payment-signature': next.header } }
      },
      check: (response) => response.status === 200 && response.headers.has('payment-response'),
      onSuccess: (_, worker) => void served[worker]!++,
    })
    for (const [index, channel] of channels.entries()) {
      const count = served[index]!
      if (count === 0) continue
      const last = supply[index]![count - 1]!
      channel.charged = last.ceiling
      channel.last = { ceiling: last.ceiling, signature: last.signature }
      calls += count
    }
    if (result.failures > 0)
      log(`  channels: ${result.failures} of ${result.requests} calls failed, e.g. ${result.firstFailures[0]}`)
    return result
  }

  log('payment channels: warm-up and rounds')
  const warmUp = await round(roundMs, 100)
  const perChannel = Math.ceil((warmUp.perSecond * (roundMs / 1000) * 1.5) / channels.length) + 2
  const rounds = []
  for (let index = 0; index < exact.perSecond.length; index++) rounds.push(await round(roundMs, perChannel))

  log('payment channels: one batched claim over every channel, then settle')
  // What the gateway's claim job sends, signed with the devnet's receiver authorizer (a public test key).
  const channelsChain = channelChain({
    client,
    chain,
    transport,
    relayer: mnemonicToAccount(mnemonic, { addressIndex: 27 }),
    authorizer: mnemonicToAccount(mnemonic, { addressIndex: channelAuthorizerIndex }),
    token: terms.asset.address,
    receiver: terms.payTo,
  })
  const claimed = channels.filter((channel) => channel.last)
  const claim = await channelsChain.claim(
    claimed.map((channel) => ({
      config: channel.config,
      maxClaimableAmount: channel.last!.ceiling,
      signature: channel.last!.signature,
      totalClaimed: channel.last!.ceiling,
    })),
  )
  const settle = await channelsChain.settle()
  const gasOf = async (hash: Hash) => (await client.getTransactionReceipt({ hash })).gasUsed
  const depositGas = (await Promise.all(deposits.map(gasOf))).reduce((sum, gas) => sum + gas, 0n)
  const claimGas = await gasOf(claim)
  const settleGas = settle ? await gasOf(settle) : 0n
  const gasPerCall = Number(depositGas + claimGas + settleGas) / calls

  return {
    raw: {
      warmUp,
      rounds,
      gas: { deposits: depositGas.toString(), claim: claimGas.toString(), settle: settleGas.toString(), calls },
    },
    rows: [
      {
        figure: `paid calls/s over payment channels (x402 batch-settlement vouchers), ${channels.length} payers`,
        baseline: 'x402 v2 exact on the same gateway, settled before the response',
        unit: 'calls/s',
        figures: rounds.map((result) => result.perSecond),
        baselines: exact.perSecond,
        target: { relation: '>=', ratio: 5 },
      },
      {
        figure: `gas per call over channels: ${channels.length} deposits + one batched claim + settle, over ${calls} calls`,
        baseline: 'gas per settled payment, exact with shared settlement transactions',
        unit: 'gas',
        figures: rounds.map(() => gasPerCall),
        baselines: exact.gasPerPayment,
        target: { relation: '<=', ratio: 0.1 },
        note: 'the gas figure is one measurement over every channel call of the run, repeated per round',
      },
    ],
  }
}

export declare namespace channelRows {
  type Parameters = {
    /** The paid endpoint (a GET without input). */
    url: string
    /** JSON-RPC URL of the gateway's devnet. */
    rpcUrl: string
    /** The gateway's payment terms. */
    terms: PaymentTerms
    /** Funded payers, one channel each. */
    payers: LocalAccount[]
    /** The exact figures of the same run, one per round: calls/s and gas per settled payment. */
    exact: { perSecond: number[]; gasPerPayment: number[] }
    /** Length of a round, in ms. */
    roundMs: number
    /** Progress lines. */
    log: (message: string) => void
  }
  type ReturnType = {
    /** Rows of the table. */
    rows: Row[]
    /** Raw figures for bench/results. */
    raw: unknown
  }
}
