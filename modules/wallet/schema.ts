import { type Static, Type } from '@sinclair/typebox'
import * as SignedRequest from '../../core/SignedRequest.js'
import * as Units from '../../core/Units.js'

/** Most wallets one page of `wallet/list` answers (the original gateway's cap). */
export const maxPageSize = 100

/** Wallets a page of `wallet/list` answers without a `limit` (the original gateway's default). */
export const defaultPageSize = 20

/** Longest message `wallet/sign-message` signs, in characters. */
export const maxMessageLength = 10_000

const evmAddress = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description })

const walletId = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$',
  description: 'The wallet id `wallet/create` answered (the vendor’s id of the wallet).',
  examples: ['4c1b5d2e-8f0a-4e6b-9d3c-2a7f1e0b9c55'],
})

/** Path of `GET /api/v1/wallet/:walletId` and `/api/v1/wallet/:walletId/addresses`. */
export const WalletParams = Type.Object({ walletId })

/** Query of the same routes at their bare paths (`?walletId=`). */
export const WalletQuery = Type.Object({ walletId })

/** Query of `GET /api/v1/wallet/list`. */
export const ListQuery = Type.Object({
  limit: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,9}$',
      description: `Wallets per page, 1 to ${maxPageSize} (more is taken as ${maxPageSize}, 0 as the default, as the original gateway reads it). Default: ${defaultPageSize}.`,
    }),
  ),
  offset: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,9}$', description: 'Wallets to skip, newest first. Default: 0.' }),
  ),
})
/** Query of `GET /api/v1/wallet/list`. */
export type ListQuery = Static<typeof ListQuery>

/**
 * Body of `POST /api/v1/wallet/create` (free). `owner` proves the wallet is theirs by an EIP-712 signature; without
 * `signature` the answer is the typed data to sign, with the `nonce` and `expiry` to send back, and nothing is created.
 */
export const CreateBody = Type.Object({
  owner: evmAddress(
    'The address the wallet will belong to: only payments from it list, read, sign or send with the wallet.',
  ),
  name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Name of the wallet at the vendor. Default: `spraay-agent-<time>`, as the original gateway names it.',
    }),
  ),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Label. Default: the name.' })),
  ...SignedRequest.fields({ signer: 'owner', primaryType: 'CreateWallet', docs: 'docs/families/wallet.md' }),
})
/** Body of `POST /api/v1/wallet/create`. */
export type CreateBody = Static<typeof CreateBody>

const networkId = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, description, examples: ['base-mainnet'] })

/** Body of `POST /api/v1/wallet/sign-message`. */
export const SignMessageBody = Type.Object({
  walletId,
  message: Type.String({ minLength: 1, maxLength: maxMessageLength, description: 'The text to sign (UTF-8).' }),
  networkId: Type.Optional(
    networkId(
      'Which key signs: an EVM network (`base-mainnet`, `eip155:8453`, `ethereum`...) signs with the EVM key (EIP-191 `personal_sign`), a Solana one (`solana-mainnet`, `solana:5eykt...`) with the Solana key (Ed25519). Default: `solana-mainnet`, as the original gateway.',
    ),
  ),
})
/** Body of `POST /api/v1/wallet/sign-message`. */
export type SignMessageBody = Static<typeof SignMessageBody>

/** The transaction of `POST /api/v1/wallet/send-transaction`. */
export const Transaction = Type.Object(
  {
    to: evmAddress('Recipient, or the contract called.'),
    data: Type.Optional(
      Type.String({ pattern: '^0x([0-9a-fA-F]{2}){0,65536}$', description: 'Calldata, 0x-hex. Default: `0x`.' }),
    ),
    value: Type.Optional(
      Type.String({
        pattern: '^(0|[1-9][0-9]{0,77}|0x[0-9a-fA-F]{1,64})$',
        ...Units.amountOptions({
          unit: 'raw',
          description: 'Native coin sent, in wei (RAW): "1000000000000000" is 0.001 ETH; 0x-hex too. Default: 0.',
        }),
      }),
    ),
    gas: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,15}|0x[0-9a-fA-F]{1,12})$',
        description: 'Gas limit. Default: the simulation’s estimate plus 20%.',
      }),
    ),
  },
  { description: 'An EVM transaction from the wallet; its nonce and fees are set by the gateway from the chain.' },
)

/** Body of `POST /api/v1/wallet/send-transaction`. */
export const SendTransactionBody = Type.Object({
  walletId,
  transaction: Transaction,
  networkId: networkId(
    "The chain: the gateway's settlement chain (`base`, `base-mainnet` or its `eip155:` id); simulated there, signed by the vendor, sent by the gateway.",
  ),
})
/** Body of `POST /api/v1/wallet/send-transaction`. */
export type SendTransactionBody = Static<typeof SendTransactionBody>
