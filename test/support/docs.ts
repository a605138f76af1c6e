import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The repository's root. */
export const root = join(import.meta.dir, '..', '..')

/** README.md and every page under docs/, by path from the root (`README.md`, `docs/payment.md`, ...). */
export const pages: ReadonlyMap<string, string> = new Map(
  [
    'README.md',
    ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`)
      .sort(),
  ].map((path) => [path, readFileSync(join(root, path), 'utf8')]),
)

/** The text of one page of {@link pages}; throws for a page that does not exist. */
export function page(path: string): string {
  const text = pages.get(path)
  if (text === undefined) throw new Error(`No page ${path}`)
  return text
}

/** The text of every page of {@link pages}, one after the other. */
export const allPages = [...pages.values()].join('\n')

/**
 * The text of the section under `heading` (e.g. `## Errors`) in `text`, up to the next heading of its level or above.
 */
export function section(text: string, heading: string): string {
  const start = `\n${text}`.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`No section ${heading}`)
  const level = heading.split(' ')[0]!.length
  const rest = text.slice(start + heading.length + 1)
  const next = rest.search(new RegExp(`\\n#{1,${level}} `))
  return next < 0 ? rest : rest.slice(0, next)
}
