import type { Address } from 'viem'
import * as Catalog from '../../core/Catalog.js'

// A bounded, deterministic schema fuzzer: for each catalog entry, a plausible request built from its request
// fields, then mutations of it (wrong types, huge strings, objects that cannot be printed, nested junk, unicode,
// negative and huge numbers, missing required fields, extra fields, repeated query parameters). The same seed
// always gives the same cases, in the same order.

/** One request of the fuzzer. */
export type Case = {
  /** What the case changes, for failure messages. */
  name: string
  /** HTTP method. */
  method: string
  /** Path and query string. */
  path: string
  /** The raw body, when the case sends one. */
  body?: string | undefined
}

/** A run of text no problem may repeat: the huge strings are made of it. */
export const filler = 'fuzz'

/** Most cases per catalog entry. */
export const maxCases = 30

/** Addresses the plausible values use: the payer (who owns what it creates) and someone else. */
export type Parties = { payer: Address; other: Address }

/** Up to `limit` cases for `entry`: the plausible request first, then mutations in a seeded order. */
export function cases(
  entry: Catalog.Entry,
  parties: Parties,
  parameters: { seed?: number; limit?: number } = {},
): Case[] {
  const { seed = 0x5eed, limit = maxCases } = parameters
  const random = mulberry32(seed ^ hash(Catalog.key(entry)))
  const base = plausible(entry, parties)
  const fields = entry.request
  const mutations: { name: string; values: Values; raw?: string; extraQuery?: string }[] = []

  for (const field of fields) {
    const without = { ...base }
    delete without[field.name]
    if (field.required) mutations.push({ name: `without ${field.name}`, values: without })
    for (const [label, value] of junk(random))
      mutations.push({ name: `${field.name} = ${label}`, values: { ...base, [field.name]: value } })
    if (field.in === 'query') {
      const pair = `${encode(field.name)}=${encode(String(base[field.name] ?? 'x'))}`
      mutations.push({
        name: `${field.name} repeated`,
        values: base,
        extraQuery: field.name in base ? pair : `${pair}&${pair}`,
      })
    }
  }
  mutations.push({ name: 'an extra field', values: { ...base, fuzzExtra: 'x' } })
  mutations.push({ name: 'a huge extra field name', values: { ...base, [filler.repeat(2000)]: 1 } })
  if (fields.some((field) => field.in === 'body') || entry.method !== 'GET') {
    mutations.push({ name: 'a JSON array body', values: base, raw: '[1,2,3]' })
    mutations.push({ name: 'a JSON string body', values: base, raw: JSON.stringify(filler.repeat(3000)) })
    mutations.push({ name: 'a JSON null body', values: base, raw: 'null' })
    mutations.push({ name: 'a body that is not JSON', values: base, raw: '{"a": fuzz' })
    mutations.push({ name: 'a deeply nested body', values: base, raw: `${'['.repeat(2000)}${']'.repeat(2000)}` })
    mutations.push({ name: 'a body with {"toString":1}', values: base, raw: '{"toString":1,"valueOf":1}' })
  }

  const chosen = shuffle(mutations, random).slice(0, Math.max(0, limit - 1))
  return [{ name: 'plausible', values: base }, ...chosen].map((mutation) => toCase(entry, mutation))
}

type Values = Record<string, unknown>

/** Values that break one field, labelled. */
function junk(random: () => number): [string, unknown][] {
  const huge = filler.repeat(2500 + Math.floor(random() * 100))
  return [
    ['{"toString":1}', { toString: 1 }],
    ['{"toString":{}}', { toString: {} }],
    ['a huge string', huge],
    ['a huge number', 1e308],
    ['a negative number', -1 - Math.floor(random() * 1000)],
    ['2^53 + 1', 2 ** 53 + 1],
    ['a fraction', 0.5],
    ['true', true],
    ['null', null],
    ['an empty string', ''],
    ['an empty array', []],
    ['nested junk', { a: [{ b: { c: [null, { toString: 1 }, huge.slice(0, 100)] } }] }],
    ['unicode', '\u0000\u202e😀\ud800𝕏 ٩(◕‿◕)۶'],
    ['an array of junk', [{ toString: 1 }, -1, 'x', null]],
    ['a numeric string', '-0001e9999'],
    ['a hex string', `0x${'f'.repeat(4096)}`],
  ]
}

/** A request that names every field with a value of its type, chosen so that the implemented routes can succeed. */
function plausible(entry: Catalog.Entry, parties: Parties): Values {
  const key = Catalog.key(entry)
  const overrides = routeValues(parties)[key]
  if (overrides) return { ...overrides }
  const values: Values = {}
  for (const field of entry.request) {
    const named = byName(parties)[field.name]
    values[field.name] = named !== undefined ? named : byType[field.type]
  }
  return values
}

