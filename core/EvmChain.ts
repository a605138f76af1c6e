import type { Address } from 'viem'
import { arbitrum, avalanche, base, bsc, mainnet, optimism, polygon } from 'viem/chains'
import { ValidationError } from './Errors.js'

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
