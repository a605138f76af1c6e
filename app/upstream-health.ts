import type { InferenceUpstream } from '../core/Chat.js'

/**
 * `GET /decentralized/v1/health` (the original gateway's `/bittensor/v1/health`, in its shape): whether the
 * decentralized-inference upstream takes calls, as this gateway sees it (configured, its circuit breaker closed). No
 * call is made upstream, so the free route costs the upstream nothing.
 */
export function decentralizedHealth(parameters: decentralizedHealth.Parameters): decentralizedHealth.ReturnType {
  const { upstream, baseUrl } = parameters
  const availability = upstream?.available()
  const provider: decentralizedHealth.Provider = !upstream
    ? {
        status: 'not_configured',
        reason: 'No decentralized-inference upstream is configured (DECENTRALIZED_UPSTREAM_URL).',
      }
    : availability?.ok
      ? { status: 'ok' }
      : { status: 'error', reason: availability?.reason ?? 'unavailable' }
  return {
    status: provider.status === 'ok' ? 'ok' : 'degraded',
    providers: { decentralized: provider },
    dropin: {
      baseUrl: `${baseUrl}/decentralized/v1`,
      aliasBaseUrl: `${baseUrl}/bittensor/v1`,
      endpoints: ['GET  /models', 'POST /chat/completions', 'POST /images/generations', 'POST /embeddings'],
      payment: 'x402 or MPP (USDC)',
      note:
        'OpenAI-compatible: change your base URL. Readiness as this gateway sees it (the upstream configured, its ' +
        'circuit breaker closed); no call is made upstream.',
    },
  }
}

export declare namespace decentralizedHealth {
  type Parameters = {
    /** The decentralized-inference upstream, when one is configured. */
    upstream: InferenceUpstream | undefined
    /** Absolute base URL of the gateway, without a trailing slash. */
    baseUrl: string
  }
  /** One upstream's readiness, in the original gateway's words. */
  type Provider =
    | { /** Takes calls. */ status: 'ok' }
    | {
        /** `not_configured`: none set; `error`: refusing calls now (an open circuit breaker). */
        status: 'not_configured' | 'error'
        /** One sentence on why. */
        reason: string
      }
  type ReturnType = {
    /** `ok` when the upstream takes calls, else `degraded`. */
    status: 'ok' | 'degraded'
    /** Readiness by upstream. */
    providers: { /** The decentralized-inference upstream. */ decentralized: Provider }
    /** How an OpenAI-compatible client uses the family. */
    dropin: {
      /** Base URL of the family. */
      baseUrl: string
      /** The same, at the original gateway's path. */
      aliasBaseUrl: string
      /** Operations under the base URL. */
      endpoints: string[]
      /** How calls are paid. */
      payment: string
      /** One line for people. */
      note: string
    }
  }
}
