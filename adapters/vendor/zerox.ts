import type { Address, Hex } from 'viem'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as SwapAggregator from '../../core/SwapAggregator.js'
import { fieldsOf, vendor } from './vendor.js'

/**
 * The 0x Swap API v2 (`GET /swap/allowance-holder/quote`, headers `0x-api-key` and `0x-version: v2`): a firm quote
 * with the transaction the taker signs, or `liquidityAvailable: false`. Keyed: unavailable until `apiKey` is set.
 */
export function zerox(parameters: zerox.Parameters): SwapAggregator.SwapAggregator {
  const { baseUrl = 'https://api.0x.org', apiKey, ...options } = parameters
  const client = vendor({
    id: '0x',
    name: 'the 0x Swap API',
    baseUrl,
    auth: { type: 'header', name: '0x-api-key', value: apiKey, env: 'ZEROX_API_KEY' },
    headers: { '0x-version': 'v2' },
    timeoutMs: 10_000,
    retries: 1,
    ...options,
  })

  return {
    source: '0x',
    async quote({ chainId, sellToken, buyToken, sellAmount, taker, slippageBps }) {
      const outcome = await client.get('/swap/allowance-holder/quote', {
        query: {
          chainId: String(chainId),
          sellToken,
          buyToken,
          sellAmount: String(sellAmount),
          taker,
          slippageBps: String(slippageBps),
        },
        cache: false,
        label: 'quote',
      })
      if (!outcome.ok) return outcome
      const read = client.read(() => quoteOf(outcome.body), outcome.status)
      return 'ok' in read ? read : { ok: true, quote: read }
    },
    available: () => client.available(),
  }
}

export declare namespace zerox {
  type Parameters = vendor.Options & {
    /** Base URL of the Swap API. @default 'https://api.0x.org' */
    baseUrl?: string
    /** The `0x-api-key`; without it the aggregator is unavailable. */
    apiKey: string | undefined
  }
}

/** Reads a v2 quote body; throws {@link UnreadableAnswerError} when a documented field is missing. */
function quoteOf(body: unknown): SwapAggregator.Quote {
  const answer = fieldsOf(body)
  if (answer.liquidityAvailable === false) return { liquidityAvailable: false }
  if (answer.liquidityAvailable !== true) throw new UnreadableAnswerError('the 0x quote has no liquidityAvailable')
  const integer = (value: unknown, name: string) => {
    if (typeof value !== 'string' || !/^[0-9]{1,78}$/.test(value))
      throw new UnreadableAnswerError(`the 0x quote has no ${name}`)
    return BigInt(value)
  }
  const transaction = fieldsOf(answer.transaction)
  if (typeof transaction.to !== 'string' || typeof transaction.data !== 'string')
    throw new UnreadableAnswerError('the 0x quote has no transaction')
  const fills = fieldsOf(answer.route).fills
  const allowance = fieldsOf(fieldsOf(answer.issues).allowance)
  return {
    liquidityAvailable: true,
    buyAmount: integer(answer.buyAmount, 'buyAmount'),
    minBuyAmount: integer(answer.minBuyAmount, 'minBuyAmount'),
    sources: Array.isArray(fills) ? [...new Set(fills.map((fill) => String(fieldsOf(fill).source)))] : [],
    allowanceSpender: typeof allowance.spender === 'string' ? (allowance.spender as Address) : null,
    transaction: {
      to: transaction.to as Address,
      data: transaction.data as Hex,
      value: String(integer(transaction.value ?? '0', 'transaction.value')),
      gas: typeof transaction.gas === 'string' ? transaction.gas : null,
    },
  }
}
