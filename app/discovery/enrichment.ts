import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import * as Units from '../../core/Units.js'

/**
 * What the 402 of a paid call says beside the offer so that an agent can call again, as the original gateway's
 * `enrich402` middleware does: the entry's `description`, an `example_request` its route accepts and a few
 * `related_endpoints`, at the top level and again under `_spraay`, where the original's clients read them.
 */
export function enrichment(parameters: enrichment.Parameters): enrichment.ReturnType {
  const { entry, input } = parameters
  const example = exampleRequest(entry, input)
  const related = relatedOf(entry)
  const hints = {
    description: entry.purpose,
    ...(example === undefined ? {} : { example_request: example }),
    related_endpoints: related,
  }
  return { ...hints, _spraay: hints }
}

export declare namespace enrichment {
  type Parameters = {
    /** The paid entry. */
    entry: Catalog.Entry
    /** The TypeBox schemas its route validates with, where it is mounted. */
    input?: Input | undefined
  }
  /** An entry the 402 points to. */
  type Related = {
    /** HTTP method. */
    method: Catalog.Method
    /** Catalog path. */
    path: string
    /** Price per call as text, e.g. `$0.005` or `free`. */
    price: string
    /** Why it is related: its purpose. */
    why: string
  }
  type Hints = {
    /** What the entry does (the catalog's purpose). */
    description: string
    /** Query parameters (GET) or JSON body (other methods) the route accepts; absent when none can be shown. */
    example_request?: Record<string, unknown>
    /** A few entries of the same category or tags. */
    related_endpoints: Related[]
  }
  type ReturnType = Hints & {
    /** The same, where the original gateway's clients read them. */
    _spraay: Hints
  }
}

/** The TypeBox schemas of a route by location. */
export type Input = {
  /** Query parameters, an object schema. */
  query?: TSchema | undefined
  /** JSON body. */
  body?: TSchema | undefined
}

/** Most related entries a 402 lists. */
const maxRelated = 3

/** Other entries of the same category, then of a shared tag, in catalog order. */
function relatedOf(entry: Catalog.Entry): enrichment.Related[] {
  const others = Catalog.entries.filter((other) => other !== entry)
  const sameCategory = others.filter((other) => other.category === entry.category)
  const sameTag = others.filter(
    (other) => other.category !== entry.category && other.tags.some((tag) => entry.tags.includes(tag)),
  )
  return [...sameCategory, ...sameTag].slice(0, maxRelated).map((other) => ({
    method: other.method,
    path: other.path,
    price: Price.toText(other.price),
    why: other.purpose,
  }))
}

/**
 * The example of an entry: its route's query (GET) or body with its required members and the ones the catalog lists
 * as required (a route may take either of two names for one), if the route's schema accepts it.
 */
function exampleRequest(entry: Catalog.Entry, input: Input | undefined): Record<string, unknown> | undefined {
  const schema = entry.method === 'GET' ? input?.query : input?.body
  // A route that validates no input and a catalog that lists none (but the path's) take nothing more.
  if (!schema) return entry.request.every((field) => field.in === 'path') ? {} : undefined
  const also = [
    ...entry.request.filter((field) => field.required && field.in !== 'path').map((field) => field.name),
    ...(alsoOf[Catalog.key(entry)] ?? []),
  ]
  const value = example(schema, { also, category: entry.category })
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/**
 * A value `schema` accepts, built from its `examples`, `default`, `const`, enums, values typical of a member's name,
 * formats and patterns (required members of objects only, and the top level's `also`), or `undefined` when none is
 * found; every value returned passes `Value.Check`.
 */
export function example(schema: TSchema, options: example.Options = {}): unknown {
  const { also = [], category } = options
  const value = sample(schema as unknown as Schema, {
    also,
    named: { ...byName, ...(category ? byCategory[category] : {}) },
  })
  if (value === undefined) return undefined
  try {
    return Value.Check(schema, value) ? value : undefined
  } catch {
    // A kind TypeBox cannot check outside its route (Elysia's own): no example rather than a wrong one.
    return undefined
  }
}

export declare namespace example {
  type Options = {
    /** Optional top-level members to give too. @default none */
    also?: readonly string[] | undefined
    /** Catalog category, whose typical values win over the general ones. @default none */
    category?: string | undefined
  }
}

/** Members a route needs beside its first one that neither its schema nor the catalog marks required. */
const alsoOf: Readonly<Record<string, readonly string[]>> = {
  'POST /api/v1/agent-wallet/session-key': ['durationHours', 'spendLimitEth'],
  'POST /api/v1/compute-futures/deposit': ['amount'],
  'POST /api/v1/contract/read': ['args'],
  'POST /api/v1/contract/write': ['args'],
  'POST /api/v1/robots/task': ['task'],
}

/** How {@link sample} builds: the top level's further members, and typical values by member name. */
type Context = { also: readonly string[]; named: Readonly<Record<string, unknown>> }

/** An EVM address every checksum accepts (digits only). */
const anAddress = '0x1111111111111111111111111111111111111111'

/** Values typical of a member's name (an array's items take its name), tried before the schema's own shape. */
const byName: Readonly<Record<string, unknown>> = {
  address: anAddress,
  creator: anAddress,
  sender: anAddress,
  caller: anAddress,
  depositor: anAddress,
  beneficiary: anAddress,
  recipient: anAddress,
  recipients: anAddress,
  to: anAddress,
  owner: anAddress,
  fromAddress: anAddress,
  toAddress: anAddress,
  walletAddress: anAddress,
  ownerAddress: anAddress,
  sessionKeyAddress: anAddress,
  token: 'USDC',
  tokenIn: 'USDC',
  tokenOut: 'WETH',
  asset: 'ETH',
  amount: '25',
  amountIn: '25',
  amounts: '1000000',
  url: 'https://example.com',
  urls: 'https://example.com',
  webhook: 'https://example.com/hook',
  webhookUrl: 'https://example.com/hook',
  callback_url: 'https://example.com/hook',
  fromChain: 'base',
  toChain: 'arbitrum',
  schedule: '0 * * * *',
  feedIds: 'SOL',
  tokens: 'ETH',
  base: 'USD',
  spendLimitEth: '0.1',
  // The IPFS project's own readme: a well-formed CID.
  cid: 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG',
  data: 'hello',
  name: 'vitalik.eth',
  q: 'bitcoin',
  query: 'bitcoin',
}

/** A typical amount by how its field reads it ({@link Units.readingKeyword}): 25 tokens, or 25 USDC in atomic units. */
const byReading: Readonly<Record<Units.Reading, string>> = { human: '25', raw: '25000000' }

/** Typical values where a category reads a name otherwise. */
const byCategory: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  research: {
    cid: '2244',
    name: 'aspirin',
    pmid: '31452104',
    doi: '10.1038/nature12373',
    issn: '0028-0836',
    author: 'Yoshua Bengio',
    id: '2101.00001',
  },
}

