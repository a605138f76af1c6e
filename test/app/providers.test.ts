import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import { boot } from '../../app/boot.js'
import { ConfigError, parse, variablesOf } from '../../app/config.js'
import { silent } from '../../app/log.js'
import { families } from '../../app/modules.js'
import { settlementChainOf } from '../../app/providers/settlement-chain.js'
import { define } from '../../app/providers/shared.js'
import { providers } from '../../app/providers.js'
import * as Module from '../../core/Module.js'
import type * as Rpc from '../../core/Rpc.js'
import { offMachine } from '../support/paid.js'

// A vendor family the gateway does not have, added as a deployment adds one: its port declared beside its provider.
declare module '../../core/Module.js' {
  interface Ports {
    /** The fixture's weather service. */
    weather: { today: () => Promise<string> }
  }
}

/** The weather vendor's stand-in, answering its one documented call: `GET /today` is `{ "forecast": "..." }`. */
const vendor = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === '/today'
      ? Response.json({ forecast: 'sunny' })
      : new Response('not found', { status: 404 }),
})
afterAll(() => vendor.stop(true))

/** How many times the provider built its port. */
let builds = 0

/** The family's provider: one variable, one port. */
const weatherProvider = define({
  port: 'weather',
  description: 'a weather service (WEATHER_URL)',
  env: Type.Object({
    WEATHER_URL: Type.Optional(
      Type.String({ pattern: '^https?://', secret: true, description: 'the weather service, may carry its key' }),
    ),
  }),
  build: ({ env }) => {
    builds++
    const url = env.WEATHER_URL
    if (!url) return undefined
    return { today: async () => ((await (await fetch(`${url}/today`)).json()) as { forecast: string }).forecast }
  },
})

/** Forecasts the family's job read, in order. */
const forecasts: string[] = []

/** The family: one module on one free catalog path (the gpu family's model list, which steps aside), one job. */
const weatherFamily = Module.define({
  name: 'weather',
  paths: ['/api/v1/gpu/models'],
  needs: ['weather'],
  routes: ({ ports }) =>
    new Elysia({ name: 'weather' }).get('/api/v1/gpu/models', async () => ({ forecast: await ports.weather.today() })),
  jobs: [{ name: 'weather-sweep', run: async ({ ports }) => forecasts.push(await ports.weather.today()) }],
})

/** The gateway's lists, each one line longer. */
const withWeather = {
  families: [...families.filter((family) => family.name !== 'gpu'), weatherFamily],
  providers: [...providers, weatherProvider],
}

/** A booted gateway on the embedded devnet with the family's lists, its environment `env`. */
async function booted(env: Record<string, string>, ports?: boot.Parameters['ports']) {
  const config = parse(
    {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'providers-')),
      DEVNET_RPC_PORT: '0',
      DEVNET_PERSIST: 'false',
      ...Object.fromEntries(offMachine.map((name) => [name, 'http://127.0.0.1:9'])),
      ...env,
    },
    withWeather.families,
    withWeather.providers,
  )
  return boot({ config, logger: silent(), ...withWeather, ...(ports ? { ports } : {}) })
}

describe('a new vendor family', () => {
  test('default: one provider and one module, one line in each list, answer on its route and run its job', async () => {
    const gateway = await booted({ WEATHER_URL: `http://127.0.0.1:${vendor.port}` })
    try {
      const response = await gateway.gateway.handle(new Request('http://gateway.test/api/v1/gpu/models'))
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ forecast: 'sunny' })
      forecasts.length = 0
      await gateway.jobs.find((job) => job.name === 'weather-sweep')!.run()
      expect(forecasts).toEqual(['sunny'])
    } finally {
      await gateway.close()
    }
  })

  test('behavior: without its variable the port is absent: its path answers 503 with the description, unpaid', async () => {
    const gateway = await booted({})
    try {
      const response = await gateway.gateway.handle(new Request('http://gateway.test/api/v1/gpu/models'))
      expect(response.status).toBe(503)
      expect((await response.json()).detail).toContain('needs a weather service (WEATHER_URL) and none is configured')
    } finally {
      await gateway.close()
    }
  })

  test("behavior: a deployment's own port replaces the provider's, which is not built", async () => {
    const before = builds
    const gateway = await booted(
      { WEATHER_URL: `http://127.0.0.1:${vendor.port}` },
      { weather: { today: async () => 'own' } },
    )
    try {
      expect(builds).toBe(before)
      const response = await gateway.gateway.handle(new Request('http://gateway.test/api/v1/gpu/models'))
      expect(await response.json()).toEqual({ forecast: 'own' })
    } finally {
      await gateway.close()
    }
  })

  test('behavior: its variable is documented from its schema, under its port', () => {
    // The providers' variables come after the gateway's and before the families'.
    expect(variablesOf([], withWeather.providers).at(-1)).toEqual({
      name: 'WEATHER_URL',
      default: undefined,
      defaultText: undefined,
      description: 'the weather service, may carry its key',
      secret: true,
    })
  })

  test('error: its bad variable is reported with every other bad one, its secret redacted', () => {
    const bad = { PORT: 'abc', WEATHER_URL: 'ftp://weather.example/key-123' }
    expect(() => parse(bad, withWeather.families, withWeather.providers)).toThrow(ConfigError)
    try {
      parse(bad, withWeather.families, withWeather.providers)
    } catch (error) {
      expect((error as Error).message).toContain('PORT="abc"')
      expect((error as Error).message).toContain('WEATHER_URL=<redacted>')
      expect((error as Error).message).not.toContain('key-123')
    }
  })

  test('error: a provider left out of the parse is named at boot', async () => {
    const config = parse({ DEVNET_RPC_PORT: '0', DEVNET_PERSIST: 'false', DATA_DIR: mkdtempSync(join(tmpdir(), 'p-')) })
    const refused = await boot({ config, logger: silent(), ...withWeather }).then(
      (gateway) => gateway.close().then(() => undefined),
      (error: unknown) => error,
    )
    expect((refused as Error).message).toBe(
      "The environment of the weather provider was not parsed: pass the provider to the configuration's parse.",
    )
  })
})

describe('settlementChain', () => {
  /** An endpoint that is never asked anything. */
  const endpointOf = (name: string, chainId: number): Rpc.Endpoint => ({
    name,
    chainId,
    request: () => Promise.reject(new Error('not asked')),
  })
  const onchain = { chainId: 8453, transfers: undefined as never, tokens: [] }

  test('default: the node of chains whose id is the settlement chain’s, found once', () => {
    const base = endpointOf('base', 8453)
    expect(settlementChainOf({ chains: [endpointOf('ethereum', 1), base], onchain })).toBe(base)
  })

  test('behavior: absent while chains or the settlement chain is absent, so that its families answer 503', () => {
    expect(settlementChainOf({ onchain })).toBeUndefined()
    expect(settlementChainOf({ chains: [], onchain })).toBeUndefined()
    expect(settlementChainOf({ chains: [endpointOf('base', 8453)] })).toBeUndefined()
  })

  test("error: a deployment's own chains without the settlement chain's node stop the start, naming its id", async () => {
    const refused = await booted({}, { chains: [endpointOf('ethereum', 1)] }).then(
      (gateway) => gateway.close().then(() => undefined),
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(ConfigError)
    expect((refused as Error).message).toStartWith("No configured chain has the settlement chain's id ")
  })
})
