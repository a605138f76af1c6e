// The embedding job (`npm run test:embed`, run by .ci/run): builds the package (`npm run build`), packs it, installs
// the tarball in an empty folder and runs test/embed/checks.mjs there on Node 20 and 22, Deno and Bun (node:test),
// and bundled for a browser in headless Chromium. Not part of `npm test`: it compiles core and installs a package.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { encodeFunctionData } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { build, distDirectory, subpaths } from '../../app/package.js'
import * as Authorization from '../../core/Authorization.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Core from '../../core/index.js'
import { paidGateway } from '../support/paid.js'
import { lockFor } from './install.js'

const root = join(import.meta.dir, '../..')

/** Debian's chromium package; CHROMIUM_PATH names another build. */
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The major version of the Node at `path`, or undefined where there is none. */
function nodeMajor(path: string): number | undefined {
  const version = Bun.spawnSync([path, '--version'], { stderr: 'ignore' })
  return version.success ? Number(/^v(\d+)/.exec(version.stdout.toString())?.[1]) : undefined
}

/** One runtime the checks run on. */
type Runtime = {
  /** Its name in the test's title. */
  name: string
  /** How it runs run-checks.mjs in the folder the package is installed in; undefined where it is not here. */
  command: string[] | undefined
  /** What to do when it is not here. */
  missing: string
  /** Where its node:test says how many tests passed. */
  passed: RegExp
}

/** Node 20 and 22: NODE20_PATH and NODE22_PATH, or the `node` on PATH where it is that version. */
const nodes: Runtime[] = [20, 22].map((major) => {
  const path = process.env[`NODE${major}_PATH`] ?? 'node'
  return {
    name: `Node ${major}`,
    command: nodeMajor(path) === major ? [path, 'run-checks.mjs'] : undefined,
    missing: `set NODE${major}_PATH to a Node ${major} binary (.ci/run installs one from npm's node-<platform>-<arch>)`,
    passed: /^# pass (\d+)$/m,
  }
})

/** The deno devDependency's binary. */
const deno = join(root, 'node_modules/.bin/deno')

const runtimes: Runtime[] = [
  ...nodes,
  {
    name: 'Deno',
    command: existsSync(deno) ? [deno, 'test', '--allow-all', '--no-check', 'run-checks.mjs'] : undefined,
    missing: 'the deno devDependency is not installed (npm ci)',
    passed: /^ok \| (\d+) passed/m,
  },
  { name: 'Bun', command: [process.execPath, 'test', './run-checks.mjs'], missing: '', passed: /^ *(\d+) pass$/m },
]

/** The runtimes that are not here, each with what to do about it. */
const absent = [
  ...runtimes.filter(({ command }) => !command).map(({ name, missing }) => `${name}: ${missing}`),
  ...(existsSync(chromiumPath) ? [] : [`Chromium: none at ${chromiumPath} (apt-get install chromium)`]),
]
if (absent.length > 0 && process.env.CI) throw new Error(`CI runs the package on every runtime:\n${absent.join('\n')}`)
for (const reason of absent) process.stderr.write(`Skipping the package's checks on ${reason}.\n`)

/** A key of Hardhat's first account, which signs the authorization the package must recover. */
const payer = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')

/** What checks.mjs compares the package with, from the sources: namespaces, subpaths, vectors made with viem. */
async function expected() {
  const namespaces = Object.fromEntries(
    Object.entries(Core).map(([name, members]) => [name, Object.keys(members).sort()]),
  )
  const token = { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' } as const
  const recipients = [{ address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: 1_500_000n }] as const
  const calldata = encodeFunctionData({
    abi: BatchPayment.abi,
    functionName: 'sprayToken',
    args: [token.address, recipients.map(({ address, amount }) => ({ recipient: address, amount }))],
  })
  const domain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: token.address }
  const authorization = {
    from: payer.address,
    to: recipients[0].address,
    value: 2_500_000n,
    validAfter: 0n,
    validBefore: 4_102_444_800n,
    nonce: `0x${'5a'.repeat(32)}`,
  } as const
  const signature = await payer.signTypedData(Authorization.toTypedData(authorization, domain))
  return {
    namespaces,
    subpaths: Object.fromEntries(Object.entries(subpaths).map(([name, names]) => [name, [...names].sort()])),
    calldata: { token, recipients, calldata },
    authorization: { signed: { ...authorization, signature }, domain, signer: payer.address },
  }
}

/** The folder the tarball is installed in. */
let folder: string
/** What `npm pack --json` says of the tarball. */
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] }
/** How many checks checks.mjs holds. */
let count: number

