import type { AnyElysia } from 'elysia'
import type { Address } from 'viem'
import type { EscrowChain } from '../core/EscrowChain.js'
import type { Oracle } from '../core/Oracle.js'
import type * as Price from '../core/Price.js'
import type * as Rpc from '../core/Rpc.js'
import type { Store } from '../core/Store.js'
import type { Transfers } from '../core/Transfers.js'
import type * as Upstream from '../core/Upstream.js'
import { ai, decentralized } from '../modules/ai/index.js'
import { audit } from '../modules/audit/index.js'
import { auth } from '../modules/auth/index.js'
import { escrow } from '../modules/escrow/index.js'
import { free } from '../modules/free/index.js'
import { invoice } from '../modules/invoice/index.js'
import { logs } from '../modules/logs/index.js'
import { rpc } from '../modules/rpc/index.js'
import { batch } from '../modules/batch/index.js'
import { payroll } from '../modules/payroll/index.js'
import type { Chains as BatchChains } from '../modules/batch/service.js'
import { stellar } from '../modules/stellar/index.js'
import { xrp } from '../modules/xrp/index.js'
import type { StellarNetwork } from '../core/StellarNetwork.js'
import type { XrpNetwork } from '../core/XrpNetwork.js'

/** A token the stateful modules accept (invoices, escrows). */
export type Token = { symbol: string; address: Address; decimals: number }

/** What the settlement chain offers the stateful modules. */
export type Onchain = {
  /** EIP-155 chain id. */
  chainId: number
  /** Finds ERC-20 transfers (invoice payment detection). */
  transfers: Transfers
  /** Our escrow contract; absent where none is deployed. */
  escrow: EscrowChain | undefined
  /** Tokens invoices and escrows may be in. */
  tokens: readonly Token[]
}

/** Everything a module may need, chosen by the composition root. */
export type Deps = {
  /** USD price source; absent until an oracle is configured. */
  oracle: Oracle | undefined
  /** Chains that RPC forwarding reads from. */
  chains: readonly Rpc.Endpoint[]
  /** Durable records; absent, the stateful modules are unavailable. */
  store: Store | undefined
  /** The settlement chain's contracts and logs; absent, invoices and escrows are unavailable. */
  onchain: Onchain | undefined
  /** Key that signs session tokens. */
  sessionSecret: string
  /** The batch-payment contract on each accepted chain; absent, batch and payroll are unavailable. */
  batch: BatchChains | undefined
  /** The Stellar network (Horizon); absent, the Stellar endpoints are unavailable. */
  stellar: StellarNetwork | undefined
  /** The XRP Ledger (rippled); absent, the XRP endpoints are unavailable. */
  xrp: XrpNetwork | undefined
  /** OpenAI-compatible upstreams with the operator's limits; an absent one makes its endpoints unavailable. */
  inference: { chat: ai.Deps | undefined; decentralized: decentralized.Deps | undefined }
}

/**
 * A module to mount, or the reason it cannot run here. `prefix` names the catalog paths it serves, so the routes
 * of a module that is not mounted still answer 503 with the reason, before any payment.
 */
export type Mount = {
  /** Start of every catalog path the module serves. */
  prefix: string | readonly string[]
} & (
  | {
      /** The module's routes. */
      plugin: () => AnyElysia
      /** Checked before payment on every call: why the module cannot take calls now (an open breaker), if so. */
      ready?: () => string | undefined
      /** Price rules of the served entries priced per request (a range or `varies`), by catalog key. */
      prices?: Price.Rules | undefined
    }
  | { /** Why the module cannot run here. */ missing: string }
)

/** Every module of the gateway with what it needs. */
export function modules(deps: Deps): Mount[] {
  const { store, onchain } = deps
  const needs = <value>(
    value: value | undefined,
    what: string,
    plugin: (value: value) => AnyElysia,
    available?: (value: value) => Upstream.Availability,
  ) =>
    value === undefined
      ? { missing: `needs ${what} and none is configured` }
      : {
          plugin: () => plugin(value),
          ...(available && {
            ready: () => {
              const availability = available(value)
              return availability.ok ? undefined : availability.reason
            },
          }),
        }
  const upstream = <value extends { upstream: { available: () => Upstream.Availability } }>(
    value: value | undefined,
    what: string,
    plugin: (value: value) => AnyElysia,
  ) => needs(value, what, plugin, (value) => value.upstream.available())
  return [
    { prefix: '/free/', plugin: () => free({ oracle: deps.oracle }) },
    {
      prefix: ['/api/v1/chat/', '/api/v1/models'],
      ...upstream(deps.inference.chat, 'an OpenAI-compatible upstream (CHAT_UPSTREAM_URL)', ai),
    },
    {
      prefix: '/decentralized/v1/',
      ...upstream(deps.inference.decentralized, 'an OpenAI-compatible upstream (DECENTRALIZED_UPSTREAM_URL)', decentralized),
    },
    { prefix: '/api/v1/rpc/', ...needs(deps.chains.length > 0 ? deps.chains : undefined, 'a chain', (chains) => rpc({ chains })) },
    { prefix: '/api/v1/auth/', ...needs(store, 'a store', (store) => auth({ store, secret: deps.sessionSecret })) },
    { prefix: '/api/v1/audit/', ...needs(store, 'a store', (store) => audit({ store })) },
    { prefix: '/api/v1/logs/', ...needs(store, 'a store', (store) => logs({ store })) },
    {
      prefix: '/api/v1/invoice/',
      ...needs(store && onchain, 'a store and a chain', () =>
        invoice({ store: store!, transfers: onchain!.transfers, chainId: onchain!.chainId, tokens: onchain!.tokens }),
      ),
    },
    {
      prefix: '/api/v1/escrow/',
      ...needs(store && onchain?.escrow, 'a store and an escrow contract', (chain) =>
        escrow({ store: store!, chain, tokens: onchain!.tokens }),
      ),
    },
    { prefix: '/api/v1/batch/', ...needs(deps.batch, 'a batch contract', (chains) => batch({ chains })) },
    { prefix: '/api/v1/payroll/', ...needs(deps.batch, 'a batch contract', (chains) => payroll({ chains })) },
    {
      prefix: '/api/v1/stellar/',
      ...needs(deps.stellar, 'a Horizon server (HORIZON_URL)', (network) => stellar({ network }), (network) => network.available()),
    },
    {
      prefix: '/api/v1/xrp/',
      ...needs(deps.xrp, 'a rippled server (RIPPLED_URL)', (network) => xrp({ network }), (network) => network.available()),
    },
  ]
}
