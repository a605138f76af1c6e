import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const root = join(import.meta.dir, '..')

/** Modifiers of `describe` that may skip it: Bun still runs the body of a skipped describe while collecting. */
const skippable = new Set(['skip', 'skipIf', 'if', 'todo', 'todoIf'])
/** Calls that only declare: their callbacks run when the suite runs, never when it is skipped. */
const declaring = new Set(['describe', 'test', 'it', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'])

function testFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name)
    if (statSync(path).isDirectory()) return testFiles(path)
    return path.endsWith('.test.ts') ? [path] : []
  })
}

/** The identifier a callee chain starts from: `test` for `test`, `test.each(rows)` and `test.skipIf(x)`. */
function rootName(expression: ts.Expression): string | undefined {
  let node = expression
  while (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) node = node.expression
  return ts.isIdentifier(node) ? node.text : undefined
}

/** The body of `describe.skipIf(x)(name, body)`, `describe.if(x)(name, body)` or `describe.skip(name, body)`. */
function skippableBody(call: ts.CallExpression): ts.FunctionLikeDeclaration | undefined {
  const callee = ts.isCallExpression(call.expression) ? call.expression.expression : call.expression
  if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression)) return undefined
  if (callee.expression.text !== 'describe' || !skippable.has(callee.name.text)) return undefined
  const body = call.arguments[1]
  return body && (ts.isArrowFunction(body) || ts.isFunctionExpression(body)) ? body : undefined
}

/**
 * What a file does while collecting a describe that may be skipped: every call, `new`, `await` or tagged template
 * outside a test or hook (so connections, servers, processes and files belong in beforeAll), as `line: code`.
 */
function collectionEffects(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const report = (node: ts.Node, what = node.getText(file)) =>
    found.push(`${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${what.split('\n')[0]}`)
  const collecting = (body: ts.FunctionLikeDeclaration) => {
    if (body.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword))
      report(body, 'an async describe body')
    if (body.body) visit(body.body)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return
    if (ts.isCallExpression(node) && declaring.has(rootName(node.expression) ?? '')) {
      visit(node.expression)
      for (const argument of node.arguments)
        if (ts.isArrowFunction(argument) || ts.isFunctionExpression(argument)) {
          if (rootName(node.expression) === 'describe') collecting(argument)
        } else visit(argument)
      return
    }
    if (
      ts.isCallExpression(node) ||
      ts.isNewExpression(node) ||
      ts.isAwaitExpression(node) ||
      ts.isTaggedTemplateExpression(node)
    )
      report(node)
    else ts.forEachChild(node, visit)
  }
  const find = (node: ts.Node): void => {
    const body = ts.isCallExpression(node) ? skippableBody(node) : undefined
    if (body) collecting(body)
    else ts.forEachChild(node, find)
  }
  find(file)
  return found
}

describe('collectionEffects', () => {
  test('behavior: finds a connection, a server, an await and an async body in a describe that may be skipped', () => {
    const source = [
      "describe.skipIf(!url)('on PostgreSQL', async () => {",
      "  const fixture = await postgresFixture(url, 'events')",
      '  const server = Bun.serve({ port: 0 })',
      '  const client = new Redis(url)',
      '  test(`one`, async () => {})',
      '})',
      "describe.if(hasChromium)('in Chromium', () => {",
      "  describe('nested', () => { const browser = chromium.launch() })",
      '})',
      "describe.skip('skipped', function () { spawn(['bun']) })",
    ].join('\n')
    expect(collectionEffects('sample.test.ts', source)).toEqual([
      '1: an async describe body',
      "2: await postgresFixture(url, 'events')",
      '3: Bun.serve({ port: 0 })',
      '4: new Redis(url)',
      '8: chromium.launch()',
      "10: spawn(['bun'])",
    ])
  })

  test('behavior: tests, hooks, nested describes and declarations without calls are not effects', () => {
    const source = [
      'const server = Bun.serve({ port: 0 })',
      "describe('always', () => { const sql = postgres(url) })",
      "describe.skipIf(!url)('on PostgreSQL', () => {",
      '  let fixture: Fixture | undefined',
      '  const rows = [1, 2] as const',
      '  const open = () => postgres(url)',
      '  beforeAll(async () => { fixture = await postgresFixture(url) })',
      '  afterAll(() => fixture?.teardown())',
      "  test.each(rows)('row %d', async (row) => { await open().query(row) })",
      "  describe('nested', () => { test('one', () => spawn(['bun'])) })",
      '})',
    ].join('\n')
    expect(collectionEffects('sample.test.ts', source)).toEqual([])
  })
})

describe('the test suite', () => {
  test('behavior: no describe that may be skipped does work while Bun collects it', () => {
    const files = testFiles(join(root, 'test'))
    expect(files.length).toBeGreaterThan(100)
    const violations = files.flatMap((path) =>
      collectionEffects(path, readFileSync(path, 'utf8')).map((effect) => `${relative(root, path)}:${effect}`),
    )
    expect(violations).toEqual([])
  })
})
