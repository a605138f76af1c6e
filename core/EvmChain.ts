import { Type } from '@sinclair/typebox'
import type { Address } from 'viem'
import { arbitrum, avalanche, base, bsc, mainnet, optimism, polygon } from 'viem/chains'
import { ValidationError } from './Errors.js'
import type * as Rpc from './Rpc.js'

/**
 * The EVM chains the chain-data endpoints read, from viem's chain definitions: the name callers use, the chain's own
 * name, its EIP-155 id, its keyless public RPC URL and, on OP-stack chains, the GasPriceOracle predeploy. `base` is the settlement chain the gateway runs on (the devnet
 * on embedded defaults), so its id and URL here are Base mainnet's and serve only when the operator points it there.
 */
export const registry = (
  [
    ['base', base, 60],
    ['ethereum', mainnet, 120],
    ['arbitrum', arbitrum, 60],
    ['polygon', polygon, 60],
    ['optimism', optimism, 60],
    ['avalanche', avalanche, 60],
    ['bsc', bsc, 60],
  ] as const
).map(([name, chain, liveWithinSeconds]) => ({
  name,
  title: chain.name,
  chainId: chain.id,
  publicUrl: chain.rpcUrls.default.http[0],
  explorer: chain.blockExplorers.default.url,
  liveWithinSeconds,
  gasPriceOracle: 'gasPriceOracle' in chain.contracts ? chain.contracts.gasPriceOracle.address : undefined,
})) satisfies readonly Entry[]

/** One chain of the {@link registry}. */
export type Entry = {
  /** Name callers use, e.g. `ethereum`. */
  name: string
  /** The chain's own name, e.g. `Ethereum`. */
  title: string
  /** EIP-155 chain id. */
  chainId: number
  /** viem's default public RPC URL (`rpcUrls.default.http[0]`). */
  publicUrl: string
  /** viem's default block explorer (`blockExplorers.default.url`), e.g. `https://basescan.org`. */
  explorer: string
  /** A chain whose latest block is older than this is not live, in seconds. */
  liveWithinSeconds: number
  /** OP-stack GasPriceOracle predeploy, which prices a transaction's L1 data; `undefined` off the OP stack. */
  gasPriceOracle: Address | undefined
}

/** A name from the {@link registry}. */
export type Name = (typeof registry)[number]['name']

/** The names of the {@link registry}, in order. */
export const names: readonly Name[] = registry.map((entry) => entry.name)

/** The chain named `name`, or `undefined`. */
export function find(name: string): Entry | undefined {
  return registry.find((entry) => entry.name === name)
}

/**
 * Other spellings of the {@link registry}'s names that the original gateway's clients send: its Alchemy network ids
 * (`base-mainnet`, `eth-mainnet`, ...) and its short names (`eth`, `mainnet`, `arb`, `op`, `matic`, `bnb`, `avax`, ...),
 * as its handlers read them (defi.ts, contract.ts, bridge.ts, kyc.ts, addressSafety.ts). One vocabulary for every
 * route that takes a chain.
 */
export const aliases: Readonly<Record<string, Name>> = {
  'base-mainnet': 'base',
  eth: 'ethereum',
  mainnet: 'ethereum',
  'eth-mainnet': 'ethereum',
  arb: 'arbitrum',
  'arb-mainnet': 'arbitrum',
  op: 'optimism',
  opt: 'optimism',
  'opt-mainnet': 'optimism',
  matic: 'polygon',
  poly: 'polygon',
  'matic-mainnet': 'polygon',
  'polygon-mainnet': 'polygon',
  bnb: 'bsc',
  binance: 'bsc',
  'bnb-mainnet': 'bsc',
  avax: 'avalanche',
  'avax-mainnet': 'avalanche',
}

/** The registry name `spelling` means, a name or one of its {@link aliases} in any case, or `undefined`. */
export function nameOf(spelling: string): Name | undefined {
  const key = spelling.trim().toLowerCase()
  const name = Object.hasOwn(aliases, key) ? aliases[key] : key
  return find(name!)?.name as Name | undefined
}

/**
 * Reads the `chain` input of a route that serves one chain: absent, or any spelling of `served` (`base-mainnet` for
 * `base`), is `served`; any other chain is refused with a {@link ValidationError} naming `chain` that says which is.
 */
