import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { parseUnits } from 'viem'
import { devPriceFeeds } from '../adapters/chain/devnet.js'
import { variables } from '../app/config.js'
import { families } from '../app/modules.js'
import { statusOf } from '../app/problem.js'
import * as Catalog from '../core/Catalog.js'
import * as Events from '../core/Events.js'
import * as Price from '../core/Price.js'
import { allPages, page, pages, root, section } from './support/docs.js'
import { paidGateway } from './support/paid.js'

// The README and the pages under docs/ checked against the code they describe, so that neither drifts from the other
// unnoticed, and against each other, so that no page is lost and no link leads nowhere.

const readme = page('README.md')

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

/** `text` without fenced and indented code blocks and inline code, where brackets are not links. */
function prose(text: string): string {
  return text
    .replace(/^```[\s\S]*?^```$/gm, '')
    .replace(/^ {4}.*$/gm, '')
    .replace(/`[^`\n]*`/g, '')
}

/** The targets of the Markdown links in `text`. */
const linksIn = (text: string) => [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!)

/** The anchors GitHub gives the headings of `text`: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>()
  const headings = [...text.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!)
  return new Set(
    headings.map((heading) => {
      const slug = heading
        .toLowerCase()
        .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
        .replaceAll(' ', '-')
      const count = seen.get(slug) ?? 0
      seen.set(slug, count + 1)
      return count === 0 ? slug : `${slug}-${count}`
    }),
  )
}

/** The TypeScript between `<!-- name -->` and `<!-- /name -->` in the README. */
function example(name: string): string {
  const code = new RegExp(`<!-- ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- /${name} -->`).exec(readme)?.[1]
  if (code === undefined) throw new Error(`README has no example ${name}`)
  return code
}

describe('README', () => {
  test('behavior: a newcomer reads it in five minutes: at most 300 lines, the two commands first', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    const [title, blank, start, tests] = readme.split('\n')
    expect([title, blank]).toEqual(['# agent-pay-gateway', ''])
    expect(start).toStartWith('    npm install && npm start ')
    expect(tests).toStartWith('    npm install && npm test ')
  })

  test('behavior: the families table names every family of app/modules.ts, once', () => {
    const named = rows(section(readme, '## Families')).flatMap(([names]) => namesIn(names!))
    expect(named.sort()).toEqual(families.map((family) => family.name).sort())
  })

  test('behavior: every relative link of the README and docs/ leads to a file, and its anchor to a heading there', () => {
    const broken = [...pages].flatMap(([path, text]) =>
      linksIn(text)
        .filter((link) => !/^[a-z]+:/.test(link))
        .flatMap((link) => {
          const [file, anchor] = link.split('#') as [string, string | undefined]
          const target = file === '' ? path : normalize(join(dirname(path), file))
          if (!existsSync(join(root, target))) return [`${path}: ${link} (no file ${target})`]
          if (anchor === undefined) return []
          const anchors = anchorsOf(pages.get(target) ?? readFileSync(join(root, target), 'utf8'))
          return anchors.has(anchor) ? [] : [`${path}: ${link} (no heading #${anchor} in ${target})`]
        }),
    )
    expect(broken).toEqual([])
  })

  test('behavior: every page under docs/ is linked from docs/README.md or the README', () => {
    const linked = new Set(
      [...linksIn(page('docs/README.md')).map((link) => `docs/${link}`), ...linksIn(readme)].map(
        (link) => normalize(link).split('#')[0]!,
      ),
    )
    const unlinked = [...pages.keys()].filter((path) => path !== 'README.md' && !linked.has(path))
    expect(unlinked).toEqual([])
  })
})

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

describe("the README's paid calls", () => {
  let gateway: Awaited<ReturnType<typeof paidGateway>>
  let server: ReturnType<typeof Bun.serve>
  const fixtures: string[] = []

  beforeAll(async () => {
    gateway = await paidGateway()
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => gateway.gateway.handle(request) })
  })
  afterAll(async () => {
    for (const file of fixtures) rmSync(file, { force: true })
    server.stop(true)
    await gateway.close()
  })

  /** Runs the README's example `name` against the test gateway; answers what it printed and what the payer paid. */
  async function run(name: string): Promise<{ printed: unknown[]; paid: bigint }> {
    // At the root, so that the example's imports resolve from node_modules as they do in a project of the reader's.
    const file = join(root, `.readme-${name}.test-fixture.ts`)
    fixtures.push(file)
    writeFileSync(file, example(name).replaceAll('http://127.0.0.1:3402', `http://127.0.0.1:${server.port}`))
    const payer = gateway.account(1).address
    const before = await gateway.balance(payer)
    const log = spyOn(console, 'log').mockImplementation(() => undefined)
    try {
      await import(file)
      return { printed: log.mock.calls[0] ?? [], paid: before - (await gateway.balance(payer)) }
    } finally {
      log.mockRestore()
    }
  }

  const priceOf = (method: Catalog.Method, path: string) =>
    Price.quote({ price: Catalog.entries.find((entry) => entry.method === method && entry.path === path)!.price })

  test('behavior: the x402 example pays for GET /api/v1/rpc/chains and gets its answer and settlement', async () => {
    const { printed, paid } = await run('pay-x402')
    expect(printed).toEqual([200, expect.any(String)])
    expect(paid).toBe(priceOf('GET', '/api/v1/rpc/chains'))
  })

  test('behavior: the MPP example pays for POST /api/v1/rpc/call and gets its answer and receipt', async () => {
    const { printed, paid } = await run('pay-mpp')
    expect(printed).toEqual([200, expect.any(String)])
    expect(paid).toBe(priceOf('POST', '/api/v1/rpc/call'))
  })
})
