import { type Address, getAddress, isAddress } from 'viem'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Holdings from '../../core/Holdings.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Most members of a page cursor (Blockscout's `next_page_params`) accepted back from a caller. */
const maxCursorMembers = 8

/**
 * The holdings of a Blockscout instance, through its keyless REST API v2: `/api/v2/addresses/{hash}` (`coin_balance`
 * in wei, `exchange_rate` in USD), `.../tokens?type=ERC-20` and `.../nft?type=ERC-721,ERC-404,ERC-1155`, each paged by
 * `next_page_params`, which is the page cursor as JSON. A 404 on an address is Blockscout never having seen it: nothing
 * held. Public instances take a few calls per second per IP: answers are cached, and calls are spaced by a token bucket.
 */
export function blockscout(parameters: blockscout.Parameters): Holdings.Network {
  const { url, chain, chainId, native, ...options } = parameters
  const client = vendor({
    id: `blockscout-holdings-${chain}`,
    name: 'Blockscout',
    baseUrl: url,
    timeoutMs: 15_000,
    cache: { ttlMs: 30_000, maxEntries: 1_000 },
    rateLimit: { capacity: 5, refill: 5, intervalMs: 1_000, maxWaitMs: 3_000 },
    errorMessage: ({ status, label }) => `Blockscout answered ${label} with HTTP ${status}.`,
    ...options,
  })

  /** One page of `list` of `address` from `cursor`: its items read by `read`, and the next page's cursor. */
  async function page<item>(
    address: Address,
    list: string,
    type: string,
    cursor: string | undefined,
    read: (item: unknown) => item | undefined,
  ): Promise<Upstream.Outcome<Holdings.Page<item>>> {
    const after = cursor === undefined ? {} : queryOf(cursor)
    if (after === undefined) return client.fail('rejected', 'The page cursor is not one Blockscout gave.')
    const query = { type, ...after }
    const answer = await client.get(`/api/v2/addresses/${address}/${list}`, {
      label: `the address ${list}`,
      query,
      accept: [404],
    })
    if (!answer.ok) return answer
    if (answer.status === 404) return { ok: true, items: [], next: null }
    return client.read(() => {
      const body = fieldsOf(answer.body)
      if (!Array.isArray(body.items))
        throw new UnreadableAnswerError(`Blockscout answered the address ${list} without items.`)
      const next = body.next_page_params
      return {
        ok: true as const,
        items: body.items.flatMap((item) => {
          const value = read(item)
          return value === undefined ? [] : [value]
        }),
        next: typeof next === 'object' && next !== null ? JSON.stringify(next) : null,
      }
    })
  }

  return {
    chain,
    chainId,
    native,
    source: 'blockscout',

    async balance(address) {
      const answer = await client.get(`/api/v2/addresses/${address}`, { label: 'the address', accept: [404] })
      if (!answer.ok) return answer
      if (answer.status === 404) return { ok: true, balance: 0n, usd: null }
      return client.read(() => {
        const body = fieldsOf(answer.body)
        return {
          ok: true as const,
          balance: body.coin_balance == null ? 0n : atomicOf(body.coin_balance, 'coin_balance'),
          usd: priceOf(body.exchange_rate),
        }
      })
    },

    tokens: (address, cursor) =>
      page(address, 'tokens', 'ERC-20', cursor, (item): Holdings.Token | undefined => {
        const fields = fieldsOf(item)
        const token = fieldsOf(fields.token)
        const balance = atomicOf(fields.value, 'value')
        if (balance === 0n) return undefined
        return {
          address: addressOf(token.address_hash ?? token.address, 'token.address_hash'),
          name: textOf(token.name),
          symbol: textOf(token.symbol),
          decimals: token.decimals == null ? null : decimalsOf(token.decimals),
          balance,
          logo: textOf(token.icon_url),
          usd: priceOf(token.exchange_rate),
        }
      }),

    nfts: (address, cursor) =>
      page(address, 'nft', 'ERC-721,ERC-404,ERC-1155', cursor, (item): Holdings.Nft => {
        const fields = fieldsOf(item)
        const token = fieldsOf(fields.token)
        const metadata = fields.metadata
        return {
          contract: addressOf(token.address_hash ?? token.address, 'token.address_hash'),
          standard: textOf(fields.token_type) ?? textOf(token.type) ?? unreadable('token_type'),
          tokenId: atomicOf(fields.id, 'id'),
          amount: fields.value == null ? 1n : atomicOf(fields.value, 'value'),
          collectionName: textOf(token.name),
          collectionSymbol: textOf(token.symbol),
          tokenUri: null,
          metadata:
            typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? fieldsOf(metadata) : null,
          image: textOf(fields.image_url),
        }
      }),

    isCursor: (cursor) => queryOf(cursor) !== undefined,

    available: () => client.available(),
  }
}

export declare namespace blockscout {
  type Parameters = vendor.Options & {
    /** Base URL of the instance, e.g. `https://base.blockscout.com`. */
    url: string
    /** Our name of the chain it indexes, e.g. `base`. */
    chain: string
    /** EIP-155 id of that chain. */
    chainId: number
    /** Its native coin. */
    native: Holdings.Coin
  }
}

/**
 * The query of a cursor (`next_page_params` as JSON): its members as strings, a `null` one left out (Blockscout takes
 * a missing `fiat_value` for null); `undefined` for anything else.
 */
function queryOf(cursor: string): Record<string, string> | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(cursor)
  } catch {
    parsed = undefined
  }
  const entries = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : []
  const readable =
    entries.length > 0 &&
    entries.length <= maxCursorMembers &&
    entries.every(
      ([key, value]) =>
        /^[a-z_]{1,40}$/.test(key) &&
        (value === null || typeof value === 'number' || (typeof value === 'string' && value.length <= 100)),
    )
  if (!readable) return undefined
  return Object.fromEntries(entries.filter(([, value]) => value !== null).map(([key, value]) => [key, String(value)]))
}

function unreadable(field: string): never {
  throw new UnreadableAnswerError(`Blockscout answered without a readable ${field}.`)
}

function addressOf(value: unknown, field: string): Address {
  return typeof value === 'string' && isAddress(value, { strict: false }) ? getAddress(value) : unreadable(field)
}

/** An amount in atomic units (or a token id), a decimal string as Blockscout writes it. */
function atomicOf(value: unknown, field: string): bigint {
  return typeof value === 'string' && /^\d{1,78}$/.test(value) ? BigInt(value) : unreadable(field)
}

/** Decimals, a decimal string (or number) of at most 255. */
function decimalsOf(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && /^\d{1,3}$/.test(text) && Number(text) <= 255
    ? Number(text)
    : unreadable('token.decimals')
}

/** A USD price as Blockscout writes it (a decimal string), or `null` for none or anything else. */
function priceOf(value: unknown): string | null {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && /^\d{1,30}(\.\d{1,60})?$/.test(text) ? text : null
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}
