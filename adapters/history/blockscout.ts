import { type Address, getAddress, type Hex, isAddress, isHex } from 'viem'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as History from '../../core/History.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * The history of a Blockscout instance, through its keyless REST API v2: `/api/v2/addresses/{hash}` (contract,
 * creator, proxy), `.../transactions` and `.../token-transfers` (newest first, paged by `next_page_params`),
 * `.../counters`, and `/api/v2/transactions/{hash}` for a transaction that only moved the address's tokens. A 404 on
 * an address is Blockscout never having seen it: an empty history, not a failure.
 */
export function blockscout(parameters: blockscout.Parameters): History.History {
  const { url, ...options } = parameters
  const client = vendor({
    id: 'blockscout',
    name: 'Blockscout',
    baseUrl: url,
    timeoutMs: 15_000,
    // Public instances allow a few calls per second per IP; a history is a handful of calls.
    cache: { ttlMs: 10_000, maxEntries: 500 },
    errorMessage: ({ status, label }) => `Blockscout answered ${label} with HTTP ${status}.`,
    ...options,
  })

  /** One GET; `undefined` body on a 404 (nothing known of the address or transaction). */
  async function get(path: string, label: string, query?: Record<string, string>) {
    const answer = await client.json({ method: 'GET', path, label, accept: [404], ...(query ? { query } : {}) })
    if (!answer.ok) return answer
    return { ok: true as const, found: answer.status !== 404, body: answer.body }
  }

  /** Up to `limit` items of a paged list, following `next_page_params`; whether the list ended within them. */
  async function list(
    path: string,
    label: string,
    limit: number,
  ): Promise<Upstream.Outcome<{ items: unknown[]; ended: boolean }>> {
    const items: unknown[] = []
    let query: Record<string, string> | undefined
    for (;;) {
      const answer = await get(path, label, query)
      if (!answer.ok) return answer
      if (!answer.found) return { ok: true, items, ended: true }
      const body = fieldsOf(answer.body)
      if (!Array.isArray(body.items)) return client.fail('failed', `Blockscout answered ${label} without items.`)
      items.push(...body.items)
      const nextPage = body.next_page_params
      const ended = typeof nextPage !== 'object' || nextPage === null
      if (ended || items.length >= limit)
        return { ok: true, items: items.slice(0, limit), ended: ended && items.length <= limit }
      query = Object.fromEntries(Object.entries(nextPage).map(([key, value]) => [key, String(value)]))
    }
  }

  return {
    source: 'blockscout',

    async transactions(address, limit) {
      const base = `/api/v2/addresses/${address}`
      const [sent, moved] = await Promise.all([
        list(`${base}/transactions`, 'the address transactions', limit),
        list(`${base}/token-transfers`, 'the address token transfers', limit),
      ])
      if (!sent.ok) return sent
      if (!moved.ok) return moved
      const read = client.read(() => ({
        transactions: sent.items.flatMap((item) => {
          const transaction = transactionOf(item)
          return transaction ? [transaction] : []
        }),
        transfers: moved.items.flatMap((item) => {
          const transfer = transferOf(item)
          return transfer ? [transfer] : []
        }),
      }))
      if (!('transactions' in read)) return read
      const byHash = new Map(read.transactions.map((transaction) => [transaction.hash, transaction]))
      // A transaction that only moved the address's tokens is not in its transaction list: read it by hash.
      const missing = [...new Set(read.transfers.map(({ hash }) => hash))].filter((hash) => !byHash.has(hash))
      for (const hash of missing) {
        const answer = await get(`/api/v2/transactions/${hash}`, 'a transaction')
        if (!answer.ok) return answer
        if (!answer.found)
          return client.fail('failed', `Blockscout listed a transfer of transaction ${hash} it cannot show.`)
        const transaction = client.read(() => ({ transaction: transactionOf(answer.body) }))
        if (!('transaction' in transaction)) return transaction
        if (transaction.transaction) byHash.set(hash, transaction.transaction)
      }
      const transactions = [...byHash.values()]
        .map((transaction) => ({
          ...transaction,
          transfers: read.transfers
            .filter(({ hash }) => hash === transaction.hash)
            .map(({ hash: _, ...transfer }) => transfer)
            .sort((left, right) => left.logIndex - right.logIndex),
        }))
        .sort((left, right) =>
          left.blockNumber === right.blockNumber
            ? right.position - left.position
            : left.blockNumber < right.blockNumber
              ? 1
              : -1,
        )
      return {
        ok: true,
        transactions: transactions.slice(0, limit),
        complete: sent.ended && moved.ended && transactions.length <= limit,
        head: null,
      }
    },

    async account(address) {
      const [info, counters] = await Promise.all([
        get(`/api/v2/addresses/${address}`, 'the address'),
        get(`/api/v2/addresses/${address}/counters`, 'the address counters'),
      ])
      if (!info.ok) return info
      if (!counters.ok) return counters
      if (!info.found)
        return {
          ok: true,
          account: {
            seen: false,
            isContract: null,
            creator: null,
            creationTransaction: null,
            proxyType: null,
            implementations: [],
            transactionCount: 0,
            transferCount: 0,
          },
        }
      return client.read(() => {
        const body = fieldsOf(info.body)
        const counted = counters.found ? fieldsOf(counters.body) : {}
        const implementations = Array.isArray(body.implementations) ? body.implementations : []
        return {
          ok: true,
          account: {
            seen: true,
            isContract: typeof body.is_contract === 'boolean' ? body.is_contract : null,
            creator: optionalAddress(body.creator_address_hash, 'creator_address_hash'),
            creationTransaction: optionalHash(body.creation_transaction_hash, 'creation_transaction_hash'),
            proxyType: typeof body.proxy_type === 'string' ? body.proxy_type : null,
            implementations: implementations.map((item) =>
              addressOf(fieldsOf(item).address_hash, 'implementations.address_hash'),
            ),
            transactionCount: optionalCount(counted.transactions_count, 'transactions_count'),
            transferCount: optionalCount(counted.token_transfers_count, 'token_transfers_count'),
          },
        }
      })
    },

    available: () => client.available(),
  }
}

