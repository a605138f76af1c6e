import { describe, expect, test } from 'bun:test'
import * as Catalog from '../../core/Catalog.js'
import { categories } from '../../core/internal/catalogEntries.js'
import * as Price from '../../core/Price.js'
import { type Endpoint, extract, readFixture, readSpec } from '../support/spec.js'

// The catalog is checked against the checked-in fixture of the spec's tables, always, and the fixture against the
// spec itself whenever it is present (beside the repository), so that drift between any two of them fails here.
const fixture = readFixture()
const spec = readSpec()

/** Section heading of the catalog-only list. */
const catalogOnlyHeading = 'Endpoints listed only in the catalog'

/** Category id of each endpoint table heading. */
const sectionCategory: Record<string, string> = {
  AI: 'ai',
  Payments: 'payments',
  'DeFi and swaps': 'defi',
  Solana: 'solana',
  Oracle: 'oracle',
  Bridge: 'bridge',
  Payroll: 'payroll',
  Invoicing: 'invoicing',
  Analytics: 'analytics',
  Escrow: 'escrow',
  'Inference (AI analysis)': 'inference',
  Communication: 'communication',
  Infrastructure: 'infrastructure',
  Identity: 'identity',
  Compliance: 'compliance',
  'Compute and search': 'compute-search',
}

/** Catalog-only families the catalog groups by path. */
const catalogFamilies = [
  'agent-wallet',
  'decentralized',
  'security',
  'compute',
  'compute-futures',
  'wallet-data',
  'free',
  'research',
  'robots',
  'supply-chain',
  'trust',
]

/** Catalog-only endpoints being implemented now, whose shapes the catalog states beyond the spec. */
const implementedFree: Record<string, { request: string[]; response: string[] }> = {
  'GET /free/uuid': { request: ['count'], response: [] },
  'GET /free/convert': { request: ['amount', 'from', 'to'], response: [] },
  'GET /free/validate-address': { request: ['address', 'chain', 'family'], response: [] },
  'POST /free/validate-batch': { request: ['version', 'chain', 'token', 'sender', 'recipients'], response: [] },
  'GET /free/estimate-batch': { request: ['recipients', 'recipientCount', 'chain', 'token', 'amount'], response: [] },
  'GET /free/timestamp': { request: [], response: ['seconds', 'milliseconds', 'iso'] },
}

type Row = Endpoint
type ExpectedField = Pick<Catalog.Field, 'name' | 'type' | 'required' | 'in'>

/** Data rows of the first field table after the line that starts with `title`. */
function tableAfter(title: string): string[][] {
  const found = Object.entries(fixture.tables).find(([heading]) => heading.startsWith(title))
  if (!found) throw new Error(`spec has no "${title}"`)
  return found[1]
}

function parsePrice(row: Row): { price: Price.Price; catalogPrice: Price.Price | undefined } {
  return {
    price: Price.fromStated(row.price),
    catalogPrice: row.catalogPrice === null ? undefined : Price.fromStated(row.catalogPrice),
  }
}

/** Request fields of a main-table row, with the trailing parenthetical note if any. */
function parseRequest(row: Row): { fields: ExpectedField[]; note: string | undefined } {
  const text = row.request!
  if (text === 'none') return { fields: [], note: undefined }
  if (text === 'see below') {
    // "/api/v1/batch/execute" -> "Batch execute request (body):"
    const words = row.path.replace('/api/v1/', '').split('/').join(' ')
    const title = `${words[0]!.toUpperCase()}${words.slice(1)} request (body):`
    const fields = tableAfter(title).map(([name, type, rules]) => ({
      name: name!,
      type: type as Catalog.FieldType,
      required: rules!.startsWith('required'),
      in: 'body' as const,
    }))
    return { fields, note: undefined }
  }
  const [, placement, list = ''] = /^(?:(body|query):\s*)?(.*)$/.exec(text)!
  const noted = /^(.*?)\s*\(([^)]*)\)$/.exec(list)
  const note = noted?.[2]
  const defaultType = note === 'strings' ? 'strings' : undefined
  const names = (noted ? noted[1]! : list).split(/,\s*/)
  const parameters = Catalog.pathParameters(row)
  const fields = names.map((item) => {
    const match = /^(\w+)(?:\s+(string|number|boolean|array|object))?\s+([RO])$/.exec(item)
    if (!match) throw new Error(`cannot parse request item "${item}" of ${row.method} ${row.path}`)
    const [, name, type = 'string', flag] = match
    const location = placement ?? (parameters.includes(name!) ? 'path' : undefined)
    if (!location) throw new Error(`"${name}" of ${row.method} ${row.path} has no placement`)
    return { name: name!, type: type as Catalog.FieldType, required: flag === 'R', in: location as ExpectedField['in'] }
  })
  return { fields, note: defaultType ? undefined : note }
}