/** The members of a JSON Schema (as TypeBox writes it) that examples are built from. */
type Schema = {
  /** Example values, the first taken. */
  examples?: unknown[]
  /** Default value. */
  default?: unknown
  /** The one value. */
  const?: unknown
  /** The values allowed. */
  enum?: unknown[]
  /** Alternatives (TypeBox unions). */
  anyOf?: Schema[]
  /** Alternatives. */
  oneOf?: Schema[]
  /** Parts that all apply (TypeBox intersections). */
  allOf?: Schema[]
  /** JSON type. */
  type?: string
  /** Members of an object. */
  properties?: Record<string, Schema>
  /** Required members of an object. */
  required?: string[]
  /** Schema of an array's items. */
  items?: Schema
  /** Fewest items of an array. */
  minItems?: number
  /** Named format of a string. */
  format?: string
  /** Regular expression a string matches. */
  pattern?: string
  /** Fewest characters of a string. */
  minLength?: number
  /** Most characters of a string. */
  maxLength?: number
  /** Smallest number. */
  minimum?: number
  /** Number the value must exceed. */
  exclusiveMinimum?: number
  /** Largest number. */
  maximum?: number
  /** Number the value must stay below. */
  exclusiveMaximum?: number
  /** How an amount field reads its number. */
  [Units.readingKeyword]?: Units.Reading
}

/** Values tried, in order, for a string of a custom format; the first the format accepts is the example. */
const formatCandidates = [
  // A checksummed EVM address (every digit, so any letter case is its checksum).
  '0x1111111111111111111111111111111111111111',
  'base',
  'USDC',
  'SOL',
  '1000',
  // USDC's mint on Solana: an address and a mint.
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  // The XRP Ledger's genesis account.
  'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
]

function sample(schema: Schema, context: Context, name?: string, top = true): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const named = name === undefined ? undefined : context.named[name]
  // An amount is a number of its unit, never a word: the member's typical value, else a typical amount of its reading.
  const reading = schema[Units.readingKeyword]
  if (reading !== undefined) {
    const amount = [named, byReading[reading]].find((value) => value !== undefined && checks(schema, value))
    if (amount !== undefined) return amount
  }
  const branches = schema.anyOf ?? schema.oneOf
  if (branches) {
    for (const branch of branches) {
      if (branch.type === 'null') continue
      const value = sample(branch, context, name, top)
      if (value !== undefined && checks(branch, value)) return value
    }
    return undefined
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => sample(part, context, name, top))
    return parts.every((part) => typeof part === 'object' && part !== null)
      ? Object.assign({}, ...(parts as object[]))
      : undefined
  }
  switch (schema.type) {
    case 'object':
      return objectOf(schema, context, top)
    case 'array': {
      const item = schema.items ? sample(schema.items, context, name, false) : named
      if (item === undefined) return undefined
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item)
    }
    case 'string':
      return typeof named === 'string' && checks(schema, named) ? named : stringOf(schema)
    case 'number':
    case 'integer':
      return numberOf(schema)
    case 'boolean':
      return true
    case undefined:
      // Any JSON value.
      return named
    default:
      return undefined
  }
}

