import { entries as allEntries } from './internal/catalogEntries.js'
import type { Price } from './Price.js'

/** HTTP methods used by the interface. */
export type Method = 'GET' | 'POST' | 'PATCH'

/** JSON types a field can take. */
export type FieldType = 'string' | 'number' | 'boolean' | 'array' | 'object'

/** A request or response field as the spec names it. */
export type Field = {
  /** Field name, e.g. `max_tokens`. */
  name: string
  /** JSON type. */
  type: FieldType
  /** Whether the caller must send it (request) or the service always returns it (response). */
  required: boolean
  /** Where a request field travels; response fields are always `body`. */
  in: 'query' | 'body' | 'path'
  /** One line on meaning, units and limits. */
  description?: string
}

/** One operation of the interface. */
export type Entry = {
  /** HTTP method. */
  method: Method
  /** Path as the spec writes it, with `:id`-style parameters, e.g. `/api/v1/invoice/:id`. */
  path: string
  /**
   * The original gateway's paths of this operation (vendor-named), answered exactly as `path` is: same handler, price
   * and payment, the 402 naming `path`'s resource URL. @default none
   */
  aliases?: readonly string[]
  /** Price per call as stated by the machine description. */
  price: Price
  /** The catalog's own price where the spec states a second one (`(catalog: x)`). */
  catalogPrice?: Price
  /** The original gateway's price where it differs from `price`, which stands (the spec's). @default none */
  originalPrice?: Price
  /** Category (the spec's section or catalog family), used for grouping. */
  category: string
  /** Operation tags for the machine description. */
  tags: readonly string[]
  /** One line on what the operation does. */
  purpose: string
  /**
   * An operation the original gateway added after the spec was written (issue 36): listed after the spec's, at the
   * original's price, its shapes documented by its route's schemas. @default false
   */
  beyondSpec?: boolean
  /** Request fields, where shown. */
  request: readonly Field[]
  /** Top-level response fields, where shown. */
  response: readonly Field[]
  /** False for entries listed only in the catalog, whose payload shapes the spec does not show. */
  shapesShown: boolean
}

/** Every operation of the interface, in the spec's order, then those beyond the spec. */
export const entries: readonly Entry[] = allEntries

/** Counts the spec states, reported beside the ones computed from {@link entries}. */
export const stated = {
  /** Paid endpoints according to the machine description. */
  machineDescriptionPaid: 158,
  /** Endpoints according to the catalog. */
  catalogEndpoints: 153,
  /** Paid endpoints according to the catalog. */
  catalogPaid: 129,
  /** Free endpoints according to the catalog. */
  catalogFree: 24,
  /** Categories according to the catalog. */
  catalogCategories: 27,
} as const

/** Version carried by the public overview object. */
export const overviewVersion = '3.8.2'

/** Version carried by the machine description (OpenAPI `info.version`). */
export const machineDescriptionVersion = '3.8.3'

/** Whether the operation needs no payment. */
export function isFree(entry: Entry): boolean {
  return entry.price.type === 'free'
}

const keys = new WeakMap<Pick<Entry, 'method' | 'path'>, string>()

/**
 * The key routes and tables use: `"METHOD path"`. The same string for the same entry, so that the maps a call looks
 * it up in (several per call) hash it once.
 */
export function key(entry: Pick<Entry, 'method' | 'path'>): string {
  let known = keys.get(entry)
  if (known === undefined) {
    known = `${entry.method} ${entry.path}`
    keys.set(entry, known)
  }
  return known
}

/** Finds the entry for a method and a path pattern as the spec writes it. */
export function find(method: string, path: string): Entry | undefined {
  return byKey.get(`${method.toUpperCase()} ${path}`)
}

/** The catalog path an alias stands for (`/bittensor/v1/models` -> `/decentralized/v1/models`), or `undefined`. */
export function canonicalPath(path: string): string | undefined {
  return canonicalPaths.get(path)
}

/** Names of the path parameters of an entry, e.g. `['id']` for `/api/v1/invoice/:id`. */
export function pathParameters(entry: Pick<Entry, 'path'>): string[] {
  return entry.path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1))
}

/** A stable camelCase operation id: `POST /api/v1/chat/completions` -> `postApiV1ChatCompletions`. */
export function operationId(entry: Pick<Entry, 'method' | 'path'>): string {
  const words = [entry.method.toLowerCase(), ...entry.path.split(/[^A-Za-z0-9]+/).filter(Boolean)]
  return words.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('')
}

/** Counts computed from {@link entries}. */
export function counts(): { total: number; paid: number; free: number; categories: number } {
  const free = entries.filter(isFree).length
  return {
    total: entries.length,
    paid: entries.length - free,
    free,
    categories: new Set(entries.map((entry) => entry.category)).size,
  }
}

const byKey = new Map(entries.map((entry) => [key(entry), entry]))
const canonicalPaths = new Map(entries.flatMap((entry) => (entry.aliases ?? []).map((alias) => [alias, entry.path])))
