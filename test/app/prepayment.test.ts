import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Kind, type TSchema } from '@sinclair/typebox'
import type { Address } from 'viem'
import * as Catalog from '../../core/Catalog.js'
import type * as Rpc from '../../core/Rpc.js'
import * as rpc from '../../modules/rpc/index.js'
import { cases } from '../support/fuzz.js'
import { moduleGateway } from '../support/gateway.js'
import { payers } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'

// Input a schema or a module's preflight can judge is refused with a 400 before any payment is asked for (llms.txt:
// "Bad input is refused with 400 before any payment is asked for"); only what needs a store read, the payer or the
// chain (an unknown id, someone else's record) is left to the paid call, which charges nothing when it fails.

/** The devnet's funded account #1 pays; #2 is the other party. */
const parties = {
  payer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  other: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
} as const satisfies Record<string, Address>

const escrowId = `0x${'ab'.repeat(32)}`
const invoice = { creator: parties.payer, token: 'USDC', amount: '1000' }
const escrow = { depositor: parties.payer, beneficiary: parties.other, token: 'USDC', amount: '1000' }
const settle = { escrowId, caller: parties.payer }

/** A bad input: its name, the request, and the field the refusal must name. */
type Case = [name: string, method: 'GET' | 'POST', path: string, body: unknown, field: string]

/** The inputs of issue 33 item 13, and their siblings: each was answered 402, then 400 once paid for. */
const refused: Case[] = [
  [
    'invoice/create: creator not an address',
    'POST',
    '/api/v1/invoice/create',
    { ...invoice, creator: 'nope' },
    'creator',
  ],
  ['invoice/create: token not accepted', 'POST', '/api/v1/invoice/create', { ...invoice, token: 'nope' }, 'token'],
  ['invoice/create: amount not a number', 'POST', '/api/v1/invoice/create', { ...invoice, amount: 'nope' }, 'amount'],
  ['invoice/create: amount zero', 'POST', '/api/v1/invoice/create', { ...invoice, amount: '0' }, 'amount'],
  [
    'invoice/create: recipient not an address',
    'POST',
    '/api/v1/invoice/create',
    { ...invoice, recipient: 'nope' },
    'recipient',
  ],
  ['invoice/create: dueDate not a date', 'POST', '/api/v1/invoice/create', { ...invoice, dueDate: 'nope' }, 'dueDate'],
  ['invoice/create: reference empty', 'POST', '/api/v1/invoice/create', { ...invoice, reference: '' }, 'reference'],
  [
    'escrow/create: depositor not an address',
    'POST',
    '/api/v1/escrow/create',
    { ...escrow, depositor: 'nope' },
    'depositor',
  ],
  [
    'escrow/create: beneficiary not an address',
    'POST',
    '/api/v1/escrow/create',
    { ...escrow, beneficiary: 'nope' },
    'beneficiary',
  ],
  ['escrow/create: arbiter not an address', 'POST', '/api/v1/escrow/create', { ...escrow, arbiter: 'nope' }, 'arbiter'],
  ['escrow/create: token not supported', 'POST', '/api/v1/escrow/create', { ...escrow, token: 'nope' }, 'token'],
  ['escrow/create: amount not a number', 'POST', '/api/v1/escrow/create', { ...escrow, amount: 'nope' }, 'amount'],
  ['escrow/create: expiry not a time', 'POST', '/api/v1/escrow/create', { ...escrow, expiry: 'nope' }, 'expiry'],
  ['escrow/fund: escrowId "nope"', 'POST', '/api/v1/escrow/fund', { escrowId: 'nope' }, 'escrowId'],
  ['escrow/release: escrowId "nope"', 'POST', '/api/v1/escrow/release', { ...settle, escrowId: 'nope' }, 'escrowId'],
  ['escrow/release: caller not an address', 'POST', '/api/v1/escrow/release', { ...settle, caller: 'nope' }, 'caller'],
  ['escrow/cancel: escrowId "nope"', 'POST', '/api/v1/escrow/cancel', { ...settle, escrowId: 'nope' }, 'escrowId'],
  ['escrow/cancel: caller not an address', 'POST', '/api/v1/escrow/cancel', { ...settle, caller: 'nope' }, 'caller'],
  ['resolve: neither name nor address', 'GET', '/api/v1/resolve', undefined, 'name'],
  [
    'resolve: both name and address',
    'GET',
    `/api/v1/resolve?name=alice.eth&address=${parties.other}`,
    undefined,
    'address',
  ],
  ['resolve: address not an address', 'GET', '/api/v1/resolve?address=nope', undefined, 'address'],
  ['resolve: name with an empty label', 'GET', '/api/v1/resolve?name=alice..eth', undefined, 'name'],
  [
    'rpc/call: eth_getBalance without its address',
    'POST',
    '/api/v1/rpc/call',
    { chain: 'devnet', method: 'eth_getBalance', params: [] },
    'params',
  ],
  [
    'rpc/call: eth_blockNumber with a parameter',
    'POST',
    '/api/v1/rpc/call',
    { chain: 'devnet', method: 'eth_blockNumber', params: ['latest'] },
    'params',
  ],
]

