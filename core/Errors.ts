/**
 * Stable reasons a payment is refused. Each is a {@link Code} too: the problem document names it, and both x402
 * versions carry it as their `error`. Reasons never change once published.
 */
export type Refusal =
  | 'invalid_signature'
  | 'amount_mismatch'
  | 'wrong_payee'
  | 'wrong_network'
  | 'wrong_asset'
  | 'not_yet_valid'
  | 'expired'
  | 'replayed'
  | 'insufficient_funds'
  | 'challenge_mismatch'
  | 'malformed_payment'
  | 'settlement_failed'
  | 'settlement_pending'

/** Stable snake_case codes of every error the project can raise, payment refusals included. They never change. */
export type Code =
  | 'bad_request'
  | 'rate_limited'
  | 'validation_failed'
  | 'malformed_json'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'unsupported_media_type'
  | 'not_found'
  | 'no_route'
  | 'forbidden'
  | 'conflict'
  | 'method_not_allowed'
  | 'not_implemented'
  | 'upstream_unavailable'
  | 'upstream_failed'
  | 'upstream_rejected'
  | 'upstream_timeout'
  | 'payment_required'
  | 'payment_in_progress'
  | 'idempotency_conflict'
  | 'response_not_retained'
  | 'internal_error'
  | 'allowance_required'
  | Refusal

/** Base of every error raised on purpose by this project. Carries a stable `code` and an optional `cause`. */
export abstract class BaseError extends Error {
  /** Stable snake_case code, safe to match on. */
  abstract readonly code: Code
  /** Short human title for the code. */
  abstract readonly title: string
  /** The class's own name, so logs and stack traces say which error this is. */
  abstract override readonly name: string
  /** Structured details safe to show the caller (never request secrets). */
  readonly details: Record<string, unknown> | undefined

  constructor(message: string, options: BaseError.Options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.details = options.details
  }
}

export declare namespace BaseError {
  type Options = {
    /** The underlying error. */
    cause?: unknown
    /** Structured details safe to show the caller. */
    details?: Record<string, unknown>
  }
}

/** Input that breaks a rule of the request schema or of the domain. */
export class ValidationError extends BaseError {
  override readonly code = 'validation_failed' as const
  override readonly title = 'Request failed validation'
  override readonly name = 'ValidationError'
  /** Dotted path of the offending field, e.g. `recipients.3.amount`. */
  readonly field: string

  constructor(parameters: { field: string; message: string }) {
    super(`${parameters.field}: ${parameters.message}`, { details: { field: parameters.field } })
    this.field = parameters.field
  }
}

/** A well-formed request that the operation cannot accept. */
export class BadRequestError extends BaseError {
  override readonly code = 'bad_request' as const
  override readonly title = 'Bad request'
  override readonly name = 'BadRequestError'
}

/** The request body is not valid JSON. */
export class MalformedJsonError extends BaseError {
  override readonly code = 'malformed_json' as const
  override readonly title = 'Malformed JSON body'
  override readonly name = 'MalformedJsonError'
}

/** The request body is larger than the configured limit. */
export class PayloadTooLargeError extends BaseError {
  override readonly code = 'payload_too_large' as const
  override readonly title = 'Request body too large'
  override readonly name = 'PayloadTooLargeError'

  constructor(parameters: { limitBytes: number }) {
    super(`The request body exceeds the limit of ${parameters.limitBytes} bytes.`, {
      details: { limitBytes: parameters.limitBytes },
    })
  }
}

/** The request target (path and query string) is longer than the configured limit. */
export class UriTooLongError extends BaseError {
  override readonly code = 'uri_too_long' as const
  override readonly title = 'Request target too long'
  override readonly name = 'UriTooLongError'

  constructor(parameters: { limitBytes: number }) {
    super(`The path and query string exceed the limit of ${parameters.limitBytes} bytes.`, {
      details: { limitBytes: parameters.limitBytes },
    })
  }
}

