import type { Address, Hex } from 'viem'

/**
 * A stand-in Blockscout instance on 127.0.0.1 speaking the REST API v2 shapes of blockscout/blockscout
 * (`API.V2.AddressView`, `TransactionView.prepare_transaction`, `prepare_token_transfer`, `TokenView` `token.json`,
 * `Helper.address_with_info`): `/api/v2/addresses/{hash}`, `.../transactions`, `.../token-transfers` (50 items a page,
 * `next_page_params` to the next), `.../counters`, `/api/v2/transactions/{hash}`. An address it holds no record of is
 * a 404 `{"message":"Not found"}`, as Blockscout answers it.
 */
export function startBlockscout() {
  const addresses = new Map<string, AddressRecord>()
  const transactions: TransactionRecord[] = []
  const transfers: TransferRecord[] = []
  const state = {
    /** Status every request answers instead, when set (an outage). */
    failWith: undefined as number | undefined,
    /** Requests seen, as path and query. */
    seen: [] as URL[],
  }
  const pageSize = 50

  const party = (hash: Address) => ({
    hash,
    is_contract: addresses.get(hash.toLowerCase())?.isContract ?? false,
    name: null,
    is_scam: false,
    proxy_type: null,
    implementations: [],
    is_verified: false,
    ens_domain_name: null,
    metadata: null,
    private_tags: [],
    watchlist_names: [],
    public_tags: [],
  })
  const involves = (hash: string, ...parties: (string | null)[]) =>
    parties.some((candidate) => candidate?.toLowerCase() === hash.toLowerCase())
  /** Newest first: block, then position or log index, as Blockscout sorts. */
  const newestFirst = <item extends { block: number; order: number }>(items: item[]) =>
    [...items].sort((left, right) => right.block - left.block || right.order - left.order)

  function renderTransaction(record: TransactionRecord) {
    return {
      hash: record.hash,
      result: record.status === 'ok' ? 'success' : 'Reverted',
      status: record.status,
      block_number: record.block,
      timestamp: record.timestamp,
      confirmations: 10,
      confirmation_duration: [0, 2000],
      from: party(record.from),
      to: record.to ? party(record.to) : null,
      created_contract: record.created ? party(record.created) : null,
      value: record.value,
      fee: { type: 'actual', value: record.fee },
      gas_price: '1000000000',
      type: 2,
      gas_used: '21000',
      gas_limit: '21000',
      max_fee_per_gas: '2000000000',
      max_priority_fee_per_gas: '1000000',
      base_fee_per_gas: '999000000',
      priority_fee: '21000000000',
      transaction_burnt_fee: '20979000000000',
      nonce: 0,
      position: record.order,
      revert_reason: null,
      raw_input: record.input,
      decoded_input: null,
      token_transfers: null,
      token_transfers_overflow: null,
      actions: [],
      exchange_rate: '3000.12',
      historic_exchange_rate: null,
      method: record.input === '0x' ? null : record.input.slice(0, 10),
      transaction_types: record.input === '0x' ? ['coin_transfer'] : ['contract_call'],
      transaction_tag: null,
      has_error_in_internal_transactions: false,
      authorization_list: [],
    }
  }

  function renderTransfer(record: TransferRecord) {
    return {
      transaction_hash: record.hash,
      from: party(record.from),
      to: party(record.to),
      total: { value: record.value, decimals: record.token.decimals },
      token: {
        address_hash: record.token.address,
        symbol: record.token.symbol,
        name: record.token.name,
        decimals: record.token.decimals,
        type: record.token.type,
        holders_count: '1000',
        exchange_rate: null,
        volume_24h: null,
        total_supply: '1000000000000',
        icon_url: null,
        circulating_market_cap: null,
        reputation: 'ok',
      },
      type: 'token_transfer',
      timestamp: record.timestamp,
      method: 'transfer',
      block_hash: `0x${record.block.toString(16).padStart(64, '0')}`,
      block_number: record.block,
      log_index: record.order,
    }
  }

  /** One page of `items` after the cursor of `query`; the cursor of the next page, if any. */
  function page<item extends { block: number; order: number }>(items: item[], query: URLSearchParams) {
    const block = query.get('block_number')
    const index = query.get('index')
    const after =
      block === null
        ? items
        : items.filter(
            (item) => item.block < Number(block) || (item.block === Number(block) && item.order < Number(index)),
          )
    const slice = after.slice(0, pageSize)
    const last = slice.at(-1)
    const next =
      after.length > pageSize && last ? { block_number: last.block, index: last.order, items_count: pageSize } : null
    return { slice, next }
  }

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      state.seen.push(url)
      if (state.failWith) return new Response('<html>Bad Gateway</html>', { status: state.failWith })
      const notFound = () => Response.json({ message: 'Not found' }, { status: 404 })
      const transaction = url.pathname.match(/^\/api\/v2\/transactions\/(0x[0-9a-fA-F]{64})$/)
      if (transaction) {
        const record = transactions.find((candidate) => candidate.hash === transaction[1]!.toLowerCase())
        return record ? Response.json(renderTransaction(record)) : notFound()
      }
      const match = url.pathname.match(/^\/api\/v2\/addresses\/(0x[0-9a-fA-F]{40})(\/[a-z-]+)?$/)
      if (!match) return notFound()
      const hash = match[1]!
      const record = addresses.get(hash.toLowerCase())
      if (!record) return notFound()
      switch (match[2]) {
        case undefined:
          return Response.json({
            ...party(record.hash),
            proxy_type: record.proxyType,
            implementations: record.implementations.map((address) => ({ address_hash: address, name: null })),
            creator_address_hash: record.creator,
            creation_transaction_hash: record.creationTransaction,
            creation_status: record.creator ? 'success' : null,
            token: null,
            coin_balance: '1000000000000000000',
            exchange_rate: '3000.12',
            block_number_balance_updated_at: 100,
            has_validated_blocks: false,
            has_logs: false,
            has_tokens: true,
            has_token_transfers: true,
            watchlist_address_id: null,
            has_beacon_chain_withdrawals: false,
          })
        case '/counters': {
          const sent = transactions.filter((item) => involves(hash, item.from, item.to, item.created))
          const moved = transfers.filter((item) => involves(hash, item.from, item.to))
          return Response.json({
            transactions_count: String(sent.length),
            token_transfers_count: String(moved.length),
            gas_usage_count: String(sent.length * 21_000),
            validations_count: '0',
          })
        }
        case '/transactions': {
          const own = newestFirst(transactions.filter((item) => involves(hash, item.from, item.to, item.created)))
          const { slice, next } = page(own, url.searchParams)
          return Response.json({ items: slice.map(renderTransaction), next_page_params: next })
        }
        case '/token-transfers': {
          const own = newestFirst(transfers.filter((item) => involves(hash, item.from, item.to)))
          const { slice, next } = page(own, url.searchParams)
          return Response.json({ items: slice.map(renderTransfer), next_page_params: next })
        }
        default:
          return notFound()
      }
    },
  })

  return {
    /** Base URL of the instance. */
    url: `http://127.0.0.1:${server.port}`,
    state,
    /** Records an address Blockscout has indexed. */
    address(record: Partial<AddressRecord> & { hash: Address }) {
      addresses.set(record.hash.toLowerCase(), {
        isContract: false,
        proxyType: null,
        implementations: [],
        creator: null,
        creationTransaction: null,
        ...record,
      })
    },
    /** Records a mined transaction. */
    transaction(record: TransactionRecord) {
      transactions.push({ ...record, hash: record.hash.toLowerCase() as Hex })
    },
    /** Records a token transfer. */
    transfer(record: TransferRecord) {
      transfers.push({ ...record, hash: record.hash.toLowerCase() as Hex })
    },
    stop: () => server.stop(true),
  }
}

/** An address Blockscout has indexed. */
export type AddressRecord = {
  hash: Address
  isContract: boolean
  proxyType: string | null
  implementations: Address[]
  creator: Address | null
  creationTransaction: Hex | null
}

/** A transaction: `order` is its position in the block. */
export type TransactionRecord = {
  hash: Hex
  block: number
  order: number
  timestamp: string
  from: Address
  to: Address | null
  created: Address | null
  value: string
  fee: string
  status: 'ok' | 'error'
  input: Hex
}

/** A token transfer: `order` is its log index. */
export type TransferRecord = {
  hash: Hex
  block: number
  order: number
  timestamp: string
  from: Address
  to: Address
  value: string
  token: { address: Address; symbol: string; name: string; decimals: string; type: string }
}
