import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { Receipt } from 'mppx'
import { createPublicClient, type Hash, http, type PublicClient } from 'viem'
import { libsecp256k1 } from '../adapters/crypto/libsecp256k1.js'
import * as Authorization from '../core/Authorization.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import * as ChainData from './chaindata.js'
import { channelRows } from './channels.js'
import { gasPerPayment } from './gas.js'
import * as LedgerBench from './ledger.js'
import { run } from './load.js'
import { dealt, fundedPayers, presignMpp, presignX402, requirementsOf } from './payers.js'
import { cpuSecondsOf, freePort, root, type Server, start, startDevnet, unlimited } from './processes.js'
import { profile } from './profile.js'
import * as Research from './research.js'
import * as Signatures from './signatures.js'
import * as StorageBench from './storage.js'
import * as TaxBench from './tax.js'
import * as WebhookBench from './webhooks.js'

// `bun run bench`: every figure of the performance table, each against a baseline measured in the same run, as
// the median of several rounds with its spread. It starts what it needs (the gateway on embedded defaults in its
// own process, which serves the devnet's JSON-RPC; a bare Elysia app; the reference x402 stack), drives them with
// our own load generator (bench/load.ts), prints the table and writes the raw figures to bench/results/latest.json.

/** What one run does; sized to finish in a few minutes on two cores. */
const plan = {
  /** Rounds of the paid-call rows (and memory samples); each figure is the median of its rounds. */
  rounds: 3,
  /** Rounds of the cheap rows: free endpoint, 402 challenges, signature recovery. */
  quickRounds: 5,
  /** Requests in flight for the HTTP rows; for paid calls, one payer per worker. */
  concurrency: 50,
  /** Length of a free-endpoint or 402 round, in ms. */
  httpRoundMs: 3_000,
  /** Length of a paid round, in ms. */
  paidRoundMs: 6_000,
  /** Length of a signature-verification round, per implementation, in ms. */
  signatureRoundMs: 1_000,
  /** Paid calls the gateway has served when its memory is read. */
  rssAfterCalls: 10_000,
  /** Most MPP credentials per payer in a round (collecting them takes this many seconds). */
  mppPerPayer: 20,
  /**
   * Payers behind each worker of the MPP rounds: a payer answers one challenge a second, so one payer per worker would
   * run out of credentials within a second or two of a round; with six, a round lasts as long as an x402 one.
   */
  mppPayersPerWorker: 6,
  /** Devnet USDC minted to each payer. */
  usdcPerPayer: '20',
  /** Calls of each one-at-a-time latency row (transaction decoding, balances). */
  latencyCalls: 100,
} as const

/** One row of the table: a figure, its baseline, and the target of their ratio. */
export type Row = {
  /** What is measured. */
  figure: string
  /** What it is compared with. */
  baseline: string
  /** Unit of both. */
  unit: string
  /** The figure in every round. */
  figures: number[]
  /** The baseline in every round (paired with `figures`). */
  baselines: number[]
  /** Ratio the figure must reach: at least (`>=`) or at most (`<=`). */
  target: { relation: '>=' | '<='; ratio: number }
  /** What the reader should know about this row. */
  note?: string
}

const rows: Row[] = []
const raw: Record<string, unknown> = {}
const servers: Server[] = []
const startedAt = new Date()

process.on('SIGINT', async () => {
  await Promise.all(servers.map((server) => server.stop()))
  process.exit(130)
})

try {
  await measure()
} catch (error) {
  // What each server said last is where a failed row's cause is.
  for (const server of servers)
    process.stderr.write(`--- ${server.name}, last output:\n${server.output().slice(-4_000)}\n`)
  throw error
} finally {
  await Promise.all(servers.map((server) => server.stop()))
}
report()

