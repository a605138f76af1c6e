import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type * as Module from '../core/Module.js'
import { groupsOf, type Variable } from './config.js'
import { families } from './modules.js'

/** The line before the README's generated configuration table. */
export const begin =
  '<!-- configuration:begin (generated from the schemas in app/config.ts and modules/*/index.ts by `npm run docs`; edit those, not this table) -->'

/** The line after the README's generated configuration table. */
export const end = '<!-- configuration:end -->'

/**
 * The README's configuration table, generated from the schemas: the gateway's variables first, then each family's
 * env slice in the order of `modules`; a variable whose schema says `secret: true` is marked "never logged".
 */
export function configurationTable(modules: readonly Module.AnyModule[] = families): string {
  return groupsOf(modules)
    .map(({ family, variables }) => {
      const title = family
        ? `**\`${family.name}\` family** (${family.paths.map((path) => `\`${path}\``).join(', ')}):`
        : '**Gateway**:'
      return [title, '', '| variable | default | meaning |', '|---|---|---|', ...variables.map(rowOf)].join('\n')
    })
    .join('\n\n')
}

/** `readme` with the text between {@link begin} and {@link end} replaced by the generated table. */
export function withConfigurationTable(readme: string, modules: readonly Module.AnyModule[] = families): string {
  const { start, stop } = markersIn(readme)
  return `${readme.slice(0, start)}\n${configurationTable(modules)}\n${readme.slice(stop)}`
}

/**
 * Why `readme`'s configuration table is not the one the schemas generate (the first line that differs), or
 * `undefined` when it is.
 */
export function check(readme: string, modules: readonly Module.AnyModule[] = families): string | undefined {
  const expected = withConfigurationTable(readme, modules)
  if (expected === readme) return undefined
  const [written, generated] = [readme.split('\n'), expected.split('\n')]
  const line = written.findIndex((text, index) => text !== generated[index])
  return [
    "README.md's configuration table differs from the schemas (app/config.ts, modules/*/index.ts): change the schema, then run `npm run docs`.",
    `  line ${line + 1} of README.md:  ${written[line] ?? '(end of file)'}`,
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
function markersIn(readme: string): { start: number; stop: number } {
  const first = readme.indexOf(begin)
  const last = readme.indexOf(end, first)
  if (first === -1 || last === -1)
    throw new Error(`README.md needs the lines\n${begin}\n${end}\naround its configuration table.`)
  return { start: first + begin.length, stop: last }
}

if (import.meta.main) {
  const path = join(import.meta.dir, '../README.md')
  const readme = readFileSync(path, 'utf8')
  const updated = withConfigurationTable(readme)
  if (updated !== readme) writeFileSync(path, updated)
  console.log(
    updated === readme
      ? 'README.md: the configuration table is up to date.'
      : 'README.md: configuration table rewritten.',
  )
}