/** A transaction of Blockscout's `transactions` lists and `/transactions/{hash}`; `undefined` while it is pending. */
function transactionOf(item: unknown): Omit<History.Transaction, 'transfers'> | undefined {
  const fields = fieldsOf(item)
  // `status` is null until the transaction is mined.
  if (fields.status !== 'ok' && fields.status !== 'error') return undefined
  const to = fieldsOf(fields.to).hash
  const created = fieldsOf(fields.created_contract).hash
  return {
    hash: hashOf(fields.hash, 'hash'),
    blockNumber: BigInt(countOf(fields.block_number, 'block_number')),
    position: countOf(fields.position, 'position'),
    timestamp: timeOf(fields.timestamp),
    from: addressOf(fieldsOf(fields.from).hash, 'from.hash'),
    to: to == null ? null : addressOf(to, 'to.hash'),
    created: created == null ? null : addressOf(created, 'created_contract.hash'),
    value: weiOf(fields.value, 'value'),
    status: fields.status === 'ok' ? 'success' : 'reverted',
    input: isHex(fields.raw_input) ? fields.raw_input : unreadable('raw_input'),
    fee: weiOf(fieldsOf(fields.fee).value, 'fee.value'),
  }
}

/** An ERC-20 transfer of the `token-transfers` list with its transaction's hash; `undefined` for other standards. */
function transferOf(item: unknown): (History.TokenTransfer & { hash: Hex }) | undefined {
  const fields = fieldsOf(item)
  const token = fieldsOf(fields.token)
  if (token.type !== 'ERC-20') return undefined
  const decimals = token.decimals == null ? null : countOf(token.decimals, 'token.decimals')
  return {
    hash: hashOf(fields.transaction_hash, 'transaction_hash'),
    token: addressOf(token.address_hash, 'token.address_hash'),
    symbol: typeof token.symbol === 'string' ? token.symbol : null,
    decimals,
    from: addressOf(fieldsOf(fields.from).hash, 'from.hash'),
    to: addressOf(fieldsOf(fields.to).hash, 'to.hash'),
    amount: weiOf(fieldsOf(fields.total).value, 'total.value'),
    logIndex: countOf(fields.log_index, 'log_index'),
  }
}

function unreadable(field: string): never {
  throw new UnreadableAnswerError(`Blockscout answered without a readable ${field}.`)
}

function addressOf(value: unknown, field: string): Address {
  return typeof value === 'string' && isAddress(value, { strict: false }) ? getAddress(value) : unreadable(field)
}

function optionalAddress(value: unknown, field: string): Address | null {
  return value == null ? null : addressOf(value, field)
}

function hashOf(value: unknown, field: string): Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)
    ? (value.toLowerCase() as Hex)
    : unreadable(field)
}

function optionalHash(value: unknown, field: string): Hex | null {
  return value == null ? null : hashOf(value, field)
}

/** A non-negative integer, as Blockscout writes it: a number, or a decimal string. */
function countOf(value: unknown, field: string): number {
  const text = typeof value === 'number' ? String(value) : value
  return typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : unreadable(field)
}

function optionalCount(value: unknown, field: string): number | null {
  return value == null ? null : countOf(value, field)
}

/** An amount in atomic units, a decimal string. */
function weiOf(value: unknown, field: string): bigint {
  return typeof value === 'string' && /^\d{1,78}$/.test(value) ? BigInt(value) : unreadable(field)
}

/** An ISO 8601 timestamp, in seconds since the Unix epoch. */
function timeOf(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN
  return Number.isNaN(ms) ? unreadable('timestamp') : Math.floor(ms / 1000)
}

export declare namespace blockscout {
  type Parameters = vendor.Options & {
    /** Base URL of the instance, e.g. `https://base.blockscout.com`. */
    url: string
  }
}
