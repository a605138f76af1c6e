import { existsSync, readFileSync, writeFileSync } from 'node:fs'

/**
 * The parts of the interface spec (`spec/gateway-interface.md`, beside the repository) that the catalog is checked
 * against, kept as a checked-in fixture so that the check runs in a clone of the repository alone. When the spec is
 * present, a test compares it with the fixture; `bun test/support/spec.ts` writes the fixture from it again.
 */

/** One row of the spec's endpoint tables, its cells as written. */
export type Endpoint = {
  /** The `###` section the table is under, e.g. `AI` or `Endpoints listed only in the catalog`. */
  section: string
  /** HTTP method. */
  method: string
  /** Path, with `:id`-style parameters. */
  path: string
  /** Price as stated: `0.005`, `0.02-0.08`, `varies` or `free`. */
  price: string
  /** The catalog's own price where the spec states a second one (`(catalog: x)`), else `null`. */
  catalogPrice: string | null
  /** The Request cell, in tables that have one. */
  request?: string
  /** The Response cell, in tables that have one. */
  response?: string
  /** The Purpose cell, in tables that have one (the catalog-only list). */
  purpose?: string
}

/** What the catalog is checked against. */
export type Fixture = {
  /** Every row of the tables under `## Endpoints`, in the spec's order. */
  endpoints: Endpoint[]
  /** Data rows of every field table (`Field | Type | ...`), by the heading or line the table follows. */
  tables: Record<string, string[][]>
  /** The operation tags of the machine description. */
  tags: string[]
}

/** Where the spec is: beside the repository, in `../shared/spec/`. */
export const specPath = new URL('../../../shared/spec/gateway-interface.md', import.meta.url)

/** The checked-in fixture. */
export const fixturePath = new URL('../fixtures/spec-endpoints.json', import.meta.url)

/** The spec's text, or `undefined` in a clone without it. */
export function readSpec(): string | undefined {
  return existsSync(specPath) ? readFileSync(specPath, 'utf8') : undefined
}

/** The checked-in fixture. */
export function readFixture(): Fixture {
  return JSON.parse(readFileSync(fixturePath, 'utf8')) as Fixture
}

/** Reads the fixture's parts out of the spec's text. */
export function extract(markdown: string): Fixture {
  const lines = markdown.split('\n')
  const start = lines.indexOf('## Endpoints')
  if (start < 0) throw new Error('spec has no "## Endpoints"')
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '))
  const endpoints: Endpoint[] = []
  let section = ''
  let header: string[] = []
  for (const line of lines.slice(start, end)) {
    if (line.startsWith('### ')) section = line.slice(4).trim()
    if (!line.startsWith('|')) continue
    const cells = cellsOf(line)
    if (cells[0] === 'Method') header = cells.map((cell) => cell.toLowerCase())
    if (!/^(GET|POST|PUT|PATCH|DELETE)$/.test(cells[0]!)) continue
    const named = Object.fromEntries(header.map((name, index) => [name, cells[index] ?? '']))
    const both = /^(.+?)\s*\(catalog:\s*(.+)\)$/.exec(named.price!)
    const { method, path, price, ...rest } = named
    endpoints.push({
      section,
      method: method!,
      path: path!,
      price: both ? both[1]! : price!,
      catalogPrice: both ? both[2]! : null,
      ...rest,
    })
  }

  const tables: Record<string, string[][]> = {}
  lines.forEach((line, index) => {
    if (!line.startsWith('| Field |')) return
    let above = index - 1
    while (lines[above]!.trim() === '') above--
    const title = lines[above]!
    const rows: string[][] = []
    for (const row of lines.slice(index + 2)) {
      if (!row.startsWith('|')) break
      rows.push(cellsOf(row))
    }
    tables[title] = rows
  })

  const tags = /Operation tags in the machine description: ([^.]+)\./.exec(markdown)
  if (!tags) throw new Error('spec states no operation tags')
  return { endpoints, tables, tags: tags[1]!.split(/,\s*/) }
}

function cellsOf(line: string): string[] {
  return line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim())
}

if (import.meta.main) {
  const spec = readSpec()
  if (spec === undefined) throw new Error(`No spec at ${specPath.pathname}.`)
  writeFileSync(fixturePath, `${JSON.stringify(extract(spec), null, 2)}\n`)
  console.log(`Wrote ${fixturePath.pathname}.`)
}
