import { Value } from '@sinclair/typebox/value'
import { type Address, getAddress, type Hex, keccak256 } from 'viem'
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  UpstreamFailedError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import * as GpuDirect from '../../core/GpuDirect.js'
import type * as Outbound from '../../core/Outbound.js'
import * as SignedRequest from '../../core/SignedRequest.js'
import { type Store, walk } from '../../core/Store.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { type QuoteQuery, type RegisterBody, RunBody } from './schema.js'

/** What the GPU direct family runs on. */
export type Deps = {
  /** Operators, nonces and runs; inside a paid run its writes are taken back when the run is never paid. */
  store: Store
  /** The store itself, never a paid run's journal: an operator found unreachable during a run stays marked offline. */
  books: Store
  /** The guard in front of every operator's proxy (their URLs are caller-supplied). */
  outbound: Outbound.Guard
  /** EIP-155 id of the settlement chain: registrations are signed for it and runs are paid on it. */
  chainId: number
  /** A run's price (the catalog's), atomic USDC units. */
  price: bigint
  /** The operator's share of a run's price, basis points. */
  shareBps: bigint
  /** Longest a run may take at the proxy, in ms. */
  runTimeoutMs: number
  /** The clock. @default the system's */
  now?: (() => Date) | undefined
}

/** Store collection of operators, by checksummed wallet. */
export const operatorsCollection = 'gpu_direct_operators'

/** Store collection of used registration nonces, `wallet:nonce`. */
export const noncesCollection = 'gpu_direct_nonces'

/** Store collection of paid runs, each the ledger line of its operator's share (owned by the operator and the payer). */
export const runsCollection = 'gpu_direct_runs'

/** Hash chain of every registered wallet, in order of first registration: how the registry is listed. */
const registry = 'gpu_direct_registry'

/** Longest a registration's signature may be good for, in seconds. */
const maxSignatureSeconds = 3_600

/** Time limit of a health check, in ms (the original's). */
const healthTimeoutMs = 5_000

/** Largest `/health` answer read, in bytes. */
const healthMaxBytes = 64 * 1024

/** Largest answer of a run read from the proxy, in bytes. */
const runMaxBytes = 4 * 1024 * 1024

/** The Replicate-backed runs, which the original points callers to when no operator serves a model. */
const fallback = '/api/v1/gpu/run'

/**
 * Registers (or registers again) the operator whose wallet signed the request: the proxy must pass its health check,
 * whose answer fills the fields left out. Without a signature, answers the typed data to sign and does nothing.
 */
export async function register(deps: Deps, body: RegisterBody) {
  const proxyUrl = await proxyOf(deps, body.proxy_url)
  const registration: GpuDirect.Registration = {
    wallet_address: getAddress(body.wallet_address),
    proxy_url: body.proxy_url,
    gpu_model: body.gpu_model ?? '',
    vram_gb: body.vram_gb ?? 0,
    supported_models: body.supported_models ?? [],
    inference_engine: body.inference_engine ?? '',
  }
  if (body.signature === undefined) return signatureRequired(deps, body, registration)
  const wallet = await authorize(deps, registration, body)
  const health = await probe(deps, proxyUrl)
  if (!health.ok)
    throw new BadRequestError(`proxy_url: ${health.message}`, {
      details: {
        field: 'proxy_url',
        reason: health.reason,
        hint: 'Make sure your Spraay Direct proxy is running and reachable from the internet (ngrok or Cloudflare Tunnel), then sign a new registration.',
      },
    })
  const fields = filled(registration, health.answer, proxyUrl)
  const operator = await upsert(deps, wallet, fields)
  return {
    status: 'registered',
    operator_id: operator.id,
    auth_token: operator.authToken,
    message: `Your GPU now receives runs of its models while ${proxyUrl}/health answers; your share of each paid run is recorded for payout to ${wallet}.`,
    wallet,
    gpu: operator.gpuModel,
    vram_gb: operator.vramGb,
    engine: operator.engine,
    models: operator.models,
    share_bps: Number(deps.shareBps),
  }
}