async function measure() {
  // Signatures first, while nothing else runs on the machine.
  log('signature verification (one core)')
  const native = await libsecp256k1()
  const vectors = await Signatures.vectors(256)
  const ours = (signed: Authorization.Signed, domain: Authorization.Domain) =>
    Authorization.recover(signed, domain, { recoverPublicKey: native })
  await Signatures.rate({ recover: ours, vectors, durationMs: 300 })
  await Signatures.rate({ recover: Signatures.viaViem, vectors, durationMs: 300 })
  const signatureRounds = await rounds(plan.quickRounds, async () => ({
    ours: await Signatures.rate({ recover: ours, vectors, durationMs: plan.signatureRoundMs }),
    viem: await Signatures.rate({ recover: Signatures.viaViem, vectors, durationMs: plan.signatureRoundMs }),
    pureJs: native
      ? await Signatures.rate({ recover: Authorization.recover, vectors, durationMs: plan.signatureRoundMs })
      : undefined,
  }))
  raw.signatures = {
    implementation: native ? 'libsecp256k1 (native)' : 'pure JS (@noble/curves)',
    rounds: signatureRounds,
  }

  log('starting the devnet, the gateway, a bare Elysia app and the reference x402 stack, each in its own process')
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'))
  // Shared by the gateway and the reference stack.
  const devnet = await startDevnet({ dataDir: join(dataDir, 'devnet') })
  const { rpcUrl } = devnet
  servers.push(devnet)
  /** Starts a gateway on the devnet, on the embedded store or on `databaseUrl`. */
  const gatewayOn = (name: string, databaseUrl?: string) =>
    start({
      name,
      script: 'app/main.ts',
      port: freePort(),
      inherit: false,
      env: {
        RPC_URL: rpcUrl,
        DATA_DIR: join(dataDir, name),
        LOG_LEVEL: 'warn',
        ...unlimited,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        // The chain-data endpoints read every chain from the devnet's node: the machine may have no internet.
        ...Object.fromEntries(
          ['ETHEREUM', 'ARBITRUM', 'POLYGON', 'OPTIMISM', 'AVALANCHE', 'BSC'].map((chain) => [
            `CHAIN_RPC_${chain}`,
            rpcUrl,
          ]),
        ),
      },
      readyPath: '/free/timestamp',
    })
  const gateway = await gatewayOn('gateway')
  servers.push(gateway)
  await Bun.sleep(1_000)
  const idleRss: number[] = []
  for (let sample = 0; sample < plan.rounds; sample++, await Bun.sleep(300)) idleRss.push(gateway.rss())

  const terms = (await (await fetch(`${gateway.origin}/.well-known/x402.json`)).json()) as PaymentTerms
  const elysia = await start({
    name: 'bare Elysia',
    script: 'bench/reference/elysia.ts',
    port: freePort(),
    readyPath: '/free/timestamp',
  })
  servers.push(elysia)
  const reference = await start({
    name: 'reference x402 stack',
    script: 'bench/reference/x402-hono.ts',
    port: freePort(),
    env: { RPC_URL: rpcUrl, ASSET: terms.asset.address, PAY_TO: terms.payTo },
    readyPath: '/api/v1/rpc/chains',
    ready: (response) => response.status === 402,
  })
  servers.push(reference)
  // With DATABASE_URL, a second gateway keeps its ledger and records on PostgreSQL (a schema of its own).
  const postgresSchema = process.env.DATABASE_URL ? `bench_gateway_${Date.now()}` : undefined
  const postgresGateway = postgresSchema
    ? await (async () => {
        const url = process.env.DATABASE_URL!
        await LedgerBench.withPostgres(url, (sql) => sql.unsafe(`CREATE SCHEMA ${postgresSchema}`))
        const server = await gatewayOn(
          'gateway-postgres',
          `${url}${url.includes('?') ? '&' : '?'}search_path=${postgresSchema}`,
        )
        servers.push(server)
        return server
      })()
    : undefined

  log('free endpoint and 402 challenges')
  const free = `${gateway.origin}/free/timestamp`
  const bare = `${elysia.origin}/free/timestamp`
  const paidPath = '/api/v1/rpc/chains'
  const paid = `${gateway.origin}${paidPath}`
  const challenged = (response: Response) =>
    response.status === 402 && response.headers.has('payment-required') && response.headers.has('www-authenticate')
  for (const url of [free, bare]) await run({ url, concurrency: plan.concurrency, durationMs: 1_000 })
  await run({ url: paid, concurrency: plan.concurrency, durationMs: 1_000, check: challenged })
  const httpRounds = await rounds(plan.quickRounds, async () => ({
    gatewayFree: await run({ url: free, concurrency: plan.concurrency, durationMs: plan.httpRoundMs }),
    elysiaFree: await run({ url: bare, concurrency: plan.concurrency, durationMs: plan.httpRoundMs }),
    gatewayChallenge: await run({
      url: paid,
      concurrency: plan.concurrency,
      durationMs: plan.httpRoundMs,
      check: challenged,
    }),
  }))
  raw.http = httpRounds

  log(`funding ${plan.concurrency} payers on the devnet`)
  const payers = await fundedPayers({ rpcUrl, terms, count: plan.concurrency, usdc: plan.usdcPerPayer })
  const mppPayers = await fundedPayers({
    rpcUrl,
    terms,
    count: plan.concurrency * plan.mppPayersPerWorker,
    usdc: plan.usdcPerPayer,
  })
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) }) as PublicClient
  const referenceUrl = `${reference.origin}/api/v1/rpc/chains`
  const gatewayRequirements = await requirementsOf(paid)
  const referenceRequirements = await requirementsOf(referenceUrl)
  let gatewayPaidCalls = 0
  /** The fastest rate each kind of paid round has reached so far, calls/s: what the next round's supply is sized by. */
  const pace = new Map<string, number>()

  /**
   * One paid round against `url` with headers pre-signed for `perPayer` calls per payer (over MPP, each worker deals
   * the credentials of its {@link plan.mppPayersPerWorker} payers in turn).
   */
  async function paidRound(
    kind: 'gateway x402' | 'gateway MPP' | 'reference x402' | 'gateway x402 on PostgreSQL',
    perPayer: number,
    durationMs: number,
  ) {
    const url =
      kind === 'reference x402'
        ? referenceUrl
        : kind === 'gateway x402 on PostgreSQL'
          ? `${postgresGateway!.origin}${paidPath}`
          : paid
    const server =
      kind === 'reference x402' ? reference : kind === 'gateway x402 on PostgreSQL' ? postgresGateway! : gateway
    const supply =
      kind === 'gateway MPP'
        ? dealt(await presignMpp({ url: paid, terms, payers: mppPayers, perPayer }), payers.length)
        : await presignX402({
            requirements: kind === 'reference x402' ? referenceRequirements : gatewayRequirements,
            payers,
            perPayer,
          })
    const header = kind === 'gateway MPP' ? 'authorization' : 'payment-signature'
    const receiptHeader = kind === 'gateway MPP' ? 'payment-receipt' : 'payment-response'
    const transactions = new Set<Hash>()
    const cpuBefore = cpuSecondsOf(server.process.pid)
    const result = await run({
      url,
      concurrency: payers.length,
      durationMs,
      request: (worker, call) => {
        const value = supply[worker]![call]
        return value === undefined ? undefined : { headers: { [header]: value } }
      },
      check: (response) => response.status === 200 && response.headers.has(receiptHeader),
      onSuccess: (response) => {
        const value = response.headers.get(receiptHeader)!
        transactions.add(
          (kind === 'gateway MPP'
            ? Receipt.deserialize(value).reference
            : decodePaymentResponseHeader(value).transaction) as Hash,
        )
      },
    })
    const served = result.requests - result.failures
    pace.set(kind, Math.max(pace.get(kind) ?? 0, result.perSecond))
    if (kind === 'gateway x402' || kind === 'gateway MPP') gatewayPaidCalls += served
    if (result.failures > 0)
      log(`  ${kind}: ${result.failures} of ${result.requests} calls failed, e.g. ${result.firstFailures[0]}`)
    // CPU seconds (user + system) the serving process spent per call served.
    const cpuPerCall = (cpuSecondsOf(server.process.pid) - cpuBefore) / Math.max(served, 1)
    return { result, transactions: [...transactions], cpuPerCall }
  }

  log('paid calls: warm-up')
  const warmUp = {
    gateway: await paidRound('gateway x402', 4, 60_000),
    mpp: await paidRound('gateway MPP', 4, 60_000),
    reference: await paidRound('reference x402', 4, 60_000),
    postgres: postgresGateway ? await paidRound('gateway x402 on PostgreSQL', 4, 60_000) : undefined,
  }
  /**
   * Calls per payer that last a round of `kind` at its fastest pace so far, with room to spare: the warm-up's pace
   * alone is slower than the rounds', and a round that runs out before its end measures its tail.
   */
  const supplyFor = (kind: Parameters<typeof paidRound>[0]) =>
    Math.ceil(((pace.get(kind) ?? 0) * (plan.paidRoundMs / 1000) * 1.5) / payers.length) + 2

  /** The gateway's RSS after each batch of paid calls: growth with calls served, or a plateau. */
  const trajectory: { paidCalls: number; rssBytes: number }[] = [
    { paidCalls: gatewayPaidCalls, rssBytes: gateway.rss() },
  ]

  log('paid calls: rounds')
  const paidRounds = await rounds(plan.rounds, async () => {
    const gatewayX402 = await paidRound('gateway x402', supplyFor('gateway x402'), plan.paidRoundMs)
    // MPP credentials take a second each to collect (see presignMpp), so their supply is capped; a round that uses
    // it up before the deadline ends early, which its rate accounts for.
    const gatewayMpp = await paidRound(
      'gateway MPP',
      Math.min(plan.mppPerPayer, Math.ceil(supplyFor('gateway MPP') / plan.mppPayersPerWorker)),
      plan.paidRoundMs,
    )
    const referenceX402 = await paidRound('reference x402', supplyFor('reference x402'), plan.paidRoundMs)
    const postgresX402 = warmUp.postgres
      ? await paidRound('gateway x402 on PostgreSQL', supplyFor('gateway x402 on PostgreSQL'), plan.paidRoundMs)
      : undefined
    trajectory.push({ paidCalls: gatewayPaidCalls, rssBytes: gateway.rss() })
    return {
      gatewayX402: gatewayX402.result,
      gatewayMpp: gatewayMpp.result,
      referenceX402: referenceX402.result,
      postgresX402: postgresX402?.result,
      cpuPerCall: gatewayX402.cpuPerCall,
      gas: {
        shared: await gasPerPayment({
          client,
          token: terms.asset.address,
          transactions: sample([...gatewayX402.transactions, ...gatewayMpp.transactions], 400),
        }),
        single: await gasPerPayment({
          client,
          token: terms.asset.address,
          transactions: sample(referenceX402.transactions, 400),
        }),
      },
    }
  })
  raw.paid = {
    warmUp: { gateway: warmUp.gateway.result, mpp: warmUp.mpp.result, reference: warmUp.reference.result },
    rounds: paidRounds,
  }

  const channels = await channelRows({
    url: paid,
    rpcUrl,
    terms,
    payers,
    roundMs: plan.paidRoundMs,
    log,
    exact: {
      perSecond: paidRounds.map((round) => round.gatewayX402.perSecond),
      gasPerPayment: paidRounds.map((round) => round.gas.shared.gasPerPayment),
    },
  })
  raw.channels = channels.raw

  log('chain data: cached free reads, transaction decoding, balances')
  const chainRounds = await rounds(plan.rounds, () =>
    ChainData.round({
      origin: gateway.origin,
      rpcUrl,
      payer: payers[0]!,
      transaction: warmUp.gateway.transactions[0]!,
      concurrency: plan.concurrency,
      durationMs: plan.httpRoundMs,
      latencyCalls: plan.latencyCalls,
    }),
  )
  raw.chainData = chainRounds

  log(`memory: paid calls until the gateway has served ${plan.rssAfterCalls}`)
  while (gatewayPaidCalls < plan.rssAfterCalls) {
    const perPayer = Math.min(60, Math.ceil((plan.rssAfterCalls - gatewayPaidCalls) / payers.length))
    const before = gatewayPaidCalls
    await paidRound('gateway x402', perPayer, 120_000)
    if (gatewayPaidCalls === before) throw new Error('The gateway settles no paid call any more.')
    trajectory.push({ paidCalls: gatewayPaidCalls, rssBytes: gateway.rss() })
  }
  await Bun.sleep(2_000)
  const afterRss: number[] = []
  for (let sample = 0; sample < plan.rounds; sample++, await Bun.sleep(300)) afterRss.push(gateway.rss())
  raw.memory = { paidCalls: gatewayPaidCalls, idleRssBytes: idleRss, afterRssBytes: afterRss, trajectory }
  if (postgresGateway) {
    await postgresGateway.stop()
    await LedgerBench.withPostgres(process.env.DATABASE_URL!, (sql) =>
      sql.unsafe(`DROP SCHEMA ${postgresSchema} CASCADE`),
    )
  }
  rmSync(dataDir, { recursive: true, force: true })

  log('ledger claims/s: PostgreSQL against SQLite')
  const ledgerRounds = await LedgerBench.rounds({ rounds: plan.rounds, durationMs: plan.httpRoundMs })
  raw.ledger = ledgerRounds

  log('CPU profile of paid calls, split by stage')
  const profiled = await profile({ calls: 2_000 })
  raw.profile = profiled

  const implementation = native ? 'libsecp256k1' : 'pure JS: the native binding is not installed'
  rows.push(...channels.rows)
  rows.push(
    {
      figure: 'free endpoint requests/s (GET /free/timestamp)',
      baseline: 'bare Elysia app, same JSON',
      unit: 'req/s',
      figures: httpRounds.map((round) => round.gatewayFree.perSecond),
      baselines: httpRounds.map((round) => round.elysiaFree.perSecond),
      target: { relation: '>=', ratio: 0.9 },
    },
    {
      figure: 'unpaid call to a paid endpoint: 402 challenges/s',
      baseline: 'the free endpoint above',
      unit: 'req/s',
      figures: httpRounds.map((round) => round.gatewayChallenge.perSecond),
      baselines: httpRounds.map((round) => round.gatewayFree.perSecond),
      target: { relation: '>=', ratio: 0.5 },
    },
    {
      figure: `paid calls/s, x402 v2 exact, settled before the response, ${payers.length} payers`,
      baseline: 'reference: @x402/hono + x402ResourceServer + in-process x402Facilitator',
      unit: 'calls/s',
      figures: paidRounds.map((round) => round.gatewayX402.perSecond),
      baselines: paidRounds.map((round) => round.referenceX402.perSecond),
      target: { relation: '>=', ratio: 4 },
    },
    {
      figure: 'paid calls/s over MPP, same conditions',
      baseline: 'the reference over x402 (it does not speak MPP)',
      unit: 'calls/s',
      figures: paidRounds.map((round) => round.gatewayMpp.perSecond),
      baselines: paidRounds.map((round) => round.referenceX402.perSecond),
      target: { relation: '>=', ratio: 4 },
    },
    {
      figure: 'p99 latency of paid calls (x402), same load',
      baseline: 'the reference stack',
      unit: 'ms',
      figures: paidRounds.map((round) => round.gatewayX402.latency.p99),
      baselines: paidRounds.map((round) => round.referenceX402.latency.p99),
      target: { relation: '<=', ratio: 0.4 },
    },
    {
      figure: 'CPU time per paid call (x402), gateway process, user + system',
      baseline: `one signature recovery (${implementation}), the floor one core sets`,
      unit: 'ms',
      figures: paidRounds.map((round) => round.cpuPerCall * 1000),
      baselines: signatureRounds.map((round) => 1000 / round.ours),
      target: { relation: '<=', ratio: 20 },
      note: `profile split: ${Object.entries(profiled.shares)
        .map(([stage, share]) => `${stage} ${((share ?? 0) * 100).toFixed(0)}%`)
        .join(', ')}`,
    },
    {
      figure: `signature recoveries/s, one core (${implementation})`,
      baseline: "viem's recoverTypedDataAddress",
      unit: 'ops/s',
      figures: signatureRounds.map((round) => round.ours),
      baselines: signatureRounds.map((round) => round.viem),
      target: { relation: '>=', ratio: 4 },
    },
    {
      figure: 'gas per settled payment, shared settlement transactions',
      baseline: 'one transferWithAuthorization per payment (the reference)',
      unit: 'gas',
      figures: paidRounds.map((round) => round.gas.shared.gasPerPayment),
      baselines: paidRounds.map((round) => round.gas.single.gasPerPayment),
      target: { relation: '<=', ratio: 0.6 },
    },
    {
      figure: 'cached free reads/s (GET /free/prices, 60 s cache)',
      baseline: 'GET /free/timestamp, same round',
      unit: 'req/s',
      figures: chainRounds.map((round) => round.prices),
      baselines: chainRounds.map((round) => round.timestamp),
      target: { relation: '>=', ratio: 0.7 },
    },
    {
      figure: 'cached free reads/s (GET /free/gas, 7 chains, 15 s cache)',
      baseline: 'GET /free/timestamp, same round',
      unit: 'req/s',
      figures: chainRounds.map((round) => round.gas),
      baselines: chainRounds.map((round) => round.timestamp),
      target: { relation: '>=', ratio: 0.7 },
      note: 'a round is 3 s, so most answers come from the cache and at most one refresh falls in it',
    },
    {
      figure: 'p50 latency of GET /api/v1/tx/decode, one at a time',
      baseline: 'its transaction + receipt read as one JSON-RPC batch straight to the node',
      unit: 'ms',
      figures: chainRounds.map((round) => round.decode.p50),
      baselines: chainRounds.map((round) => round.reads.p50),
      target: { relation: '<=', ratio: 3 },
    },
    {
      figure: 'p50 latency of paid GET /api/v1/balances (2 chains), one at a time',
      baseline: 'paid GET /api/v1/rpc/chains (no chain read), same payer',
      unit: 'ms',
      figures: chainRounds.map((round) => round.balances.p50),
      baselines: chainRounds.map((round) => round.paid.p50),
      target: { relation: '<=', ratio: 1.5 },
    },
    {
      figure: 'p50 latency of paid GET /api/v1/swap/quote (Uniswap v3 QuoterV2, every fee tier, direct and via WETH)',
      baseline: 'paid GET /api/v1/rpc/chains (no chain read), same payer',
      unit: 'ms',
      figures: chainRounds.map((round) => round.quote.p50),
      baselines: chainRounds.map((round) => round.paid.p50),
      target: { relation: '<=', ratio: 1.5 },
    },
    {
      figure: `gateway RSS after ${gatewayPaidCalls} paid calls (the devnet in its own process)`,
      baseline: 'idle RSS after start',
      unit: 'MiB',
      figures: afterRss.map((bytes) => bytes / 2 ** 20),
      baselines: idleRss.map((bytes) => bytes / 2 ** 20),
      target: { relation: '<=', ratio: 1.3 },
    },
  )
  if (paidRounds.every((round) => round.postgresX402))
    rows.push({
      figure: 'paid calls/s, x402, ledger and records on PostgreSQL (DATABASE_URL)',
      baseline: 'the same gateway on the embedded SQLite, same round',
      unit: 'calls/s',
      figures: paidRounds.map((round) => round.postgresX402!.perSecond),
      baselines: paidRounds.map((round) => round.gatewayX402.perSecond),
      target: { relation: '>=', ratio: 0.8 },
    })
  if (ledgerRounds)
    rows.push({
      figure: 'ledger claims/s on PostgreSQL (balance-bounded, 50 payers in flight, durable commits)',
      baseline: 'the same claims on the embedded SQLite file',
      unit: 'claims/s',
      figures: ledgerRounds.map((round) => round.postgres),
      baselines: ledgerRounds.map((round) => round.sqlite),
      target: { relation: '>=', ratio: 0.5 },
    })
  rows.push(await StorageBench.row(plan.rounds))
  rows.push(await TaxBench.row(plan.rounds))
  rows.push(...(await Research.rows({ rounds: plan.rounds })))

  const databases: [string, string | undefined][] = [['embedded SQLite', undefined]]
  if (process.env.DATABASE_URL) databases.push(['PostgreSQL', process.env.DATABASE_URL])
  for (const [name, url] of databases) {
    log(`webhook deliveries (${name})`)
    const webhookRounds = await rounds(plan.rounds, () => WebhookBench.round(1_000, url))
    rows.push({
      figure: `webhook deliveries/s to a local receiver: outbox to signed POST (${name}, 32 in flight)`,
      baseline: 'plain unsigned POSTs/s to the same receiver, 32 in flight',
      unit: 'req/s',
      figures: webhookRounds.map((round) => round.deliveries),
      baselines: webhookRounds.map((round) => round.posts),
      target: { relation: '>=', ratio: 0.02 },
    })
  }
}

