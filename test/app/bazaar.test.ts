import { describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import {
  type DiscoveryExtension,
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { validate } from 'mppx/discovery'
import { parseUnits } from 'viem'
import { memory } from '../../adapters/store/memory.js'
import { bazaar, tagsOf } from '../../app/discovery/bazaar.js'
import * as Catalog from '../../core/Catalog.js'
import { manifest } from '../../modules/invoice/index.js'
import { stubPayment, testGateway } from '../support/gateway.js'
import { ok } from '../support/module.js'

const paid = Catalog.entries.filter((entry) => !Catalog.isFree(entry))

/** A URL that calls `entry`: each path parameter `x1`, each required query parameter `q`. */
function urlOf(entry: Catalog.Entry): string {
  const path = entry.path.replace(/:([A-Za-z]+)/g, 'x1')
  const query = entry.request
    .filter((field) => field.in === 'query' && field.required)
    .map((field) => `${field.name}=q`)
  return `https://pay.example${path}${query.length > 0 ? `?${query.join('&')}` : ''}`
}

/** The route template of an HTTP discovery extension. */
function routeTemplateOf(extension: DiscoveryExtension): string | undefined {
  return (extension as { routeTemplate?: string }).routeTemplate
}

describe('bazaar', () => {
  test('behavior: every paid entry is described as the facilitators validate it (spec; schema by method and category)', () => {
    // Compiling each schema takes a tenth of a second: one entry of each method and category stands for the others.
    const sampled = new Set<string>()
    for (const entry of paid) {
      const extension = bazaar({ entry, url: urlOf(entry) }).bazaar!
      const kind = `${entry.method} ${entry.category}`
      if (!sampled.has(kind)) {
        sampled.add(kind)
        expect([Catalog.key(entry), validateDiscoveryExtension(extension)]).toEqual([
          Catalog.key(entry),
          { valid: true },
        ])
      }
      expect([Catalog.key(entry), validateDiscoveryExtensionSpec(extension as never)]).toEqual([
        Catalog.key(entry),
        { valid: true },
      ])
      expect((extension.info.input as { method?: string }).method).toBe(entry.method)
      if (entry.path.includes('/:')) expect(routeTemplateOf(extension)).toBe(entry.path)
    }
  })

  test('behavior: a body is described by its schema and never echoed; a query is given as sent', () => {
    const create = Catalog.find('POST', '/api/v1/invoice/create')!
    const described = bazaar({ entry: create, url: 'https://pay.example/api/v1/invoice/create' }).bazaar!
    expect(described.info.input).toEqual({ type: 'http', method: 'POST', bodyType: 'json', body: {} })
    expect((described.schema.properties.input.properties as Record<string, any>).body).toMatchObject({
      type: 'object',
      properties: { creator: { type: 'string' }, token: { type: 'string' }, amount: { type: 'string' } },
      description: 'Required: creator, token, amount.',
    })
    const list = Catalog.find('GET', '/api/v1/invoice/list')!
    const listed = bazaar({ entry: list, url: 'https://pay.example/api/v1/invoice/list?address=0xabc&other=1' }).bazaar!
    expect(listed.info.input).toEqual({ type: 'http', method: 'GET', queryParams: { address: '0xabc' } })
    const output = (listed.schema.properties as Record<string, any>).output
    expect(output.properties.example).toMatchObject({ properties: { invoices: { type: 'array' } } })
  })

  test('behavior: tags are the category and the entry tags, at most 5 of at most 32 characters', () => {
    for (const entry of paid) {
      const tags = tagsOf(entry)
      expect(tags.length).toBeGreaterThan(0)
      expect(tags.length).toBeLessThanOrEqual(5)
      for (const tag of tags) expect(tag).toMatch(/^[\x20-\x7e]{1,32}$/)
    }
  })
})

describe('402', () => {
  const { payment } = stubPayment()
  const app = testGateway({
    env: { PUBLIC_URL: 'https://pay.example', ICON_URL: 'https://pay.example/icon.png' },
    families: [manifest],
    store: memory(),
    onchain: { chainId: 84532, transfers: { find: async () => [] } as never, tokens: [] },
    payment,
  })

  test('default: the offer names the service, its tags and icon, and carries the bazaar; a facilitator lists it', async () => {
    const response = await app.fetch('/api/v1/invoice/inv_0123456789abcdef0123456789abcdef')
    expect(response.status).toBe(402)
    const offer = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
    expect(offer.resource).toMatchObject({
      url: 'https://pay.example/api/v1/invoice/inv_0123456789abcdef0123456789abcdef',
      serviceName: 'agent-pay-gateway',
      tags: ['invoicing'],
      iconUrl: 'https://pay.example/icon.png',
    })
    const extension = offer.extensions!.bazaar as DiscoveryExtension
    expect(routeTemplateOf(extension)).toBe('/api/v1/invoice/:id')
    // What a facilitator does with the payment that echoes the offer.
    const payload = {
      x402Version: 2,
      resource: offer.resource,
      accepted: offer.accepts[0]!,
      payload: {},
      extensions: offer.extensions,
    } as PaymentPayload
    expect(extractDiscoveryInfo(payload, offer.accepts[0]!)).toMatchObject({
      resourceUrl: 'https://pay.example/api/v1/invoice/:id',
      method: 'GET',
      serviceName: 'agent-pay-gateway',
      tags: ['invoicing'],
      iconUrl: 'https://pay.example/icon.png',
      discoveryInfo: {
        input: { type: 'http', method: 'GET', pathParams: { id: 'inv_0123456789abcdef0123456789abcdef' } },
      },
    })
  })

  test('behavior: the offer with every extension stays far below the request header limit its payment echoes it in', async () => {
    const response = await app.fetch('/api/v1/invoice/inv_0123456789abcdef0123456789abcdef')
    expect(response.headers.get('PAYMENT-REQUIRED')!.length).toBeLessThan(6 * 1024)
    for (const entry of paid)
      expect([Catalog.key(entry), JSON.stringify(bazaar({ entry, url: urlOf(entry) })).length < 3 * 1024]).toEqual([
        Catalog.key(entry),
        true,
      ])
  })

  test('behavior: discovery names the entries re-read by signing in, and only those', async () => {
    const listed = await ok(await app.fetch('/.well-known/x402.json'))
    const byKey = new Map(listed.resources.map((resource: any) => [`${resource.method} ${resource.path}`, resource]))
    expect(byKey.get('GET /api/v1/invoice/:id')).toMatchObject({ reaccess: 'sign-in-with-x' })
    expect(byKey.get('GET /api/v1/invoice/list')).not.toHaveProperty('reaccess')
    const document = await ok(await app.fetch('/openapi.json'))
    expect(document.paths['/api/v1/invoice/{id}'].get.description).toContain('sign-in-with-x')
    expect(document.paths['/api/v1/invoice/list'].get.description).not.toContain('sign-in-with-x')
  })
})

describe('GET /openapi.json', () => {
  const app = testGateway({ env: { PUBLIC_URL: 'https://pay.example' }, payment: stubPayment().payment })

  test("default: mppx's discovery validator finds no error and no warning", async () => {
    const document = await ok(await app.fetch('/openapi.json'))
    expect(validate(document)).toEqual([])
  })

  test('behavior: each paid operation offers an MPP evm charge, its atomic amount or null when priced per request', async () => {
    const document = await ok(await app.fetch('/openapi.json'))
    const operationOf = (entry: Catalog.Entry) =>
      document.paths[entry.path.replace(/:([A-Za-z]+)/g, '{$1}')][entry.method.toLowerCase()]
    for (const entry of paid) {
      const [offer, ...more] = operationOf(entry)['x-payment-info'].offers
      expect(more).toEqual([])
      expect(offer).toMatchObject({ intent: 'charge', method: 'evm', currency: app.terms.asset.address })
      expect(offer.amount).toBe(entry.price.type === 'fixed' ? parseUnits(entry.price.amount, 6).toString() : null)
    }
    const chat = operationOf(Catalog.find('POST', '/api/v1/chat/completions')!)
    expect(chat['x-payment-info'].offers[0].amount).toBe('5000')
    expect(paid.some((entry) => operationOf(entry)['x-payment-info'].offers[0].amount === null)).toBe(true)
    expect(document['x-service-info']).toMatchObject({
      categories: ['data', 'compute', 'search', 'storage', 'developer-tools'],
      docs: {
        apiReference: 'https://pay.example/openapi.json',
        homepage: 'https://pay.example/',
        llms: 'https://pay.example/llms.txt',
      },
    })
  })
})
