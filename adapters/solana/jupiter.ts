import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Solana from '../../core/Solana.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Base URL of Jupiter's Swap API (v1: `/quote`, `/swap`); keyed since `lite-api.jup.ag` was retired. */
export const defaultUrl = 'https://api.jup.ag/swap/v1'

/** Jupiter's error codes that say the pair has no route now (rather than that the request is malformed). */
const noRouteCodes = new Set(['COULD_NOT_FIND_ANY_ROUTE', 'NO_ROUTES_FOUND', 'TOKEN_NOT_TRADABLE'])

/**
 * A swap aggregator on Jupiter's Swap API: `GET /quote` for the best route of an exact-in swap and `POST /swap` for
 * its unsigned versioned transaction, with the key in `x-api-key`. Jupiter's 400 answers (`{ error, errorCode }`)
 * are a missing route when the code says so, and the request's own fault otherwise. Both calls are reads (nothing
 * executes upstream), so both are retried.
 */
export function jupiter(parameters: jupiter.Parameters): Solana.Aggregator {
  const { url = defaultUrl, key, ...options } = parameters
  const client = vendor({
    id: 'jupiter',
    name: 'Jupiter',
    baseUrl: url,
    auth: key === undefined ? { type: 'none' } : { type: 'header', name: 'x-api-key', value: key },
    timeoutMs: 15_000,
    errorMessage: ({ status, text }) => messageOf(text) ?? `answered HTTP ${status}`,
    ...options,
  })

  return {
    name: 'Jupiter',

    async quote(request) {
      const query: Record<string, string> = {
        inputMint: request.inputMint,
        outputMint: request.outputMint,
        amount: request.amount.toString(),
        swapMode: 'ExactIn',
      }
      if (request.slippageBps !== undefined) query.slippageBps = String(request.slippageBps)
      // A quote is only good for a moment: never served from a cache.
      const answer = await client.get('/quote', { query, label: 'quote', accept: [400], cache: false })
      if (!answer.ok) return answer
      if (answer.status === 400) {
        const body = fieldsOf(answer.body)
        const message = describe(body) ?? 'Jupiter refused the quote.'
        if (typeof body.errorCode === 'string' && noRouteCodes.has(body.errorCode))
          return { ok: false, reason: 'not_found', message }
        return client.fail('rejected', message, 400)
      }
      const body = fieldsOf(answer.body)
      const quote = client.read(
        () => ({
          ok: true as const,
          inputMint: text(body.inputMint, 'inputMint'),
          outputMint: text(body.outputMint, 'outputMint'),
          inAmount: amount(body.inAmount, 'inAmount'),
          outAmount: amount(body.outAmount, 'outAmount'),
          otherAmountThreshold: amount(body.otherAmountThreshold, 'otherAmountThreshold'),
          swapMode: text(body.swapMode, 'swapMode'),
          slippageBps: integer(body.slippageBps, 'slippageBps'),
          priceImpactPct: text(body.priceImpactPct, 'priceImpactPct'),
          route: hops(body.routePlan),
          quoteResponse: body,
        }),
        answer.status,
      )
      if (!quote.ok) return quote
      if (quote.inputMint !== request.inputMint || quote.outputMint !== request.outputMint)
        return client.fail('failed', 'Jupiter answered a quote for another pair than the one asked for.', answer.status)
      return quote
    },

    async swap(request) {
      const answer = await client.post(
        '/swap',
        {
          quoteResponse: request.quoteResponse,
          userPublicKey: request.userPublicKey,
          wrapAndUnwrapSol: request.wrapAndUnwrapSol ?? true,
          prioritizationFeeLamports: request.prioritizationFeeLamports ?? 'auto',
          // Jupiter simulates the transaction to set its compute unit limit instead of the maximum.
          dynamicComputeUnitLimit: true,
        },
        { label: 'swap', idempotent: true },
      )
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      return client.read(
        () => ({
          ok: true as const,
          swapTransaction: text(body.swapTransaction, 'swapTransaction'),
          lastValidBlockHeight: integer(body.lastValidBlockHeight, 'lastValidBlockHeight'),
          prioritizationFeeLamports: optionalInteger(body.prioritizationFeeLamports),
          computeUnitLimit: optionalInteger(body.computeUnitLimit),
        }),
        answer.status,
      )
    },

    available: () => client.available(),
  }
}

export declare namespace jupiter {
  type Parameters = vendor.Options & {
    /** Base URL of the Swap API, e.g. a self-hosted one; never shown. @default defaultUrl */
    url?: string | undefined
    /** API key from portal.jup.ag, sent as `x-api-key`; never shown. */
    key?: string | undefined
  }
}

/** The message of a Jupiter error body, `error (errorCode)`; `undefined` when the body has none. */
function messageOf(body: string | undefined): string | undefined {
  if (body === undefined) return undefined
  try {
    return describe(fieldsOf(JSON.parse(body)))
  } catch {
    return body.trim() === '' ? undefined : body.trim()
  }
}

/** `error (errorCode)` of a parsed Jupiter error body; `undefined` when it has no message. */
function describe(body: Record<string, unknown>): string | undefined {
  const error = typeof body.error === 'string' ? body.error : body.message
  if (typeof error !== 'string') return undefined
  return typeof body.errorCode === 'string' ? `${error} (${body.errorCode})` : error
}

/** The legs of Jupiter's `routePlan`. */
function hops(value: unknown): Solana.Hop[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new UnreadableAnswerError('Jupiter answered a quote without a route.')
  return value.map((leg, index) => {
    const step = fieldsOf(leg)
    const info = fieldsOf(step.swapInfo)
    const at = `routePlan[${index}]`
    // Newer answers carry the share in basis points beside, or instead of, the percentage.
    const percent = typeof step.percent === 'number' ? step.percent : integer(step.bps, `${at}.bps`) / 100
    return {
      pool: text(info.ammKey, `${at}.swapInfo.ammKey`),
      venue: text(info.label, `${at}.swapInfo.label`),
      inputMint: text(info.inputMint, `${at}.swapInfo.inputMint`),
      outputMint: text(info.outputMint, `${at}.swapInfo.outputMint`),
      inAmount: amount(info.inAmount, `${at}.swapInfo.inAmount`),
      outAmount: amount(info.outAmount, `${at}.swapInfo.outAmount`),
      percent,
    }
  })
}

/** A non-empty string field. */
function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new UnreadableAnswerError(`Jupiter answered without ${field}.`)
  return value
}

/** A base-unit amount: a u64 as a decimal string. */
function amount(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(value) || BigInt(value) >= 2n ** 64n)
    throw new UnreadableAnswerError(`Jupiter answered an unreadable ${field}.`)
  return BigInt(value)
}

/** A non-negative integer field. */
function integer(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new UnreadableAnswerError(`Jupiter answered an unreadable ${field}.`)
  return value
}

/** A non-negative integer field Jupiter may leave out. */
function optionalInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined
}
