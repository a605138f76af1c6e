import { createHash } from 'node:crypto'
import type { decode } from './decode.js'

/** Name of the x402 extension that carries an idempotency key in the payment payload. */
export const paymentIdentifier = 'payment-identifier'

/** What the 402 declares under `extensions["payment-identifier"]`: an optional id of 16 to 128 characters. */
export const paymentIdentifierDeclaration = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      required: { type: 'boolean' },
      id: { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
    },
    required: ['required'],
  },
} as const

/**
 * The caller's idempotency key of a paid call: x402's `payment-identifier` id from the v2 payment payload, else
 * the `Idempotency-Key` header (MPP, and any client; a structured-field string, quotes optional).
 */
export function keyOf(parameters: keyOf.Parameters): keyOf.ReturnType {
  const { headers, payment } = parameters
  const extensions = (payment.raw as { extensions?: Record<string, { info?: { id?: unknown } }> } | undefined)
    ?.extensions
  const id = payment.protocol === 'x402-v2' ? extensions?.[paymentIdentifier]?.info?.id : undefined
  if (id !== undefined) {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(id))
      return {
        ok: false,
        field: `extensions.${paymentIdentifier}.info.id`,
        message: 'must be 16 to 128 letters, digits, - or _',
      }
    return { ok: true, key: id }
  }
  const header = headers.get('idempotency-key')
  if (header === null) return { ok: true, key: undefined }
  const key = header.trim().replace(/^"(.*)"$/, '$1')
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    return { ok: false, field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }
  return { ok: true, key }
}

export declare namespace keyOf {
  type Parameters = {
    /** Request headers. */
    headers: Headers
    /** The decoded payment. */
    payment: decode.Payment
  }
  type ReturnType =
    | {
        ok: true
        /** The key
        absent when the caller gave none. */ key: string | undefined
      }
    | {
        ok: false
        /** Where the bad key was. */
        field: string
        /** What is wrong with it. */
        message: string
      }
}

/**
 * A hash of what a paid call asks for: method (HEAD as GET), path, query in order, and the parsed body. A retry
 * of an authorization or of an idempotency key must carry the same request to get the kept answer.
 */
export function fingerprint(parameters: fingerprint.Parameters): string {
  const { request, body } = parameters
  const url = new URL(request.url)
  const query = [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const method = request.method === 'HEAD' ? 'GET' : request.method
  return createHash('sha256')
    .update(JSON.stringify([method, url.pathname, query, body ?? null]))
    .digest('hex')
}

export declare namespace fingerprint {
  type Parameters = {
    /** The request. */
    request: Request
    /** Its parsed body, if any. */
    body: unknown
  }
}