function run(command: string[]) {
  const result = Bun.spawnSync(command, { cwd: folder, env: { ...process.env, NO_COLOR: '1' } })
  return { ok: result.success, output: `${result.stdout.toString()}${result.stderr.toString()}` }
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'agent-pay-embed-'))
  build()
  const pack = run(['npm', 'pack', distDirectory, '--json', '--pack-destination', folder])
  expect(pack.ok, pack.output).toBe(true)
  ;[packed] = JSON.parse(pack.output.slice(pack.output.indexOf('[')))
  const manifest = await Bun.file(join(distDirectory, 'package.json')).json()
  lockFor({ folder, tarball: join(folder, packed.filename), manifest })
  const values = JSON.stringify(await expected(), (_, value) => (typeof value === 'bigint' ? String(value) : value))
  writeFileSync(join(folder, 'expected.mjs'), `export default ${values}\n`)
  for (const file of ['checks.mjs', 'run-checks.mjs', 'browser.mjs'])
    cpSync(join(import.meta.dir, file), join(folder, file))
  cpSync(join(root, 'examples'), join(folder, 'examples'), { recursive: true })
  const install = run(['npm', 'ci', '--offline', '--no-audit', '--no-fund'])
  expect(install.ok, install.output).toBe(true)
  const counted = run([
    'node',
    '--input-type=module',
    '-e',
    "console.log((await import('./checks.mjs')).checks.length)",
  ])
  expect(counted.ok, counted.output).toBe(true)
  count = Number(counted.output)
}, 600_000)

afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('the packed package', () => {
  test('behavior: holds the compiled core and client, its manifest and the README; depends on pure libraries and the official clients only', async () => {
    const paths = packed.files.map(({ path }) => path)
    console.log(
      `${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${paths.length} files`,
    )
    expect(paths.filter((path) => !/^(core|client)\/.+\.(js|d\.ts)$/.test(path))).toEqual(['README.md', 'package.json'])
    const { dependencies } = await Bun.file(join(folder, 'node_modules/agent-pay-gateway/package.json')).json()
    expect(Object.keys(dependencies)).toEqual([
      '@noble/curves',
      '@noble/hashes',
      '@scure/base',
      '@sinclair/typebox',
      '@uniswap/default-token-list',
      '@x402/core',
      '@x402/evm',
      '@x402/fetch',
      'eciesjs',
      'ipfs-unixfs-importer',
      'mppx',
      'multiformats',
      'standardwebhooks',
      'viem',
    ])
  })

  test('behavior: `import("agent-pay-gateway/core")` in the folder it was installed in, on the Node of PATH', () => {
    const imported = run([
      'node',
      '-e',
      "import('agent-pay-gateway/core').then((core) => console.log(Object.keys(core).length))",
    ])
    expect(imported).toEqual({ ok: true, output: `${Object.keys(Core).length}\n` })
  })

  for (const runtime of runtimes)
    test.skipIf(!runtime.command)(`behavior: every check passes on ${runtime.name}`, () => {
      const { ok, output } = run(runtime.command!)
      expect(ok, output).toBe(true)
      expect(Number(runtime.passed.exec(output)?.[1]), output).toBe(count)
    })
})

describe.skipIf(!existsSync(chromiumPath))('the package bundled for a browser', () => {
  test('behavior: every check passes in headless Chromium', async () => {
    const bundle = await Bun.build({ entrypoints: [join(folder, 'browser.mjs')], target: 'browser', format: 'esm' })
    expect(bundle.success, bundle.logs.join('\n')).toBe(true)
    const script = await bundle.outputs[0]!.text()
    const page =
      '<!doctype html><meta charset="utf-8"><title>checks</title><script type="module" src="/checks.js"></script>'
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) =>
        new URL(request.url).pathname === '/checks.js'
          ? new Response(script, { headers: { 'content-type': 'text/javascript' } })
          : new Response(page, { headers: { 'content-type': 'text/html' } }),
    })
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] })
    try {
      const tab = await browser.newPage()
      await tab.goto(`http://127.0.0.1:${server.port}/`)
      await tab.waitForFunction(() => 'results' in globalThis)
      const results = (await tab.evaluate('results')) as { name: string; ok: boolean; error?: string }[]
      expect(results.filter(({ ok }) => !ok)).toEqual([])
      expect(results).toHaveLength(count)
    } finally {
      await browser.close()
      server.stop(true)
    }
  })
})

/** A gateway on the devnet, served on a local port, for the examples and the command line to pay. */
let served: { gateway: Awaited<ReturnType<typeof paidGateway>>; server: ReturnType<typeof Bun.serve>; page: string }

/** What the payee and `payer` hold before and after `pay`, in atomic USDC. */
async function balancesAround(payer: `0x${string}`, pay: () => Promise<void>) {
  const { gateway } = served
  const before = [await gateway.balance(gateway.terms.payTo), await gateway.balance(payer)]
  await pay()
  const after = [await gateway.balance(gateway.terms.payTo), await gateway.balance(payer)]
  return { payee: after[0]! - before[0]!, payer: after[1]! - before[1]! }
}

