import { describe, expect, test } from 'bun:test'
import { decodePaymentSignatureHeader } from '@x402/core/http'
import { PaymentPayloadV1Schema, PaymentPayloadV2Schema } from '@x402/core/schemas'
import { x402 as MppX402 } from 'mppx'
import * as Payload from '../../../app/payment/payload.js'

// Our compiled TypeBox checks replace the zod schemas of @x402/core and mppx on the request path: they must accept
// and refuse the same payloads.

const authorization = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  value: '1000',
  validAfter: '0',
  validBefore: '1900000000',
  nonce: `0x${'ab'.repeat(32)}`,
}
const signature = `0x${'11'.repeat(65)}`
const accepted = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '1000',
  asset: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
  payTo: authorization.to,
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
}
const v2 = { x402Version: 2, accepted, payload: { authorization, signature } }

/** Copies `value` with the field at `path` set to `to` (or removed when `to` is undefined). */
function altered(value: object, path: string[], to: unknown): unknown {
  const copy = structuredClone(value) as Record<string, any>
  let target = copy
  for (const key of path.slice(0, -1)) target = target[key]
  if (to === undefined) delete target[path.at(-1)!]
  else target[path.at(-1)!] = to
  return copy
}

describe('payment payload checks', () => {
  const v2Cases: [string, unknown][] = [
    ['valid', v2],
    ['with a resource and extensions', { ...v2, resource: { url: 'https://x.test/a' }, extensions: {} }],
    ['null extra', altered(v2, ['accepted', 'extra'], null)],
    ['version 1', altered(v2, ['x402Version'], 1)],
    ['no accepted', altered(v2, ['accepted'], undefined)],
    ['empty scheme', altered(v2, ['accepted', 'scheme'], '')],
    ['network without a colon', altered(v2, ['accepted', 'network'], 'base-sepolia')],
    ['zero timeout', altered(v2, ['accepted', 'maxTimeoutSeconds'], 0)],
    ['numeric amount', altered(v2, ['accepted', 'amount'], 1000)],
    ['payload an array', altered(v2, ['payload'], [])],
    ['resource without url', { ...v2, resource: {} }],
    ['not an object', 'exact'],
  ]
  test.each(v2Cases)('x402 v2, %s: same verdict as @x402/core', (_, value) => {
    expect(Payload.v2(value)).toBe(PaymentPayloadV2Schema.safeParse(value).success)
  })

  const v1 = { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { authorization, signature } }
  const v1Cases: [string, unknown][] = [
    ['valid', v1],
    ['version 2', altered(v1, ['x402Version'], 2)],
    ['no network', altered(v1, ['network'], undefined)],
    ['empty scheme', altered(v1, ['scheme'], '')],
    ['payload a string', altered(v1, ['payload'], 'x')],
  ]
  test.each(v1Cases)('x402 v1, %s: same verdict as @x402/core', (_, value) => {
    expect(Payload.v1(value)).toBe(PaymentPayloadV1Schema.safeParse(value).success)
  })

  test('the exact EVM payload: a complete authorization with a signature passes; a missing field does not', () => {
    const payload = { authorization, signature }
    expect(Payload.exactEip3009(payload)).toBe(true)
    expect(MppX402.ExactEip3009PayloadSchema.safeParse(payload).success).toBe(true)
    for (const field of Object.keys(authorization))
      expect(Payload.exactEip3009(altered(payload, ['authorization', field], undefined))).toBe(false)
    expect(Payload.exactEip3009({ authorization })).toBe(false)
  })

  test('the MPP charge payload needs type "authorization"', () => {
    expect(Payload.mppAuthorization({ ...authorization, signature, type: 'authorization' })).toBe(true)
    expect(Payload.mppAuthorization({ ...authorization, signature, type: 'permit' })).toBe(false)
    expect(Payload.mppAuthorization({ ...authorization, type: 'authorization' })).toBe(false)
  })

  test('base64 JSON headers decode as @x402/core decodes them; anything else is undefined', () => {
    const header = Buffer.from(JSON.stringify(v2)).toString('base64')
    expect(Payload.fromBase64Json(header)).toEqual(decodePaymentSignatureHeader(header))
    const unicode = Buffer.from(JSON.stringify({ note: 'caf\u00e9 \u2603' })).toString('base64')
    expect(Payload.fromBase64Json(unicode)).toEqual(decodePaymentSignatureHeader(unicode))
    expect(Payload.fromBase64Json('not base64!')).toBeUndefined()
    expect(Payload.fromBase64Json(Buffer.from('{"open":').toString('base64'))).toBeUndefined()
  })
})
