import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { generateKeyPairSigner } from '@solana/kit'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { openai } from '../../adapters/upstream/openai.js'
import { clients } from '../../app/clients.js'
import * as Catalog from '../../core/Catalog.js'
import * as Messaging from '../../core/Messaging.js'
import * as Module from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import { decentralizedManifest } from '../../modules/ai/index.js'
import { manifest as msgManifest } from '../../modules/msg/index.js'
import { assetsManifest, prices, pricesManifest, swapManifest } from '../../modules/solana/index.js'
import { solanaStandIns, solUsd, usdc, wsol } from '../adapters/solana/stand-ins.js'
import { moduleGateway, testGateway } from '../support/gateway.js'
import { accounts, ok, payers } from '../support/module.js'
import { openaiStub } from '../support/openai.js'

const stub = openaiStub()
const standIns = solanaStandIns()
const { owner, nft } = standIns
afterAll(() => {
  stub.stop()
  standIns.stop()
})
beforeEach(() => stub.reset())

const ports = {
  decentralized: openai({ name: 'the decentralized upstream', baseUrl: stub.url, apiKey: 'sk-key', retryDelayMs: 0 }),
  ...standIns.ports(),
  store: memoryStore({ queue: memoryQueue() }),
  onchain: { chainId: 8453, tokens: [], transfers: { find: async () => [] } } as unknown as Module.Onchain,
}
// The price feed's clock pinned 30 s after the stand-in's SOL/USD publish time, as the module's tests do.
const pricesAt = Module.define({
  ...pricesManifest,
  routes: () => prices({ service: ports.solanaPrices, now: () => 1_763_900_030_000 }),
})
/** Every family with an alias, on the test upstreams the families' own tests use, paid by alice. */
const gateway = moduleGateway([decentralizedManifest, swapManifest, assetsManifest, pricesAt, msgManifest], {
  ports,
  env: { DECENTRALIZED_ALLOWED_MODELS: 'small-model', MSG_KEYS_RATE_LIMIT_PER_MINUTE: '0' },
  payer: payers.alice,
})

// Alice can be written to: her messaging key is registered.
const alice = Messaging.createKeyPair()
beforeAll(async () => {
  const issuedAt = new Date().toISOString()
  const message = Messaging.keyMessage({ address: payers.alice, publicKey: alice.publicKey, chainId: 8453, issuedAt })
  const signature = await accounts.alice.signMessage({ message })
  await ok(
    await gateway.post('/api/v1/msg/keys', { address: payers.alice, publicKey: alice.publicKey, signature, issuedAt }),
  )
})

const pay = clients({ terms: gateway.terms, fetch: globalThis.fetch })

/**
 * `method path` paid at the price of the catalog entry whose path or alias it is, by alice: the test gateway's own
 * helpers find a route's price by its catalog path only.
 */
async function paid(method: string, path: string, body?: unknown, signer = accounts.alice): Promise<Response> {
  const route = new URL(path, 'http://gateway.test').pathname
  const entry = Catalog.find(method, Catalog.canonicalPath(route) ?? route)!
  const header = await pay.presigned({ signer, value: Price.quote({ price: entry.price }) })
  return gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method,
      headers: { 'PAYMENT-SIGNATURE': header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  )
}

/** `method path` with no payment. */
const unpaid = (method: string, path: string) => gateway.handle(new Request(`http://gateway.test${path}`, { method }))

/** The answer's status and body, without what differs per request (its id, a new record's id and time). */
async function answerOf(response: Response) {
  const text = await response.text()
  const body = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text
  // The Solana stand-in's block height grows with every call.
  if (body && typeof body === 'object')
    for (const name of ['requestId', 'id', 'createdAt', 'lastValidBlockHeight']) delete body[name]
  return { status: response.status, body }
}

/** One call of every aliased operation, as `(path) => response`, paid by alice (bob sends the message). */
async function callsOf(): Promise<Record<string, (path: string) => Promise<Response>>> {
  const quote = `?inputMint=${wsol}&outputMint=${usdc}&amount=1000000`
  const quoted = await ok(await gateway.get(`/api/v1/solana/aggregator/quote${quote}`))
  const swap = { quoteResponse: quoted.quoteResponse, userPublicKey: (await generateKeyPairSigner()).address }
  const envelope = Messaging.encrypt({ content: 'hello', publicKey: alice.publicKey })
  return {
    '/api/v1/solana/aggregator/quote': (path) => paid('GET', `${path}${quote}`),
    '/api/v1/solana/aggregator/swap-tx': (path) => paid('POST', path, swap),
    '/api/v1/solana/assetindex/assets-by-owner': (path) => paid('GET', `${path}?owner=${owner}`),
    '/api/v1/solana/assetindex/asset': (path) => paid('GET', `${path}?id=${nft.id}`),
    '/api/v1/solana/pricefeed/price': (path) => paid('GET', `${path}?feedId=${solUsd}`),
    '/api/v1/solana/pricefeed/prices': (path) => paid('GET', `${path}?feedIds=${solUsd}`),
    '/api/v1/msg/send': (path) => paid('POST', path, { to: payers.alice, content: envelope }, accounts.bob),
    '/api/v1/msg/inbox': (path) => paid('GET', `${path}?address=${payers.alice}&limit=1`),
    '/decentralized/v1/chat/completions': (path) =>
      paid('POST', path, { model: 'small-model', messages: [{ role: 'user', content: 'Hi' }] }),
    '/decentralized/v1/embeddings': (path) => paid('POST', path, { model: 'small-model', input: 'x' }),
    '/decentralized/v1/images/generations': (path) => paid('POST', path, { model: 'small-model', prompt: 'a fox' }),
    '/decentralized/v1/models': (path) => paid('GET', path),
  }
}

