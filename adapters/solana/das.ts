import type * as Solana from '../../core/Solana.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, Unreadable, vendor } from '../vendor/vendor.js'

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

  /** Calls `method`; answers its `result`, or its JSON-RPC `error` as `{ code, message }`. */
  async function call(
    method: string,
    params: Record<string, unknown>,
  ): Promise<
    | { ok: true; result: unknown; error?: undefined; status: number }
    | { ok: true; error: { code: number; message: string }; status: number }
    | Upstream.Failure
  > {
    const answer = await client.json({
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method, params },
      label: method,
      idempotent: true,
      check: (body, status) => {
        const fields = fieldsOf(body)
        if ('result' in fields) return undefined
        const error = fieldsOf(fields.error)
        if (typeof error.code !== 'number')
          return client.fail('failed', `The DAS provider answered ${method} without a result.`, status)
        const message = `${String(error.message ?? 'error')} (JSON-RPC ${error.code})`
        if (rateLimitCodes.has(error.code)) return client.fail('rate_limited', message, status)
        if (invalidCodes.has(error.code)) return client.fail('rejected', message, status)
        return undefined
      },
    })
    if (!answer.ok) return answer
    const fields = fieldsOf(answer.body)
    if ('result' in fields) return { ok: true, result: fields.result, status: answer.status }
    const error = fieldsOf(fields.error)
    return {
      ok: true,
      error: { code: error.code as number, message: String(error.message ?? 'error') },
      status: answer.status,
    }
  }

  return {
    async assetsByOwner({ owner, page, limit }) {
      const answer = await call('getAssetsByOwner', { ownerAddress: owner, page, limit })
      if (!answer.ok) return answer
      if (answer.error)
        return client.fail(
          'failed',
          `The DAS provider refused getAssetsByOwner: ${answer.error.message} (JSON-RPC ${answer.error.code}).`,
          answer.status,
        )
      const result = fieldsOf(answer.result)
      return client.read(() => {
        if (!Array.isArray(result.items))
          throw new Unreadable('The DAS provider answered getAssetsByOwner without items.')
        return {
          ok: true as const,
          total: count(result.total, 'total'),
          page: typeof result.page === 'number' ? count(result.page, 'page') : page,
          limit: typeof result.limit === 'number' ? count(result.limit, 'limit') : limit,
          items: result.items,
        }
      }, answer.status)
    },

    async asset(id) {
      const answer = await call('getAsset', { id })
      if (!answer.ok) return answer
      if (answer.error) {
        // The reference implementation answers a missing asset as a database error reading "Asset Not Found".
        if (/not found/i.test(answer.error.message))
          return { ok: false, reason: 'not_found', message: answer.error.message }
        return client.fail(
          'failed',
          `The DAS provider refused getAsset: ${answer.error.message} (JSON-RPC ${answer.error.code}).`,
          answer.status,
        )
      }
      if (answer.result === null) return { ok: false, reason: 'not_found', message: `No asset has the id ${id}.` }
      if (typeof answer.result !== 'object' || Array.isArray(answer.result))
        return client.fail('failed', 'The DAS provider answered getAsset with something that is not an asset.')
      return { ok: true, asset: answer.result as Record<string, unknown> }
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

/** A non-negative integer field of a DAS answer. */
function count(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new Unreadable(`The DAS provider answered an unreadable ${field}.`)
  return value
}
