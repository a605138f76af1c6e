import { type Static, Type } from '@sinclair/typebox'

/** Query of `GET /free/uuid`. */
export const UuidQuery = Type.Object({
  count: Type.Optional(Type.String({ description: 'How many identifiers, 1 to 100.', default: '1' })),
})
/** Query of `GET /free/uuid`. */
export type UuidQuery = Static<typeof UuidQuery>

/** Query of `GET /free/convert`. */
export const ConvertQuery = Type.Object({
  amount: Type.String({ minLength: 1, maxLength: 100, description: 'Non-negative decimal amount in `from` units.' }),
  from: Type.String({
    minLength: 1,
    maxLength: 16,
    description: 'Source unit: wei, gwei, ether, lamports, sol, drops, xrp, stroops, xlm, or a currency/asset symbol.',
  }),
  to: Type.String({ minLength: 1, maxLength: 16, description: 'Target unit, as `from`.' }),
})
/** Query of `GET /free/convert`. */
export type ConvertQuery = Static<typeof ConvertQuery>

/** Query of `GET /free/validate-address`. */
export const ValidateAddressQuery = Type.Object({
  address: Type.String({ maxLength: 256, description: 'The address to check, exactly as it will be used.' }),
  family: Type.Optional(
    Type.Union([Type.Literal('evm'), Type.Literal('solana'), Type.Literal('xrp'), Type.Literal('stellar')], {
      description: 'Check only this family.',
    }),
  ),
})
/** Query of `GET /free/validate-address`. */
export type ValidateAddressQuery = Static<typeof ValidateAddressQuery>

/**
 * Body of `POST /free/validate-batch`: any JSON value reaches the BPA 1.0 validator untouched (an object schema
 * here would let the framework reshape arrays into objects before the validator sees them).
 */
export const ValidateBatchBody = Type.Unknown({ description: 'A BPA 1.0 batch payload.' })

/** Query of `GET /free/estimate-batch`. */
export const EstimateBatchQuery = Type.Object({
  recipientCount: Type.String({ pattern: '^[0-9]{1,6}$', description: 'Number of recipients, 1 to 200.' }),
  chain: Type.Optional(Type.String({ description: 'base (default) or peaq.' })),
  token: Type.Optional(Type.String({ description: 'Token symbol or ERC-20 address; ETH for native. Default USDC.' })),
})
/** Query of `GET /free/estimate-batch`. */
export type EstimateBatchQuery = Static<typeof EstimateBatchQuery>
