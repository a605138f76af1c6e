import { type Static, Type } from '@sinclair/typebox'
import * as Units from '../../core/Units.js'

/** Query of `GET /free/uuid`. */
export const UuidQuery = Type.Object({
  count: Type.Optional(Type.String({ description: 'How many identifiers, 1 to 100.', default: '1' })),
})
/** Query of `GET /free/uuid`. */
export type UuidQuery = Static<typeof UuidQuery>

/** Query of `GET /free/convert`. */
export const ConvertQuery = Type.Object({
  amount: Type.String({
    minLength: 1,
    maxLength: 100,
    ...Units.amountOptions({
      unit: 'human',
      description:
        'Non-negative HUMAN decimal amount in `from` units, at most the decimals of `from`: "1.5" with `from=ether` is 1.5 ether, "50" with `from=usd` is 50 USD.',
    }),
  }),
  from: Type.String({
    minLength: 1,
    maxLength: 16,
    description: 'Source unit: wei, gwei, ether, lamports, sol, drops, xrp, stroops, xlm, or a currency/asset symbol.',
  }),
  to: Type.String({ minLength: 1, maxLength: 16, description: 'Target unit, as `from`.' }),
})
/** Query of `GET /free/convert`. */
export type ConvertQuery = Static<typeof ConvertQuery>

/** Query of `GET /free/validate-address`: at most one of `chain` (the original gateway's) and `family`. */
export const ValidateAddressQuery = Type.Object({
  address: Type.String({ maxLength: 256, description: 'The address to check, exactly as it will be used.' }),
  chain: Type.Optional(
    Type.String({
      maxLength: 32,
      description:
        'Check only the format of this chain: an EVM chain (evm, ethereum, base, arbitrum, polygon, bnb, bsc, avalanche, optimism, unichain, plasma, bob, or a spelling such as base-mainnet), solana or sol, xrp, ripple or xrpl, stellar or xlm. Default: every format.',
    }),
  ),
  family: Type.Optional(
    Type.Union([Type.Literal('evm'), Type.Literal('solana'), Type.Literal('xrp'), Type.Literal('stellar')], {
      description: 'Check only this family; the same as `chain`, which the original gateway takes: give one of them.',
    }),
  ),
})
/** Query of `GET /free/validate-address`. */
export type ValidateAddressQuery = Static<typeof ValidateAddressQuery>

/**
 * Body of `POST /free/validate-batch`: any JSON value reaches the BPA 1.0 validator untouched (an object schema
 * here would let the framework reshape arrays into objects before the validator sees them).
 */
export const ValidateBatchBody = Type.Unknown({
  description:
    'A BPA 1.0 batch payload, as the original gateway reads it: chain (base or peaq, any case or spelling such as base-mainnet; default base), token (symbol or ERC-20 address; default USDC), sender (optional EVM address), recipients[{to (or address, not both), amount, memo}] where amount is a HUMAN decimal of the token (string or JSON number), e.g. "2500" is 2,500 USDC, at most the token\'s decimals. The report\'s summary gives totalAmount, fee and totalWithFee as human decimals and totalAmountRaw, feeRaw and totalWithFeeRaw in base units.',
})

/** Query of `GET /free/estimate-batch`: the recipient count as `recipients` (the original gateway's) or `recipientCount`. */
export const EstimateBatchQuery = Type.Object({
  recipients: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,6}$', description: 'Number of recipients, 1 to 200 (or `recipientCount`).' }),
  ),
  recipientCount: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,6}$', description: 'Number of recipients, 1 to 200; the same as `recipients`.' }),
  ),
  chain: Type.Optional(Type.String({ maxLength: 32, description: 'base (default, also base-mainnet) or peaq.' })),
  token: Type.Optional(Type.String({ description: 'Token symbol or ERC-20 address; ETH for native. Default USDC.' })),
  amount: Type.Optional(
    Type.String({
      maxLength: 100,
      ...Units.amountOptions({
        unit: 'human',
        description:
          'Total paid, HUMAN decimal USD (USDC, at most 6 decimals), e.g. "1000" is 1,000 USD: prices the 0.3% protocol fee.',
      }),
    }),
  ),
})
/** Query of `GET /free/estimate-batch`. */
export type EstimateBatchQuery = Static<typeof EstimateBatchQuery>
