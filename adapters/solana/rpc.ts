import * as Cache from '../../core/Cache.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Solana from '../../core/Solana.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Solana's keyless public mainnet node (rate-limited; a provider's URL serves more). */
export const defaultUrl = 'https://api.mainnet-beta.solana.com'

/** JSON-RPC error code of a parameter the node refused; for `getTokenSupply`, an account that is not a token mint. */
const invalidParam = -32602

/** How long a mint's decimals are kept: they never change, so a day only bounds what a wrong answer could cost. */
const decimalsTtlMs = 24 * 60 * 60 * 1_000

/** Most mints whose decimals are kept at once. */
const maxMints = 1_000

/**
 * Token mints on any Solana JSON-RPC node: a mint's decimals from `getTokenSupply` (`result.value.decimals`), kept
 * per mint once read, since they never change. The node's -32602 ("Invalid param: not a Token mint") is the mint's
 * `not_found`; any other JSON-RPC error is a failure. The call is a read, so it is retried, briefly: a quote waits
 * for it.
 */
export function solanaRpc(parameters: solanaRpc.Parameters = {}): Solana.Mints {
  const { url = defaultUrl, ...options } = parameters
  const client = vendor({
    id: 'solana-rpc',
    name: 'The Solana node',
    baseUrl: url,
    timeoutMs: 5_000,
    retries: 1,
    maxRetryDelayMs: 1_000,
    ...options,
  })
  const known = Cache.create<number>({ ttlMs: decimalsTtlMs, maxEntries: maxMints, now: options.now })

  return {
    async decimals(mint) {
      const cached = known.get(mint)
      if (cached !== undefined) return { ok: true, decimals: cached }
      const answer = await client.json({
        method: 'POST',
        body: { jsonrpc: '2.0', id: 1, method: 'getTokenSupply', params: [mint] },
        label: 'getTokenSupply',
        idempotent: true,
        check: (body, status) => {
          const fields = fieldsOf(body)
          if ('result' in fields || 'error' in fields) return undefined
          return client.fail('failed', 'The Solana node answered getTokenSupply without a result.', status)
        },
      })
      if (!answer.ok) return answer
      const error = fieldsOf(fieldsOf(answer.body).error)
      if (typeof error.code === 'number') {
        const message = `${String(error.message ?? 'error')} (JSON-RPC ${error.code})`
        if (error.code === invalidParam) return { ok: false, reason: 'not_found', message }
        return client.fail('failed', `The Solana node refused getTokenSupply: ${message}.`, answer.status)
      }
      const read = client.read(
        () => ({ ok: true as const, decimals: decimalsOf(fieldsOf(fieldsOf(answer.body).result).value) }),
        answer.status,
      )
      if (read.ok) known.set(mint, read.decimals)
      return read
    },

    available: () => client.available(),
  }
}

export declare namespace solanaRpc {
  type Parameters = vendor.Options & {
    /** JSON-RPC URL of a Solana node; may carry a provider's key, so never shown. @default defaultUrl */
    url?: string | undefined
  }
}

/** The `decimals` of a `getTokenSupply` value: a u8. */
function decimalsOf(value: unknown): number {
  const { decimals } = fieldsOf(value)
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255)
    throw new UnreadableAnswerError('The Solana node answered getTokenSupply without readable decimals.')
  return decimals
}