/** The same routes, well formed (an id that is well formed but unknown included): each still gets its 402. */
const wellFormed: [name: string, method: 'GET' | 'POST', path: string, body: unknown][] = [
  ['invoice/create', 'POST', '/api/v1/invoice/create', { ...invoice, recipient: parties.other, reference: 'PO-7' }],
  ['escrow/create', 'POST', '/api/v1/escrow/create', { ...escrow, arbiter: parties.other, expiry: 4102444800 }],
  ['escrow/fund (an unknown escrow)', 'POST', '/api/v1/escrow/fund', { escrowId }],
  ['escrow/release', 'POST', '/api/v1/escrow/release', settle],
  ['escrow/cancel', 'POST', '/api/v1/escrow/cancel', settle],
  ['resolve by name', 'GET', '/api/v1/resolve?name=alice.eth', undefined],
  ['resolve by address', 'GET', `/api/v1/resolve?address=${parties.other}`, undefined],
  ['rpc/call', 'POST', '/api/v1/rpc/call', { chain: 'devnet', method: 'eth_getBalance', params: [parties.other] }],
]

describe('bad input, before the 402', () => {
  let gateway: Awaited<ReturnType<typeof paidGateway>>
  beforeAll(async () => {
    gateway = await paidGateway()
  })
  afterAll(async () => {
    await gateway.close()
  })

  /** Sends one request, paid by account #1 at the entry's catalog price when `paid`. */
  async function send(method: string, path: string, body: unknown, paid = false): Promise<Response> {
    if (paid) return gateway.paid(gateway.account(1), method, path, body)
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
    return gateway.fetch(`${origin}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }

  test.each(refused)(
    'error: %s is a 400 naming the field, before any payment is asked for',
    async (...[, method, path, body, field]) => {
      const response = await send(method, path, body)
      expect(response.status).toBe(400)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      expect(response.headers.get('payment-required')).toBeNull()
      expect(response.headers.get('www-authenticate')).toBeNull()
      expect(await response.json()).toMatchObject({ code: 'validation_failed', field })
    },
  )

  test('behavior: sent with a payment, every one of them is refused the same way and nothing is charged', async () => {
    const payee = await gateway.balance(gateway.terms.payTo)
    for (const [name, method, path, body, field] of refused) {
      const response = await send(method, path, body, true)
      expect({ name, status: response.status, receipt: response.headers.get('payment-response') }).toEqual({
        name,
        status: 400,
        receipt: null,
      })
      expect(await response.json()).toMatchObject({ code: 'validation_failed', field })
    }
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payee)
  })

  test.each(wellFormed)('behavior: %s, well formed, still gets its 402', async (...[, method, path, body]) => {
    const response = await send(method, path, body)
    expect(response.status).toBe(402)
    expect(response.headers.get('payment-required')).not.toBeNull()
  })

  test('error: parameters the devnet node refuses as invalid are a 400 with its message, and nothing is charged', async () => {
    const payee = await gateway.balance(gateway.terms.payTo)
    const response = await send(
      'POST',
      '/api/v1/rpc/call',
      { chain: 'devnet', method: 'eth_getBalance', params: ['nope'] },
      true,
    )
    expect(response.status).toBe(400)
    expect(response.headers.get('payment-response')).toBeNull()
    const problem = (await response.json()) as {
      code: string
      rpcError: { code: number; message: string }
      detail: string
    }
    expect(problem).toMatchObject({ code: 'bad_request', rpcError: { code: -32602 } })
    expect(problem.detail).toContain(problem.rpcError.message)
    expect(await gateway.balance(gateway.terms.payTo)).toBe(payee)
  })

  test('behavior: across every paid entry, no input refused with a 400 once paid for got a 402 unpaid', async () => {
    // Each paid, fixed-price entry served here whose plausible request asks for payment: each field of its schemas set
    // to values no schema accepts everywhere (not a number, not an address, not an id, empty), left out, or the whole
    // body empty. Whatever the unpaid request gets a 402 for, the paid one may refuse only for what needs the payer,
    // a store read or the chain (403, 404, 409), never as bad input (400).
    const schemas = new Map<string, Record<'body' | 'query' | 'params', unknown>>(
      gateway.gateway.app.routes.map((route) => [`${route.method} ${route.path}`, route.hooks]),
    )
    const junk = ['nope', '', '-1', '1.5', '0x1234']
    const failures: string[] = []
    let walked = 0
    for (const entry of Catalog.entries) {
      if (Catalog.isFree(entry) || entry.price.type !== 'fixed' || !gateway.gateway.availability(entry).available)
        continue
      const base = cases(entry, parties, { limit: 1 })[0]!
      const body = base.body === undefined ? undefined : (JSON.parse(base.body) as Record<string, unknown>)
      if ((await send(base.method, base.path, body)).status !== 402) continue
      walked++
      const url = new URL(base.path, origin)
      const variants: { name: string; path: string; body: unknown }[] = [{ name: '{}', path: base.path, body: {} }]
      const hooks = schemas.get(Catalog.key(entry))
      for (const location of ['body', 'query', 'params'] as const)
        for (const field of Object.keys(propertiesOf(hooks?.[location]))) {
          const at = (value: string | undefined) => {
            if (location === 'body') {
              const changed = { ...body }
              if (value === undefined) delete changed[field]
              else changed[field] = value
              return { path: base.path, body: changed }
            }
            if (location === 'params')
              return { path: `${entry.path.replace(`:${field}`, encodeURIComponent(value ?? ''))}${url.search}`, body }
            const query = new URLSearchParams(url.search)
            if (value === undefined) query.delete(field)
            else query.set(field, value)
            return { path: `${url.pathname}?${query}`, body }
          }
          variants.push({ name: `without ${field}`, ...at(undefined) })
          for (const value of junk) variants.push({ name: `${field} = ${JSON.stringify(value)}`, ...at(value) })
        }
      for (const variant of variants) {
        if ((await send(entry.method, variant.path, variant.body)).status !== 402) continue
        const paid = await send(entry.method, variant.path, variant.body, true)
        if (paid.status === 400)
          failures.push(`${Catalog.key(entry)} (${variant.name}): 402 unpaid, then ${await paid.text()}`)
      }
    }
    expect(failures).toEqual([])
    expect(walked).toBeGreaterThan(20)
  }, 120_000)
})

describe('rpc/call and the node', () => {
  // A node that answers every call with the JSON-RPC error it is set to.
  const answer: { code: number; message: string } = { code: -32602, message: 'invalid params' }
  const node: Rpc.Endpoint = {
    name: 'stub',
    chainId: 84532,
    request: async () => ({ ok: false, ...answer }),
  }
  const gateway = moduleGateway(rpc.manifest, { ports: { chains: [node] }, payer: payers.alice })
  const call = (method: string, params: unknown[]) =>
    gateway.post('/api/v1/rpc/call', { chain: 'stub', method, params })

  test.each([
    [-32602, 'invalid argument 0: hex string has length 4, want 40 for common.Address', 'eth_getBalance', 'params'],
    [-32601, 'the method eth_feeHistory does not exist/is not available', 'eth_feeHistory', 'method'],
    [-32600, 'invalid request', 'eth_getCode', 'params'],
  ])(
    'error: a node that says the request is invalid (%d) is a 400 with its message, not charged',
    async (code, message, method, field) => {
      Object.assign(answer, { code, message })
      const settled = gateway.settled.length
      const response = await call(method, method === 'eth_feeHistory' ? [1, 'latest'] : ['0x1234'])
      expect(response.status).toBe(400)
      const problem = (await response.json()) as { code: string; field: string; detail: string; rpcError: unknown }
      expect(problem).toMatchObject({ code: 'bad_request', field, rpcError: { code, message } })
      expect(problem.detail).toContain(message)
      expect(gateway.settled.length).toBe(settled)
    },
  )

  test('error: a node that fails the call for its own reasons stays a 502 upstream_failed, not charged', async () => {
    Object.assign(answer, { code: -32000, message: 'header not found' })
    const settled = gateway.settled.length
    const response = await call('eth_getBalance', [parties.other, 'latest'])
    expect(response.status).toBe(502)
    expect(await response.json()).toMatchObject({ code: 'upstream_failed', rpcError: { code: -32000 } })
    expect(gateway.settled.length).toBe(settled)
  })
})

/** The properties a route's TypeBox schema of one location names. */
function propertiesOf(schema: unknown): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null || !(Kind in schema)) return {}
  return ((schema as TSchema).properties as Record<string, unknown> | undefined) ?? {}
}
