import { type Static, Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import { chatMeter, embeddingsMeter, type Meters, parsePrices } from '../../core/Meter.js'
import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import * as Service from './service.js'

export { queueName } from './service.js'

/** Margin between a job's timeout and the end of its payment's validity window: time to settle, in seconds. */
const settleMarginSeconds = 600

/**
 * The compute family's environment: the model catalog, its prices by usage and how long a job may run (its upstreams
 * are their providers': COMPUTE_UPSTREAM_URL, REPLICATE_API_TOKEN).
 */
const computeEnv = Type.Object({
  COMPUTE_MODELS: Compute.modelsVariable,
  COMPUTE_UPTO_PRICES: Type.Optional(
    Type.String({
      defaultText: 'none: text inference and embeddings are offered at their fixed model prices only',
      description:
        'token prices of `text` and `embeddings` models, `model=inPerMTok:outPerMTok,...` in atomic USDC per million tokens: those calls are also offered as x402 `upto`, charged by the upstream’s `usage`',
    }),
  ),
  COMPUTE_JOB_TIMEOUT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 86_400 - settleMarginSeconds,
    default: 1800,
    description:
      'how long a compute job may run before it is canceled and its payment released; its offers stay valid 600 s longer',
  }),
})

/** The asynchronous endpoints: their offers stay valid past the job's timeout, so the payment can settle at its end. */
const asynchronous = ['POST /api/v1/compute/image-generation', 'POST /api/v1/compute/video-generation'] as const

/** The family's dependencies from its ports and environment; throws at boot on a bad `COMPUTE_MODELS`. */
function depsOf(
  ports: Pick<Module.Ports, 'store' | 'queue' | 'deferred' | 'outbound'> &
    Partial<Pick<Module.Ports, 'events' | 'computeUpstream' | 'replicate'>>,
  env: Static<typeof computeEnv>,
): Service.Deps {
  return {
    models: Compute.fromJson(env.COMPUTE_MODELS),
    store: ports.store,
    queue: ports.queue,
    deferred: ports.deferred,
    events: ports.events,
    direct: ports.computeUpstream,
    predictions: ports.replicate,
    timeoutSeconds: env.COMPUTE_JOB_TIMEOUT_SECONDS,
    outbound: ports.outbound,
  }
}

/**
 * Meters of text inference and embeddings priced by tokens (x402 `upto`), for the models COMPUTE_UPTO_PRICES prices;
 * throws at boot on a price of a model that is not in the catalog or not of that kind.
 */
function metersOf(env: Static<typeof computeEnv>): Meters {
  const models = Compute.fromJson(env.COMPUTE_MODELS)
  const ofKind = (kind: Compute.Kind) =>
    new Map(
      [...parsePrices(env.COMPUTE_UPTO_PRICES, [...models.keys()], 'COMPUTE_UPTO_PRICES')].filter(
        ([id]) => models.get(id)?.kind === kind,
      ),
    )
  const text = ofKind('text')
  const embeddings = ofKind('embeddings')
  return {
    ...(text.size > 0
      ? {
          'POST /api/v1/compute/text-inference': chatMeter({
            prices: text,
            maxTokens: (id) => models.get(id)?.limits.maxTokens ?? 0,
          }),
        }
      : {}),
    ...(embeddings.size > 0 ? { 'POST /api/v1/compute/embeddings': embeddingsMeter({ prices: embeddings }) } : {}),
  }
}

/** Compute jobs (`/api/v1/compute/*`) on the operator's model catalog, its OpenAI-compatible upstream and Replicate. */
export const manifest = Module.define({
  name: 'compute',
  paths: ['/api/v1/compute/'],
  needs: ['store', 'queue', 'deferred', 'outbound'],
  uses: ['events', 'computeUpstream', 'replicate'],
  env: computeEnv,
  callbacks: ['POST /callbacks/compute/:jobId'],
  // The payer of a job re-reads its status by signing in.
  reaccess: {
    'GET /api/v1/compute/status/:jobId': Module.ownedIn(Compute.jobs, ({ params }) =>
      typeof params.jobId === 'string' ? params.jobId : undefined,
    ),
  },
  routes: ({ ports, env }) => Routes.routes(depsOf(ports, env)),
  ready: ({ ports, env }, key) => Service.readiness(depsOf(ports, env), key),
  meters: metersOf,
  prices: (env) => {
    const models = { models: Compute.fromJson(env.COMPUTE_MODELS) }
    return {
      ...Object.fromEntries(
        (['text', 'tts', 'image', 'video'] as const).map((kind) => [
          Compute.endpoints[kind],
          Service.rule(models, kind),
        ]),
      ),
      'POST /api/v1/compute/batch': Service.batchRule(models),
    }
  },
  windows: (env) =>
    Object.fromEntries(asynchronous.map((key) => [key, env.COMPUTE_JOB_TIMEOUT_SECONDS + settleMarginSeconds])),
  workers: [
    {
      queue: Service.queueName,
      run: (item, { ports, env }) => Compute.work(depsOf(ports, env), (item.payload as { id: string }).id),
    },
  ],
})