/** The online operators, most runs first, in the original gateway's shape. */
export async function operators(deps: Deps) {
  const online = (await everyOperator(deps))
    .filter((operator) => operator.status === 'online')
    .sort((a, b) => b.totalJobs - a.totalJobs)
  return {
    total_online: online.length,
    operators: online.map((operator) => ({ ...viewOf(operator), models: operator.models })),
    pricing: {
      per_job: `$${Units.toDecimal(deps.price, 6)} USDC`,
      settlement: "paid to this gateway with x402 or MPP; the operator's share is recorded for payout",
      operator_share_bps: Number(deps.shareBps),
    },
  }
}

/** Which operator a run of `model` would go to now, and what it costs and earns it; no operator is `available: false`. */
export async function quote(deps: Deps, query: QuoteQuery) {
  const operator = GpuDirect.route({ operators: await everyOperator(deps), model: query.model })
  if (!operator)
    return {
      available: false,
      model: query.model,
      message: `No operator online serves ${query.model}. Use ${fallback} for pinned Replicate models.`,
      fallback,
    }
  return {
    available: true,
    model: query.model,
    operator: viewOf(operator),
    payment: {
      price: `$${Units.toDecimal(deps.price, 6)}`,
      currency: 'USDC',
      network: networkOf(deps),
      ...amountsOf(deps.price),
      operator: shareOf(deps, operator),
      note: `Pay the 402 offer of POST /api/v1/gpu-direct/run (paid to this gateway); the operator's share is recorded for payout to its wallet.`,
    },
  }
}

/**
 * Before payment: a run of a model no online operator serves is a 503, and nothing is asked for. A body the schema
 * refuses is left to its 400.
 */
export async function preflightRun(deps: Deps, body: unknown): Promise<void> {
  if (!Value.Check(RunBody, body)) return
  const every = await everyOperator(deps)
  if (!GpuDirect.route({ operators: every, model: body.model })) throw noOperator(body.model, every)
}

/**
 * Runs `input` on the operator that serves `model` (fastest first) through the outbound guard, and records the
 * operator's share of the price for payout with the run. A failed run throws (502, 503 or 504): nothing is charged.
 */
export async function run(deps: Deps, input: RunBody & { caller: Address }) {
  const every = await everyOperator(deps)
  const operator = GpuDirect.route({ operators: every, model: input.model })
  if (!operator) throw noOperator(input.model, every)
  const id = `gdr_${randomHex(16)}`
  const { operator: shareRaw } = GpuDirect.share({ amount: deps.price, shareBps: deps.shareBps })
  const started = performance.now()
  const sent = await deps.outbound.fetch(`${operator.proxyUrl}/inference`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-spraay-auth': operator.authToken,
      'x-spraay-amount': Units.toDecimal(shareRaw, 6),
      'x-spraay-payer': input.caller,
      'x-spraay-run-id': id,
    },
    body: JSON.stringify({ model: input.model, input: input.input }),
    timeoutMs: deps.runTimeoutMs,
    maxBytes: runMaxBytes,
  })
  const inferenceMs = Math.round(performance.now() - started)
  if (!sent.ok) {
    // Unreachable or too slow: no more runs until a health check passes again (kept even though this run is unpaid).
    if (sent.reason !== 'too_large') await setHealth(deps.books, operator.wallet, clock(deps), sent.message)
    throw Upstream.toError({
      ok: false,
      reason: sent.reason === 'timeout' || sent.reason === 'too_large' ? sent.reason : 'failed',
      status: undefined,
      message: `the operator's proxy: ${sent.message}`,
    })
  }
  if (sent.status < 200 || sent.status > 299)
    throw Upstream.toError({
      ok: false,
      reason: Upstream.reasonOf(sent.status),
      status: sent.status,
      message: "the operator's proxy refused the run",
    })
  const answer = jsonOf(sent.body)
  if (answer === undefined) throw new UpstreamFailedError("The operator's proxy answered something that is not JSON.")
  const now = clock(deps)
  const record: GpuDirect.Run = {
    id,
    operatorId: operator.id,
    wallet: operator.wallet,
    model: input.model,
    payer: input.caller,
    amountRaw: deps.price.toString(),
    shareRaw: shareRaw.toString(),
    shareBps: Number(deps.shareBps),
    inferenceMs,
    payout: 'owed',
    createdAt: now.toISOString(),
  }
  await deps.store.insert({
    collection: runsCollection,
    id,
    owners: [operator.wallet, input.caller],
    value: record,
    createdAt: now,
  })
  await deps.store.update<GpuDirect.Operator>(operatorsCollection, operator.wallet, (current) => ({
    ...current.value,
    ...GpuDirect.served(current.value, inferenceMs),
  }))
  return {
    ...(isObject(answer) ? answer : { output: answer }),
    run_id: id,
    model: input.model,
    operator: { id: operator.id, gpu: operator.gpuModel, engine: operator.engine },
    settlement: {
      currency: 'USDC',
      network: networkOf(deps),
      ...amountsOf(deps.price),
      operator: shareOf(deps, operator),
      payout: 'recorded',
    },
  }
}

