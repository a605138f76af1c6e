import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from '@x402/core/types'
import { type Hash, isHash, type PublicClient } from 'viem'
import type { Domain, Signed } from '../../core/Authorization.js'
import type { Facilitator, Outcome, Refusal, Status } from '../../core/Facilitator.js'
import type * as Upstream from '../../core/Upstream.js'
import { vendor } from '../vendor/vendor.js'
import * as Eip3009 from './internal/eip3009.js'

/**
 * A facilitator reached over the x402 facilitator HTTP API (v2): `POST /verify`, `POST /settle`, `GET /supported`, on
 * the vendor kit. Facilitators answer a refusal with 200 or with a 4xx and the same body, so the body decides; a
 * `/settle` that got no answer (or a 5xx, or no JSON) may still have been broadcast, so it is `settlement_pending`.
 * It cannot say what happened to an authorization after a crash, so `status` reads the chain through `client`.
 */
export function remote(parameters: remote.Parameters): remote.ReturnType {
  const { client, url, auth, lookbackBlocks = 100_000n, maxTimeoutSeconds = 60, ...options } = parameters
  const api = vendor({
    id: 'x402-facilitator',
    name: 'The facilitator',
    baseUrl: url,
    auth,
    // As @x402/core's HTTPFacilitatorClient; the deadline also covers reading the body.
    timeoutMs: 90_000,
    errorMessage: ({ status, text, label }) =>
      `The facilitator answered ${label} with ${status}${text?.trim() ? `: ${text.trim().slice(0, 200)}` : ''}.`,
    ...options,
  })

  /** Sends one request; a 4xx other than "slow down" is an answer whose body decides. */
  const call = (path: '/verify' | '/settle' | '/supported', body?: unknown) =>
    api.json({ method: body === undefined ? 'GET' : 'POST', path, body, label: path, accept: isRefusalStatus })

  async function verify({
    authorization,
    domain,
  }: {
    authorization: Signed
    domain: Domain
  }): Promise<Outcome<{ balance?: bigint }>> {
    // The facilitator API does not say the balance; the chain does, beside the call, where a client is given.
    const balance = client
      ?.readContract({
        address: domain.verifyingContract,
        abi: Eip3009.abi,
        functionName: 'balanceOf',
        args: [authorization.from],
      })
      .catch(() => undefined)
    const answer = await call('/verify', toRequest({ authorization, domain, maxTimeoutSeconds }))
    if (!answer.ok) return refuse('settlement_failed', answer.message)
    const response = answer.body as Partial<VerifyResponse>
    if (!isRecord(response) || typeof response.isValid !== 'boolean')
      return refuse('settlement_failed', `The facilitator answered /verify with ${answer.status} and no isValid.`)
    if (response.isValid) return { ok: true, balance: await balance }
    return refuse(
      toRefusal(response.invalidReason),
      describe('verify', response.invalidReason, response.invalidMessage),
    )
  }

  async function settle({
    authorization,
    domain,
    onSubmitted,
  }: Parameters<Facilitator['settle']>[0]): Promise<Outcome<{ transaction: Hash }>> {
    const answer = await call('/settle', toRequest({ authorization, domain, maxTimeoutSeconds }))
    if (!answer.ok) {
      // Refused before it was sent (open breaker, rate limit): nothing can land, so this is a plain failure.
      if (answer.reason === 'unavailable') return refuse('settlement_failed', answer.message)
      // No answer is not a no: the facilitator may have settled before the line dropped; the chain knows.
      const onChain = client
        ? await status({ payer: authorization.from, nonce: authorization.nonce, domain }).catch(() => undefined)
        : undefined
      if (onChain?.state === 'settled' && onChain.transaction) return { ok: true, transaction: onChain.transaction }
      // Unused on chain now does not mean it never will be: the facilitator may still be sending it.
      return refuse('settlement_pending', answer.message)
    }
    const response = answer.body as Partial<SettleResponse>
    if (!isRecord(response) || typeof response.success !== 'boolean')
      return refuse('settlement_failed', `The facilitator answered /settle with ${answer.status} and no success.`)
    if (!response.success && response.errorReason === 'settlement_pending') {
      // Broadcast, not yet confirmed (x402 `settlement_pending`): the hash is known, the outcome is not.
      if (typeof response.transaction === 'string' && isHash(response.transaction)) onSubmitted?.(response.transaction)
      return refuse('settlement_pending', describe('settle', response.errorReason, response.errorMessage))
    }
    if (!response.success)
      return refuse(toRefusal(response.errorReason), describe('settle', response.errorReason, response.errorMessage))
    if (typeof response.transaction !== 'string' || !isHash(response.transaction))
      return refuse(
        'settlement_failed',
        `The facilitator reported success without a transaction hash (${String(response.transaction)}).`,
      )
    return { ok: true, transaction: response.transaction }
  }

  async function supported(): Promise<SupportedResponse | Upstream.Failure> {
    const answer = await call('/supported')
    if (!answer.ok) return answer
    if (answer.status !== 200 || !isRecord(answer.body) || !Array.isArray(answer.body.kinds))
      return api.fail(
        'failed',
        `The facilitator answered /supported with ${answer.status} and no kinds.`,
        answer.status,
      )
    return answer.body as SupportedResponse
  }

  async function status(query: Parameters<Facilitator['status']>[0]): Promise<Status> {
    // The facilitator API has no status call; the chain is the record.
    if (!client)
      throw new Error(
        'remote: status reads authorizationState on chain; pass `client` (a PublicClient of the settlement chain).',
      )
    return Eip3009.status({ ...query, client, lookbackBlocks })
  }

  return { verify, settle, status, supported, available: () => api.available() }
}

