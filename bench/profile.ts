import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import { run } from './load.js'
import { fundedPayers, presignX402, requirementsOf } from './payers.js'
import { cpuSecondsOf, freePort, type Server, start, startDevnet, unlimited } from './processes.js'

/** Stages of a call, each recognised by where its code lives; the first match wins. */
export const stages = [
  { stage: 'recovery', pattern: /secp256k1|noble\/curves|core\/Authorization|keccak|sha3/ },
  { stage: 'decode', pattern: /app\/payment\/(decode|x402|mpp)|@x402\/core|zod|typebox|mppx|base64|atob|JSON\.parse/ },
  {
    stage: 'ledger',
    pattern: /adapters\/ledger|core\/Ledger|app\/payment\/(lease|idempotency|effects)|sqlite|postgres/,
  },
  {
    stage: 'settlement',
    pattern: /app\/payment\/settlement|adapters\/facilitator|core\/Facilitator|viem|abitype|ox\//,
  },
  { stage: 'offer', pattern: /app\/payment\/(offer|receipt|channel)|core\/PaymentTerms/ },
  {
    stage: 'HTTP',
    pattern: /elysia|app\/(gateway|cors|head|body|input|request-id|problem|log)|Bun\.serve|node:http|fetch/,
  },
] as const

/** A stage's share of the CPU samples. */
export type Split = Record<(typeof stages)[number]['stage'] | 'other' | 'idle' | 'gc', number>

type Profile = {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
}

/**
 * Splits a V8-format CPU profile by stage: each sample's time goes to the stage of the innermost frame on its stack
 * that belongs to one (so a signature recovery called from the ledger counts as recovery).
 */
export function split(profile: Profile): Split {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const stageOf = new Map<number, keyof Split>()
  const classify = (id: number): keyof Split => {
    const known = stageOf.get(id)
    if (known) return known
    const node = byId.get(id)!
    const { functionName, url } = node.callFrame
    let stage: keyof Split | undefined
    if (functionName === '(idle)' || functionName === '(program)') stage = 'idle'
    else if (functionName === '(garbage collector)') stage = 'gc'
    else stage = stages.find(({ pattern }) => pattern.test(url) || pattern.test(functionName))?.stage
    const up = parent.get(id)
    const result = stage ?? (up === undefined ? 'other' : classify(up))
    stageOf.set(id, result)
    return result
  }
  const totals: Split = {
    recovery: 0,
    decode: 0,
    ledger: 0,
    settlement: 0,
    offer: 0,
    HTTP: 0,
    other: 0,
    idle: 0,
    gc: 0,
  }
  profile.samples.forEach((id, index) => {
    totals[classify(id)] += profile.timeDeltas[index] ?? 0
  })
  return totals
}

/**
 * Profiles the gateway under paid x402 calls: the devnet in its own process, the gateway under `bun --cpu-prof`,
 * `calls` paid calls from 50 payers; returns the CPU seconds per call (user + system, from /proc) and the profile's
 * split by stage. Run alone with `bun bench/profile.ts`.
 */
export async function profile(parameters: { calls: number }): Promise<{ cpuPerCall: number; shares: Partial<Split> }> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-profile-'))
  const servers: Server[] = []
  try {
    const devnet = await startDevnet({ dataDir: join(directory, 'devnet') })
    servers.push(devnet)
    const { rpcUrl } = devnet
    const gateway = await start({
      name: 'gateway',
      script: 'app/main.ts',
      flags: ['--cpu-prof', `--cpu-prof-dir=${directory}`],
      // The embedded store, as the main gateway of `bun run bench`: never a DATABASE_URL of the caller's.
      inherit: false,
      port: freePort(),
      env: { RPC_URL: rpcUrl, DATA_DIR: join(directory, 'gateway'), LOG_LEVEL: 'warn', ...unlimited },
      readyPath: '/free/timestamp',
    })
    servers.push(gateway)
    const terms = (await (await fetch(`${gateway.origin}/.well-known/x402.json`)).json()) as PaymentTerms
    const url = `${gateway.origin}/api/v1/rpc/chains`
    const payers = await fundedPayers({ rpcUrl, terms, count: 50, usdc: '20' })
    const supply = await presignX402({
      requirements: await requirementsOf(url),
      payers,
      perPayer: Math.ceil(parameters.calls / payers.length),
    })
    const before = cpuSecondsOf(gateway.process.pid)
    const result = await run({
      url,
      concurrency: payers.length,
      durationMs: 600_000,
      request: (worker, call) => {
        const value = supply[worker]![call]
        return value === undefined ? undefined : { headers: { 'payment-signature': value } }
      },
    })
    const cpu = cpuSecondsOf(gateway.process.pid) - before
    const served = result.requests - result.failures
    if (served === 0) throw new Error(`No paid call succeeded: ${result.firstFailures[0]}`)
    await gateway.stop()
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('The gateway wrote no CPU profile.')
    return {
      cpuPerCall: cpu / served,
      shares: busyShares(split(JSON.parse(readFileSync(join(directory, file), 'utf8')) as Profile)),
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
    rmSync(directory, { recursive: true, force: true })
  }
}

/** Each stage's share of the busy time (everything but idle), largest first. */
function busyShares(totals: Split): Partial<Split> {
  const busy = Object.entries(totals).filter(([stage]) => stage !== 'idle')
  const sum = busy.reduce((total, [, micros]) => total + micros, 0)
  return Object.fromEntries(busy.sort((a, b) => b[1] - a[1]).map(([stage, micros]) => [stage, micros / sum]))
}

if (import.meta.main) {
  const { cpuPerCall, shares } = await profile({ calls: Number(process.argv[2] ?? 2_000) })
  process.stdout.write(`CPU per paid call: ${(cpuPerCall * 1000).toFixed(2)} ms (user + system)\n`)
  for (const [stage, share] of Object.entries(shares))
    process.stdout.write(`  ${stage.padEnd(10)} ${(100 * share).toFixed(1)}%\n`)
}
