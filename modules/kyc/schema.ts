import { type Static, Type } from '@sinclair/typebox'
import * as AddressRules from '../../core/Address.js'

/** Which checks a verification runs: both, or one of them; or the original gateway's kind of subject, which runs both. */
export const CheckType = Type.Union(
  ['all', 'account', 'country', 'individual', 'business'].map((type) => Type.Literal(type)),
  {
    description:
      "`account` (Coinbase verified account), `country` (Coinbase verified country of residence) or `all`; or the original gateway's `individual` or `business`, which run both checks and are kept and answered as `type`. Default: `all` (answered as `individual`, as the original does).",
  },
)

/** The original gateway's requested depth of a check: kept and answered; the checks run are the same. */
export const Level = Type.Union(
  ['basic', 'enhanced', 'full'].map((level) => Type.Literal(level)),
  {
    description:
      "Requested depth (`basic`, `enhanced`, `full`), as the original gateway's clients send it: kept and answered as `requestedLevel`; every level runs the Coinbase Verifications checks, which `level` names.",
  },
)

/** Body of `POST /api/v1/kyc/verify`. */
export const VerifyBody = Type.Object(
  {
    address: AddressRules.evmSchema('Address whose attestations to check; any address, not only the payer'),
    type: Type.Optional(CheckType),
    chain: Type.Optional(
      Type.String({
        maxLength: 32,
        description:
          'Chain whose attestations are read: only `base` (the default), in any of its spellings (`base-mainnet`); another chain is a 400 that says so.',
      }),
    ),
    level: Type.Optional(Level),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Any JSON object of yours, kept with the record and shown by kyc/status.',
      }),
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
