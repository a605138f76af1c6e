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
 * The compute-futures family's environment: the operator's deposit address, refund key and confirmations, on the
 * settlement chain and on Solana.
 */
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
  FUTURES_SOLANA_RPC_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^https?://',
      defaultText: 'none: Solana deposits answer 503',
      description:
        'JSON-RPC node of the Solana network compute-futures deposits are read on and refunded on; may carry a key. Without it (or without a Solana deposit address) `chain: "solana"` deposits answer 503',
    }),
  ),
  FUTURES_SOLANA_DEPOSIT_ADDRESS: Type.Optional(
    Type.String({
      pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
      defaultText: "the Solana operator key's address",
      description:
        'Owner (base58) of the token account Solana deposits go to: its associated token account for FUTURES_SOLANA_MINT',
    }),
  ),
  FUTURES_SOLANA_OPERATOR_SECRET_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^(\\[[0-9,\\s]+\\]|[1-9A-HJ-NP-Za-km-z]{80,90})$',
      defaultText: 'none',
      description:
        'Keypair (64 bytes: a `solana-keygen` JSON array, or base58) of the Solana wallet that refunds Solana deposits from its associated token account; needs SOL for fees and the deposited USDC. Without it refunds of Solana-funded accounts answer 503',
    }),
  ),
  FUTURES_SOLANA_MINT: Type.String({
    pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
    default: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    description: 'Mint (SPL Token) of Solana deposits and refunds (mainnet USDC by default)',
  }),
  FUTURES_SOLANA_COMMITMENT: Type.Union([Type.Literal('confirmed'), Type.Literal('finalized')], {
    default: 'finalized',
    description: 'How final a Solana deposit must be before it is credited; earlier, it is a 409 to retry',
  }),
})

/** The service's dependencies from the module's ports and environment. */
function depsOf(resources: Module.Resources<'books' | 'futures', typeof env, 'compute' | 'futuresSolana'>): Deps {
  const { ports, env } = resources
  return {
    books: ports.books,
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
  needs: ['books', 'futures'],
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
