import { type Static, Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import { outputs } from './schema.js'
import * as Service from './service.js'

/** Margin between a generation's timeout and the end of its payment's validity window: time to settle, in seconds. */
const settleMarginSeconds = 600

/**
 * The family's environment: its prices over OpenAI's published ones, the margin, and how long a Replicate generation
 * may run (its upstreams are their providers').
 */
const imagesEnv = Type.Object({
  IMAGES_PRICES: Type.Optional(
    Type.String({
      defaultText: 'none: OpenAI’s published prices (docs/families/images.md)',
      description:
        'per-image prices over the table, `model:quality:size=price,...` in atomic USDC per image before the margin (e.g. `gpt-image-1:high:1536x1024=250000`); an entry for a model, quality or size the images API models do not take is refused at boot',
    }),
  ),
  IMAGES_MARGIN_PERCENT: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 50,
    description:
      'the operator’s margin over the per-image prices and GPT Image’s input tokens, in percent; no call costs less than the original gateway’s flat price (generate 0.06, edit 0.05)',
  }),
  IMAGES_JOB_TIMEOUT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 86_400 - settleMarginSeconds,
    default: 1800,
    description:
      'how long a FLUX or SDXL generation may run on Replicate before it is canceled and its payment released; its offer stays valid 600 s longer',
  }),
})

/** The family's dependencies. */
function depsOf(
  ports: Pick<Module.Ports, 'store' | 'deferred' | 'outbound'> &
    Partial<Pick<Module.Ports, 'events' | 'images' | 'replicate'>>,
  env: Static<typeof imagesEnv>,
): Service.Deps {
  return {
    images: ports.images,
    predictions: ports.replicate,
    store: ports.store,
    deferred: ports.deferred,
    events: ports.events,
    outbound: ports.outbound,
    timeoutSeconds: env.IMAGES_JOB_TIMEOUT_SECONDS,
    prices: pricesOf(env),
  }
}

/** The family's price table from its environment; throws at boot on a malformed IMAGES_PRICES. */
function pricesOf(env: Static<typeof imagesEnv>): Service.Prices {
  return Service.pricesOf({ text: env.IMAGES_PRICES, marginPercent: env.IMAGES_MARGIN_PERCENT })
}

/**
 * Image generation and editing (`/api/v1/image/*`) priced by what a call asks for, never below the original gateway's
 * flat prices: DALL-E and GPT Image on an OpenAI-compatible images API, answered at once; FLUX Schnell and SDXL on
 * Replicate, as jobs paid when they succeed.
 */
export const manifest = Module.define({
  name: 'images',
  paths: ['/api/v1/image/'],
  needs: ['store', 'queue', 'deferred', 'outbound'],
  uses: ['events', 'images', 'replicate'],
  env: imagesEnv,
  outputs,
  callbacks: ['POST /callbacks/images/:jobId'],
  // The payer of a generation re-reads its status by signing in.
  reaccess: { 'GET /api/v1/image/status/:id': Module.ownedIn(Compute.jobs, Module.idOf) },
  routes: ({ ports, env }) => Routes.routes(depsOf(ports, env)),
  prices: (env) => {
    const prices = pricesOf(env)
    return { [Service.keys.generate]: Service.rule(prices, false), [Service.keys.edit]: Service.rule(prices, true) }
  },
  ready: ({ ports }, key) => Service.readiness({ images: ports.images, predictions: ports.replicate }, key),
  windows: (env) => ({ [Service.keys.generate]: env.IMAGES_JOB_TIMEOUT_SECONDS + settleMarginSeconds }),
  workers: [
    {
      queue: Service.queueName,
      run: (item, { ports, env }) => Compute.work(depsOf(ports, env), (item.payload as { id: string }).id),
    },
  ],
})