/** Top-level response fields of a main-table row. */
function parseResponse(row: Row): ExpectedField[] {
  const text = row.response!
  if (text === '') return []
  if (/result$/.test(text)) {
    // "batch execution result" -> "### Batch execution result"
    const fields = new Map<string, ExpectedField>()
    for (const [names, type, notes] of tableAfter(`### ${text[0]!.toUpperCase()}${text.slice(1)}`))
      for (const name of names!.split(/,\s*/)) {
        const top = name.split('.')[0]!
        if (fields.has(top)) continue
        fields.set(top, {
          name: top,
          type: (top === name ? type : 'object') as Catalog.FieldType,
          required: !/\bonly\b|\babsent\b/.test(notes!),
          in: 'body',
        })
      }
    return [...fields.values()]
  }
  return text.split(/,\s*/).map((item) => {
    const match = /^(\w+) (string|number|boolean|array|object)$/.exec(item)
    if (!match) throw new Error(`cannot parse response item "${item}" of ${row.method} ${row.path}`)
    return { name: match[1]!, type: match[2] as Catalog.FieldType, required: true, in: 'body' as const }
  })
}

function shape(fields: readonly Catalog.Field[]): ExpectedField[] {
  return fields.map(({ name, type, required, in: location }) => ({ name, type, required, in: location }))
}

function entryOf(row: Row): Catalog.Entry {
  const entry = Catalog.find(row.method, row.path)
  if (!entry) throw new Error(`catalog lacks ${row.method} ${row.path}`)
  return entry
}

const rows = fixture.endpoints
/** The catalog's entries that the spec lists, and those beyond it (the original gateway's later routes). */
const specEntries = Catalog.entries.filter((entry) => !entry.beyondSpec)
const beyondEntries = Catalog.entries.filter((entry) => entry.beyondSpec)
const mainRows = rows.filter((row) => row.section !== catalogOnlyHeading)
const catalogOnlyRows = rows.filter((row) => row.section === catalogOnlyHeading)

describe('spec fixture', () => {
  test.skipIf(spec === undefined)('behavior: holds exactly what the spec states, when the spec is present', () => {
    // On drift: check the catalog against the new spec, then `bun test/support/spec.ts` rewrites the fixture.
    expect(extract(spec!)).toEqual(fixture)
  })
})

describe('spec parser', () => {
  test('behavior: finds every endpoint row of the spec', () => {
    expect(rows.length).toBe(160)
    expect(mainRows.length).toBe(72)
    expect(catalogOnlyRows.length).toBe(88)
    expect(new Set(mainRows.map((row) => row.section))).toEqual(new Set(Object.keys(sectionCategory)))
  })

  test('behavior: parses the detailed batch tables', () => {
    const execute = mainRows.find((row) => row.path === '/api/v1/batch/execute')!
    expect(parseRequest(execute).fields.map((field) => field.name)).toEqual([
      'token',
      'recipients',
      'amounts',
      'sender',
      'chain',
    ])
    expect(parseResponse(execute).map((field) => `${field.name}${field.required ? '' : '?'}`)).toEqual([
      'success',
      'contract',
      'token',
      'batch',
      'transaction',
      'approvalRequired?',
    ])
  })
})

