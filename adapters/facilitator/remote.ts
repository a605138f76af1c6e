import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from '@x402/core/types'
import { type Hash, type PublicClient, isHash } from 'viem'
import type { Domain, Signed } from '../../core/Authorization.js'
import type { Facilitator, Outcome, Refusal, Status } from '../../core/Facilitator.js'
import * as Eip3009 from './internal/eip3009.js'

/**
 * A facilitator reached over the x402 facilitator HTTP API (v2): `POST /verify`, `POST /settle`, `GET /supported`.
 * It cannot say what happened to an authorization after a crash, so `status` reads the chain through `client`.
 */
export function remote(parameters: remote.Parameters): remote.ReturnType {
  const { client, fetch = globalThis.fetch, headers = {}, lookbackBlocks = 100_000n, maxTimeoutSeconds = 60, timeoutMs = 90_000 } = parameters
  const url = parameters.url.replace(/\/+$/, '')

  /** Sends one request; a transport failure, a timeout or a body that is not JSON comes back as a refusal message. */
  async function call(path: string, body?: unknown): Promise<{ status: number; json: unknown } | { failure: string }> {
    try {
      const response = await fetch(`${url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), accept: 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'follow',
        // The deadline also covers reading the body.
        signal: AbortSignal.timeout(timeoutMs),
      })
      const text = await response.text()
      try {
        return { status: response.status, json: JSON.parse(text) }
      } catch {
        return { failure: `The facilitator answered ${path} with ${response.status} and no JSON: ${text.slice(0, 200)}` }
      }
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
        return { failure: `The facilitator did not answer ${path} within ${timeoutMs} ms.` }
      // Neither the URL (it may carry a key) nor the error text (it may quote the URL) leaves this function.
      return { failure: `The facilitator could not be reached for ${path} (${error instanceof Error ? error.name : 'error'}).` }
    }
  }

  async function verify({ authorization, domain }: { authorization: Signed; domain: Domain }): Promise<Outcome<{ balance?: bigint }>> {
    // The facilitator API does not say the balance; the chain does, beside the call, where a client is given.
    const balance = client
      ?.readContract({ address: domain.verifyingContract, abi: Eip3009.abi, functionName: 'balanceOf', args: [authorization.from] })
      .catch(() => undefined)
    const answer = await call('/verify', toRequest({ authorization, domain, maxTimeoutSeconds }))
    if ('failure' in answer) return refuse('settlement_failed', answer.failure)
    // Facilitators answer a refusal with 200 or with 400 and the same body; the body decides.
    const response = answer.json as Partial<VerifyResponse>
    if (!isRecord(response) || typeof response.isValid !== 'boolean')
      return refuse('settlement_failed', `The facilitator answered /verify with ${answer.status} and no isValid.`)
    if (response.isValid) return { ok: true, balance: await balance }
    return refuse(toRefusal(response.invalidReason), describe('verify', response.invalidReason, response.invalidMessage))
  }

  async function settle({ authorization, domain, onSubmitted }: Parameters<Facilitator['settle']>[0]): Promise<Outcome<{ transaction: Hash }>> {
    const answer = await call('/settle', toRequest({ authorization, domain, maxTimeoutSeconds }))
    if ('failure' in answer) {
      // No answer is not a no: the facilitator may have settled before the line dropped; the chain knows.
      const onChain = client
        ? await status({ payer: authorization.from, nonce: authorization.nonce, domain }).catch(() => undefined)
        : undefined
      if (onChain?.state === 'settled' && onChain.transaction) return { ok: true, transaction: onChain.transaction }
      // Unused on chain now does not mean it never will be: the facilitator may still be sending it.
      return refuse('settlement_pending', answer.failure)
    }
    const response = answer.json as Partial<SettleResponse>
    if (!isRecord(response) || typeof response.success !== 'boolean')
      return refuse('settlement_failed', `The facilitator answered /settle with ${answer.status} and no success.`)
    if (!response.success && response.errorReason === 'settlement_pending') {
      // Broadcast, not yet confirmed (x402 `settlement_pending`): the hash is known, the outcome is not.
      if (typeof response.transaction === 'string' && isHash(response.transaction)) onSubmitted?.(response.transaction)
      return refuse('settlement_pending', describe('settle', response.errorReason, response.errorMessage))
    }
    if (!response.success) return refuse(toRefusal(response.errorReason), describe('settle', response.errorReason, response.errorMessage))
    if (typeof response.transaction !== 'string' || !isHash(response.transaction))
      return refuse('settlement_failed', `The facilitator reported success without a transaction hash (${String(response.transaction)}).`)
    return { ok: true, transaction: response.transaction }
  }

  async function supported(): Promise<SupportedResponse> {
    const answer = await call('/supported')
    if ('failure' in answer) throw new Error(answer.failure)
    if (answer.status !== 200 || !isRecord(answer.json) || !Array.isArray(answer.json.kinds))
      throw new Error(`The facilitator answered /supported with ${answer.status} and no kinds.`)
    return answer.json as SupportedResponse
  }

  async function status(query: Parameters<Facilitator['status']>[0]): Promise<Status> {
    // The facilitator API has no status call; the chain is the record.
    if (!client) throw new Error('remote: status reads authorizationState on chain; pass `client` (a PublicClient of the settlement chain).')
    return Eip3009.status({ ...query, client, lookbackBlocks })
  }

  return { verify, settle, status, supported }
}

export declare namespace remote {
  type Parameters = {
    /** Base URL of the facilitator, e.g. `https://x402.org/facilitator`; `/verify`, `/settle`, `/supported` are appended. */
    url: string
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
    /** Deadline of one request, body included, in ms; past it the call is refused as `settlement_failed`. @default 90_000 (as @x402/core's HTTPFacilitatorClient) */
    timeoutMs?: number
    /** Headers sent with every request (an API key, for instance). */
    headers?: Record<string, string>
    /** Reads the settlement chain for `status`, which the facilitator API cannot answer; required to call `status`. */
    client?: PublicClient
    /** `maxTimeoutSeconds` of the payment requirements sent along, in seconds. @default 60 */
    maxTimeoutSeconds?: number
    /** How far back `status` searches AuthorizationUsed logs when no transaction hash is given, in blocks. @default 100_000n */
    lookbackBlocks?: bigint
  }

  /** The facilitator port, plus what the facilitator says it supports. */
  type ReturnType = Facilitator & {
    /** `GET /supported`: the scheme and network pairs, extensions and signer addresses; throws when unanswered. */
    supported: () => Promise<SupportedResponse>
  }
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
        authorization: { from, to, value: value.toString(), validAfter: validAfter.toString(), validBefore: validBefore.toString(), nonce },
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
