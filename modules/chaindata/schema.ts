import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { isAddress } from 'viem'
import * as Address from '../../core/Address.js'
import * as EvmChain from '../../core/EvmChain.js'

/** Query of `GET /free/nonce`. */
export const NonceQuery = Type.Object({
  address: Type.String({
    maxLength: 64,
    description: 'EVM address, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
  }),
  chain: Type.Optional(
    Type.String({
      maxLength: 32,
      description: `One of: ${EvmChain.names.join(', ')}, or a spelling the original gateway takes (base-mainnet, eth, arb, op, matic, bnb, avax, ...). @default base`,
    }),
  ),
})
/** Query of `GET /free/nonce`. */
export type NonceQuery = Static<typeof NonceQuery>

/** The chains `GET /api/v1/balances` reads and `GET /api/v1/tokens` lists. */
export const balanceChains = ['base', 'ethereum'] as const

/** Whether `value` is a comma-separated list of distinct {@link balanceChains}. */
export function isChainList(value: string): boolean {
  const names = value.split(',').map((name) => name.trim())
  return (
    names.every((name) => (balanceChains as readonly string[]).includes(name)) && new Set(names).size === names.length
  )
}

// Checked by the route schema, so a bad chain list is a 400 before any payment is asked for.
FormatRegistry.Set('balance-chains', isChainList)

/** Most token addresses one `GET /api/v1/balances` reads by `tokens`. */
export const maxTokens = 20

/** Whether `value` is a comma-separated list of 1 to {@link maxTokens} EVM addresses (mixed case with a valid checksum). */
export function isTokenList(value: string): boolean {
  const addresses = value.split(',').map((address) => address.trim())
  return addresses.length <= maxTokens && addresses.every((address) => isAddress(address))
}

// Checked by the route schema, so a bad token address is a 400 naming tokens before any payment is asked for.
FormatRegistry.Set('token-addresses', isTokenList)

/** Query of `GET /api/v1/balances`. */
export const BalancesQuery = Type.Object({
  address: Address.evmSchema('Wallet'),
  chains: Type.Optional(
    Type.String({
      maxLength: 64,
      format: 'balance-chains',
      default: balanceChains.join(','),
      description: `Comma-separated chains, each once, of: ${balanceChains.join(', ')}. @default all of them`,
    }),
  ),
  tokens: Type.Optional(
    Type.String({
      maxLength: maxTokens * 43,
      format: 'token-addresses',
      description: `Comma-separated ERC-20 addresses on base (at most ${maxTokens}), as the original gateway takes them: the original's \`balances\` lists ETH and these tokens (symbol and decimals as each token answers) instead of the curated ones. @default the curated tokens`,
    }),
  ),
  showAll: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: "`true`: the original gateway's `balances` lists tokens with a zero balance too. @default false",
    }),
  ),
})
/** Query of `GET /api/v1/balances`. */
export type BalancesQuery = Static<typeof BalancesQuery>
