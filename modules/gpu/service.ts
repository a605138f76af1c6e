import * as Compute from '../../core/Compute.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type * as Module from '../../core/Module.js'
import * as Outbound from '../../core/Outbound.js'
import type { Store } from '../../core/Store.js'
import * as Webhooks from '../../core/Webhooks.js'
import type { RunBody } from './schema.js'

/** What the GPU family runs on. */
export type Deps = {
  /** The allowed models, pinned. */
  models: ReadonlyMap<string, Compute.GpuModel>
  /** Job records. */
  store: Store
  /** Settles or releases the payments of runs. */
  deferred: Module.Deferred
  /** The events outbox. */
  events?: Events | undefined
  /** Replicate, when configured. */
  predictions?: Compute.Predictions | undefined
  /** How long a run may take before it is canceled and its payment released, in seconds. */
  timeoutSeconds: number
  /** The guard in front of the caller's `webhook` URL. */
  outbound: Outbound.Guard
}

/** The queue GPU runs are followed on. */
export const queueName = 'gpu-jobs'

/**
 * Why `run` cannot take calls now: Replicate is not configured, or no model is. `models` always can, and `status`
 * reads the store (a run started while Replicate was configured stays readable).
 */
export function readiness(deps: Deps, key: string): string | undefined {
  if (key !== 'POST /api/v1/gpu/run') return undefined
  if (!deps.predictions) return 'Replicate is not configured (REPLICATE_API_TOKEN).'
  if (deps.models.size === 0) return 'no GPU model is configured (GPU_MODELS).'
  const availability = deps.predictions.available()
  return availability.ok ? undefined : availability.reason
}

/**
 * Before validation and payment: Replicate and a model must be configured (503), the model allowed and a `version`
 * its pinned one (400), a `webhook` URL one the outbound guard lets through (400).
 */
export async function preflight(deps: Deps, body: unknown): Promise<void> {
  const { model, version, webhook } = (body ?? {}) as { model?: unknown; version?: unknown; webhook?: unknown }
  const unready = readiness(deps, 'POST /api/v1/gpu/run')
  if (unready) throw new UpstreamUnavailableError(`${unready} Nothing is charged for it.`)
  if (typeof model === 'string') {
    const found = modelOf(deps, model)
    if (typeof version === 'string') versionOf(found, version)
  }
  if (typeof webhook === 'string') {
    const allowed = await deps.outbound.check(webhook)
    if (!allowed.ok) throw Outbound.toError(allowed, { field: 'webhook' })
  }
}

function modelOf(deps: Deps, id: string): Compute.GpuModel {
  const model = Compute.gpuModelFor(deps.models, id)
  if (!model)
    throw new ValidationError({
      field: 'model',
      message: `"${id}" is not allowed here; one of ${[...deps.models.keys()].join(', ') || 'none (GPU_MODELS is empty)'}.`,
    })
  return model
}

/** A `version` must be the pinned one: this gateway runs only the code the operator approved. */
function versionOf(model: Compute.GpuModel, version: string): void {
  const pinned = model.upstreamModel.split(':')[1]
  if (version !== pinned)
    throw new ValidationError({
      field: 'version',
      message: `${model.id} runs only its pinned version ${pinned}.`,
    })
}

/**
 * The run as its owner reads it, in the spec's shape (`output` an array), with its payment, and the original gateway's
 * fields: `poll_url` and `urls.get` (this gateway's status URL: Replicate's own need the operator's token), and
 * `model` as the Replicate `owner/name` it ran.
 */
function toView(record: Compute.JobRecord, models: ReadonlyMap<string, Compute.GpuModel>) {
  const view = Compute.toView(record)
  const output = view.output
  const statusUrl = `/api/v1/gpu/status/${record.id}`
  return {
    ...view,
    output: output === null || output === undefined ? [] : Array.isArray(output) ? output : [output],
    modelId: record.model,
    model: models.get(record.model)?.upstreamModel.split(':')[0] ?? record.model,
    statusUrl,
    poll_url: statusUrl,
    urls: { get: statusUrl },
  }
}

/** Starts a run on Replicate; its payment stays held until the run ends (202). */
export async function run(deps: Deps, input: RunBody & { paid: Module.Paid }) {
  const model = modelOf(deps, input.model)
  if (input.version !== undefined) versionOf(model, input.version)
  const predictions = deps.predictions!
  const record = await Compute.start({
    ...deps,
    predictions,
    paid: input.paid,
    queue: queueName,
    callbacks: '/callbacks/gpu/',
    unheld:
      'A GPU run is paid with an x402 or MPP authorization, settled when the run succeeds; a channel voucher cannot wait.',
    family: 'gpu',
    kind: 'gpu',
    model: model.id,
    webhook: input.webhook !== undefined,
    create: (webhook) => predictions.create({ model: model.upstreamModel, input: input.input, webhook }),
  })
  const endpoint: Webhooks.Endpoint | undefined =
    input.webhook === undefined ? undefined : { url: input.webhook, secret: Webhooks.newSecret(), status: 'active' }
  if (endpoint)
    await deps.store.insert({
      collection: Compute.webhooks,
      id: record.id,
      owners: [record.payment.payer],
      value: endpoint,
      createdAt: new Date(record.createdAt!),
    })
  return {
    ...toView(record, deps.models),
    message: 'The run is processing: poll poll_url, or hear its end at your webhook.',
    ...(endpoint ? { webhook: { url: endpoint.url, secret: endpoint.secret } } : {}),
  }
}

/** The caller's own run, brought up to date; someone else's, or none, is 404. */
export async function status(deps: Deps, input: { id: string; caller: `0x${string}` }) {
  const missing = `No GPU run ${input.id} of yours.`
  return toView(await Compute.ownJob({ ...deps, ...input, family: 'gpu', missing }), deps.models)
}

/**
 * The allowed models and the Replicate versions they are pinned to, and, in the original gateway's shape, the
 * shortcuts that reach one of them by category (`categories`, `total`): only models this gateway really runs.
 */
export function models(deps: Pick<Deps, 'models'>) {
  const listed = [...deps.models.values()].map((model) => {
    const [name, version] = model.upstreamModel.split(':') as [string, string]
    return { id: model.id, model: name, version }
  })
  const categories: Record<string, { shortcut: string; model: string; description: string }[]> = {}
  for (const [shortcut, { model, description, category }] of Object.entries(Compute.gpuShortcuts)) {
    if (!Compute.gpuModelFor(deps.models, shortcut)) continue
    categories[category] = [...(categories[category] ?? []), { shortcut, model, description }]
  }
  return {
    models: listed,
    count: listed.length,
    total: Object.values(categories).reduce((sum, shortcuts) => sum + shortcuts.length, 0),
    categories,
  }
}

/** A Replicate webhook for a run (see `Compute.receive`). */
export function callback(deps: Deps, input: { jobId: string; body: string; headers: Headers }) {
  const { store, deferred, predictions, events } = deps
  return Compute.receive({ store, deferred, predictions, events, family: 'gpu', ...input })
}
