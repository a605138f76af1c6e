import { FormatRegistry, type Static, Type } from '@sinclair/typebox'
import * as Address from '../../core/Address.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'

/** Symbols a caller may name a token by: those of the curated token lists, the same token on both chains. */
export const symbols: readonly string[] = [
  ...new Set([...TokenList.baseMainnet, ...TokenList.ethereum].map((token) => token.symbol)),
]

/** The chain of the registry a caller names by name (`base`) or by EIP-155 id (`8453`), or `undefined`. */
export function chainOf(value: string): EvmChain.Entry | undefined {
  return /^\d{1,10}$/.test(value)
    ? EvmChain.registry.find((entry) => entry.chainId === Number(value))
    : EvmChain.find(value.toLowerCase())
}

/** Whether `value` names a token: a listed symbol (any case) or an EVM address (EIP-55 when mixed case). */
export function isToken(value: string): boolean {
  return symbols.includes(value.toUpperCase()) || Address.validateEvm(value).valid
}

// Checked by the route schema, so a bad chain, token or address is a 400 before any payment is asked for.
FormatRegistry.Set('bridge-chain', (value) => chainOf(value) !== undefined)
FormatRegistry.Set('bridge-token', isToken)
FormatRegistry.Set('bridge-address', (value) => Address.validateEvm(value).valid)

const chainText = `A chain by name or EIP-155 id: ${EvmChain.registry.map((entry) => `${entry.name} (${entry.chainId})`).join(', ')}.`

/** Query of `GET /api/v1/bridge/quote`. */
export const QuoteQuery = Type.Object({
  fromChain: Type.String({ maxLength: 16, format: 'bridge-chain', description: `Origin chain. ${chainText}` }),
  toChain: Type.String({ maxLength: 16, format: 'bridge-chain', description: `Destination chain. ${chainText}` }),
  token: Type.String({
    maxLength: 42,
    format: 'bridge-token',
    description: `Token to move: a symbol (${symbols.join(', ')}), the same token on both chains, or its address on the origin chain (0x and 40 hex digits, EIP-55 when mixed case; the zero address for the native coin).`,
  }),
  amount: Type.String({
    maxLength: Units.maxIntegerDigits,
    pattern: '^[1-9][0-9]*$',
    description: 'Amount to send, in base units of the token, as a positive integer string, e.g. "1000000" for 1 USDC.',
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
