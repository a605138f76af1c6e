import { encodePaymentResponseHeader } from '@x402/core/http'
import type { Address, Hash } from 'viem'
import { type BaseError, ResponseNotRetainedError, SettlementPendingError } from '../../core/Errors.js'
import type * as Ledger from '../../core/Ledger.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import type { Logger } from '../log.js'
import * as Problem from '../problem.js'
import * as RequestId from '../request-id.js'
import { receipt, type receiptSigner } from './receipt.js'
import { isUpto } from './upto.js'
import { v1NetworkOf } from './x402.js'

/** A problem document answering `request`, with its request id. */
export function problem(request: Request, error: BaseError, headers: Record<string, string> = {}): Response {
  return Problem.toResponse(Problem.fromError(error, Problem.instanceOf(request), RequestId.of(request)), {
    ...headers,
    ...RequestId.headersOf(request),
  })
}

/** A handler's answer as the ledger keeps it for retries; `undefined` for streams and bodies over `limitBytes`. */
export async function keep(
  response: unknown,
  status: number,
  limitBytes: number,
): Promise<Ledger.StoredResponse | undefined> {
  let contentType: string
  let bytes: Uint8Array
  if (response instanceof Response) {
    contentType = response.headers.get('content-type') ?? 'application/octet-stream'
    if (contentType.includes('text/event-stream') || Number(response.headers.get('content-length') ?? 0) > limitBytes)
      return undefined
    bytes = new Uint8Array(await response.clone().arrayBuffer())
  } else if (typeof response === 'string') {
    contentType = 'text/plain;charset=utf-8'
    bytes = new TextEncoder().encode(response)
  } else {
    contentType = 'application/json'
    bytes = new TextEncoder().encode(JSON.stringify(response ?? null))
  }
  if (bytes.byteLength > limitBytes) return undefined
  return { status, contentType, body: Buffer.from(bytes).toString('base64') }
}

/**
 * How a paid call settled on the EVM chain is answered once its payment is decided, whatever its scheme (`exact`,
 * `upto`): its success headers with the gateway's signed receipt, its kept response to a retry, and 503 while the
 * chain has not decided.
 */
export function answers(parameters: answers.Parameters): answers.ReturnType {
  const { terms, receipts, resourceUrl, logger } = parameters

  async function settled(request: Request, paid: answers.Paid): Promise<Record<string, string>> {
    const signed =
      receipts && paid.protocol === 'x402-v2'
        ? await receipts
            .sign({
              resource: resourceUrl(request),
              payer: paid.payer,
              network: terms.network,
              transaction: paid.transaction,
            })
            .catch((error: unknown) => {
              logger.log('warn', 'receipt_not_signed', { error: error instanceof Error ? error.name : 'unknown' })
              return undefined
            })
        : undefined
    return receipt({ ...paid, network: terms.network, now: new Date(), ...(signed ? { signed } : {}) })
  }

  return {
    settled,

    async stored(request, entry) {
      const headers = await settled(request, {
        protocol: entry.protocol,
        transaction: entry.transaction!,
        payer: entry.payer,
        ...(isUpto(entry.authorization) ? { amount: entry.amount } : {}),
      })
      if (!entry.response)
        return problem(
          request,
          new ResponseNotRetainedError(
            `This call was paid (transaction ${entry.transaction}) and answered, but its response was streamed, too large or past retention.`,
            { details: { transaction: entry.transaction } },
          ),
          headers,
        )
      const { status, contentType, body } = entry.response
      return new Response(Buffer.from(body, 'base64'), { status, headers: { ...headers, 'content-type': contentType } })
    },

    pending(request, paid, transaction) {
      const settleResponse = {
        success: false,
        errorReason: 'settlement_pending',
        transaction: transaction ?? '',
        network: terms.network,
        payer: paid.payer,
      }
      const header: Record<string, string> =
        paid.protocol === 'x402-v2'
          ? { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settleResponse) }
          : paid.protocol === 'x402-v1'
            ? {
                'X-PAYMENT-RESPONSE': encodePaymentResponseHeader({
                  ...settleResponse,
                  network: v1NetworkOf(terms.network) ?? terms.network,
                } as never),
              }
            : {}
      const error = new SettlementPendingError(
        'The payment was signed for the chain and its outcome is not known yet, so it may be charged. Retry this same ' +
          'request with the same payment (or the same idempotency key) after Retry-After seconds: you get the response, ' +
          'charged once. A transaction that never reached the chain is sent only by such a retry; unretried, it expires ' +
          'unused and nothing is charged.',
        transaction ? { details: { transaction } } : {},
      )
      return problem(request, error, { 'Retry-After': '5', ...header })
    },
  }
}

export declare namespace answers {
  /** A settled payment, as its success header names it. */
  type Paid = Omit<receipt.Parameters, 'network' | 'signed' | 'now'>
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** Signs the `offer-receipt` receipt of every settled x402 v2 payment, when given. */
    receipts?: receiptSigner.ReturnType | undefined
    /** Absolute URL of the requested resource, as offers name it. */
    resourceUrl: (request: Request) => string
    /** Where events go. */
    logger: Logger
  }
  type ReturnType = {
    /**
     * The success header of a settled payment, with the gateway's signed `offer-receipt` receipt in an x402 v2 one when
     * a receipt key is set. A receipt that cannot be signed is left out; the payment stands.
     */
    settled: (request: Request, paid: Paid) => Promise<Record<string, string>>
    /** The kept response of a settled call with its receipt (naming what an `upto` one charged); 410 when not kept. */
    stored: (request: Request, entry: Ledger.EvmEntry) => Promise<Response>
    /** 503 while the chain has not decided: the hash when known, and x402's own `settlement_pending` response. */
    pending: (
      request: Request,
      paid: { protocol: Ledger.Protocol; payer: Address },
      transaction: Hash | undefined,
    ) => Response
  }
}
