import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dir, '..')
const layers = ['core', 'client', 'adapters', 'modules', 'app'] as const
type Layer = (typeof layers)[number]

/** Which project layers each layer may import (the design's dependency rule). */
const allowed: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  // The client (agent-pay-gateway/client) runs in agents' programs and browsers: it may use core, never the server.
  client: ['core', 'client'],
  adapters: ['core', 'adapters'],
  modules: ['core', 'modules'],
  app: ['core', 'client', 'adapters', 'modules', 'app'],
}

/** Packages core may use: pure libraries that run unchanged on Node, Deno, Bun and inside other agents. */
// standardwebhooks: the pure HMAC signing of the Standard Webhooks specification (no I/O, no runtime).
// eciesjs: ECIES on @noble's curves, hashes and ciphers (no I/O, no runtime), the client half of wallet messages.
// @uniswap/default-token-list: JSON data only (a token list), imported as a JSON module.
const corePackages = [
  /^ipfs-unixfs-importer(\/|$)/,
  /^multiformats(\/|$)/,
  /^viem(\/|$)/,
  /^ox(\/|$)/,
  /^@noble\//,
  /^@scure\//,
  /^@sinclair\/typebox(\/|$)/,
  /^standardwebhooks$/,
  /^eciesjs(\/config)?$/,
  /^@uniswap\/default-token-list\/build\/uniswap-default\.tokenlist\.json$/,
]

/** Client files that run on a runtime, each for a reason; the rest of the client runs in a browser too. */
const runtimeFiles: Readonly<Record<string, string>> = {
  'client/cli.ts': 'the command line, on Node (node:fs for its receipts, process for its arguments and environment)',
}

