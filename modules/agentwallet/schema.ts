import { type Static, Type } from '@sinclair/typebox'
import { evmSchema } from '../../core/Address.js'
import * as Units from '../../core/Units.js'

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

const agentId = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 128,
    description:
      'The original gateway’s agent id, naming one of the payer’s accounts: its salt is the first 8 bytes of keccak256(UTF-8 "spraay-agent-" + agentId) read as a number, the same on every call (give it or `salt`, not both)',
  }),
)

const ownerAddress = Type.Optional(
  evmSchema(
    'The original gateway’s owner: here always the paying wallet (another address is a 403); for predict, whose address to compute. Default: the payer',
  ),
)

const walletAddress = Type.Optional(
  evmSchema('The agent wallet (the original gateway’s name of `account`; give one of them); it must be the payer’s'),
)

const sessionKeyAddress = Type.Optional(
  evmSchema('The session key’s address (the original gateway’s name of `key`; give one of them)'),
)

/** Query of `GET /api/v1/agent-wallet/predict`. */
export const PredictQuery = Type.Object({ ownerAddress, agentId, salt }, { additionalProperties: false })

/** Body of `POST /api/v1/agent-wallet/provision`. */
export const ProvisionBody = Type.Object(
  {
    agentId,
    agentType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'The original gateway’s agent type, echoed. Default "custom"',
      }),
    ),
    mode: Type.Optional(
      Type.Union([Type.Literal('managed'), Type.Literal('self-custody')], {
        description:
          'The original gateway’s custody mode. Every account here is self-custody, owned by the paying wallet: `managed` (the original’s default, which handed out a private key) is answered as self-custody with what to do instead; no private key ever crosses this gateway',
      }),
    ),
    ownerAddress,
    salt,
  },
  { additionalProperties: false },
)

/** Query of `GET /api/v1/agent-wallet/info`. */
export const InfoQuery = Type.Object(
  {
    address: Type.Optional(
      evmSchema('The agent wallet (the original gateway’s name of `account`; give one of them); the payer’s own'),
    ),
    agentId,
    salt,
    account,
  },
  { additionalProperties: false },
)

/** Body of `POST /api/v1/agent-wallet/session-key`. */
export const SessionKeyBody = Type.Object(
  {
    sessionKeyAddress,
    key: Type.Optional(evmSchema("The session key's address (its private key stays with the agent)")),
    spendLimitEth: Type.Optional(
      Type.Union(
        [Type.String({ maxLength: 100 }), Type.Number({ minimum: 0 })],
        Units.amountOptions({
          unit: 'human',
          description:
            'HUMAN decimal ETH, e.g. "0.5" is 0.5 ETH (at most 18 decimals): the most the key may move, as WETH of this chain (a session key here transfers ERC-20 tokens only), over its whole life; the original gateway’s limit (give it or `limits`)',
        }),
      ),
    ),
    durationHours: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 8760,
        description:
          'Hours the key lives from now (the original gateway’s; give it or `expiresAt`); the spending period is then the key’s whole life',
      }),
    ),
    allowedTargets: Type.Optional(
      Type.Array(evmSchema('A contract the key may call'), {
        maxItems: 10,
        description:
          'The original gateway’s call targets: a key here calls only `transfer` of the tokens it is limited on, so with `spendLimitEth` this may list only WETH',
      }),
    ),
    expiresAt: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 281474976710655,
        description: 'Unix time in seconds after which the key is refused; must be in the future.',
      }),
    ),
    period: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 31_536_000,
        description:
          'Length of a spending period in seconds (60 to one year); allowances reset each period. Default with `durationHours`: its length',
      }),
    ),
    limits: Type.Optional(
      Type.Array(
        Type.Object(
          {
            token: evmSchema('ERC-20 the key may transfer'),
            amount: Type.String({
              pattern: '^[1-9][0-9]{0,76}$',
              ...Units.amountOptions({
                unit: 'raw',
                description:
                  'Most the key may transfer per period, RAW atomic units of the token ("10000000" is 10 USDC).',
              }),
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 10, description: 'Per-token limits; one entry per token.' },
      ),
    ),
    walletAddress,
    salt,
    account,
    signature,
  },
  { additionalProperties: false },
)

/** Body of `POST /api/v1/agent-wallet/revoke-key`. */
export const RevokeKeyBody = Type.Object(
  {
    sessionKeyAddress,
    key: Type.Optional(evmSchema('The session key to revoke')),
    walletAddress,
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
