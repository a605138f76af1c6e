import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import { unichain } from 'viem/chains'
import * as Address from '../../core/Address.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'

/** Symbols a caller may name a token by: those of the curated token lists, the same token on both chains. */
export const symbols: readonly string[] = [
  ...new Set([...TokenList.baseMainnet, ...TokenList.ethereum].map((token) => token.symbol)),
]

/** A chain as the bridge endpoints name it. */
export type Chain = {
  /** Name callers use, e.g. `arbitrum`. */
  name: string
  /** The chain's own name, e.g. `Arbitrum One`. */
  title: string
  /** EIP-155 id. */
  chainId: number
}

/**
 * The chains a quote may name: the registry's, and Unichain (130), which the original gateway's bridge served. Which
 * of them a bridge moves funds between is the bridges' own answer: `bridge/chains` lists those some bridge serves, and
 * a pair none serves is a quote's `no_route`.
 */
export const chains: readonly Chain[] = [
  ...EvmChain.registry.map(({ name, title, chainId }) => ({ name, title, chainId })),
  { name: 'unichain', title: unichain.name, chainId: unichain.id },
]

/** The original gateway's spelling of Unichain, beside the registry's {@link EvmChain.aliases}. */
const unichainAlias = 'uni'

/**
 * The chain a caller names by name (`base`), by one of the original gateway's spellings (`eth`, `arb`, `op`, `matic`,
 * `bnb`, `bsc`, `avax`, `uni`, `base-mainnet`, any case) or by EIP-155 id (`8453`), or `undefined`.
 */
export function chainOf(value: string): Chain | undefined {
  if (/^\d{1,10}$/.test(value)) return chains.find((entry) => entry.chainId === Number(value))
  const key = value.trim().toLowerCase()
  const name = key === unichainAlias ? 'unichain' : (EvmChain.nameOf(key) ?? key)
  return chains.find((entry) => entry.name === name)
}

/** The symbols of each chain's native coin, as the original gateway's clients name it (`ETH`, `POL`/`MATIC`, ...). */
export const nativeSymbols: Readonly<Record<string, readonly string[]>> = {
  base: ['ETH'],
  ethereum: ['ETH'],
  arbitrum: ['ETH'],
  optimism: ['ETH'],
  polygon: ['POL', 'MATIC'],
  avalanche: ['AVAX'],
  bsc: ['BNB'],
  unichain: ['ETH'],
}

/** The original gateway's word for the origin chain's native coin, whatever the chain. */
export const native = 'NATIVE'

/**
 * Whether `value` names a token: a listed symbol, `native` or a native coin's symbol (any case), or an EVM address
 * (EIP-55 when mixed case).
 */
export function isToken(value: string): boolean {
  const symbol = value.toUpperCase()
  return (
    symbols.includes(symbol) ||
    symbol === native ||
    Object.values(nativeSymbols).some((list) => list.includes(symbol)) ||
    Address.validateEvm(value).valid
  )
}

// Checked by the route schema, so a bad chain, token or address is a 400 before any payment is asked for.
FormatRegistry.Set('bridge-chain', (value) => chainOf(value) !== undefined)
FormatRegistry.Set('bridge-token', isToken)
FormatRegistry.Set('bridge-address', (value) => Address.validateEvm(value).valid)

const chainText = `A chain by name or EIP-155 id: ${chains.map((entry) => `${entry.name} (${entry.chainId})`).join(', ')}; the original gateway's spellings too (${[...Object.keys(EvmChain.aliases), unichainAlias].join(', ')}).`

/** Query of `GET /api/v1/bridge/quote`. */
export const QuoteQuery = Type.Object({
  fromChain: Type.String({ maxLength: 16, format: 'bridge-chain', description: `Origin chain. ${chainText}` }),
  toChain: Type.String({ maxLength: 16, format: 'bridge-chain', description: `Destination chain. ${chainText}` }),
  token: Type.String({
    maxLength: 42,
    format: 'bridge-token',
    description: `Token to move: a symbol (${symbols.join(', ')}), the same token on both chains; \`native\` or the origin chain's native symbol (ETH, POL or MATIC, AVAX, BNB) for its native coin, as the original gateway reads them; or its address on the origin chain (0x and 40 hex digits, EIP-55 when mixed case; the zero address for the native coin).`,
  }),
  amount: Type.String({
    maxLength: Units.maxIntegerDigits,
    pattern: '^[1-9][0-9]*$',
    [Units.readingKeyword]: 'raw',
    description:
      'RAW amount to send, in base units of the token (as the original gateway reads it), a positive integer string: "1000000" is 1 USDC. Answers carry it raw (route.fromChain.amount, quote.fromAmount.raw) and human (quote.fromAmount.formatted).',
  }),
  fromAddress: Type.String({
    maxLength: 42,
    format: 'bridge-address',
    description:
      'Wallet that sends and receives, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
  }),
})
/** Query of `GET /api/v1/bridge/quote`. */
export type QuoteQuery = Static<typeof QuoteQuery>