/** The request's header fields are larger than the configured limit. */
export class HeadersTooLargeError extends BaseError {
  override readonly code = 'headers_too_large' as const
  override readonly title = 'Request header fields too large'
  override readonly name = 'HeadersTooLargeError'

  constructor(parameters: { limitBytes: number }) {
    super(`The request header fields exceed the limit of ${parameters.limitBytes} bytes.`, {
      details: { limitBytes: parameters.limitBytes },
    })
  }
}

/** No route or resource matches. */
export class NotFoundError extends BaseError {
  override readonly code = 'not_found' as const
  override readonly title = 'Not found'
  override readonly name = 'NotFoundError'
}

/** The request is valid but nothing can carry it out: no bridge or pool serves this pair or amount; nothing is charged. */
export class NoRouteError extends BaseError {
  override readonly code = 'no_route' as const
  override readonly title = 'No route'
  override readonly name = 'NoRouteError'
}

/** The caller is known but may not do this: it acts for another address or lacks the role. */
export class ForbiddenError extends BaseError {
  override readonly code = 'forbidden' as const
  override readonly title = 'Forbidden'
  override readonly name = 'ForbiddenError'
}

/** The request is valid but the resource's current state does not allow it (wrong order, not on chain yet). */
export class ConflictError extends BaseError {
  override readonly code = 'conflict' as const
  override readonly title = 'Conflict with the current state'
  override readonly name = 'ConflictError'
}

/** The route exists but not for this method. */
export class MethodNotAllowedError extends BaseError {
  override readonly code = 'method_not_allowed' as const
  override readonly title = 'Method not allowed'
  override readonly name = 'MethodNotAllowedError'
}

/** The operation is in the catalog but its implementation is not built yet. */
export class NotImplementedError extends BaseError {
  override readonly code = 'not_implemented' as const
  override readonly title = 'Not implemented'
  override readonly name = 'NotImplementedError'
}

/** The operation depends on an upstream (oracle, vendor, network) that is not configured or not reachable. */
export class UpstreamUnavailableError extends BaseError {
  override readonly code = 'upstream_unavailable' as const
  override readonly title = 'Upstream unavailable'
  override readonly name: string = 'UpstreamUnavailableError'
}

/** The upstream answered with an error, or with something that is not a valid answer; nothing is charged. */
export class UpstreamFailedError extends BaseError {
  override readonly code = 'upstream_failed' as const
  override readonly title = 'The upstream failed'
  override readonly name = 'UpstreamFailedError'
}

/** The upstream judged the caller's input invalid (HTTP 400 or 422); nothing is charged. */
export class UpstreamRejectedError extends BaseError {
  override readonly code = 'upstream_rejected' as const
  override readonly title = 'The upstream refused the request'
  override readonly name = 'UpstreamRejectedError'
}

/** The upstream did not answer within the time limit; nothing is charged. */
export class UpstreamTimeoutError extends BaseError {
  override readonly code = 'upstream_timeout' as const
  override readonly title = 'The upstream timed out'
  override readonly name = 'UpstreamTimeoutError'
}

/** The request body has a media type the operation does not accept. */
export class UnsupportedMediaTypeError extends BaseError {
  override readonly code = 'unsupported_media_type' as const
  override readonly title = 'Unsupported media type'
  override readonly name = 'UnsupportedMediaTypeError'
}

/** A paid call's settlement was sent but its outcome is not known yet: the payer may be charged; retry to get the answer. */
export class SettlementPendingError extends BaseError {
  override readonly code = 'settlement_pending' as const
  override readonly title = 'Settlement pending'
  override readonly name = 'SettlementPendingError'
}

/** The same paid call is being served right now (a retry that overtook the original); retry shortly. */
export class PaymentInProgressError extends BaseError {
  override readonly code = 'payment_in_progress' as const
  override readonly title = 'Paid call in progress'
  override readonly name = 'PaymentInProgressError'
}

