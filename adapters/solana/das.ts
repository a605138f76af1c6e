import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Solana from '../../core/Solana.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Helius's mainnet RPC, which serves the DAS methods; the key goes in its `api-key` query parameter. */
export const heliusUrl = 'https://mainnet.helius-rpc.com/'

/** JSON-RPC error codes providers answer when a caller is over its rate limit (Helius, Triton). */
const rateLimitCodes = new Set([-32005, -32429])

/** JSON-RPC error codes of a request the provider judged invalid. */
const invalidCodes = new Set([-32600, -32602])

/**
 * An asset index on the Digital Asset Standard JSON-RPC API (`getAssetsByOwner`, `getAsset`), at any provider's
 * URL, or Helius's with a key. JSON-RPC errors are sorted as the provider means them: a rate limit, an invalid
 * request, an asset that does not exist, or a failure. Both methods are reads, so both are retried.
 */
export function das(parameters: das.Parameters): Solana.AssetIndex {
  const { url = heliusUrl, key, ...options } = parameters
  const client = vendor({
    id: 'das',
    name: 'The DAS provider',
    baseUrl: url,
    auth: key === undefined ? { type: 'none' } : { type: 'query', name: 'api-key', value: key },
    timeoutMs: 20_000,
    ...options,
  })

  /**
   * Calls `method`: its JSON-RPC answer, holding `result`, or an `error` the method reads itself (a missing asset);
   * a rate limit, an invalid request and an answer with neither are failures.
   */
  function call(method: string, params: Record<string, unknown>): Promise<Upstream.Outcome<vendor.Answer>> {
    return client.json({
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method, params },
      label: method,
      idempotent: true,
      check: (body, status) => {
        if ('result' in fieldsOf(body)) return undefined
        const error = errorOf(body)
        if (!error) return client.fail('failed', `The DAS provider answered ${method} without a result.`, status)
        if (rateLimitCodes.has(error.code)) return client.fail('rate_limited', error.message, status)
        if (invalidCodes.has(error.code)) return client.fail('rejected', error.message, status)
        return undefined
      },
    })
  }

  return {
    async assetsByOwner({ owner, page, limit, showFungible, showNativeBalance }) {
      const answer = await call('getAssetsByOwner', {
        ownerAddress: owner,
        page,
        limit,
        displayOptions: { showFungible, showNativeBalance },
      })
      if (!answer.ok) return answer
      const error = errorOf(answer.body)
      if (error)
        return client.fail('failed', `The DAS provider refused getAssetsByOwner: ${error.message}.`, answer.status)
      const result = fieldsOf(fieldsOf(answer.body).result)
      return client.read(() => {
        if (!Array.isArray(result.items))
          throw new UnreadableAnswerError('The DAS provider answered getAssetsByOwner without items.')
        return {
          ok: true as const,
          total: count(result.total, 'total'),
          page: typeof result.page === 'number' ? count(result.page, 'page') : page,
          limit: typeof result.limit === 'number' ? count(result.limit, 'limit') : limit,
          items: result.items,
          nativeBalance:
            typeof result.nativeBalance === 'object' && result.nativeBalance !== null
              ? fieldsOf(result.nativeBalance)
              : undefined,
        }
      }, answer.status)
    },

    async asset(id) {
      const answer = await call('getAsset', { id })
      if (!answer.ok) return answer
      const error = errorOf(answer.body)
      // The reference implementation answers a missing asset as a database error reading "Asset Not Found".
      if (error && /not found/i.test(error.message)) return { ok: false, reason: 'not_found', message: error.text }
      if (error) return client.fail('failed', `The DAS provider refused getAsset: ${error.message}.`, answer.status)
      const result = fieldsOf(answer.body).result
      if (result === null) return { ok: false, reason: 'not_found', message: `No asset has the id ${id}.` }
      if (typeof result !== 'object' || Array.isArray(result))
        return client.fail(
          'failed',
          'The DAS provider answered getAsset with something that is not an asset.',
          answer.status,
        )
      return { ok: true, asset: result as Record<string, unknown> }
    },

    available: () => client.available(),
  }
}

export declare namespace das {
  type Parameters = vendor.Options & {
    /** JSON-RPC URL of a DAS provider; may carry a key, so never shown. @default heliusUrl */
    url?: string | undefined
    /** Helius API key, sent as the `api-key` query parameter; never shown. */
    key?: string | undefined
  }
}

/** The JSON-RPC `error` of an answer: its code, its text, and both as one message; `undefined` when it has none. */
function errorOf(body: unknown): { code: number; text: string; message: string } | undefined {
  const error = fieldsOf(fieldsOf(body).error)
  if (typeof error.code !== 'number') return undefined
  const text = String(error.message ?? 'error')
  return { code: error.code, text, message: `${text} (JSON-RPC ${error.code})` }
}

/** A non-negative integer field of a DAS answer. */
function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new UnreadableAnswerError(`The DAS provider answered an unreadable ${field}.`)
  return value
}
