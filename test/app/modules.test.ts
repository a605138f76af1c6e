import { afterAll, describe, expect, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { outbound } from '../../adapters/outbound/fetch.js'
import { memory } from '../../adapters/store/memory.js'
import { openai } from '../../adapters/upstream/openai.js'
import { ConfigError, parse, variablesOf } from '../../app/config.js'
import { jobRunner } from '../../app/jobs.js'
import { silent } from '../../app/log.js'
import { families } from '../../app/modules.js'
import * as Module from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import { page, root } from '../support/docs.js'
import { testGateway } from '../support/gateway.js'

/** A whole family in a few lines: one env var (a secret), one port, one job, one catalog entry. */
const ticks: string[] = []
const tiny = Module.define({
  name: 'tiny',
  paths: ['/api/v1/gpu/models'],
  needs: ['outbound'],
  env: Type.Object({
    TINY_TOKEN: Type.String({
      minLength: 8,
      default: 'tiny-default',
      secret: true,
      description: 'Token of the tiny family.',
    }),
  }),
  routes: ({ env }) =>
    new Elysia({ name: 'tiny' }).get('/api/v1/gpu/models', () => ({ tokenLength: env.TINY_TOKEN.length })),
  jobs: [{ name: 'tiny-sweep', run: async ({ env }) => ticks.push(env.TINY_TOKEN) }],
})

/** An outbound guard that lets nothing go: the port the tiny family needs. */
const guard: Outbound.Guard = {
  check: async () => ({ ok: false, reason: 'private_address', message: 'refused' }) as never,
  fetch: async () => ({ ok: false, reason: 'private_address', message: 'refused' }) as never,
}

describe('a new family', () => {
  test('default: mounts with one line, reads its env slice, gets its port', async () => {
    const gateway = testGateway({
      families: [...families.filter((family) => family.name !== 'gpu'), tiny],
      ports: { outbound: guard },
      env: { TINY_TOKEN: 'a-longer-token' },
    })
    const response = await gateway.fetch('/api/v1/gpu/models')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ tokenLength: 14 })
  })

  test('behavior: without the port it needs, its path answers 503 with the reason, before any payment', async () => {
    const gateway = testGateway({ families: [...families.filter((family) => family.name !== 'gpu'), tiny] })
    const response = await gateway.fetch('/api/v1/gpu/models')
    expect(response.status).toBe(503)
    expect((await response.json()).detail).toContain('needs an outbound guard and none is configured')
  })

  test('error: its bad variable is reported with every other bad one, its secret redacted', () => {
    expect(() => parse({ PORT: 'abc', TINY_TOKEN: 'short' }, [...families, tiny])).toThrow(ConfigError)
    try {
      parse({ PORT: 'abc', TINY_TOKEN: 'short' }, [...families, tiny])
    } catch (error) {
      expect((error as Error).message).toContain('PORT="abc"')
      expect((error as Error).message).toContain('TINY_TOKEN=<redacted>')
      expect((error as Error).message).not.toContain('short')
    }
  })

  test('behavior: its variable is documented from its schema', () => {
    expect(variablesOf([tiny]).find((variable) => variable.name === 'TINY_TOKEN')).toEqual({
      name: 'TINY_TOKEN',
      default: 'tiny-default',
      description: 'Token of the tiny family.',
      secret: true,
    })
  })

  test('behavior: its job runs once per tick however many processes share the store', async () => {
    const gateway = testGateway({
      families: [...families.filter((family) => family.name !== 'gpu'), tiny],
      ports: { outbound: guard },
    })
    const job = gateway.jobs.find((candidate) => candidate.name === 'tiny-sweep')!
    expect(job.schedule).toBe('* * * * *')
    const store = memory()
    const now = () => new Date('2026-01-01T00:00:30.000Z')
    const processes = [jobRunner({ store, logger: silent(), now }), jobRunner({ store, logger: silent(), now })]
    ticks.length = 0
    expect(await Promise.all(processes.map((runner) => runner.tick(job)))).toEqual(
      expect.arrayContaining([true, false]),
    )
    expect(ticks).toEqual(['tiny-default'])
  })
})

describe('a custom deployment', () => {
  const code = /<!-- custom-deployment -->\n```ts\n([\s\S]*?)```/.exec(page('docs/custom-deployment.md'))?.[1]
  // At the repository's root, where the example's relative imports (`./app/...`) resolve as they read.
  const file = join(root, '.custom-deployment.test-fixture.ts')
  afterAll(() => rmSync(file, { force: true }))

  test('default: the example of docs/custom-deployment.md runs, and its own store replaces the default', async () => {
    expect(code).toBeDefined()
    writeFileSync(file, code!)
    const { gateway } = await import(file)
    // The logs family needs a store: mounted on the deployment's own, it lacks nothing but the payment settlement
    // the example leaves out; without a store it is not mounted at all.
    const response: Response = await gateway.handle(new Request('http://gateway.test/api/v1/logs/query'))
    expect((await response.json()).detail).toContain('has no payment settlement configured')
    const without = await testGateway().fetch('/api/v1/logs/query')
    expect((await without.json()).detail).toContain('needs a store and none is configured')
  })
})