/** An idempotency key already answered another request of this payer. */
export class IdempotencyConflictError extends BaseError {
  override readonly code = 'idempotency_conflict' as const
  override readonly title = 'Idempotency key reused for another request'
  override readonly name = 'IdempotencyConflictError'
}

/** The call was paid and served, but its response was not kept (streamed, too large, or past retention). */
export class ResponseNotRetainedError extends BaseError {
  override readonly code = 'response_not_retained' as const
  override readonly title = 'Response not retained'
  override readonly name = 'ResponseNotRetainedError'
}

/** A paid operation was called without a payment; the answer carries every offer. */
export class PaymentRequiredError extends BaseError {
  override readonly code = 'payment_required' as const
  override readonly title = 'Payment required'
  override readonly name = 'PaymentRequiredError'
}

/** A payment came with the request and was refused; `code` says why, and the answer carries the offer again. */
export class PaymentRefusedError extends BaseError {
  override readonly code: Refusal
  override readonly title = 'Payment refused'
  override readonly name = 'PaymentRefusedError'

  constructor(parameters: PaymentRefusedError.Parameters, options: BaseError.Options = {}) {
    super(parameters.message, options)
    this.code = parameters.reason
  }
}

export declare namespace PaymentRefusedError {
  type Parameters = {
    /** Why the payment is refused. */
    reason: Refusal
    /** One sentence for people. */
    message: string
  }
}

/**
 * An x402 `upto` payer has not approved Permit2 on the token and sent no EIP-2612 permit to approve it with: one
 * approval transaction (or a permit), then the same call again. The upto spec's `PERMIT2_ALLOWANCE_REQUIRED`, a 412.
 */
export class Permit2AllowanceRequiredError extends BaseError {
  override readonly code = 'allowance_required' as const
  override readonly title = 'Permit2 allowance required'
  override readonly name = 'Permit2AllowanceRequiredError'
}

/** The gateway failed to complete the request for a reason of its own; the fault is logged, never shown. */
export class InternalError extends BaseError {
  override readonly code = 'internal_error' as const
  override readonly title = 'Internal error'
  override readonly name = 'InternalError'

  constructor(options: BaseError.Options = {}) {
    super('The gateway failed to complete the request. Nothing was charged.', options)
  }
}

/**
 * An event does not apply to the current state of a state machine (payment ledger, escrow, invoice, and every
 * machine to come): the one error every `transition` throws. Reached through a module, it is a 409 `conflict`.
 */
export class InvalidTransitionError extends BaseError {
  override readonly code = 'conflict' as const
  override readonly title = 'Not allowed in the current state'
  override readonly name = 'InvalidTransitionError'
}

/** A client called an endpoint more often than its family's rate limit allows (per client, or per payer); retry later. */
export class RateLimitedError extends BaseError {
  override readonly code = 'rate_limited' as const
  override readonly title = 'Too many requests'
  override readonly name = 'RateLimitedError'
  /** Whole seconds until a call may start again. */
  readonly retryAfterSeconds: number

  constructor(parameters: {
    /** Whole seconds until a call may start again. */ retryAfterSeconds: number
    /** What was called too often and by whom. @default 'this free endpoint from this client' */ what?: string
  }) {
    const what = parameters.what ?? 'this free endpoint from this client'
    super(`Too many calls to ${what}; retry after ${parameters.retryAfterSeconds} s.`, {
      details: { retryAfterSeconds: parameters.retryAfterSeconds },
    })
    this.retryAfterSeconds = parameters.retryAfterSeconds
  }
}

/** A call was attempted while an upstream's circuit breaker refuses calls. */
export class BreakerOpenError extends UpstreamUnavailableError {
  override readonly name = 'BreakerOpenError'
  /** Epoch ms when a call may start again. */
  readonly retryAt: number