describe('Catalog.entries', () => {
  test('behavior: holds exactly the endpoints of the spec, in its order, then those beyond it', () => {
    expect(specEntries.map(Catalog.key)).toEqual(rows.map((row) => `${row.method} ${row.path}`))
    expect(Catalog.entries).toEqual([...specEntries, ...beyondEntries])
  })

  test('behavior: prices match the spec, including the catalog price where stated', () => {
    for (const row of rows) {
      const entry = entryOf(row)
      const { price, catalogPrice } = parsePrice(row)
      expect({ key: Catalog.key(entry), price: entry.price, catalogPrice: entry.catalogPrice }).toEqual({
        key: Catalog.key(entry),
        price,
        catalogPrice,
      })
    }
  })

  test('behavior: table rows carry the request fields of the spec', () => {
    for (const row of mainRows) {
      const entry = entryOf(row)
      if (row.request!.includes('not shown')) {
        expect({ key: Catalog.key(entry), request: entry.request, shapesShown: entry.shapesShown }).toEqual({
          key: Catalog.key(entry),
          request: [],
          shapesShown: false,
        })
        continue
      }
      const { fields, note } = parseRequest(row)
      const key = Catalog.key(entry)
      expect({ key, request: shape(entry.request) }).toEqual({ key, request: fields })
      expect(entry.shapesShown).toBe(true)
      if (note) {
        const texts = [entry.purpose, ...entry.request.map((field) => field.description ?? '')].join(' ').toLowerCase()
        expect(texts).toContain(note.toLowerCase())
      }
    }
  })

  test('behavior: batch request rules are the field descriptions', () => {
    for (const path of ['/api/v1/batch/execute', '/api/v1/batch/estimate']) {
      const entry = Catalog.find('POST', path)!
      const title = path.endsWith('execute') ? 'Batch execute request (body):' : 'Batch estimate request (body):'
      expect(entry.request.map((field) => field.description)).toEqual(tableAfter(title).map((cells) => cells[2]))
    }
  })

  test('behavior: table rows carry the response fields of the spec', () => {
    for (const row of mainRows) {
      const entry = entryOf(row)
      expect({ key: Catalog.key(entry), response: shape(entry.response) }).toEqual({
        key: Catalog.key(entry),
        response: parseResponse(row),
      })
    }
  })

  test('behavior: table rows take the category of their section', () => {
    for (const row of mainRows)
      expect([row.path, entryOf(row).category]).toEqual([row.path, sectionCategory[row.section]!])
  })

  test('behavior: catalog-only rows keep the purpose, and shapes only where stated', () => {
    for (const row of catalogOnlyRows) {
      const entry = entryOf(row)
      const key = Catalog.key(entry)
      const stated = row.purpose!
      const parenthetical = /^—\s*\((.+)\)$/.exec(stated)
      if (stated === '—') expect(entry.purpose).toEndWith('(purpose not stated in the catalog)')
      else if (parenthetical) expect(entry.purpose).toBe(parenthetical[1]!)
      else expect(entry.purpose).toBe(stated)

      expect([...catalogFamilies, 'compute-search']).toContain(entry.category)
      const implemented = implementedFree[key]
      const pathFields = Catalog.pathParameters(entry)
      expect({
        key,
        request: entry.request.map((field) => field.name),
        response: entry.response.map((field) => field.name),
        shapesShown: entry.shapesShown,
      }).toEqual({
        key,
        request: implemented?.request ?? pathFields,
        response: implemented?.response ?? [],
        shapesShown: implemented !== undefined,
      })
    }
  })

  test('behavior: path parameters are required strings, also accepted in the query', () => {
    for (const entry of Catalog.entries)
      for (const name of Catalog.pathParameters(entry))
        expect(entry.request.find((field) => field.name === name)).toEqual({
          name,
          type: 'string',
          required: true,
          in: 'path',
          description: `Also accepted as the query parameter \`${name}\`.`,
        })
  })

  test('behavior: tags come from the spec vocabulary or the entry family', () => {
    const vocabulary = fixture.tags
    expect(vocabulary.length).toBe(17)
    for (const entry of Catalog.entries) {
      expect(entry.tags.length).toBeGreaterThan(0)
      const key = Catalog.key(entry)
      for (const tag of entry.tags)
        expect([key, tag, vocabulary.includes(tag) || tag === entry.category]).toEqual([key, tag, true])
    }
  })

  test('behavior: every category is declared once and used', () => {
    expect(new Set(categories).size).toBe(categories.length)
    expect(new Set(Catalog.entries.map((entry) => entry.category))).toEqual(new Set(categories))
  })

  test('behavior: keys are unique', () => {
    const keys = Catalog.entries.map(Catalog.key)
    expect(new Set(keys).size).toBe(keys.length)
  })

  test('behavior: operation ids are unique', () => {
    const ids = Catalog.entries.map(Catalog.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  test('behavior: every stated amount has exactly 6 decimals', () => {
    for (const entry of Catalog.entries)
      for (const price of [entry.price, entry.catalogPrice]) {
        if (price?.type === 'fixed') expect(price.amount).toMatch(/^\d+\.\d{6}$/)
        if (price?.type === 'range') {
          expect(price.min).toMatch(/^\d+\.\d{6}$/)
          expect(price.max).toMatch(/^\d+\.\d{6}$/)
        }
      }
  })

  test('behavior: purposes are one line', () => {
    for (const entry of Catalog.entries) expect(entry.purpose).toMatch(/^[^\n]+$/)
  })
})

describe('Catalog.counts', () => {
  test('default', () => {
    const free = specEntries.filter(Catalog.isFree).length
    const spec = {
      total: specEntries.length,
      free,
      categories: new Set(specEntries.map((entry) => entry.category)).size,
    }
    expect(spec).toEqual({ total: 160, free: 24, categories: Catalog.stated.catalogCategories })
    // The counts discovery publishes take in the entries beyond the spec too.
    expect(Catalog.counts()).toMatchObject({ total: Catalog.entries.length, categories: categories.length })
  })
})