/** Values for the routes implemented here, where a made-up value would never get past validation. */
function routeValues(parties: Parties): Record<string, Values> {
  const { payer, other } = parties
  return {
    'POST /api/v1/rpc/call': { chain: 'devnet', method: 'eth_blockNumber', params: [] },
    'POST /api/v1/auth/session': { address: payer },
    'GET /api/v1/auth/verify': { token: 'not-a-token' },
    'POST /api/v1/audit/log': { action: 'fuzz.run', actor: payer, resource: 'fuzz:1' },
    'GET /api/v1/audit/query': { actor: payer },
    'POST /api/v1/logs/ingest': { entries: [{ service: 'fuzz', level: 'info', message: 'fuzzing' }] },
    'GET /api/v1/logs/query': { service: 'fuzz' },
    'POST /api/v1/invoice/create': { creator: payer, token: 'USDC', amount: '1000' },
    'GET /api/v1/invoice/list': { address: payer },
    'GET /api/v1/invoice/:id': { id: `inv_${'0'.repeat(32)}` },
    'POST /api/v1/escrow/create': { depositor: payer, beneficiary: other, token: 'USDC', amount: '1000' },
    'GET /api/v1/escrow/list': { address: payer },
    'GET /api/v1/escrow/:id': { id: `0x${'0'.repeat(64)}` },
    'POST /api/v1/batch/execute': { token: 'USDC', recipients: [other], amounts: ['1000'], sender: payer },
    'POST /api/v1/batch/estimate': { token: 'USDC', recipientCount: 2 },
    'POST /api/v1/payroll/execute': { token: 'USDC', sender: payer, employees: [{ address: other, amount: '1000' }] },
    'POST /api/v1/payroll/estimate': { employeeCount: 3 },
  }
}

function byName(parties: Parties): Record<string, unknown> {
  const { payer, other } = parties
  return {
    address: payer,
    actor: payer,
    caller: payer,
    creator: payer,
    depositor: payer,
    sender: payer,
    owner: payer,
    fromAddress: payer,
    beneficiary: other,
    recipient: other,
    to: other,
    token: 'USDC',
    amount: '1000',
    amountIn: '1000',
    recipients: [other],
    amounts: ['1000'],
    recipientCount: 2,
    chain: 'base',
    escrowId: `0x${'0'.repeat(64)}`,
    id: 'fuzz-1',
    count: '2',
    model: 'fuzz-model',
    messages: [{ role: 'user', content: 'hi' }],
  }
}

const byType: Record<Catalog.FieldType, unknown> = {
  string: 'fuzz',
  number: 1,
  boolean: true,
  array: ['fuzz'],
  object: { fuzz: 1 },
}

/** The HTTP request of one mutation: path fields in the path, query fields in the query, the rest in the body. */
function toCase(
  entry: Catalog.Entry,
  mutation: { name: string; values: Values; raw?: string; extraQuery?: string },
): Case {
  const located = new Map(entry.request.map((field) => [field.name, field.in]))
  let path = entry.path
  const query: string[] = []
  const body: Values = {}
  for (const [name, value] of Object.entries(mutation.values)) {
    const location = located.get(name) ?? (entry.method === 'GET' ? 'query' : 'body')
    if (location === 'path')
      path = path.replace(`:${name}`, encode(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')))
    else if (location === 'query')
      query.push(`${encode(name)}=${encode(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`)
    else body[name] = value
  }
  // A path parameter the mutation left out is left empty, as a client that lost it would send.
  path = path.replace(/:[A-Za-z]+/g, '')
  if (mutation.extraQuery) query.push(mutation.extraQuery)
  const target = query.length > 0 ? `${path}?${query.join('&')}` : path
  if (entry.method === 'GET') return { name: mutation.name, method: entry.method, path: target }
  return { name: mutation.name, method: entry.method, path: target, body: mutation.raw ?? JSON.stringify(body) }
}

/** Percent-encodes text for a URL; a lone surrogate becomes the invalid UTF-8 a careless client would send. */
function encode(text: string): string {
  const lone = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/
  return text
    .split(lone)
    .map((part) => (lone.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('')
}

/** A small, fast, seeded PRNG (Mulberry32). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** FNV-1a of a string, to seed each entry differently. */
function hash(text: string): number {
  let value = 0x811c9dc5
  for (let index = 0; index < text.length; index++) value = Math.imul(value ^ text.charCodeAt(index), 0x01000193)
  return value >>> 0
}

/** A seeded Fisher-Yates shuffle of a copy. */
function shuffle<value>(items: readonly value[], random: () => number): value[] {
  const copy = [...items]
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1))
    ;[copy[index], copy[other]] = [copy[other]!, copy[index]!]
  }
  return copy
}
