import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Elysia, t } from 'elysia'
import { dexscreener } from '../../adapters/dex/dexscreener.js'
import { memory } from '../../adapters/store/memory.js'
import { families } from '../../app/modules.js'
import * as Catalog from '../../core/Catalog.js'
import * as Module from '../../core/Module.js'
import packageJson from '../../package.json' with { type: 'json' }
import { page } from '../support/docs.js'
import { stubPayment, testGateway } from '../support/gateway.js'

const gateway = testGateway({ env: { PUBLIC_URL: 'https://pay.example' } })
const paid = Catalog.entries.filter((entry) => !Catalog.isFree(entry))
const free = Catalog.entries.filter(Catalog.isFree)

async function json(path: string, from: { fetch: (path: string) => Promise<Response> } = gateway) {
  const response = await from.fetch(path)
  expect(response.status).toBe(200)
  return (await response.json()) as any
}

describe('GET /', () => {
  test('default: exactly the overview fields of the interface', async () => {
    const body = await json('/')
    expect(Object.keys(body).sort()).toEqual(
      ['_gateway', 'gateway', 'links', 'network', 'note', 'paidEndpoints', 'status', 'timestamp', 'version'].sort(),
    )
    expect(body.version).toBe('3.8.2')
    expect(body._gateway).toEqual({ provider: body.gateway, version: '3.8.2' })
    expect(body.network).toBe('eip155:84532')
    expect(body.links).toEqual({
      fullManifest: 'https://pay.example/.well-known/x402.json',
      openapi: 'https://pay.example/openapi.json',
    })
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp)
  })

  test('behavior: paidEndpoints maps every paid entry to its price and purpose', async () => {
    const body = await json('/')
    expect(Object.keys(body.paidEndpoints).sort()).toEqual(paid.map(Catalog.key).sort())
    expect(body.paidEndpoints['POST /api/v1/chat/completions']).toStartWith('$0.005000 (catalog: $0.040000) - ')
    expect(body.note).toContain(`${paid.length} paid and ${free.length} free`)
    expect(body.note).toContain('153 = 129 paid + 24 free in 27 categories')
  })
})

describe('GET /openapi.json', () => {
  test('behavior: OpenAPI 3.1 with every operation of the catalog', async () => {
    const body = await json('/openapi.json')
    expect(body.openapi).toBe('3.1.0')
    expect(body.info.version).toBe('3.8.3')
    const operations = Object.entries(body.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, any>).map(([method, operation]) => ({ path, method, operation })),
    )
    // The original gateway's paths are aliases of catalog operations, marked as such and not counted as operations.
    const canonical = operations.filter(({ operation }) => operation['x-alias-of'] === undefined)
    expect(canonical.length).toBe(Catalog.entries.length)
    const ids = new Set(operations.map(({ operation }) => operation.operationId))
    expect(ids.size).toBe(operations.length)
    for (const entry of Catalog.entries) {
      const operation = body.paths[entry.path.replace(/:([A-Za-z]+)/g, '{$1}')][entry.method.toLowerCase()]
      expect(operation.operationId).toBe(Catalog.operationId(entry))
      expect(operation.tags.length).toBeGreaterThan(0)
      expect(operation.summary).toBe(entry.purpose)
      if (Catalog.isFree(entry)) {
        expect(operation['x-payment-info']).toBeUndefined()
        continue
      }
      expect(operation.responses['402']).toBeDefined()
      expect(operation['x-payment-info'].protocols).toEqual(['mpp', 'x402'])
      if (entry.price.type === 'fixed')
        expect(operation['x-payment-info'].price).toEqual({
          mode: 'fixed',
          amount: entry.price.amount,
          currency: 'USD',
        })
    }
  })

  test('behavior: parameters and request bodies come from the catalog', async () => {
    const body = await json('/openapi.json')
    const chat = body.paths['/api/v1/chat/completions'].post
    const schema = chat.requestBody.content['application/json'].schema
    expect(schema.required).toEqual(['model', 'messages'])
    expect(Object.keys(schema.properties)).toEqual(['model', 'messages', 'max_tokens', 'temperature'])
    const quote = body.paths['/api/v1/swap/quote'].get
    expect(quote.parameters.map((parameter: any) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['tokenIn', 'query', true],
      ['tokenOut', 'query', true],
      ['amountIn', 'query', true],
    ])
    const invoice = body.paths['/api/v1/invoice/{id}'].get
    expect(invoice.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true })
  })

  test('behavior: x-service-info reports computed counts beside the stated ones', async () => {
    const body = await json('/openapi.json')
    expect(body['x-service-info'].counts.computed).toEqual(Catalog.counts())
    expect(body['x-service-info'].counts.stated).toEqual(Catalog.stated)
  })

  test('behavior: an entry that is not built is marked unavailable with its 501', async () => {
    // The gpu family is left out so that its entries are not built.
    const unbuilt = testGateway({ families: families.filter((family) => family.name !== 'gpu') })
    const body = await (await unbuilt.fetch('/openapi.json')).json()
    const operation = body.paths['/api/v1/gpu/status/{id}'].get
    expect(operation['x-available']).toBe(false)
    expect(operation.responses['501']).toBeDefined()
    expect(body.paths['/free/timestamp'].get['x-available']).toBe(true)
  })
})