/**
 * One round of health checks: every registered operator's `/health`, through the outbound guard; a 2xx answer puts
 * it online, anything else offline (it gets no runs until a check passes again).
 */
export async function checkHealth(deps: Deps): Promise<checkHealth.ReturnType> {
  const result = { checked: 0, online: 0, offline: 0 }
  const every = await everyOperator(deps)
  await Promise.all(
    every.map(async (operator) => {
      const health = await probe(deps, operator.proxyUrl)
      await setHealth(deps.store, operator.wallet, clock(deps), health.ok ? undefined : health.message)
      result.checked += 1
      result[health.ok ? 'online' : 'offline'] += 1
    }),
  )
  return result
}

export declare namespace checkHealth {
  type ReturnType = {
    /** Operators checked. */
    checked: number
    /** Of those, how many passed. */
    online: number
    /** Of those, how many failed. */
    offline: number
  }
}

/** The proxy's base URL, checked by the outbound guard, without a trailing slash; a refused one is a 400. */
async function proxyOf(deps: Deps, url: string): Promise<string> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ValidationError({ field: 'proxy_url', message: 'is not an absolute URL' })
  }
  if (parsed.search !== '' || parsed.hash !== '')
    throw new ValidationError({
      field: 'proxy_url',
      message: 'takes no query or fragment: /health and /inference are appended',
    })
  const base = parsed.href.replace(/\/+$/, '')
  const allowed = await deps.outbound.check(base)
  if (!allowed.ok)
    throw new BadRequestError(`proxy_url: ${allowed.message}`, {
      details: { field: 'proxy_url', reason: allowed.reason },
    })
  return base
}

/**
 * The wallet that signed `registration`, checked: `nonce` and `expiry` sent, the expiry within an hour, the signature
 * recovering to `wallet_address` (403 otherwise), and the nonce never used before by that wallet (409 otherwise).
 */
async function authorize(deps: Deps, registration: GpuDirect.Registration, body: RegisterBody): Promise<Address> {
  const { nonce, expiry, signature } = body
  if (nonce === undefined)
    throw new ValidationError({
      field: 'nonce',
      message: 'required with signature: send back the one the typed data holds',
    })
  if (expiry === undefined)
    throw new ValidationError({
      field: 'expiry',
      message: 'required with signature: send back the one the typed data holds',
    })
  const wallet = registration.wallet_address
  const verified = await SignedRequest.verify({
    typedData: GpuDirect.typedData({ chainId: deps.chainId, registration: { ...registration, nonce, expiry } }),
    signature: signature as Hex,
    signer: wallet,
    expiry,
    nowSeconds: Math.floor(clock(deps).getTime() / 1000),
    maxSeconds: maxSignatureSeconds,
  })
  if (!verified.ok) {
    if (verified.reason === 'wrong_signer')
      throw new ForbiddenError(`The registration is not signed by ${wallet}.`, { details: { field: 'signature' } })
    throw new ValidationError({ field: verified.field, message: verified.message })
  }
  const used = await deps.store.insert({
    collection: noncesCollection,
    id: `${wallet.toLowerCase()}:${BigInt(nonce)}`,
    owners: [wallet],
    value: { expiry },
    createdAt: clock(deps),
  })
  if (!used.ok)
    throw new ConflictError(`Nonce ${nonce} of ${wallet} was already used.`, {
      details: { field: 'nonce', reason: 'replayed' },
    })
  return wallet
}

