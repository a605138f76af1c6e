import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

export { sweep } from './service.js'

const env = Type.Object({
  ROBOTS_DEPOSIT_WINDOW_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 7 * 86_400,
    default: 3_600,
    description: 'seconds a requester has to deposit a task’s escrow before the task is canceled',
  }),
  ROBOTS_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 60,
    description:
      'calls per minute each client may make to the free robot endpoints (register, update, deregister, complete); `0` for no limit',
  }),
})

/** The robots module's dependencies from its resources. */
function depsOf(
  resources: Module.Resources<
    'store' | 'onchain' | 'escrow' | 'escrowArbiter' | 'outbound',
    typeof env,
    'queue' | 'events' | 'publicUrl'
  >,
): Service.Deps {
  const { ports } = resources
  return {
    store: ports.store,
    chain: ports.escrow,
    arbiter: ports.escrowArbiter,
    outbound: ports.outbound,
    tokens: ports.onchain.tokens,
    chainId: ports.onchain.chainId,
    depositWindowSeconds: resources.env.ROBOTS_DEPOSIT_WINDOW_SECONDS,
    queue: ports.queue,
    events: ports.events,
    publicUrl: ports.publicUrl,
  }
}

/**
 * Robot tasks (`/api/v1/robots/*`): operators register robots with signed requests; a requester's task holds the
 * robot's price in our escrow contract, with the gateway as arbiter, until the operator's signed completion releases
 * it or a failure or timeout refunds it. Deposit windows and deadlines are items of the durable queue, handled when
 * due; a job each minute also sweeps every task not at rest (deposits, deliveries, deadlines, settlements).
 */
export const manifest = Module.define({
  name: 'robots',
  paths: ['/api/v1/robots/'],
  needs: ['store', 'onchain', 'escrow', 'escrowArbiter', 'outbound'],
  uses: ['queue', 'events', 'publicUrl'],
  env,
  rateLimit: (env) => {
    const perMinute = env.ROBOTS_RATE_LIMIT_PER_MINUTE
    return perMinute === 0 ? undefined : { capacity: perMinute, refill: perMinute, intervalMs: 60_000 }
  },
  routes: (resources) => routes(depsOf(resources)),
  // A task's requester and operator, and whoever paid to read it, re-read its status by signing in.
  reaccess: { 'GET /api/v1/robots/status': Module.ownedIn(Service.tasksCollection, Module.idOf) },
  jobs: [{ name: 'robot-tasks', run: (resources) => Service.sweep(depsOf(resources)) }],
  // Deposit windows and deadlines on the durable queue: handled when due, on whichever process claims them.
  workers: [
    { queue: Service.momentsQueue, leaseMs: 60_000, run: (item, resources) => Service.work(depsOf(resources), item) },
  ],
})
