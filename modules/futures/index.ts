import { Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import * as Module from '../../core/Module.js'
import { pricing, routes } from './routes.js'
import { BalanceOutput, HistoryOutput } from './schema.js'
import { type Deps, reconcile, refundQueue, runnerOf } from './service.js'

/** The compute-futures module, mounted by the gateway. */
export function futures(deps: Deps) {
  return routes(deps)
}

/** The compute-futures family's environment: the operator's deposit address, refund key and confirmations. */
const env = Type.Object({
  FUTURES_OPERATOR_PRIVATE_KEY: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{64}$',
      defaultText: 'none (on a devnet, the funded mnemonic account #17)',
      description:
        'Key of the compute-futures operator wallet that sends refunds in USDC; needs ETH for gas and the deposited USDC. Without it refunds answer 503',
      secret: true,
    }),
  ),
  FUTURES_DEPOSIT_ADDRESS: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      defaultText: "the operator key's address",
      description:
        'Where depositors send USDC on the settlement chain. Without it and without an operator key (and off a devnet) the compute-futures ledger answers 503',
    }),
  ),
  FUTURES_CONFIRMATIONS: Type.Integer({
    minimum: 1,
    default: 1,
    description: 'Blocks a deposit transaction needs (its own included) before it is credited',
  }),
})

/** The service's dependencies from the module's ports and environment. */
function depsOf(resources: Module.Resources<'books' | 'futures', typeof env, 'compute'>): Deps {
  const { ports } = resources
  return {
    books: ports.books,
    treasury: ports.futures,
    confirmations: BigInt(resources.env.FUTURES_CONFIRMATIONS),
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
  needs: ['books', 'futures'],
  uses: ['compute'],
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
})

/** `GET /api/v1/compute-futures/pricing`: the tiers and every offered model's cost in each. */
export const pricingManifest = Module.define({
  name: 'compute-futures-pricing',
  paths: ['/api/v1/compute-futures/pricing'],
  needs: [],
  uses: ['compute'],
  routes: ({ ports }) =>
    pricing(
      { runner: ports.compute && runnerOf(ports.compute) },
      { batchDiscountBps: Compute.batchDiscountBps, maxBatchJobs: Compute.maxBatchJobs },
    ),
})