/**
 * The answer to a registration sent without a signature: nothing is done; the typed data the wallet signs (exactly
 * what {@link authorize} checks) and the body to send again with it, a fresh nonce and an expiry an hour ahead.
 */
function signatureRequired(deps: Deps, body: RegisterBody, registration: GpuDirect.Registration) {
  const { nonce, expiry } = SignedRequest.envelope({
    nowSeconds: Math.floor(clock(deps).getTime() / 1000),
    seconds: maxSignatureSeconds,
  })
  const typed = GpuDirect.typedData({ chainId: deps.chainId, registration: { ...registration, nonce, expiry } })
  return {
    status: 'signature_required',
    typedData: {
      ...typed,
      message: { ...typed.message, nonce, expiry: expiry.toString() },
    },
    request: { ...body, nonce, expiry },
    instructions: [
      `Sign typedData with the key of wallet ${registration.wallet_address} (EIP-712, eth_signTypedData_v4).`,
      'Send request again, unchanged, with the signature added as `signature`.',
      `Before ${new Date(expiry * 1000).toISOString()}; nothing was registered yet.`,
    ],
  }
}

/** What `/health` of a proxy says: 2xx is healthy, its JSON object (if any) read for the registration's blanks. */
async function probe(
  deps: Deps,
  proxyUrl: string,
): Promise<{ ok: true; answer: Record<string, unknown> } | { ok: false; reason: string; message: string }> {
  const fetched = await deps.outbound.fetch(`${proxyUrl}/health`, {
    headers: { accept: 'application/json' },
    timeoutMs: healthTimeoutMs,
    maxBytes: healthMaxBytes,
  })
  if (!fetched.ok) return { ok: false, reason: fetched.reason, message: fetched.message }
  if (fetched.status < 200 || fetched.status > 299)
    return { ok: false, reason: 'unhealthy', message: `${proxyUrl}/health answered HTTP ${fetched.status}` }
  const answer = jsonOf(fetched.body)
  return { ok: true, answer: isObject(answer) ? answer : {} }
}

/** The registration's blanks filled from the proxy's health answer (`gpu`, `vram`, `models`, `engine`). */
function filled(registration: GpuDirect.Registration, health: Record<string, unknown>, proxyUrl: string) {
  const text = (value: unknown, limit: number) =>
    typeof value === 'string' && value.length > 0 && value.length <= limit ? value : undefined
  const models =
    registration.supported_models.length > 0
      ? [...registration.supported_models]
      : Array.isArray(health.models)
        ? health.models.filter((model): model is string => text(model, 200) !== undefined).slice(0, 64)
        : []
  if (models.length === 0)
    throw new ValidationError({
      field: 'supported_models',
      message: `none given, and ${proxyUrl}/health lists none as models; name the models the proxy serves`,
    })
  const vram = health.vram
  return {
    proxyUrl,
    gpuModel: registration.gpu_model || (text(health.gpu, 100) ?? 'unknown'),
    vramGb: registration.vram_gb || (Number.isSafeInteger(vram) && (vram as number) >= 0 ? (vram as number) : 0),
    models,
    engine: registration.inference_engine || (text(health.engine, 40) ?? 'vllm'),
  }
}