const aliased = Catalog.entries.filter((entry) => entry.aliases)
let calls: Promise<Record<string, (path: string) => Promise<Response>>> | undefined

describe('aliases of the original gateway', () => {
  test('behavior: every aliased operation has a call here', async () => {
    calls ??= callsOf()
    expect(Object.keys(await calls).sort()).toEqual(aliased.map((entry) => entry.path).sort())
  })

  for (const entry of aliased)
    for (const alias of entry.aliases!)
      test(`behavior: ${alias} answers exactly what ${entry.path} answers, for one payment each`, async () => {
        calls ??= callsOf()
        const call = (await calls)[entry.path]!
        const before = gateway.settled.length
        const canonical = await answerOf(await call(entry.path))
        const viaAlias = await answerOf(await call(alias))
        expect(viaAlias).toEqual(canonical)
        expect(viaAlias.status).toBe(200)
        expect(gateway.settled.length - before).toBe(2)
      })

  test('behavior: the 402 of an alias names the canonical resource, in x402 v2, v1 and the MPP challenge', async () => {
    const viaAlias = await unpaid('GET', '/bittensor/v1/models')
    expect(viaAlias.status).toBe(402)
    const offer = decodePaymentRequiredHeader(viaAlias.headers.get('PAYMENT-REQUIRED')!)
    expect(offer.resource.url).toBe('http://127.0.0.1:3402/decentralized/v1/models')
    expect((await viaAlias.json()).accepts[0].resource).toBe('http://127.0.0.1:3402/decentralized/v1/models')
    const canonical = await unpaid('GET', '/decentralized/v1/models')
    // The MPP challenge binds the same request (realm, method, amount) on either spelling; only its id and expiry vary.
    const challenged = (response: Response) => {
      const header = response.headers.get('WWW-Authenticate')!
      return ['realm', 'method', 'intent', 'request'].map((name) => new RegExp(`${name}="([^"]+)"`).exec(header)?.[1])
    }
    expect(challenged(viaAlias)).toEqual(challenged(canonical))
    expect(challenged(viaAlias)[3]).toBeString()
  })

  test('security: a payment made on an alias is one use across both spellings', async () => {
    const entry = Catalog.find('GET', '/api/v1/msg/inbox')!
    const header = await pay.presigned({ signer: accounts.alice, value: Price.quote({ price: entry.price }) })
    const send = (path: string) =>
      gateway.handle(new Request(`http://gateway.test${path}`, { headers: { 'PAYMENT-SIGNATURE': header } }))
    const uses = () => new Set(gateway.settled.map((authorization) => authorization.nonce)).size
    const before = uses()
    const first = await answerOf(await send(`/api/v1/xmtp/inbox?address=${payers.alice}`))
    expect(first.status).toBe(200)
    expect(uses() - before).toBe(1)
    // The same call at the canonical path is the same paid call: its kept answer.
    expect(await answerOf(await send(`/api/v1/msg/inbox?address=${payers.alice}`))).toEqual(first)
    // Another call with it, at either spelling, is refused as replayed.
    for (const path of ['/api/v1/xmtp/inbox', '/api/v1/msg/inbox']) {
      const other = await send(`${path}?address=${payers.alice}&limit=1`)
      expect(other.status).toBe(402)
      expect(await other.json()).toMatchObject({ error: 'replayed' })
    }
    expect(uses() - before).toBe(1)
  })

  test('behavior: HEAD and a wrong method answer on an alias as on its canonical path', async () => {
    const head = await gateway.send('HEAD', '/bittensor/v1/models', undefined, undefined)
    expect(head.status).toBe((await gateway.send('HEAD', '/decentralized/v1/models', undefined, undefined)).status)
    expect(await head.text()).toBe('')
    const wrong = await gateway.send('DELETE', '/api/v1/xmtp/send', undefined, undefined)
    expect(await answerOf(wrong)).toEqual(
      await answerOf(await gateway.send('DELETE', '/api/v1/msg/send', undefined, undefined)),
    )
    expect(wrong.status).toBe(405)
  })

  test('error: bad input on an alias is the canonical 400, before any 402', async () => {
    const alias = await answerOf(await unpaid('GET', '/api/v1/solana/pyth/price?feedId=nope'))
    expect(alias).toEqual(await answerOf(await unpaid('GET', '/api/v1/solana/pricefeed/price?feedId=nope')))
    expect(alias.status).toBe(400)
  })
})

