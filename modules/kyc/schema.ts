import { type Static, Type } from '@sinclair/typebox'
import * as AddressRules from '../../core/Address.js'

/** Which checks a verification runs: both, or one of them. */
export const CheckType = Type.Union([Type.Literal('all'), Type.Literal('account'), Type.Literal('country')], {
  description:
    '`account` (Coinbase verified account), `country` (Coinbase verified country of residence) or `all`. Default: `all`.',
})

/** Body of `POST /api/v1/kyc/verify`. */
export const VerifyBody = Type.Object(
  {
    address: AddressRules.evmSchema('Address whose attestations to check; any address, not only the payer'),
    type: Type.Optional(CheckType),
    chain: Type.Optional(
      Type.Literal('base', { description: 'Chain whose attestations are read; only `base`, the default.' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/kyc/verify`. */
export type VerifyBody = Static<typeof VerifyBody>

/** Query of `GET /api/v1/kyc/status`: a check by its id, or the latest check of an address. */
export const StatusQuery = Type.Object({
  id: Type.Optional(
    Type.String({ pattern: '^kyc_[0-9a-f]{32}$', description: 'Check id from kyc/verify: `kyc_` and 32 hex digits.' }),
  ),
  address: Type.Optional(AddressRules.evmSchema('Checked address whose latest check (made by the payer) to return')),
})
/** Query of `GET /api/v1/kyc/status`. */
export type StatusQuery = Static<typeof StatusQuery>