/** Writes the wallet's registration: a new operator, or the same one with its new fields and a new token. */
async function upsert(
  deps: Deps,
  wallet: Address,
  fields: Pick<GpuDirect.Operator, 'proxyUrl' | 'gpuModel' | 'vramGb' | 'models' | 'engine'>,
): Promise<GpuDirect.Operator> {
  const now = clock(deps).toISOString()
  const renewed = { ...fields, authToken: `sd_${randomHex(24)}`, status: 'online' as const, lastHealthCheck: now }
  const operator: GpuDirect.Operator = {
    id: `op_${randomHex(12)}`,
    wallet,
    ...renewed,
    totalJobs: 0,
    avgResponseMs: 0,
    createdAt: now,
    updatedAt: now,
  }
  const inserted = await deps.store.insert({
    collection: operatorsCollection,
    id: wallet,
    owners: [wallet],
    value: operator,
    createdAt: clock(deps),
  })
  if (inserted.ok) {
    await deps.store.append<{ wallet: Address }>(registry, (last) => ({
      value: { wallet },
      hash: keccak256(new TextEncoder().encode(`${last?.hash ?? ''}${wallet}`)),
      createdAt: clock(deps),
    }))
    return operator
  }
  const updated = await deps.store.update<GpuDirect.Operator>(operatorsCollection, wallet, (current) => {
    const { healthError: _, ...kept } = current.value
    return { ...kept, ...renewed, updatedAt: now }
  })
  if (!updated.ok) throw new Error(`Operator ${wallet} vanished while registering again.`)
  return updated.record.value
}

/** Every registered operator, in order of first registration. */
async function everyOperator(deps: Pick<Deps, 'store'>): Promise<GpuDirect.Operator[]> {
  const wallets: Address[] = []
  for await (const entry of walk<{ wallet: Address }>(deps.store, registry)) wallets.push(entry.value.wallet)
  const records = await Promise.all(
    wallets.map((wallet) => deps.store.get<GpuDirect.Operator>(operatorsCollection, wallet)),
  )
  return records.flatMap((record) => (record ? [record.value] : []))
}

/** Records a health check's outcome: online without `error`, offline with it. */
async function setHealth(store: Store, wallet: Address, now: Date, error: string | undefined) {
  await store.update<GpuDirect.Operator>(operatorsCollection, wallet, (current) => ({
    ...current.value,
    status: error === undefined ? 'online' : 'offline',
    lastHealthCheck: now.toISOString(),
    healthError: error,
  }))
}

/** The 503 of a model no online operator serves, before payment or in place of the run. */
function noOperator(model: string, every: readonly GpuDirect.Operator[]) {
  const online = every.filter((operator) => operator.status === 'online').length
  return new UpstreamUnavailableError(
    `No operator online serves ${model} now; nothing is charged. GET /api/v1/gpu-direct/operators lists the models served; ${fallback} runs pinned Replicate models.`,
    { details: { model, online_operators: online, fallback } },
  )
}

/** An operator as callers see it: never its token or wallet's health detail. */
function viewOf(operator: GpuDirect.Operator) {
  return {
    id: operator.id,
    gpu: operator.gpuModel,
    vram_gb: operator.vramGb,
    engine: operator.engine,
    avg_response_ms: operator.avgResponseMs,
    total_jobs: operator.totalJobs,
    last_health_check: operator.lastHealthCheck,
  }
}

/** The operator's share of the price, with the rule. */
function shareOf(deps: Deps, operator: GpuDirect.Operator) {
  const { operator: owed } = GpuDirect.share({ amount: deps.price, shareBps: deps.shareBps })
  return { wallet: operator.wallet, ...amountsOf(owed), shareBps: Number(deps.shareBps) }
}

/** A USDC amount as a human decimal and in atomic units. */
function amountsOf(raw: bigint) {
  return { amount: Units.toDecimal(raw, 6), amountRaw: raw.toString() }
}

/** CAIP-2 id of the settlement chain. */
function networkOf(deps: Deps): string {
  return `eip155:${deps.chainId}`
}

/** The JSON of a body, or `undefined` when it is not JSON. */
function jsonOf(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body))
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex')
}

function clock(deps: Pick<Deps, 'now'>): Date {
  return deps.now?.() ?? new Date()
}