function report() {
  const lines = rows.map((row) => {
    const ratios = row.figures.map((figure, index) => figure / row.baselines[index]!)
    const ratio = median(row.figures) / median(row.baselines)
    const met = row.target.relation === '>=' ? ratio >= row.target.ratio : ratio <= row.target.ratio
    return { row, ratio, ratios, met }
  })
  const table = [
    ['figure', 'value (min-max)', 'baseline', 'baseline value (min-max)', 'ratio (min-max)', 'target', ''],
    ...lines.map(({ row, ratio, ratios, met }) => [
      row.figure,
      `${format(median(row.figures))} (${format(Math.min(...row.figures))}-${format(Math.max(...row.figures))}) ${row.unit}`,
      row.baseline,
      `${format(median(row.baselines))} (${format(Math.min(...row.baselines))}-${format(Math.max(...row.baselines))}) ${row.unit}`,
      `${ratio.toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
      `${row.target.relation} ${row.target.ratio}`,
      met ? 'met' : 'MISSED',
    ]),
  ]
  process.stdout.write(`\n${toMarkdown(table)}\n`)
  process.stdout.write(
    `\nMedians of ${plan.quickRounds} rounds (free, 402, signatures) or ${plan.rounds} (paid calls, gas, memory samples); ` +
      'the ratio is median/median, its spread the range of the per-round ratios.\n',
  )
  for (const { row } of lines) if (row.note) process.stdout.write(`- ${row.figure}: ${row.note}\n`)
  const results = {
    startedAt: startedAt.toISOString(),
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      memoryBytes: totalmem(),
      bun: Bun.version,
      platform: process.platform,
    },
    plan,
    rows: lines.map(({ row, ratio, ratios, met }) => ({
      ...row,
      median: median(row.figures),
      baselineMedian: median(row.baselines),
      ratio,
      ratios,
      met,
    })),
    raw,
  }
  mkdirSync(join(root, 'bench/results'), { recursive: true })
  writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(`Raw figures: bench/results/latest.json (${results.seconds.toFixed(0)} s)\n`)
}

/** Runs `round` `count` times in a row. */
async function rounds<T>(count: number, round: () => Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let index = 0; index < count; index++) results.push(await round())
  return results
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Up to `count` items of `items`, spread evenly. */
function sample<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items
  return Array.from({ length: count }, (_, index) => items[Math.floor((index * items.length) / count)]!)
}

function format(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US')
  return value.toFixed(1)
}

function toMarkdown(table: string[][]): string {
  const [head, ...body] = table
  return [
    `| ${head!.join(' | ')} |`,
    `|${head!.map(() => '---').join('|')}|`,
    ...body.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n')
}

function log(message: string) {
  process.stdout.write(`[${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(3)} s] ${message}\n`)
}