  constructor(parameters: { /** Epoch ms when a call may start again. */ retryAt: number }) {
    super(`The upstream failed repeatedly; calls resume after ${new Date(parameters.retryAt).toISOString()}.`, {
      details: { retryAt: new Date(parameters.retryAt).toISOString() },
    })
    this.retryAt = parameters.retryAt
  }
}

/** A chain node refused or failed a forwarded JSON-RPC call; the payment is released and nothing is charged. */
export class RpcCallFailedError extends BaseError {
  override readonly code = 'upstream_failed' as const
  override readonly title = 'The chain refused the call'
  override readonly name = 'RpcCallFailedError'
}

/**
 * The XRP Ledger refused or failed the call: the payment is released and nothing is charged. `details.reason` carries
 * the server's own code (`tecUNFUNDED_PAYMENT`, `tefPAST_SEQ`, `actNotFound`, ...), or `network_error` when it could
 * not be reached; for a batch, `details.payments` says which payments were submitted before it stopped.
 */
export class XrpNetworkError extends BaseError {
  override readonly code = 'upstream_failed' as const
  override readonly title = 'The XRP Ledger refused or failed the call'
  override readonly name = 'XrpNetworkError'
}

/**
 * The Stellar network refused or failed the call: the payment is released and nothing is charged. `details.reason`
 * carries the network's own code (`tx_bad_seq`, `tx_failed` with `details.operations`, `not_found`), or
 * `network_error` when it could not be reached.
 */
export class StellarNetworkError extends BaseError {
  override readonly code = 'upstream_failed' as const
  override readonly title = 'The Stellar network refused or failed the call'
  override readonly name = 'StellarNetworkError'
}

/**
 * A vendor's answer lacks a field, or holds one that cannot be read: thrown by the reader of an answer and turned by
 * the vendor client into a `failed` upstream failure with its message, so nothing is charged.
 */
export class UnreadableAnswerError extends BaseError {
  override readonly code = 'upstream_failed' as const
  override readonly title = 'The upstream answered something unreadable'
  override readonly name = 'UnreadableAnswerError'
}

/**
 * An agent account refused its owner's authorization in simulation (a bad signature, a used nonce, bad terms);
 * `reason` is the contract's error name, e.g. `BadAuthorization`. Nothing was sent.
 */
export class AuthorizationRefusedError extends BaseError {
  override readonly code = 'bad_request' as const
  override readonly title = 'The account refused the authorization'
  override readonly name = 'AuthorizationRefusedError'
  /** The contract's error name, e.g. `BadAuthorization`. */
  readonly reason: string

  constructor(reason: string) {
    super(`the account refused the authorization: ${reason}`, { details: { reason } })
    this.reason = reason
  }
}

/** Raised at boot when the configuration cannot run (a bad or missing variable); the message names the variables. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

/**
 * A start-up failure the operator can fix (a busy port, an unreachable database, a chain that is not the one the
 * configuration or the records name, a devnet journal in use or damaged). `main.ts` and `devnet.ts` print its
 * message as one line and exit with 1.
 */
export class StartError extends Error {
  override readonly name = 'StartError'
  /** Stable snake_case code, safe to match on. */
  readonly code: StartError.Code

  constructor(parameters: StartError.Parameters) {
    super(parameters.message, parameters.cause === undefined ? undefined : { cause: parameters.cause })
    this.code = parameters.code
  }
}

export declare namespace StartError {
  /** Stable codes of start-up failures; codes never change once published. */
  type Code =
    | 'port_in_use'
    | 'database_unreachable'
    | 'redis_unreachable'
    | 'chain_unreachable'
    | 'chain_mismatch'
    | 'devnet_contracts_missing'
    | 'records_of_other_chain'
    | 'devnet_in_use'
    | 'devnet_journal_invalid'
    | 'relayer_not_own'
  type Parameters = {
    /** Stable code. */
    code: Code
    /** One line saying what is wrong and what to do; never contains a secret. */
    message: string
    /** The underlying error. */
    cause?: unknown
  }
}
