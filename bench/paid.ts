import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { clients } from '../app/clients.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'

// Paid calls per second and p50/p99 latency of x402 v2 exact calls, settlement confirmed on the devnet before
// each response, at 1 and at 50 concurrent payers. The gateway runs in its own process exactly as `npm start`
// runs it; authorizations are signed before the clock starts, so the figures are the gateway's alone.

const root = join(import.meta.dir, '..')
const bun = join(root, 'node_modules/.bin/bun')
const port = 3500 + Math.floor(Math.random() * 400)
const rpcPort = port + 1000
const url = `http://127.0.0.1:${port}`
const scenarios = [
  { payers: 1, callsPerPayer: 200 },
  { payers: 50, callsPerPayer: 40 },
]

const gateway = spawn(bun, ['app/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    DEVNET_RPC_PORT: String(rpcPort),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-')),
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
})
try {
  await waitFor(`${url}/free/timestamp`)
  const manifest = (await (await fetch(`${url}/.well-known/x402.json`)).json()) as PaymentTerms
  const pay = clients({ terms: manifest, fetch })
  const results = []
  for (const scenario of scenarios) {
    const payers = Array.from({ length: scenario.payers }, () => privateKeyToAccount(generatePrivateKey()))
    for (const payer of payers) fund(payer.address)
    const headers = await Promise.all(
      payers.map((signer) =>
        Promise.all(
          Array.from({ length: scenario.callsPerPayer }, () =>
            pay.presigned({ signer, validBefore: BigInt(Math.floor(Date.now() / 1000) + 300) }),
          ),
        ),
      ),
    )
    const latencies: number[] = []
    let failures = 0
    const started = performance.now()
    await Promise.all(
      headers.map(async (own) => {
        for (const header of own) {
          const sent = performance.now()
          const response = await fetch(`${url}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
          await response.arrayBuffer()
          if (response.status !== 200 || !response.headers.get('payment-response')) failures++
          latencies.push(performance.now() - sent)
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    latencies.sort((a, b) => a - b)
    results.push({
      payers: scenario.payers,
      calls: latencies.length,
      failures,
      callsPerSecond: Math.round(latencies.length / seconds),
      p50Ms: round(percentile(latencies, 0.5)),
      p99Ms: round(percentile(latencies, 0.99)),
    })
  }
  console.table(results)
  console.log(
    JSON.stringify({
      benchmark: 'paid-calls',
      protocol: 'x402-v2-exact',
      settlement: 'confirmed before response',
      results,
    }),
  )
} finally {
  gateway.kill()
}

function fund(address: string) {
  const run = spawnSync(bun, ['app/fund.ts', address, '10'], {
    cwd: root,
    env: { ...process.env, DEVNET_RPC_URL: `http://127.0.0.1:${rpcPort}` },
  })
  if (run.status !== 0) throw new Error(`funding ${address} failed: ${run.stderr}`)
}

async function waitFor(target: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (
      await fetch(target).then(
        (response) => response.ok,
        () => false,
      )
    )
      return
    await Bun.sleep(50)
  }
  throw new Error(`the gateway did not answer at ${target}`)
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!
}

function round(value: number): number {
  return Math.round(value * 10) / 10
}
