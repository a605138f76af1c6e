import { describe, expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import * as Module from '../../core/Module.js'
import * as Session from '../../core/Session.js'
import { auth, manifest } from '../../modules/auth/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

const secret = 'auth-test-secret-0123456789abcdef0123456789'
const { alice, bob } = payers

/** A gateway holding only the auth module, on a fresh memory store and a clock the test moves. */
function setup() {
  const clock = { now: new Date('2025-06-01T12:00:00.000Z') }
  const store = memory()
  const family = Module.define({
    ...manifest,
    routes: ({ ports }) => auth({ store: ports.store, secret, now: () => clock.now }),
  })
  const app = moduleGateway(family, { ports: { store } })
  const issue = async (body: object, as = alice) =>
    ok(await app.post('/api/v1/auth/session', { address: as, ...body }, as))
  const verify = async (token: string, as = bob) =>
    ok(await app.get(`/api/v1/auth/verify?token=${encodeURIComponent(token)}`, as))
  return { clock, store, app, issue, verify }
}

describe('POST /api/v1/auth/session', () => {
  test("default: a signed token for the payer, with every one of the original gateway's scopes (its `*`), for an hour", async () => {
    const { issue } = setup()
    const session = await issue({})
    const { token } = session
    expect(session).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: '2025-06-01T13:00:00.000Z',
      ttlSeconds: 3600,
      address: alice,
      permissions: [...Session.originalPermissions],
      revokedOthers: false,
    })
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({
      iss: Session.issuer,
      sub: alice,
      perms: [...Session.originalPermissions],
      exp: claims.iat + 3600,
      gen: 0,
    })
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('behavior: permissions and ttlSeconds as asked; the address compares case-insensitively', async () => {
    const { app } = setup()
    const session = await ok(
      await app.post(
        '/api/v1/auth/session',
        { address: alice.toUpperCase().replace('0X', '0x'), permissions: ['write', 'pay'], ttlSeconds: 60 },
        alice,
      ),
    )
    expect(session.permissions).toEqual(['write', 'pay'])
    expect(session.expiresAt).toBe('2025-06-01T12:01:00.000Z')
  })

  test('behavior: tokens are not stored (only revocations are)', async () => {
    const { issue, store } = setup()
    await issue({ permissions: ['admin'] })
    expect(await store.list('session_revocations', { owner: alice })).toEqual([])
  })

  test.each([
    ['an unknown permission', { permissions: ['root'] }, 'permissions.0'],
    ['a repeated permission', { permissions: ['read', 'read'] }, 'permissions'],
    ['a ttlSeconds that is not a number', { ttlSeconds: 'an hour' }, 'ttlSeconds'],
    ['metadata over 1 KiB', { metadata: { text: 'x'.repeat(1024) } }, 'metadata'],
    ['an address that is not one', { address: '0x1234' }, 'address'],
  ])('error: %s is 400', async (_, body, field) => {
    const { app } = setup()
    const problem = await refused(await app.post('/api/v1/auth/session', { address: alice, ...body }, alice), 400)
    expect(problem.code).toBe('validation_failed')
    expect(problem.field).toBe(field)
  })

  // The bare test app used to drop unknown fields (Elysia's normalization); the gateway refuses them, naming one.
  test('security: unknown fields are refused with 400, never granted', async () => {
    const { app } = setup()
    const problem = await refused(
      await app.post('/api/v1/auth/session', { address: alice, scope: 'all', perms: ['admin'] }, alice),
      400,
    )
    expect(problem).toMatchObject({ code: 'validation_failed', field: 'scope' })
  })

  test("security: a session for someone else's address is 403", async () => {
    const { app } = setup()
    const problem = await refused(await app.post('/api/v1/auth/session', { address: bob }, alice), 403)
    expect(problem.code).toBe('forbidden')
    expect(problem.field).toBe('address')
  })

  test('security: the secret never appears in an answer', async () => {
    const { issue, verify } = setup()
    const session = await issue({})
    expect(JSON.stringify(session)).not.toContain(secret)
    expect(JSON.stringify(await verify(session.token))).not.toContain(secret)
  })
})

describe('from the original gateway (issue 34)', () => {
  test('behavior: its scopes, ttlSeconds clamped as it does, metadata; verify answers sessionId and metadata', async () => {
    const { issue, verify } = setup()
    const scoped = await issue({ permissions: ['batch:execute', 'invoice:read'], ttlSeconds: 10, metadata: { a: 1 } })
    expect(scoped).toMatchObject({ permissions: ['batch:execute', 'invoice:read'], ttlSeconds: 60 })
    expect(scoped.expiresAt).toBe('2025-06-01T12:01:00.000Z')
    expect(await verify(scoped.token)).toMatchObject({
      valid: true,
      sessionId: scoped.sessionId,
      permissions: ['batch:execute', 'invoice:read'],
      metadata: { a: 1 },
    })
    expect((await issue({ ttlSeconds: 200_000 })).ttlSeconds).toBe(86_400)
    expect((await issue({ ttlSeconds: 90.5 })).ttlSeconds).toBe(90)
    expect((await issue({ ttlSeconds: 0 })).ttlSeconds).toBe(3600)
    expect((await issue({ permissions: ['*'] })).permissions).toEqual([...Session.originalPermissions])
  })
})

describe('GET /api/v1/auth/verify', () => {
  test('default: a live token is valid, with its permissions, address and expiry; any payer may verify it', async () => {
    const { issue, verify } = setup()
    const session = await issue({ permissions: ['read', 'pay'] })
    expect(await verify(session.token, bob)).toEqual({
      valid: true,
      permissions: ['read', 'pay'],
      address: alice,
      expiresAt: session.expiresAt,
      sessionId: session.sessionId,
      issuedAt: '2025-06-01T12:00:00.000Z',
      metadata: {},
    })
  })

  test('behavior: expired at expiresAt', async () => {
    const { issue, verify, clock } = setup()
    const session = await issue({ ttlSeconds: 60 })
    clock.now = new Date('2025-06-01T12:00:59.999Z')
    expect((await verify(session.token)).valid).toBe(true)
    clock.now = new Date('2025-06-01T12:01:00.000Z')
    expect(await verify(session.token)).toEqual({
      valid: false,
      permissions: [],
      address: alice,
      expiresAt: session.expiresAt,
      sessionId: session.sessionId,
      reason: 'expired',
      error: 'Token expired',
    })
  })

  test('behavior: revokeOthers revokes every earlier token of the address, not the new one, not later ones', async () => {
    const { issue, verify, store } = setup()
    const first = await issue({})
    const second = await issue({ permissions: ['admin'] })
    const others = await issue({}, bob)
    const fresh = await issue({ revokeOthers: true })
    expect(fresh.revokedOthers).toBe(true)
    for (const old of [first, second])
      expect(await verify(old.token)).toMatchObject({
        valid: false,
        permissions: [],
        address: alice,
        reason: 'revoked',
      })
    expect((await verify(fresh.token)).valid).toBe(true)
    expect((await verify(others.token)).valid).toBe(true)
    expect((await verify((await issue({})).token)).valid).toBe(true)
    const revocation = await store.get<{ generation: number; revokedBefore: string }>('session_revocations', alice)
    expect(revocation?.value).toEqual({ generation: 1, revokedBefore: '2025-06-01T12:00:00.000Z' })
    expect(revocation?.owners).toEqual([alice])
  })

  test('behavior: a second revocation revokes the token of the first', async () => {
    const { issue, verify } = setup()
    const first = await issue({ revokeOthers: true })
    const second = await issue({ revokeOthers: true })
    expect((await verify(first.token)).reason).toBe('revoked')
    expect((await verify(second.token)).valid).toBe(true)
  })

  test('security: a token with altered claims is tampered and names nobody', async () => {
    const { issue, verify } = setup()
    const [header, payload, signature] = (await issue({})).token.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    const forged = Buffer.from(JSON.stringify({ ...claims, perms: ['admin'] })).toString('base64url')
    expect(await verify(`${header}.${forged}.${signature}`)).toEqual({
      valid: false,
      permissions: [],
      address: null,
      expiresAt: null,
      sessionId: null,
      reason: 'tampered',
      error: 'Invalid or expired token',
    })
  })

  test('security: a token signed with another secret is tampered', async () => {
    const { verify } = setup()
    const claims: Session.Claims = {
      iss: Session.issuer,
      sub: alice,
      perms: ['admin'],
      iat: 1_748_779_200,
      exp: 1_748_782_800,
      jti: 'x',
      gen: 0,
    }
    const foreign = Session.sign({ claims, secret: 'another-secret-0123456789abcdef0123456789' })
    expect((await verify(foreign)).reason).toBe('tampered')
  })

  test('error: a string that is not a token is malformed', async () => {
    const { verify } = setup()
    expect(await verify('not-a-token')).toEqual({
      valid: false,
      permissions: [],
      address: null,
      expiresAt: null,
      sessionId: null,
      reason: 'malformed',
      error: 'Invalid or expired token',
    })
  })

  test('error: a missing or oversized token is 400', async () => {
    const { app } = setup()
    expect((await refused(await app.get('/api/v1/auth/verify', bob), 400)).code).toBe('validation_failed')
    expect((await refused(await app.get(`/api/v1/auth/verify?token=${'a'.repeat(4097)}`, bob), 400)).field).toBe(
      'token',
    )
  })
})

describe('auth', () => {
  test('error: a secret shorter than 32 bytes fails at boot', () => {
    expect(() => auth({ store: memory(), secret: 'too-short' })).toThrow(/at least 32 bytes/)
  })
})
