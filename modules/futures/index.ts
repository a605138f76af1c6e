import { Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import * as Module from '../../core/Module.js'
import { pricing, routes } from './routes.js'
import { BalanceOutput, HistoryOutput } from './schema.js'
import { type Deps, depositTerms, reconcile, refundQueue, runnerOf } from './service.js'

/** The compute-futures module, mounted by the gateway. */
export function futures(deps: Deps) {
  return routes(deps)
}

/**
 * The compute-futures family's environment: how final a deposit must be, on the settlement chain and on Solana (the
 * operator's deposit addresses and refund keys are the `futures` and `futuresSolana` providers').
 */
const env = Type.Object({
  FUTURES_CONFIRMATIONS: Type.Integer({
    minimum: 1,
    default: 1,
    description: 'Blocks a deposit transaction needs (its own included) before it is credited',
  }),
  FUTURES_SOLANA_COMMITMENT: Type.Union([Type.Literal('confirmed'), Type.Literal('finalized')], {
    default: 'finalized',
    description: 'How final a Solana deposit must be before it is credited; earlier, it is a 409 to retry',
  }),
})

/** The service's dependencies from the module's ports and environment. */
function depsOf(resources: Module.Resources<'store' | 'futures', typeof env, 'compute' | 'futuresSolana'>): Deps {
  const { ports, env } = resources
  return {
    books: ports.store,
    treasury: ports.futures,
    confirmations: BigInt(env.FUTURES_CONFIRMATIONS),
    solana: ports.futuresSolana,
    solanaCommitment: env.FUTURES_SOLANA_COMMITMENT,
    // Without the upstream a job could only fail after its reservation: `execute` answers 503 before payment.
    runner: ports.compute?.direct ? runnerOf(ports.compute) : undefined,
  }
}

/**
 * Prepaid compute credit (`/api/v1/compute-futures/*` but pricing): deposits, jobs on credit, history, refunds; its
 * worker reconciles each refund whose transfer's outcome its call did not learn.
 */
export const manifest = Module.define({
  name: 'compute-futures',
  paths: [
    '/api/v1/compute-futures/balance',
    '/api/v1/compute-futures/deposit',
    '/api/v1/compute-futures/execute',
    '/api/v1/compute-futures/history',
    '/api/v1/compute-futures/refund',
  ],
  needs: ['store', 'futures'],
  uses: ['compute', 'futuresSolana'],
  env,
  routes: (resources) => futures(depsOf(resources)),
  workers: [
    {
      queue: refundQueue,
      run: async (item, resources) => {
        const next = await reconcile(depsOf(resources), (item.payload as { id: string }).id)
        return 'done' in next ? next : { ...next, error: 'the refund transfer is not settled yet' }
      },
    },
  ],
  outputs: {
    'GET /api/v1/compute-futures/balance': BalanceOutput,
    'GET /api/v1/compute-futures/history': HistoryOutput,
  },
  // Where to send the deposit is needed before the first one, which is the only call that could otherwise say it.
  facts: ({ ports }) => ({
    'POST /api/v1/compute-futures/deposit': {
      deposit: depositTerms({ treasury: ports.futures, solana: ports.futuresSolana }),
    },
  }),
})

/** `GET /api/v1/compute-futures/pricing`: the tiers, every offered model's cost in each, and where deposits go. */
export const pricingManifest = Module.define({
  name: 'compute-futures-pricing',
  paths: ['/api/v1/compute-futures/pricing'],
  needs: [],
  uses: ['compute', 'futures', 'futuresSolana'],
  routes: ({ ports }) =>
    pricing(
      { runner: ports.compute && runnerOf(ports.compute), treasury: ports.futures, solana: ports.futuresSolana },
      { batchDiscountBps: Compute.batchDiscountBps, maxBatchJobs: Compute.maxBatchJobs },
    ),
})