describe('GET /bittensor/v1/health', () => {
  test('behavior: the upstream configured and taking calls is ok, at both paths, free', async () => {
    const health = await ok(await unpaid('GET', '/bittensor/v1/health'))
    expect(health).toMatchObject({ status: 'ok', providers: { decentralized: { status: 'ok' } } })
    expect(health.dropin.baseUrl).toBe('http://127.0.0.1:3402/decentralized/v1')
    expect(await ok(await unpaid('GET', '/decentralized/v1/health'))).toEqual(health)
    expect(stub.received).toHaveLength(0)
  })

  test('behavior: without the upstream it is degraded and says why (200, as the original answers)', async () => {
    const health = await ok(await testGateway().fetch('/bittensor/v1/health'))
    expect(health).toMatchObject({ status: 'degraded', providers: { decentralized: { status: 'not_configured' } } })
  })

  test('behavior: an upstream refusing calls (its breaker open) is an error with the reason', async () => {
    const refusing = { ...ports.decentralized, available: () => ({ ok: false as const, reason: 'breaker open' }) }
    const configured = testGateway({
      inference: { decentralized: refusing },
      env: { DECENTRALIZED_ALLOWED_MODELS: 'small-model' },
    })
    const health = await ok(await configured.fetch('/bittensor/v1/health'))
    expect(health).toMatchObject({
      status: 'degraded',
      providers: { decentralized: { status: 'error', reason: 'breaker open' } },
    })
  })
})

describe('discovery of aliases', () => {
  const documents = testGateway({ env: { PUBLIC_URL: 'https://pay.example' } })
  const json = async (path: string) => (await documents.fetch(path)).json() as Promise<any>

  test('behavior: OpenAPI lists each alias with x-alias-of, and each canonical operation its aliases', async () => {
    const openapi = await json('/openapi.json')
    for (const entry of aliased) {
      const canonical = openapi.paths[entry.path][entry.method.toLowerCase()]
      expect(canonical['x-aliases']).toEqual(entry.aliases)
      expect(canonical.description).toContain(`Also at ${entry.aliases![0]}`)
      for (const alias of entry.aliases!) {
        const operation = openapi.paths[alias][entry.method.toLowerCase()]
        expect(operation['x-alias-of']).toBe(entry.path)
        expect(operation.summary).toBe(canonical.summary)
        expect(operation['x-payment-info']).toEqual(canonical['x-payment-info'])
      }
    }
    expect(openapi['x-service-info'].counts.computed).toEqual(Catalog.counts())
  })

  test('behavior: the manifest, the overview and llms.txt name each alias beside its canonical resource', async () => {
    const manifest = await json('/.well-known/x402.json')
    expect(manifest.resources).toHaveLength(Catalog.counts().paid)
    const models = manifest.resources.find((resource: any) => resource.path === '/decentralized/v1/models')
    expect(models.aliases).toEqual([
      {
        path: '/bittensor/v1/models',
        url: 'https://pay.example/bittensor/v1/models',
        aliasOf: '/decentralized/v1/models',
      },
    ])
    const overview = await json('/')
    expect(overview.paidEndpoints['POST /api/v1/msg/send']).toContain('Also at /api/v1/xmtp/send')
    expect(Object.keys(overview.paidEndpoints)).toHaveLength(Catalog.counts().paid)
    const llms = await (await documents.fetch('/llms.txt')).text()
    for (const entry of aliased) expect(llms).toContain(`Also at ${entry.aliases!.join(', ')}`)
  })

  test('behavior: where the original gateway priced otherwise, discovery says the spec price stands', async () => {
    const openapi = await json('/openapi.json')
    const cron = openapi.paths['/api/v1/cron/create'].post
    expect(cron.description).toContain('The original gateway charged $0.010000')
    expect(cron['x-payment-info'].price).toMatchObject({ mode: 'fixed', amount: '0.100000' })
    expect(cron['x-payment-info'].originalPrice).toEqual({ mode: 'fixed', amount: '0.010000', currency: 'USD' })
    const manifest = await json('/.well-known/x402.json')
    const prices = manifest.resources.find((resource: any) => resource.path === '/api/v1/prices')
    expect(prices.price).toMatchObject({ mode: 'fixed', amount: '0.002000' })
    expect(prices.originalPrice).toMatchObject({ mode: 'fixed', amount: '0.005000' })
    expect((await json('/')).paidEndpoints['GET /api/v1/prices']).toContain('The original gateway charged $0.005000')
  })
})
