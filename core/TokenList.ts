import uniswapDefault from '@uniswap/default-token-list/build/uniswap-default.tokenlist.json' with { type: 'json' }
import { type Address, getAddress, isAddress } from 'viem'
import { base, mainnet } from 'viem/chains'
import { ValidationError } from './Errors.js'

/** A token of a list: symbol, ERC-20 address, decimals, and its name where the list gives one. */
export type Listed = {
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** ERC-20 address, EIP-55. */
  address: Address
  /** Decimals of the token. */
  decimals: number
  /** Name, e.g. `Coinbase Wrapped BTC`; the curated entries have none. */
  name?: string
}

/** Tokens of Base mainnet (chain id 8453). */
export const baseMainnet: readonly Listed[] = [
  { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 },
  { symbol: 'USDT', address: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', decimals: 6 },
  { symbol: 'EURC', address: '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', decimals: 6 },
  { symbol: 'DAI', address: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', decimals: 18 },
  { symbol: 'WETH', address: '0x4200000000000000000000000000000000000006', decimals: 18 },
]

/**
 * Tokens of the embedded devnet, at the addresses its deployer's nonces give them on every devnet (adapters/chain/devnet.ts
 * `contracts()`; a test keeps the two equal).
 */
export const devnet: readonly Listed[] = [
  { symbol: 'USDC', address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9', decimals: 6 },
  { symbol: 'USDT', address: '0xD89c1432EaA169C54dC7610C744c68a2F4b6B3e5', decimals: 6 },
  { symbol: 'EURC', address: '0x4425918ff69Fe214AC093710cF41216AE9149c3A', decimals: 6 },
  { symbol: 'DAI', address: '0x58c1c343c185Aa5CD3c2Cc1c2b7d7bD055F1bf98', decimals: 18 },
  { symbol: 'WETH', address: '0x749d20D85555330d20862770b58a72939285c42a', decimals: 18 },
]

/** Tokens of Ethereum mainnet (chain id 1). */
export const ethereum: readonly Listed[] = [
  { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
  { symbol: 'USDT', address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
  { symbol: 'DAI', address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 },
  { symbol: 'WETH', address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', decimals: 18 },
]

/**
 * The curated tokens of a chain by the id of the node it reads: Base mainnet's and Ethereum mainnet's by their ids; on
 * `base`, any other id is the embedded devnet's (the chain the gateway settles on by default). Empty elsewhere.
 */
export function of(name: string, chainId: number): readonly Listed[] {
  if (chainId === base.id) return baseMainnet
  if (chainId === mainnet.id) return ethereum
  if (name === 'base') return devnet
  return []
}

/** The kept token list read beyond the curated tokens: Uniswap Labs' default list, from its npm package. */
export const keptList = {
  /** The list's name. */
  name: uniswapDefault.name,
  /** The npm package it comes from, pinned exactly in package.json. */
  package: '@uniswap/default-token-list',
  /** The list's version, `major.minor.patch`. */
  version: `${uniswapDefault.version.major}.${uniswapDefault.version.minor}.${uniswapDefault.version.patch}`,
  /** When the list was published (ISO 8601). */
  timestamp: uniswapDefault.timestamp,
} as const

/**
 * Tokens the original gateway accepted (swap, oracle prices) that no kept token list carries, by chain id: BRETT on
 * Base, at the address of the original's tables (src/routes/oracle.ts, swap-data.ts).
 */
const unlisted: Readonly<Record<number, readonly Listed[]>> = {
  [base.id]: [{ symbol: 'BRETT', address: '0x532f27101965dd16442E59d40670FaF5eBB142E4', decimals: 18, name: 'Brett' }],
}

const keptByChain = new Map<number, readonly Listed[]>()

/**
 * The kept list's tokens on chain `chainId`, in its order, addresses EIP-55; an entry whose address or decimals are
 * not well formed is left out. Empty on a chain the list has none of.
 */
export function kept(chainId: number): readonly Listed[] {
  let tokens = keptByChain.get(chainId)
  if (!tokens) {
    tokens = uniswapDefault.tokens.flatMap((token) =>
      token.chainId === chainId && isAddress(token.address, { strict: false }) && isDecimals(token.decimals)
        ? [{ symbol: token.symbol, address: getAddress(token.address), decimals: token.decimals, name: token.name }]
        : [],
    )
    keptByChain.set(chainId, tokens)
  }
  return tokens
}

function isDecimals(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 255
}

const knownByChain = new Map<string, readonly Listed[]>()

/**
 * Every token known on a chain: the curated ones ({@link of}) first, then the original gateway's that no list carries,
 * then the kept list's ({@link kept}); a later token with the address or the symbol (in any case) of an earlier one is
 * left out, so the curated entry wins. The devnet keeps its own deployed tokens only.
 */
export function known(name: string, chainId: number): readonly Listed[] {
  const key = `${name}:${chainId}`
  let tokens = knownByChain.get(key)
  if (!tokens) {
    const curated = of(name, chainId)
    const candidates = curated === devnet ? curated : [...curated, ...(unlisted[chainId] ?? []), ...kept(chainId)]
    const addresses = new Set<string>()
    const symbols = new Set<string>()
    tokens = candidates.filter((token) => {
      const address = token.address.toLowerCase()
      const symbol = token.symbol.toUpperCase()
      if (addresses.has(address) || symbols.has(symbol)) return false
      addresses.add(address)
      symbols.add(symbol)
      return true
    })
    knownByChain.set(key, tokens)
  }
  return tokens
}

/**
 * The token that `token` names on a chain, its symbol or its address in any case: among the tokens a deployment
 * accepts there (`tokens`), or among every token {@link known} on the chain (`name` and `chainId`).
 */
export function find<token extends Listed = Listed>(parameters: find.Parameters<token>): token | undefined {
  const wanted = parameters.token.trim()
  const byAddress = wanted.startsWith('0x') || wanted.startsWith('0X')
  const lower = wanted.toLowerCase()
  const upper = wanted.toUpperCase()
  const tokens =
    'tokens' in parameters ? parameters.tokens : (known(parameters.name, parameters.chainId) as readonly token[])
  return tokens.find((candidate) =>
    byAddress ? candidate.address.toLowerCase() === lower : candidate.symbol.toUpperCase() === upper,
  )
}

export declare namespace find {
  type Parameters<token extends Listed = Listed> = {
    /** A symbol (`cbbtc`) or an address. */
    token: string
  } & (
    | {
        /** Name of the chain, as {@link of} takes it. */
        name: string
        /** EIP-155 chain id of the node read. */
        chainId: number
      }
    | {
        /** The tokens accepted on the chain (a deployment's, e.g. `onchain.tokens`). */
        tokens: readonly token[]
      }
  )
}

/**
 * The token of `tokens` that `token` names, as {@link find} reads it; anything else is refused with a
 * {@link ValidationError} naming `field` and the tokens accepted, before any payment.
 */
export function toToken<token extends Listed>(parameters: toToken.Parameters<token>): token {
  const { tokens, token, field = 'token' } = parameters
  const found = find({ tokens, token })
  if (found) return found
  const accepted = tokens.map(({ symbol, address }) => `${symbol} (${address})`).join(', ')
  throw new ValidationError({
    field,
    message: `is not a supported token; use one of ${accepted || 'none configured'}`,
  })
}

export declare namespace toToken {
  type Parameters<token extends Listed> = {
    /** The tokens accepted on the chain. */
    tokens: readonly token[]
    /** A symbol or an address, as the caller sent it. */
    token: string
    /** The request field it came in, named by a refusal. @default 'token' */
    field?: string | undefined
  }
}
