import { type Static, type TSchema, Type } from '@sinclair/typebox'
import * as Address from '../../core/Address.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Units from '../../core/Units.js'

/** Most items of one page. */
export const maxPageSize = 100

/** Items of a page when `pageSize` is absent, as the original gateway pages NFTs. */
export const defaultPageSize = 50

/** A `true`/`false` switch of the query, as the original gateway reads it (anything but `false` is on there). */
const flag = (description: string) =>
  Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], { description: `${description} @default true` }),
  )

/** What both portfolio queries take. */
const common = {
  address: Address.evmSchema('Wallet'),
  networks: Type.Optional(
    Type.String({
      maxLength: 256,
      description: `Comma-separated chains, each once, in any spelling the gateway takes (${EvmChain.names.join(', ')}, or the original gateway's Alchemy ids: base-mainnet, eth-mainnet, arb-mainnet, opt-mainnet, matic-mainnet, bnb-mainnet, avax-mainnet), or \`all\`; each must be served here. @default every chain served`,
    }),
  ),
  pageSize: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,3}$',
      description: `Most items of this page, 1 to ${maxPageSize}. @default ${defaultPageSize}`,
    }),
  ),
  pageKey: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The `page_key` of the page before, with the same address and networks; absent, the first page.',
    }),
  ),
}

/** Query of `GET /api/v1/portfolio/tokens`. */
export const TokensQuery = Type.Object({
  ...common,
  includeNative: flag('`false` leaves out the native coin of each chain.'),
  includeErc20: flag('`false` leaves out the ERC-20 tokens.'),
  includePrices: flag('`false` leaves out USD prices and values.'),
})
/** Query of `GET /api/v1/portfolio/tokens`. */
export type TokensQuery = Static<typeof TokensQuery>

/** Query of `GET /api/v1/portfolio/nfts`. */
export const NftsQuery = Type.Object({
  ...common,
  withMetadata: flag("`false` leaves out each NFT's name, description, image and metadata."),
})
/** Query of `GET /api/v1/portfolio/nfts`. */
export type NftsQuery = Static<typeof NftsQuery>

const nullable = <schema extends TSchema>(schema: schema, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

/** Where an item was read: the original gateway's network id, our chain name and its id. */
const located = {
  network: Type.String({ description: "The original gateway's (Alchemy's) network id, e.g. `base-mainnet`." }),
  chain: Type.String({ description: 'Our name of the chain, e.g. `base`.' }),
  chainId: Type.Integer({ description: 'EIP-155 id of the chain read (the devnet its own).' }),
  address: Type.String({ description: 'The wallet, EIP-55.' }),
}

/** What both answers say of the read itself. */
const read = {
  address: Type.String({ description: 'The wallet, EIP-55.' }),
  networks: Type.Array(Type.String(), { description: "The networks read, as the original gateway's ids." }),
  chains: Type.Array(Type.String(), { description: 'The same networks, by our chain names.' }),
  page_key: nullable(Type.String(), 'Pass as `pageKey` for the next page; `null` on the last.'),
  sources: Type.Record(Type.String(), Type.String(), {
    description: 'The source of each chain read: `node` (the devnet itself) or `blockscout`.',
  }),
  unavailable: Type.Array(Type.Object({ network: Type.String(), chain: Type.String(), reason: Type.String() }), {
    description: 'Chains that could not be read for this page, with why; the page goes on past them.',
  }),
}

/** One token of `GET /api/v1/portfolio/tokens`, in the original gateway's (Alchemy's) shape and ours. */
const TokenRow = Type.Object({
  ...located,
  tokenAddress: nullable(Type.String(), 'The ERC-20 contract; `null` for the native coin.'),
  tokenBalance: Type.String(Units.amountOptions({ unit: 'raw', description: 'RAW balance, atomic units.' })),
  balance: nullable(
    Type.String(Units.amountOptions({ unit: 'human', description: 'HUMAN balance, whole tokens.' })),
    '`null` when the decimals are not known.',
  ),
  tokenMetadata: Type.Object({
    name: nullable(Type.String()),
    symbol: nullable(Type.String()),
    decimals: nullable(Type.Integer()),
    logo: nullable(Type.String()),
  }),
  tokenPrices: Type.Array(
    Type.Object({
      currency: Type.Literal('usd'),
      value: Type.String({ description: 'USD per whole token, a decimal string.' }),
      lastUpdatedAt: nullable(Type.String(), 'When the source observed it, ISO 8601; `null` when it does not say.'),
      source: Type.String({ description: 'Who priced it: the indexer (`blockscout`) or our price source.' }),
    }),
    { description: 'Empty where no source prices the token, or with `includePrices=false`.' },
  ),
  valueUsd: nullable(Type.String(), 'USD value of the balance, rounded down to the micro-dollar; `null` unpriced.'),
})

/** One NFT of `GET /api/v1/portfolio/nfts`, in the original gateway's (Alchemy's) shape. */
const NftRow = Type.Object({
  ...located,
  contract: Type.Object({
    address: Type.String(),
    name: nullable(Type.String()),
    symbol: nullable(Type.String()),
    tokenType: Type.String({ description: '`ERC-721`, `ERC-1155` or `ERC-404`.' }),
  }),
  tokenId: Type.String({ description: 'Token id, a decimal string.' }),
  tokenType: Type.String(),
  balance: Type.String({ description: 'How many of it the wallet holds (1 for ERC-721).' }),
  name: nullable(Type.String()),
  description: nullable(Type.String()),
  image: nullable(Type.Object({ originalUrl: Type.String() })),
  tokenUri: nullable(Type.String()),
  raw: nullable(
    Type.Object({ tokenUri: nullable(Type.String()), metadata: nullable(Type.Record(Type.String(), Type.Unknown())) }),
    '`null` with `withMetadata=false`.',
  ),
})

/** The answers of the portfolio endpoints, for discovery. */
export const outputs: Record<string, TSchema> = {
  'GET /api/v1/portfolio/tokens': Type.Object({
    ...read,
    token_count: Type.Integer({ description: 'Tokens on this page.' }),
    total_usd_value: Type.String({
      description: 'USD value of the priced tokens of this page, exact to the micro-dollar (a decimal string).',
    }),
    tokens: Type.Array(TokenRow),
  }),
  'GET /api/v1/portfolio/nfts': Type.Object({
    ...read,
    total_count: nullable(Type.Integer(), 'Every NFT held, when this one page holds them all; `null` otherwise.'),
    returned_count: Type.Integer({ description: 'NFTs on this page.' }),
    nfts: Type.Array(NftRow),
  }),
}