describe('the examples and the command line, against a gateway on the devnet', () => {
  beforeAll(async () => {
    const gateway = await paidGateway()
    let script = ''
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) => {
        const { pathname } = new URL(request.url)
        if (pathname === '/example/') return new Response(Bun.file(join(folder, 'examples/browser/index.html')))
        if (pathname === '/example/pay.js')
          return new Response(script, { headers: { 'content-type': 'text/javascript' } })
        return gateway.gateway.handle(request)
      },
    })
    const bundle = await Bun.build({
      entrypoints: [join(folder, 'examples/browser/pay.mjs')],
      target: 'browser',
      format: 'esm',
    })
    expect(bundle.success, bundle.logs.join('\n')).toBe(true)
    script = await bundle.outputs[0]!.text()
    served = { gateway, server, page: `http://127.0.0.1:${server.port}/example/` }
  }, 120_000)
  afterAll(async () => {
    served?.server.stop(true)
    await served?.gateway.close()
  })

  const payerEnv = (index: number) => ({
    ...process.env,
    GATEWAY_URL: `http://127.0.0.1:${served.server.port}`,
    AGENT_PAY_PRIVATE_KEY: served.gateway.devnet.accounts[index]!.privateKey,
    AGENT_PAY_RECEIPTS: join(folder, `receipts-${index}.jsonl`),
  })
  const spawn = async (command: string[], env: Record<string, string | undefined>) => {
    const child = Bun.spawn(command, { cwd: folder, env, stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    return { stdout, stderr, code }
  }

  test("behavior: the Node agent computes a batch's fee and calldata with core alone", async () => {
    const { stdout, stderr, code } = await spawn(['node', 'examples/node-batch.mjs'], { PATH: process.env.PATH })
    expect(code, stderr).toBe(0)
    const recipients = [
      { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: 1_500_000n },
      { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', amount: 2_000_000n },
    ] as const
    const token = { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', isETH: false } as const
    expect(JSON.parse(stdout)).toMatchObject({
      total: '3.5',
      fee: '0.0105',
      totalWithFee: '3.5105',
      calldata: BatchPayment.calldata({ token, recipients }),
    })
  })

  test.skipIf(!existsSync(deno))(
    'behavior: the Deno script pays for one call with the client, exactly the price',
    async () => {
      const env = payerEnv(5)
      let output = ''
      const moved = await balancesAround(
        privateKeyToAccount(env.AGENT_PAY_PRIVATE_KEY as `0x${string}`).address,
        async () => {
          const { stdout, stderr, code } = await spawn(
            [deno, 'run', '--allow-env', '--allow-net', '--allow-read', 'examples/deno-pay.mjs'],
            env,
          )
          expect(code, stderr).toBe(0)
          output = stdout
        },
      )
      expect(JSON.parse(output)).toMatchObject({ status: 200, paid: '1000', receipt: { protocol: 'x402' } })
      expect(moved).toEqual({ payee: 1000n, payer: -1000n })
    },
  )

  test('behavior: `agent-pay call` pays on plain Node from the package, exactly the price', async () => {
    const env = payerEnv(6)
    let output = ''
    const moved = await balancesAround(
      privateKeyToAccount(env.AGENT_PAY_PRIVATE_KEY as `0x${string}`).address,
      async () => {
        const { stdout, stderr, code } = await spawn(
          ['node', 'node_modules/.bin/agent-pay', 'call', 'GET', '/api/v1/rpc/chains'],
          env,
        )
        expect(code, stderr).toBe(0)
        output = stdout
      },
    )
    expect(output).toStartWith('HTTP 200\n')
    expect(output).toContain('"protocol":"x402","amount":"0.001000"')
    expect(moved).toEqual({ payee: 1000n, payer: -1000n })
  })

  test.skipIf(!existsSync(chromiumPath))(
    'behavior: the browser page pays for one call with the client, exactly the price',
    async () => {
      const key = served.gateway.devnet.accounts[7]!.privateKey
      let paid: unknown
      const moved = await balancesAround(privateKeyToAccount(key).address, async () => {
        const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] })
        try {
          const tab = await browser.newPage()
          await tab.goto(`${served.page}#${key}`)
          await tab.waitForFunction(() => 'paid' in globalThis)
          paid = await tab.evaluate('paid')
        } finally {
          await browser.close()
        }
      })
      expect(paid).toMatchObject({ status: 200, paid: '1000', receipt: { protocol: 'x402' } })
      expect(moved).toEqual({ payee: 1000n, payer: -1000n })
    },
  )
})