/** Packages the client may use beside core's: the official x402 and MPP clients it pays with. */
const clientPackages = [...corePackages, /^@x402\/(core|evm|fetch)(\/|$)/, /^mppx(\/|$)/]

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name)
    if (statSync(path).isDirectory()) return files(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

function imports(path: string): string[] {
  const source = readFileSync(path, 'utf8')
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g
  return [...source.matchAll(pattern)].map((match) => (match[1] ?? match[2] ?? match[3])!)
}

/** The packages beyond `packages` that `layer`'s files import and the runtime globals of `globals` they use. */
function beyond(parameters: { layer: Layer; packages: readonly RegExp[]; globals: readonly string[] }): string[] {
  const { layer, packages, globals } = parameters
  return sources
    .filter((path) => layerOf(path) === layer && !(relative(root, path) in runtimeFiles))
    .flatMap((path) => {
      const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      return [
        ...imports(path)
          .filter((specifier) => !specifier.startsWith('.') && !packages.some((pattern) => pattern.test(specifier)))
          .map((specifier) => `${relative(root, path)} imports ${specifier}`),
        ...globals.filter((global) => code.includes(global)).map((global) => `${relative(root, path)} uses ${global}`),
      ]
    })
}

function layerOf(path: string): Layer | undefined {
  return layers.find((layer) => relative(root, path).startsWith(`${layer}/`))
}

const sources = layers.flatMap((layer) => files(join(root, layer)))

/**
 * The app files that import adapters, each for a reason: the port providers build the ports, boot's three choices
 * (chain, storage, who settles) open what the rest runs on; any other app file receives ports and never names a
 * backend.
 */
const adapterImporters: Readonly<Record<string, string>> = {
  'app/settlement.ts': "boot's choice of the settlement chain",
  'app/database.ts': "boot's choice of storage",
  'app/relayer.ts': "boot's choice of who settles, and the payment schemes' keys",
  'app/terms.ts': 'the payment terms of the chosen chain (the devnet token)',
  'app/banner.ts': "the devnet's banner",
  'app/agent.ts': 'a devnet tool',
  'app/attest.ts': 'a devnet tool',
  'app/demo.ts': 'a devnet tool',
  'app/devnet-client.ts': 'a devnet tool',
  'app/name.ts': 'a devnet tool',
  'app/price.ts': 'a devnet tool',
  'app/walkthrough.ts': 'a devnet tool',
}

describe('architecture', () => {
  test('behavior: finds the sources it checks', () => {
    expect(sources.length).toBeGreaterThan(10)
    expect(imports(join(root, 'app/gateway.ts'))).toContain('../core/Catalog.js')
  })

  test('behavior: dependencies point inward', () => {
    const violations: string[] = []
    for (const path of sources) {
      const from = layerOf(path)!
      for (const specifier of imports(path)) {
        if (!specifier.startsWith('.')) continue
        const to = layerOf(join(path, '..', specifier))
        if (to && !allowed[from].includes(to)) violations.push(`${relative(root, path)} -> ${specifier}`)
      }
    }
    expect(violations).toEqual([])
  })

  test('behavior: core imports only core and pure libraries, and touches no runtime', () => {
    const globals = ['Bun.', 'process.', 'Deno.', 'require(', 'fetch(']
    expect(beyond({ layer: 'core', packages: corePackages, globals })).toEqual([])
  })

  test('behavior: the client imports only core, pure libraries and the official clients, and touches no runtime', () => {
    expect(sources.some((source) => layerOf(source) === 'client')).toBe(true)
    expect(
      beyond({ layer: 'client', packages: clientPackages, globals: ['Bun.', 'process.', 'Deno.', 'require('] }),
    ).toEqual([])
  })

  test('behavior: app/ imports module folders only in the one list, app/modules.ts', () => {
    const violations = sources
      .filter((path) => layerOf(path) === 'app' && relative(root, path) !== 'app/modules.ts')
      .flatMap((path) =>
        imports(path)
          .filter((specifier) => specifier.startsWith('.') && layerOf(join(path, '..', specifier)) === 'modules')
          .map((specifier) => `${relative(root, path)} -> ${specifier}`),
      )
    expect(violations).toEqual([])
  })

  test('behavior: app/ imports adapters only in the providers and the files named with their reason', () => {
    const importers = sources
      .filter((path) => layerOf(path) === 'app')
      .filter((path) =>
        imports(path).some(
          (specifier) => specifier.startsWith('.') && layerOf(join(path, '..', specifier)) === 'adapters',
        ),
      )
      .map((path) => relative(root, path))
    const providers = (path: string) => path.startsWith('app/providers/')
    expect(importers.filter((path) => !providers(path) && !(path in adapterImporters))).toEqual([])
    // A named file that no longer imports an adapter leaves the list.
    expect(Object.keys(adapterImporters).filter((path) => !importers.includes(path))).toEqual([])
    expect(importers.filter(providers).length).toBeGreaterThan(10)
  })

  test('behavior: a module is schema, service, routes and index; only routes know Elysia', () => {
    const modules = readdirSync(join(root, 'modules'))
    expect(modules.length).toBeGreaterThan(0)
    const violations: string[] = []
    for (const name of modules) {
      const present = readdirSync(join(root, 'modules', name))
      for (const file of ['schema.ts', 'service.ts', 'routes.ts', 'index.ts'])
        if (!present.includes(file)) violations.push(`modules/${name} lacks ${file}`)
      for (const file of present.filter((file) => file !== 'routes.ts'))
        if (imports(join(root, 'modules', name, file)).includes('elysia'))
          violations.push(`modules/${name}/${file} imports elysia`)
    }
    expect(violations).toEqual([])
  })

  test('behavior: a paid call reaches its handler as a value: no service takes a Request, no scope is ambient', () => {
    // Handlers get `paid` (payer, payment, journal, defer) from the gateway; a service that needed the Request, or a
    // journal found through AsyncLocalStorage, would be what issue 35 took out.
    const violations = sources.flatMap((path) => {
      const file = relative(root, path)
      const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
      return [
        ...(/^modules\/[^/]+\/service\.ts$/.test(file) && /\w+\??: Request\b/.test(code)
          ? [`${file} takes a Request`]
          : []),
        ...(/^(app\/payment|modules|core)\//.test(file) && code.includes('AsyncLocalStorage')
          ? [`${file} uses AsyncLocalStorage`]
          : []),
      ]
    })
    expect(violations).toEqual([])
  })
})
