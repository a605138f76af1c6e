import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { ConfigError } from '../../core/Errors.js'
import * as Session from '../../core/Session.js'

const secret = 'test-secret-of-at-least-thirty-two-bytes!'
const claims: Session.Claims = {
  iss: Session.issuer,
  sub: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  perms: ['read', 'pay'],
  iat: 1_700_000_000,
  exp: 1_700_003_600,
  jti: '00000000-0000-4000-8000-000000000000',
  gen: 0,
}
const token = Session.sign({ claims, secret })
const during = new Date(1_700_000_100_000)

const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('sign', () => {
  test('default: a compact HS256 JWS of the claims', () => {
    expect(token).toMatchInlineSnapshot(
      `"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJhZ2VudC1wYXktZ2F0ZXdheSIsInN1YiI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsInBlcm1zIjpbInJlYWQiLCJwYXkiXSwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDAsImp0aSI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMCIsImdlbiI6MH0.PpooCbueaoxZ97rlAWSbzX_iOzeje9j4Nq3wVO99fjY"`,
    )
    const [header, payload] = token.split('.')
    expect(decode(header!)).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(decode(payload!)).toEqual(claims)
  })

  test('behavior: the signature is HMAC-SHA256 of `header.payload` under the secret (checked with node:crypto)', () => {
    const [header, payload, signature] = token.split('.')
    expect(signature).toBe(createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url'))
  })

  test('error: a secret shorter than 32 bytes is refused without printing it', () => {
    expect(() => Session.sign({ claims, secret: 'short-secret' })).toThrow(/at least 32 bytes/)
    expect(() => Session.sign({ claims, secret: 'short-secret' })).toThrow(ConfigError)
    try {
      Session.assertSecret('short-secret')
    } catch (error) {
      expect((error as Error).message).not.toContain('short-secret')
    }
  })
})

describe('verify', () => {
  test('default: a token it signed is valid with its claims', () => {
    expect(Session.verify({ token, secret, now: during })).toEqual({ valid: true, claims })
  })

  test('behavior: valid until the last millisecond before exp; expired at exp, with the authentic claims', () => {
    expect(Session.verify({ token, secret, now: new Date(claims.exp * 1000 - 1) }).valid).toBe(true)
    expect(Session.verify({ token, secret, now: new Date(claims.exp * 1000) })).toEqual({
      valid: false,
      reason: 'expired',
      claims,
    })
  })

  test('security: altered claims under the old signature are tampered', () => {
    const [header, , signature] = token.split('.')
    const forged = `${header}.${encode({ ...claims, perms: ['read', 'pay', 'admin'] })}.${signature}`
    expect(Session.verify({ token: forged, secret, now: during })).toEqual({ valid: false, reason: 'tampered' })
    const extended = `${header}.${encode({ ...claims, exp: claims.exp + 86_400 })}.${signature}`
    expect(Session.verify({ token: extended, secret, now: during })).toEqual({ valid: false, reason: 'tampered' })
  })

  test('security: another secret, or an altered signature, is tampered', () => {
    expect(Session.verify({ token, secret: `${secret}-other`, now: during })).toEqual({
      valid: false,
      reason: 'tampered',
    })
    const [header, payload, signature] = token.split('.')
    const flipped = Buffer.from(signature!, 'base64url')
    flipped[0]! ^= 1
    expect(
      Session.verify({ token: `${header}.${payload}.${flipped.toString('base64url')}`, secret, now: during }).valid,
    ).toBe(false)
    expect(Session.verify({ token: `${header}.${payload}.${signature!.slice(0, -3)}`, secret, now: during })).toEqual({
      valid: false,
      reason: 'tampered',
    })
  })

  test('security: alg none and other algorithms are malformed, never trusted', () => {
    const [, payload, signature] = token.split('.')
    expect(
      Session.verify({ token: `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`, secret, now: during }),
    ).toEqual({
      valid: false,
      reason: 'malformed',
    })
    expect(
      Session.verify({ token: `${encode({ alg: 'HS512', typ: 'JWT' })}.${payload}.${signature}`, secret, now: during }),
    ).toEqual({
      valid: false,
      reason: 'malformed',
    })
  })

  test.each([
    ['not a token', 'abc'],
    ['two segments', 'a.b'],
    ['four segments', `${token}.x`],
    ['empty', ''],
    ['characters outside base64url', token.replace('.', '.+')],
    ['padding', `${token}=`],
  ])('error: %s is malformed', (_, candidate) => {
    expect(Session.verify({ token: candidate, secret, now: during })).toEqual({ valid: false, reason: 'malformed' })
  })

  test('security: a non-canonical base64url signature (same bytes, other text) is not accepted', () => {
    const [header, payload, signature] = token.split('.')
    // 32 bytes encode to 43 characters whose last carries 2 unused bits; setting one keeps the bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = alphabet.indexOf(signature!.at(-1)!)
    const variant = `${signature!.slice(0, -1)}${alphabet[last | 1]}`
    expect(variant).not.toBe(signature)
    expect(Session.verify({ token: `${header}.${payload}.${variant}`, secret, now: during })).toEqual({
      valid: false,
      reason: 'malformed',
    })
  })

  test('error: authentic claims of a shape this gateway never signs are malformed', () => {
    const odd = Session.sign({ claims: { ...claims, perms: ['root'] } as unknown as Session.Claims, secret })
    expect(Session.verify({ token: odd, secret, now: during })).toEqual({ valid: false, reason: 'malformed' })
    const foreign = Session.sign({ claims: { ...claims, iss: 'someone-else' }, secret })
    expect(Session.verify({ token: foreign, secret, now: during })).toEqual({ valid: false, reason: 'malformed' })
  })
})

describe('isRevoked', () => {
  test.each([
    [0, 0, false],
    [0, 1, true],
    [1, 1, false],
    [2, 1, false],
  ])('behavior: token generation %p, address generation %p -> %p', (gen, generation, revoked) => {
    expect(Session.isRevoked({ claims: { ...claims, gen }, generation })).toBe(revoked)
  })
})
