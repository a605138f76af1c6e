import type { Hash, LocalAccount } from 'viem'
import { type Latency, run } from './load.js'
import { presignX402, requirementsOf } from './payers.js'

// The chain-data rows of `bun run bench`: the cached free reads against the gateway's cheapest free endpoint, and
// the latency of decoding a transaction, of a paid balance read and of a paid swap quote against the chain reads and
// the paid call they stand on, each pair measured in the same round.

/** One round of the chain-data rows. */
export type Round = {
  /** `GET /free/prices` from its 60 s cache, requests/s. */
  prices: number
  /** `GET /free/gas` from its 15 s cache, requests/s. */
  gas: number
  /** `GET /free/timestamp` in the same round, requests/s: the baseline of both. */
  timestamp: number
  /** `GET /api/v1/tx/decode` of a settlement transaction, one request at a time. */
  decode: Latency
  /** The two node reads a decode needs (transaction and receipt), as one JSON-RPC batch straight to the node. */
  reads: Latency
  /** Paid `GET /api/v1/balances` (x402, pre-signed), one request at a time. */
  balances: Latency
  /** Paid `GET /api/v1/swap/quote` (USDC to WETH on the devnet's Uniswap v3), one request at a time. */
  quote: Latency
  /** Paid `GET /api/v1/rpc/chains` (x402, pre-signed), one request at a time: a paid call with no chain read. */
  paid: Latency
}

/** Measures one {@link Round}: `payers[0]` pays the paid calls, `transaction` is the one decoded. */
export async function round(parameters: round.Parameters): Promise<Round> {
  const { origin, rpcUrl, payer, transaction, concurrency, durationMs, latencyCalls } = parameters
  const free = (path: string) => run({ url: `${origin}${path}`, concurrency, durationMs })
  const prices = await free('/free/prices')
  const gas = await free('/free/gas')
  const timestamp = await free('/free/timestamp')

  const sequential = { concurrency: 1, durationMs: 60_000, maxRequests: latencyCalls }
  const decode = await run({ url: `${origin}/api/v1/tx/decode?hash=${transaction}`, ...sequential })
  const reads = await run({
    url: rpcUrl,
    ...sequential,
    request: () => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [transaction] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getTransactionReceipt', params: [transaction] },
      ]),
    }),
  })
  const balances = await paidLatency(`${origin}/api/v1/balances?address=${payer.address}`, payer, latencyCalls)
  const quote = await paidLatency(
    `${origin}/api/v1/swap/quote?tokenIn=USDC&tokenOut=WETH&amountIn=1`,
    payer,
    latencyCalls,
  )
  const paid = await paidLatency(`${origin}/api/v1/rpc/chains`, payer, latencyCalls)
  for (const [name, result] of Object.entries({ prices, gas, timestamp, decode, reads, balances, quote, paid }))
    if (result.failures > 0)
      throw new Error(`${name}: ${result.failures} calls failed, e.g. ${result.firstFailures[0]}`)
  return {
    prices: prices.perSecond,
    gas: gas.perSecond,
    timestamp: timestamp.perSecond,
    decode: decode.latency,
    reads: reads.latency,
    balances: balances.latency,
    quote: quote.latency,
    paid: paid.latency,
  }
}

export declare namespace round {
  type Parameters = {
    /** The gateway. */
    origin: string
    /** JSON-RPC URL of the devnet it settles on. */
    rpcUrl: string
    /** A funded payer of the paid calls. */
    payer: LocalAccount
    /** A settlement transaction to decode. */
    transaction: Hash
    /** Requests in flight for the free rows. */
    concurrency: number
    /** Length of a free row's round, in ms. */
    durationMs: number
    /** Calls of each latency row. */
    latencyCalls: number
  }
}

/** `calls` paid calls to `url`, one at a time, each with its own pre-signed x402 payment. */
async function paidLatency(url: string, payer: LocalAccount, calls: number) {
  const [headers] = await presignX402({ requirements: await requirementsOf(url), payers: [payer], perPayer: calls })
  return run({
    url,
    concurrency: 1,
    durationMs: 120_000,
    request: (_, call) => {
      const value = headers![call]
      return value === undefined ? undefined : { headers: { 'payment-signature': value } }
    },
    check: (response) => response.status === 200 && response.headers.has('payment-response'),
  })
}
