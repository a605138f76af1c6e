import { type Static, Type } from '@sinclair/typebox'
import { evmSchema } from '../../core/Address.js'

const salt = Type.Optional(
  Type.String({
    pattern: '^[0-9]{1,20}$',
    description: 'Which of the payer\'s accounts: a decimal number below 2^64, the CREATE2 salt. Default "0".',
  }),
)

const account = Type.Optional(
  evmSchema("The agent wallet; it must be owned by the paying wallet. Default: the payer's account of `salt`"),
)

const signature = Type.Optional(
  Type.String({
    pattern: '^0x[0-9a-fA-F]{130}$',
    description:
      "The owner's 65-byte EIP-712 signature of the typed data this endpoint answered without it; with it, the gateway's relayer submits the authorization.",
  }),
)

/** Query of `GET /api/v1/agent-wallet/predict`. */
export const PredictQuery = Type.Object({ salt }, { additionalProperties: false })

/** Body of `POST /api/v1/agent-wallet/provision`. */
export const ProvisionBody = Type.Object({ salt }, { additionalProperties: false })

/** Query of `GET /api/v1/agent-wallet/info`. */
export const InfoQuery = Type.Object({ salt, account }, { additionalProperties: false })

/** Body of `POST /api/v1/agent-wallet/session-key`. */
export const SessionKeyBody = Type.Object(
  {
    key: evmSchema("The session key's address (its private key stays with the agent)"),
    expiresAt: Type.Integer({
      minimum: 1,
      maximum: 281474976710655,
      description: 'Unix time in seconds after which the key is refused; must be in the future.',
    }),
    period: Type.Integer({
      minimum: 60,
      maximum: 31_536_000,
      description: 'Length of a spending period in seconds (60 to one year); allowances reset each period.',
    }),
    limits: Type.Array(
      Type.Object(
        {
          token: evmSchema('ERC-20 the key may transfer'),
          amount: Type.String({
            pattern: '^[1-9][0-9]{0,76}$',
            description: 'Most the key may transfer per period, in atomic units ("10000000" is 10 USDC).',
          }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10, description: 'Per-token limits; one entry per token.' },
    ),
    salt,
    account,
    signature,
  },
  { additionalProperties: false },
)

/** Body of `POST /api/v1/agent-wallet/revoke-key`. */
export const RevokeKeyBody = Type.Object(
  {
    key: evmSchema('The session key to revoke'),
    salt,
    account,
    signature,
  },
  { additionalProperties: false },
)

/** Query of predict. */
export type PredictQuery = Static<typeof PredictQuery>
/** Body of provision. */
export type ProvisionBody = Static<typeof ProvisionBody>
/** Query of info. */
export type InfoQuery = Static<typeof InfoQuery>
/** Body of session-key. */
export type SessionKeyBody = Static<typeof SessionKeyBody>
/** Body of revoke-key. */
export type RevokeKeyBody = Static<typeof RevokeKeyBody>