describe('rate limits of free endpoints', () => {
  test('error: beyond the family limit a client gets 429 problem+json with RateLimit and Retry-After', async () => {
    const gateway = testGateway({ env: { FREE_RATE_LIMIT_PER_MINUTE: '2' } })
    expect((await gateway.fetch('/free/timestamp')).status).toBe(200)
    expect((await gateway.fetch('/free/uuid')).status).toBe(200)
    const response = await gateway.fetch('/free/timestamp')
    expect(response.status).toBe(429)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(response.headers.get('ratelimit')).toMatch(/^"free";r=0;t=\d+$/)
    expect(response.headers.get('ratelimit-policy')).toBe('"free";q=2;w=60')
    expect(await response.json()).toMatchObject({ status: 429, code: 'rate_limited' })
  })

  test('behavior: the x402 probe, which sends requests out, is limited on its own by default', async () => {
    const post = (gateway: ReturnType<typeof testGateway>) =>
      gateway.fetch('/free/x402-check', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://10.0.0.1/x' }),
      })
    const ports = { outbound: outbound({ allow: Outbound.emptyAllowList }) }
    const limited = testGateway({ env: { X402_CHECK_RATE_LIMIT_PER_MINUTE: '1' }, ports })
    expect((await post(limited)).status).toBe(400)
    const response = await post(limited)
    expect(response.status).toBe(429)
    expect(response.headers.get('ratelimit-policy')).toBe('"probe";q=1;w=60')
    expect((await limited.fetch('/free/timestamp')).status).toBe(200)
    const byDefault = testGateway({ ports })
    for (let call = 0; call < 30; call++) expect((await post(byDefault)).status).toBe(400)
    expect((await post(byDefault)).status).toBe(429)
  })

  test('behavior: a browser-hosted agent may read the rate-limit headers (CORS exposes them)', async () => {
    const gateway = testGateway({ env: { FREE_RATE_LIMIT_PER_MINUTE: '1' } })
    await gateway.fetch('/free/timestamp')
    const response = await gateway.fetch('/free/timestamp')
    expect(response.status).toBe(429)
    expect(response.headers.get('access-control-expose-headers')).toBe('*')
    for (const name of ['ratelimit', 'ratelimit-policy', 'retry-after'])
      expect(response.headers.get(name)).not.toBeNull()
  })

  test('default: 300 calls a minute per client, unless the operator sets another limit or none', async () => {
    const gateway = testGateway()
    for (let call = 0; call < 300; call++) expect((await gateway.fetch('/free/timestamp')).status).toBe(200)
    expect((await gateway.fetch('/free/timestamp')).status).toBe(429)
  })
})

describe('the ai family environment', () => {
  const upstream = openai({
    name: 'the chat upstream',
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'sk-test',
    retries: 0,
  })

  test('default: the limits are the ai and decentralized slices, not the gateway configuration', () => {
    const config = parse({ CHAT_ALLOWED_MODELS: 'a, b', CHAT_MAX_TOKENS: '64', DECENTRALIZED_MAX_TOKENS: '32' })
    expect(config.modules.ai).toEqual({ CHAT_ALLOWED_MODELS: 'a, b', CHAT_MAX_TOKENS: 64 })
    expect(config.modules.decentralized).toEqual({ DECENTRALIZED_MAX_TOKENS: 32 })
    const names = (modules: readonly Module.AnyModule[]) => variablesOf(modules).map((variable) => variable.name)
    expect(names([])).not.toContain('CHAT_ALLOWED_MODELS')
    expect(names(families.filter((family) => family.name === 'ai')).slice(-3)).toEqual([
      'CHAT_ALLOWED_MODELS',
      'CHAT_MAX_TOKENS',
      'CHAT_UPTO_PRICES',
    ])
  })

  test('behavior: the allowed models and the token ceiling of the slice are enforced before payment', async () => {
    const gateway = testGateway({
      env: { CHAT_ALLOWED_MODELS: 'small-model', CHAT_MAX_TOKENS: '8' },
      inference: { chat: upstream },
    })
    const messages = [{ role: 'user', content: 'Hi' }]
    const tooMany = await gateway.post('/api/v1/chat/completions', { model: 'small-model', messages, max_tokens: 9 })
    expect(tooMany.status).toBe(400)
    expect(await tooMany.json()).toMatchObject({ field: 'max_tokens' })
    const other = await gateway.post('/api/v1/chat/completions', { model: 'large-model', messages })
    expect(other.status).toBe(400)
    expect(await other.json()).toMatchObject({ field: 'model' })
  })

  test('error: an upstream without allowed models stops the start, naming the variable', () => {
    expect(() => testGateway({ inference: { chat: upstream } })).toThrow(
      'CHAT_ALLOWED_MODELS is required with CHAT_UPSTREAM_URL',
    )
    expect(() => testGateway({ inference: { decentralized: upstream } })).toThrow(
      'DECENTRALIZED_ALLOWED_MODELS is required',
    )
    expect(() => testGateway({ env: { CHAT_MAX_TOKENS: '0' } })).toThrow('CHAT_MAX_TOKENS=')
  })
})