/** Whether a standalone schema accepts `value`; a schema with references or unknown kinds counts as accepting. */
function checks(schema: Schema, value: unknown): boolean {
  try {
    return Value.Check(schema as unknown as TSchema, value)
  } catch {
    return true
  }
}

function objectOf(schema: Schema, context: Context, top: boolean): Record<string, unknown> | undefined {
  const properties = schema.properties ?? {}
  const object: Record<string, unknown> = {}
  const required = schema.required ?? []
  const names = Object.keys(properties)
  // A route that requires none of its members by schema often wants one of them (either of two names): the first.
  const first = required.length === 0 && names.length > 0 ? [names[0]!] : []
  const also = top
    ? [...new Set([...first, ...context.also])].filter((name) => !required.includes(name) && name in properties)
    : []
  for (const name of [...required, ...also]) {
    const property = properties[name]
    const value = property ? sample(property, context, name, false) : undefined
    if (value === undefined) return undefined
    object[name] = value
  }
  return object
}

function stringOf(schema: Schema): string | undefined {
  const { format, pattern, minLength = 0, maxLength } = schema
  if (typeof format === 'string') {
    const accepts = FormatRegistry.Get(format)
    return accepts ? formatCandidates.find((candidate) => accepts(candidate)) : undefined
  }
  if (typeof pattern === 'string') {
    const value = fromPattern(pattern)
    return value !== undefined && new RegExp(pattern).test(value) ? value : undefined
  }
  const text = 'example'.padEnd(minLength, 'x')
  return maxLength === undefined ? text : text.slice(0, Math.max(minLength, maxLength))
}

function numberOf(schema: Schema): number {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = schema
  const low = minimum ?? (exclusiveMinimum === undefined ? undefined : Math.floor(exclusiveMinimum) + 1)
  const high = maximum ?? (exclusiveMaximum === undefined ? undefined : Math.ceil(exclusiveMaximum) - 1)
  const value = Math.max(low ?? 1, 1)
  return high !== undefined && value > high ? high : value
}

/**
 * A short string matching the simple regular expressions schemas use (literals, classes, groups with alternatives,
 * quantifiers): each atom its fewest times, the first alternative, `1` from a class that has it (so that numbers are
 * not zero and dates are real), else the class's first character.
 */
function fromPattern(pattern: string): string | undefined {
  let index = 0
  function sequence(): string {
    let out = ''
    while (index < pattern.length && pattern[index] !== '|' && pattern[index] !== ')') {
      const atom = atomOf()
      out += atom.repeat(quantifier())
    }
    return out
  }
  function alternatives(): string {
    const first = sequence()
    while (pattern[index] === '|') {
      index++
      sequence()
    }
    return first
  }
  function atomOf(): string {
    const character = pattern[index++]!
    if (character === '^' || character === '$') return ''
    if (character === '(') {
      if (pattern.startsWith('?:', index)) index += 2
      const inner = alternatives()
      index++
      return inner
    }
    if (character === '[') {
      const end = pattern.indexOf(']', index + 1)
      const members = pattern.slice(index, end)
      index = end + 1
      return classMember(members)
    }
    if (character === '\\') {
      const escaped = pattern[index++]!
      return escaped === 'd' ? '1' : escaped === 's' ? ' ' : escaped === 'w' ? 'a' : escaped
    }
    return character === '.' ? 'a' : character
  }
  function quantifier(): number {
    const character = pattern[index]
    if (character === '?' || character === '*') {
      index++
      return 0
    }
    if (character === '+') {
      index++
      return 1
    }
    if (character === '{') {
      const end = pattern.indexOf('}', index)
      const least = Number(pattern.slice(index + 1, end).split(',')[0])
      index = end + 1
      return least
    }
    return 1
  }
  try {
    const value = alternatives()
    return index === pattern.length ? value : undefined
  } catch {
    return undefined
  }
}

/** A character of a class such as `0-9a-fA-F` or `23`: `1` when the class has it, else its first. */
function classMember(members: string): string {
  if (members.startsWith('^')) return members.includes('a') ? '_' : 'a'
  const unescaped = members.replace(/\\(.)/g, '$1')
  for (let index = 0; index < unescaped.length; index++) {
    const from = unescaped[index]!
    const ranged = unescaped[index + 1] === '-' && index + 2 < unescaped.length
    const to = ranged ? unescaped[index + 2]! : from
    if (from <= '1' && '1' <= to) return '1'
    if (ranged) index += 2
  }
  return unescaped[0]!
}
