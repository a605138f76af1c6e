import type { Address } from 'viem'
import { base, mainnet } from 'viem/chains'

/** A token of a curated list: symbol, ERC-20 address, decimals. */
export type Listed = {
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** ERC-20 address, EIP-55. */
  address: Address
  /** Decimals of the token. */
  decimals: number
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
