import { describe, expect, test } from 'bun:test'
import { parseUnits } from 'viem'
import { devPriceFeeds } from '../adapters/chain/devnet.js'
import { variables } from '../app/config.js'
import { statusOf } from '../app/problem.js'
import * as Catalog from '../core/Catalog.js'
import * as Events from '../core/Events.js'
import * as Price from '../core/Price.js'
import { allPages, page, pages, section } from './support/docs.js'

// The pages under docs/ checked against the code they describe, so that neither drifts from the other unnoticed.

/** The cells of every row of the first Markdown table in `text`, its header and rule left out. */
function rows(text: string): string[][] {
  const lines = text.split('\n').filter((line) => line.startsWith('|'))
  return lines.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  )
}

/** The backticked names in a cell. */
const namesIn = (cell: string) => [...cell.matchAll(/`([a-z0-9_.*-]+)`/g)].map((match) => match[1]!)

describe('docs', () => {
  test('behavior: the Errors table gives every code of core/Errors.ts with the status app/problem.ts maps it to', () => {
    const documented = rows(section(page('docs/operations.md'), '## Errors')).flatMap(([status, codes]) =>
      namesIn(codes!).map((code) => [code, Number(status)] as const),
    )
    expect(Object.fromEntries(documented)).toEqual({ ...statusOf })
    expect(documented.length).toBe(Object.keys(statusOf).length)
  })

  test('behavior: the events table names the events of core/Events.ts, and no line says one is not emitted', () => {
    const events = section(page('docs/families/webhooks-cron.md'), '# Events: webhooks and cron')
    const documented = rows(events).flatMap(([names]) => namesIn(names!))
    expect(documented.sort()).toEqual(Object.keys(Events.types).sort())
    const families = new Set(documented.map((name) => name.split('.')[0]!))
    const denials = events.split(/(?<=\.)\s/).filter((sentence) => /not (yet )?emitted/i.test(sentence))
    for (const sentence of denials)
      expect({ sentence, families: [...families].filter((family) => sentence.includes(family)) }).toEqual({
        sentence,
        families: [],
      })
  })

  test('behavior: every example reaches the gateway on its default PORT', () => {
    const port = variables.find((variable) => variable.name === 'PORT')!.default
    expect(port).toBe('3402')
    const pattern =
      /(?:localhost|127\.0\.0\.1):(\d+)\/(?:api|free|decentralized|mcp|dashboard|metrics|openapi|\.well-known|llms|callbacks)\b/g
    const ports = [...allPages.matchAll(pattern)].map((match) => match[1])
    expect(ports.length).toBeGreaterThan(50)
    expect(ports.filter((other) => other !== port)).toEqual([])
  })

  test('behavior: `npm run price` is shown once, with every feed app/price.ts sets', () => {
    const lines = allPages.split('\n').filter((line) => /^ {4}npm run price /.test(line))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`(${devPriceFeeds.map(({ symbol }) => symbol).join(', ')}; 8 decimals)`)
  })

  test('behavior: escrow, invoices, sessions, audit and logs each have a section with every endpoint at its price', () => {
    for (const prefix of ['/api/v1/escrow/', '/api/v1/invoice/', '/api/v1/auth/', '/api/v1/audit/', '/api/v1/logs/']) {
      const found = [...pages.values()].flatMap((text) =>
        text
          .split('\n')
          .filter((line) => /^#{1,6} /.test(line) && line.includes(`(\`${prefix}*\`)`))
          .map((heading) => section(text, heading)),
      )
      expect({ prefix, sections: found.length }).toEqual({ prefix, sections: 1 })
      const text = found[0]!
      const prices = [...text.matchAll(/\b0\.[0-9]+\b/g)].map((match) => parseUnits(match[0], 6))
      for (const entry of Catalog.entries.filter((candidate) => candidate.path.startsWith(prefix))) {
        const path = entry.path.replace(':id', '<id>')
        const named = text.includes(path) || text.includes(`\`${path.split('/').at(-1)}`)
        const price = Price.quote({ price: entry.price })
        expect({ entry: Catalog.key(entry), named, priced: prices.includes(price) }).toEqual({
          entry: Catalog.key(entry),
          named: true,
          priced: true,
        })
      }
    }
  })

  test('behavior: no example signs a session key with a fixed expiry, which would pass and be refused', () => {
    expect(allPages.match(/"expiresAt":\s*\d+/g) ?? []).toEqual([])
  })
})