export declare namespace remote {
  type Parameters = vendor.Options & {
    /** Base URL of the facilitator, e.g. `https://x402.org/facilitator`; `/verify`, `/settle` and `/supported` follow it. */
    url: string
    /** Credentials sent with every request (an API key, for instance). @default { type: 'none' } */
    auth?: vendor.Auth
    /** Reads the settlement chain for `status`, which the facilitator API cannot answer; required to call `status`. */
    client?: PublicClient
    /** `maxTimeoutSeconds` of the payment requirements sent along, in seconds. @default 60 */
    maxTimeoutSeconds?: number
    /** How far back `status` searches AuthorizationUsed logs when no transaction hash is given, in blocks. @default 100_000n */
    lookbackBlocks?: bigint
  }

  /** The facilitator port, plus what the facilitator says it supports and whether it takes calls now. */
  type ReturnType = Facilitator & {
    /** `GET /supported`: the scheme and network pairs, extensions and signer addresses, or why there are none. */
    supported: () => Promise<SupportedResponse | Upstream.Failure>
    /** Whether calls may start now (its breaker is closed and the rate limit has a token near enough). */
    available: () => Upstream.Availability
  }
}

/** Statuses whose body is the facilitator's answer: every 4xx but the ones that ask us to slow down or come back. */
function isRefusalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 425 && status !== 429
}

/** The x402 v2 `/verify` and `/settle` request body for an authorization: scheme `exact`, network `eip155:<chainId>`. */
export function toRequest(parameters: { authorization: Signed; domain: Domain; maxTimeoutSeconds: number }): {
  x402Version: 2
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
} {
  const { authorization, domain, maxTimeoutSeconds } = parameters
  const { signature, from, to, value, validAfter, validBefore, nonce } = authorization
  const paymentRequirements: PaymentRequirements = {
    scheme: 'exact',
    network: `eip155:${domain.chainId}`,
    asset: domain.verifyingContract,
    amount: value.toString(),
    payTo: to,
    maxTimeoutSeconds,
    extra: { name: domain.name, version: domain.version },
  }
  return {
    x402Version: 2,
    paymentPayload: {
      x402Version: 2,
      accepted: paymentRequirements,
      payload: {
        signature,
        authorization: {
          from,
          to,
          value: value.toString(),
          validAfter: validAfter.toString(),
          validBefore: validBefore.toString(),
          nonce,
        },
      },
    },
    paymentRequirements,
  }
}

/**
 * x402 reason codes and the refusal each one means: @x402/evm's `exact` facilitator (`invalid_exact_evm_*`,
 * `permit2_*`), the legacy v1 `x402` package's codes, and the generic ones of @x402/core.
 */
export const reasons: Readonly<Record<string, Refusal>> = {
  invalid_exact_evm_signature: 'invalid_signature',
  invalid_exact_evm_payload_signature: 'invalid_signature',
  invalid_permit2_signature: 'invalid_signature',
  invalid_exact_evm_failed_to_parse_signature: 'malformed_payment',
  invalid_exact_evm_recipient_mismatch: 'wrong_payee',
  invalid_exact_evm_payload_recipient_mismatch: 'wrong_payee',
  invalid_permit2_recipient_mismatch: 'wrong_payee',
  invalid_exact_evm_payload_authorization_valid_before: 'expired',
  permit2_deadline_expired: 'expired',
  payment_expired: 'expired',
  invalid_exact_evm_payload_authorization_valid_after: 'not_yet_valid',
  permit2_not_yet_valid: 'not_yet_valid',
  invalid_exact_evm_authorization_value: 'amount_mismatch',
  invalid_exact_evm_payload_authorization_value: 'amount_mismatch',
  invalid_exact_evm_payload_authorization_value_mismatch: 'amount_mismatch',
  permit2_amount_mismatch: 'amount_mismatch',
  invalid_exact_evm_nonce_already_used: 'replayed',
  invalid_exact_evm_insufficient_balance: 'insufficient_funds',
  permit2_insufficient_balance: 'insufficient_funds',
  insufficient_funds: 'insufficient_funds',
  invalid_exact_evm_network_mismatch: 'wrong_network',
  invalid_network: 'wrong_network',
  asset_not_deployed_contract: 'wrong_asset',
  permit2_token_mismatch: 'wrong_asset',
  invalid_exact_evm_token_name_mismatch: 'wrong_asset',
  invalid_exact_evm_token_version_mismatch: 'wrong_asset',
  invalid_exact_evm_eip3009_not_supported: 'wrong_asset',
  invalid_exact_evm_missing_eip712_domain: 'wrong_asset',
  invalid_exact_evm_scheme: 'malformed_payment',
  invalid_scheme: 'malformed_payment',
  unsupported_payload_type: 'malformed_payment',
  invalid_payload: 'malformed_payment',
  invalid_payment: 'malformed_payment',
  invalid_payment_requirements: 'malformed_payment',
  invalid_x402_version: 'malformed_payment',
}

/** The refusal an x402 reason means; an unknown code is read as a revert message, else `settlement_failed`. */
export function toRefusal(reason: string | undefined): Refusal {
  if (!reason) return 'settlement_failed'
  // @x402/evm's v1 path puts the thrown error's message in errorReason, so a revert string can arrive here too.
  return reasons[reason] ?? Eip3009.toRefusal(reason)
}

function refuse(reason: Refusal, message: string): Extract<Outcome<{}>, { ok: false }> {
  return { ok: false, reason, message }
}

function describe(path: 'verify' | 'settle', reason: string | undefined, message: string | undefined): string {
  return `The facilitator refused ${path}: ${reason ?? 'no reason given'}${message ? ` (${message})` : ''}.`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
