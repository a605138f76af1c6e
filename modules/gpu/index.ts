import { type Static, Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import * as Service from './service.js'

/** Margin between a run's timeout and the end of its payment's validity window: time to settle, in seconds. */
const settleMarginSeconds = 600

/** The GPU family's environment: the pinned models and how long a run may take (Replicate's token is compute's). */
const gpuEnv = Type.Object({
  GPU_MODELS: Type.Optional(
    Type.String({
      defaultText: 'none: no model is offered and `run` answers 503',
      description:
        'JSON object of model ids, each `"owner/name:<64 hex version>"` on Replicate (the version pinned in full); runs on `REPLICATE_API_TOKEN`',
    }),
  ),
  GPU_JOB_TIMEOUT_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 86_400 - settleMarginSeconds,
    default: 1800,
    description:
      'how long a GPU run may take before it is canceled and its payment released; its offer stays valid 600 s longer',
  }),
})

/** The family's dependencies; throws at boot on a bad `GPU_MODELS`. */
function depsOf(
  ports: Pick<Module.Ports, 'store' | 'queue' | 'deferred' | 'outbound'> &
    Partial<Pick<Module.Ports, 'events' | 'replicate'>>,
  env: Static<typeof gpuEnv>,
): Service.Deps {
  return {
    models: Compute.gpuModelsFromJson(env.GPU_MODELS),
    store: ports.store,
    deferred: ports.deferred,
    events: ports.events,
    predictions: ports.replicate,
    timeoutSeconds: env.GPU_JOB_TIMEOUT_SECONDS,
    outbound: ports.outbound,
  }
}

/** GPU runs (`/api/v1/gpu/*`) of pinned Replicate models, paid when the run succeeds. */
export const manifest = Module.define({
  name: 'gpu',
  paths: ['/api/v1/gpu/'],
  needs: ['store', 'queue', 'deferred', 'outbound'],
  uses: ['events', 'replicate'],
  env: gpuEnv,
  callbacks: ['POST /callbacks/gpu/:jobId'],
  // The payer of a run re-reads its status by signing in.
  reaccess: { 'GET /api/v1/gpu/status/:id': Module.ownedIn(Compute.jobs, Module.idOf) },
  routes: ({ ports, env }) => Routes.routes(depsOf(ports, env)),
  ready: ({ ports, env }, key) => Service.readiness(depsOf(ports, env), key),
  windows: (env) => ({ 'POST /api/v1/gpu/run': env.GPU_JOB_TIMEOUT_SECONDS + settleMarginSeconds }),
  workers: [
    {
      queue: Service.queueName,
      run: (item, { ports, env }) => Compute.work(depsOf(ports, env), (item.payload as { id: string }).id),
    },
  ],
})