describe('GET /.well-known/x402.json', () => {
  test('behavior: every paid resource with its payment terms, and the free ones as free', async () => {
    const body = await json('/.well-known/x402.json')
    expect(body.resources.length).toBe(paid.length)
    expect(body.free.length).toBe(free.length)
    for (const resource of body.resources) {
      const entry = Catalog.find(resource.method, resource.path)!
      expect(entry).toBeDefined()
      expect(resource.url).toBe(`https://pay.example${entry.path}`)
      expect(resource.network).toBe('eip155:84532')
      expect(resource.asset).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(resource.payTo).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(resource.protocols).toEqual(['x402', 'mpp'])
      expect(resource.schemes).toEqual(['exact'])
      expect(resource.description).toBe(entry.purpose)
      expect(resource.input).toBeDefined()
      expect(resource.output).toBeDefined()
      if (entry.price.type === 'fixed') expect(resource.price.amount).toBe(entry.price.amount)
    }
    for (const resource of body.free) expect(resource.price).toBe('free')
  })
})

describe('GET /llms.txt', () => {
  test('behavior: plain text naming every operation and how to pay', async () => {
    const response = await gateway.fetch('/llms.txt')
    expect(response.headers.get('content-type')).toStartWith('text/plain')
    const text = await response.text()
    for (const entry of Catalog.entries) expect(text).toContain(Catalog.key(entry))
    expect(text).toContain('PAYMENT-SIGNATURE')
    expect(text).toContain('Authorization: Payment')
  })
})

describe('GET /free', () => {
  test("default: the original gateway's free-tier index, generated from every free entry of the catalog", async () => {
    const body = await json('/free')
    expect(Object.keys(body)).toEqual([
      'name',
      'description',
      'version',
      'endpoints',
      'rateLimit',
      'free',
      'gateway',
      'docs',
      'spec',
    ])
    expect(Object.keys(body.endpoints)).toEqual(free.map(Catalog.key))
    expect(body.endpoints['GET /free/dex/trending']).toBe(Catalog.find('GET', '/free/dex/trending')!.purpose)
    expect(body.gateway).toBe('https://pay.example')
    expect(body.docs).toBe('https://pay.example/llms.txt')
  })

  test("behavior: each endpoint with its family's per-client limit and whether it answers here", async () => {
    const limited = testGateway({
      env: { DEX_RATE_LIMIT_PER_MINUTE: '7' },
      ports: { dex: dexscreener({ baseUrl: 'http://127.0.0.1:9' }) },
    })
    const body = await json('/free', limited)
    const of = (key: string) => body.free.find((listed: { endpoint: string }) => listed.endpoint === key)
    expect(of('GET /free/dex/search')).toEqual({
      endpoint: 'GET /free/dex/search',
      description: Catalog.find('GET', '/free/dex/search')!.purpose,
      available: true,
      rateLimit: { text: '7 per minute', sharedBy: 'dex', calls: 7, perSeconds: 60, burst: 7 },
    })
    // No chat upstream here: free chat is listed with the reason it does not answer.
    expect(of('POST /free/chat')).toMatchObject({
      available: false,
      reason: expect.stringContaining('CHAT_UPSTREAM_URL'),
    })
    expect(of('GET /free/uuid').rateLimit).toMatchObject({ text: '300 per minute', sharedBy: 'free' })
    expect(body.rateLimit).toStartWith('per client (by source address)')
    expect(body.rateLimit).toContain('7 per minute (dex)')
    expect(body.rateLimit).toContain('300 per minute (free)')
  })

  test('behavior: llms.txt links it', async () => {
    expect(await (await gateway.fetch('/llms.txt')).text()).toContain('https://pay.example/free')
  })
})

