import { type Static, type TSchema, Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * The payment payloads a paid call may carry, as compiled TypeBox checks: the shapes of @x402/core's and mppx's zod
 * schemas (`PaymentPayloadV2Schema`, `PaymentPayloadV1Schema`, `ExactEip3009PayloadSchema`,
 * `AuthorizationPayloadSchema`), checked without building a parse tree per request. Field formats (addresses,
 * integers, hex) are checked where the authorization is read (`decode.ts`), with reasons.
 */

const text = Type.String({ minLength: 1 })
const record = Type.Record(Type.String(), Type.Unknown())
const optionalRecord = Type.Optional(Type.Union([record, Type.Null()]))

/** The EIP-3009 fields of an authorization, as strings on the wire. */
const authorization = Type.Object({
  from: Type.String(),
  to: Type.String(),
  value: Type.String(),
  validAfter: Type.String(),
  validBefore: Type.String(),
  nonce: Type.String(),
})

/** An x402 v2 `PAYMENT-SIGNATURE`: the accepted requirements and the scheme's payload. */
const v2Schema = Type.Object({
  x402Version: Type.Literal(2),
  resource: Type.Optional(Type.Union([Type.Object({ url: text }), Type.Null()])),
  accepted: Type.Object({
    scheme: text,
    network: Type.String({ minLength: 3, pattern: ':' }),
    amount: text,
    asset: text,
    payTo: text,
    maxTimeoutSeconds: Type.Number({ exclusiveMinimum: 0 }),
    extra: optionalRecord,
  }),
  payload: record,
  extensions: optionalRecord,
})
export const v2 = compile(v2Schema)

/** A checked x402 v2 payment payload. */
export type V2 = Static<typeof v2Schema>

/** An x402 v1 `X-PAYMENT`. */
export const v1 = compile(Type.Object({ x402Version: Type.Literal(1), scheme: text, network: text, payload: record }))

/** The `exact` scheme's EVM payload: an EIP-3009 authorization and its signature. */
export const exactEip3009 = compile(Type.Object({ authorization, signature: Type.String() }))

/** An MPP `evm/charge` credential's payload: the same authorization, flat, with its signature. */
export const mppAuthorization = compile(
  Type.Composite([authorization, Type.Object({ signature: Type.String(), type: Type.Literal('authorization') })]),
)

/**
 * The JSON inside a header in standard base64 (x402's encoding), or `undefined` when it is not: Bun's native
 * decoder, after the same alphabet check as @x402/core's `decodePaymentSignatureHeader`.
 */
export function fromBase64Json(header: string): unknown {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(header)) return undefined
  try {
    return JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
  } catch {
    return undefined
  }
}

/** A compiled check that narrows. */
function compile<schema extends TSchema>(schema: schema) {
  const check = TypeCompiler.Compile(schema)
  return (value: unknown): value is Static<schema> => check.Check(value)
}