export function only(parameters: only.Parameters): Name {
  const { value, served } = parameters
  if (value === undefined) return served
  const name = typeof value === 'string' ? nameOf(value) : undefined
  if (name === served) return served
  throw new ValidationError({
    field: 'chain',
    message: `${name === undefined ? 'unknown chain' : `${name} is not served here`}; only \`${served}\` (also spelled ${Object.keys(
      aliases,
    )
      .filter((alias) => aliases[alias] === served)
      .join(', ')}) is`,
  })
}

export declare namespace only {
  type Parameters = {
    /** The `chain` input as the caller sent it. */
    value: unknown
    /** The one chain the route serves. */
    served: Name
  }
}

/** The original gateway's own name of each chain in its answers: its Alchemy network id (`base-mainnet`, ...). */
export function originalName(name: string): string {
  return Object.keys(aliases).find((alias) => aliases[alias] === name && alias.endsWith('-mainnet'))!
}

/** A `CHAIN_RPC_<NAME>` variable of a chain other than `base`, on its public URL unless set. */
const rpcUrlVariable = (name: Name) =>
  Type.String({
    minLength: 1,
    default: find(name)!.publicUrl,
    description: `JSON-RPC URL of ${find(name)!.title} for the chain-data and contract endpoints (keyless public node unless set); may carry a provider key`,
    secret: true,
  })

/**
 * The nodes the families that read every chain of the {@link registry} reach them at (`ethereum` is the gateway's own
 * `CHAIN_RPC_ETHEREUM`): one schema per variable, shared by their environment slices.
 */
export const rpcVariables = {
  CHAIN_RPC_BASE: Type.Optional(
    Type.String({
      minLength: 1,
      defaultText: 'the settlement chain',
      description:
        'JSON-RPC URL the chain-data and contract endpoints read as `base`; unset, they read the chain the gateway settles on (the devnet on embedded defaults)',
      secret: true,
    }),
  ),
  CHAIN_RPC_ARBITRUM: rpcUrlVariable('arbitrum'),
  CHAIN_RPC_POLYGON: rpcUrlVariable('polygon'),
  CHAIN_RPC_OPTIMISM: rpcUrlVariable('optimism'),
  CHAIN_RPC_AVALANCHE: rpcUrlVariable('avalanche'),
  CHAIN_RPC_BSC: rpcUrlVariable('bsc'),
}

/** One chain of the {@link registry} and a JSON-RPC client to its node. */
export type Node = {
  /** The chain in the registry. */
  entry: Entry
  /** Its node. */
  endpoint: Rpc.Endpoint
}

/**
 * The node of every chain of the {@link registry}, in its order: `base` the settlement chain's (unless `urls.base`
 * points it elsewhere), `ethereum` the gateway's Ethereum node, every other chain its URL from `urls` (its public URL
 * when unset) through `connect`.
 */
export function nodes(parameters: nodes.Parameters): Node[] {
  const { settlement, ethereum, connect, urls } = parameters
  return registry.map((entry): Node => {
    if (entry.name === 'ethereum') return { entry, endpoint: ethereum }
    const url = urls[entry.name]
    if (entry.name === 'base' && url === undefined) return { entry, endpoint: settlement }
    return { entry, endpoint: connect({ name: entry.name, chainId: entry.chainId, url: url ?? entry.publicUrl }) }
  })
}

export declare namespace nodes {
  type Parameters = {
    /** The settlement chain's node. */
    settlement: Rpc.Endpoint
    /** Ethereum's node, which the gateway shares between families. */
    ethereum: Rpc.Endpoint
    /** Opens a client to a node by URL. */
    connect: Rpc.Connect
    /** RPC URL per chain name but `ethereum`; a chain without one reads its public URL (`base`: the settlement chain). */
    urls: Partial<Record<Exclude<Name, 'ethereum'>, string | undefined>>
  }
}

/** The RPC URL of each chain the {@link rpcVariables} set, as {@link nodes} takes them. */
export function urlsOf(env: { [name in keyof typeof rpcVariables]?: string | undefined }): nodes.Parameters['urls'] {
  return {
    base: env.CHAIN_RPC_BASE,
    arbitrum: env.CHAIN_RPC_ARBITRUM,
    polygon: env.CHAIN_RPC_POLYGON,
    optimism: env.CHAIN_RPC_OPTIMISM,
    avalanche: env.CHAIN_RPC_AVALANCHE,
    bsc: env.CHAIN_RPC_BSC,
  }
}