describe('absolute URLs without PUBLIC_URL', () => {
  const listen = 'http://127.0.0.1:3402'
  const poisoned = 'cache-poison.example'
  const documents = ['/', '/openapi.json', '/.well-known/x402.json', '/llms.txt', '/free']
  const read = async (target: ReturnType<typeof testGateway>, url: string) => {
    const response = await target.handle(new Request(url))
    expect(response.status).toBe(200)
    return response.text()
  }

  test('security: a Host header never reaches the documents; they name the listen address', async () => {
    const bare = testGateway()
    for (const path of documents) {
      const text = await read(bare, `http://${poisoned}${path}`)
      expect(text).not.toContain(poisoned)
      expect(text).toContain(listen)
    }
  })

  test('behavior: a host on PUBLIC_HOSTS is used as the client sent it; any other gets the listen address', async () => {
    const listed = testGateway({ env: { PUBLIC_HOSTS: 'pay.example, PAY.example:8443' } })
    expect(JSON.parse(await read(listed, 'http://pay.example/')).links.openapi).toBe('http://pay.example/openapi.json')
    expect(JSON.parse(await read(listed, 'http://pay.example:8443/')).links.openapi).toBe(
      'http://pay.example:8443/openapi.json',
    )
    expect(JSON.parse(await read(listed, 'http://pay.example:9999/')).links.openapi).toBe(`${listen}/openapi.json`)
    expect(JSON.parse(await read(listed, `http://${poisoned}/`)).links.openapi).toBe(`${listen}/openapi.json`)
  })

  test("security: a payment offer's resource and MPP realm never come from the Host header", async () => {
    const offering = testGateway({ payment: stubPayment().payment, store: memory() })
    const response = await offering.handle(new Request(`http://${poisoned}/api/v1/auth/verify?token=abc`))
    expect(response.status).toBe(402)
    const body = (await response.json()) as { accepts: { resource: string }[] }
    expect(body.accepts[0]!.resource).toBe(`${listen}/api/v1/auth/verify`)
    const required = JSON.parse(atob(response.headers.get('payment-required')!)) as { resource: { url: string } }
    expect(required.resource.url).toBe(`${listen}/api/v1/auth/verify`)
    expect(response.headers.get('www-authenticate')).toContain('realm="127.0.0.1"')
    expect(JSON.stringify([...response.headers]) + JSON.stringify(body)).not.toContain(poisoned)
  })
})

describe('the version', () => {
  test('behavior: the overview and package.json state the overview version, OpenAPI and the manifest the machine description version, as the interface does', async () => {
    expect(Catalog.overviewVersion).toBe('3.8.2')
    expect(Catalog.machineDescriptionVersion).toBe('3.8.3')
    expect(packageJson.version).toBe(Catalog.overviewVersion)
    expect((await json('/')).version).toBe(Catalog.overviewVersion)
    const openapi = await json('/openapi.json')
    expect(openapi.info.version).toBe(Catalog.machineDescriptionVersion)
    expect(openapi['x-service-info']).toMatchObject({
      overviewVersion: Catalog.overviewVersion,
      machineDescriptionVersion: Catalog.machineDescriptionVersion,
    })
    expect((await json('/.well-known/x402.json')).version).toBe(Catalog.machineDescriptionVersion)
    const readme = page('README.md')
    expect(readme).toContain(`info.version ${Catalog.machineDescriptionVersion}`)
    expect(readme).toContain(`${Catalog.machineDescriptionVersion} for the machine description`)
    expect(readme).toContain(`${Catalog.overviewVersion} for the overview`)
    const spec = join(import.meta.dir, '../../../shared/spec/gateway-interface.md')
    if (existsSync(spec))
      expect(readFileSync(spec, 'utf8')).toContain(
        `The machine description carries version ${Catalog.machineDescriptionVersion}; the public overview object carries version ${Catalog.overviewVersion}.`,
      )
  })
})

describe('OpenAPI request schemas', () => {
  test("behavior: a route's body and query schemas are documented beside the catalog's fields: every name the route takes, the catalog's description where the route has none", async () => {
    const invoices = Module.define({
      name: 'invoice',
      paths: ['/api/v1/invoice/create'],
      needs: [],
      routes: () =>
        new Elysia().post('/api/v1/invoice/create', () => ({ ok: true }), {
          body: t.Object(
            {
              creator: t.String(),
              token: t.String(),
              amount: t.String(),
              memo: t.Optional(t.String({ description: 'Free text on the invoice.' })),
            },
            { additionalProperties: false },
          ),
        }),
    })
    const gateway = testGateway({ families: [invoices] })
    const body = (await json('/openapi.json', gateway)).paths['/api/v1/invoice/create'].post.requestBody.content[
      'application/json'
    ].schema
    expect(Object.keys(body.properties)).toEqual(['creator', 'token', 'amount', 'memo'])
    expect(body.required).toEqual(['creator', 'token', 'amount'])
    expect(body.additionalProperties).toBe(false)
    expect(body.properties.memo.description).toBe('Free text on the invoice.')
    const catalogAmount = Catalog.entries
      .find((entry) => entry.path === '/api/v1/invoice/create')!
      .request.find((field) => field.name === 'amount')!.description
    expect(body.properties.amount.description).toBe(catalogAmount)
  })

  test("behavior: a route's query parameters that the catalog does not name are listed after the catalog's, with their schema", async () => {
    const models = Module.define({
      name: 'models',
      paths: ['/api/v1/models'],
      needs: [],
      routes: () =>
        new Elysia().get('/api/v1/models', () => ({ models: [], count: 0 }), {
          query: t.Object({
            provider: t.Optional(t.String({ pattern: '^[a-z]+$', description: 'Only this provider.' })),
          }),
        }),
    })
    const gateway = testGateway({ families: [models] })
    const parameters = (await json('/openapi.json', gateway)).paths['/api/v1/models'].get.parameters
    expect(parameters).toContainEqual({
      name: 'provider',
      in: 'query',
      required: false,
      schema: { pattern: '^[a-z]+$', description: 'Only this provider.', type: 'string' },
      description: 'Only this provider.',
    })
  })
})
