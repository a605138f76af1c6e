import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as Module from '../core/Module.js'
import { groupsOf, type Variable } from './config.js'
import { families } from './modules.js'

/** The page that holds the generated configuration table, from the repository's root. */
export const path = 'docs/configuration.md'

/** The line before the generated configuration table of docs/configuration.md. */
export const begin =
  '<!-- configuration:begin (generated from the schemas in app/config.ts and modules/*/index.ts by `npm run docs`; edit those, not this table) -->'

/** The line after the generated configuration table of docs/configuration.md. */
export const end = '<!-- configuration:end -->'

/**
 * The configuration table of docs/configuration.md, generated from the schemas: the gateway's variables first, then
 * each family's env slice in the order of `modules`; a variable whose schema says `secret: true` is marked "never
 * logged".
 */
export function configurationTable(modules: readonly Module.AnyModule[] = families): string {
  return groupsOf(modules)
    .map(({ family, provider, variables }) => {
      const title = family
        ? `**\`${family.name}\` family** (${family.paths.map((path) => `\`${path}\``).join(', ')}):`
        : provider
          ? `**\`${provider.port}\` port**, ${provider.description}:`
          : '**Gateway**:'
      return [title, '', '| variable | default | meaning |', '|---|---|---|', ...variables.map(rowOf)].join('\n')
    })
    .join('\n\n')
}

/** `page` with the text between {@link begin} and {@link end} replaced by the generated table. */
export function withConfigurationTable(page: string, modules: readonly Module.AnyModule[] = families): string {
  const { start, stop } = markersIn(page)
  return `${page.slice(0, start)}\n${configurationTable(modules)}\n${page.slice(stop)}`
}

/**
 * Why `page`'s configuration table is not the one the schemas generate (the first line that differs), or
 * `undefined` when it is.
 */
export function check(page: string, modules: readonly Module.AnyModule[] = families): string | undefined {
  const expected = withConfigurationTable(page, modules)
  if (expected === page) return undefined
  const [written, generated] = [page.split('\n'), expected.split('\n')]
  const line = written.findIndex((text, index) => text !== generated[index])
  return [
    `${path}'s configuration table differs from the schemas (app/config.ts, app/providers/*.ts, modules/*/index.ts): change the schema, then run \`npm run docs\`.`,
    `  line ${line + 1} of ${path}:  ${written[line] ?? '(end of file)'}`,
    `  generated from the schemas: ${generated[line] ?? '(end of file)'}`,
  ].join('\n')
}

function rowOf(variable: Variable): string {
  const defaultText = variable.defaultText ?? (variable.default === undefined ? 'none' : `\`${variable.default}\``)
  const meaning = variable.secret ? `${variable.description}; never logged` : variable.description
  return `| \`${variable.name}\` | ${cell(defaultText)} | ${cell(meaning)} |`
}

// A `|` inside a cell would end it.
function cell(text: string): string {
  return text.replaceAll('|', '\\|')
}

/** Where the generated text starts (after the begin line) and stops (at the end line); throws without both. */
function markersIn(page: string): { start: number; stop: number } {
  const first = page.indexOf(begin)
  const last = page.indexOf(end, first)
  if (first === -1 || last === -1)
    throw new Error(`${path} needs the lines\n${begin}\n${end}\naround its configuration table.`)
  return { start: first + begin.length, stop: last }
}

if (import.meta.main) {
  const file = join(import.meta.dir, '..', path)
  const page = readFileSync(file, 'utf8')
  const updated = withConfigurationTable(page)
  if (updated !== page) writeFileSync(file, updated)
  console.log(
    updated === page ? `${path}: the configuration table is up to date.` : `${path}: configuration table rewritten.`,
  )
}
