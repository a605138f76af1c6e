import { type Address, checksumAddress, type Hex, type PublicClient } from 'viem'
import type * as History from '../../core/History.js'
import type * as TokenList from '../../core/TokenList.js'
import * as TxDecode from '../../core/TxDecode.js'
import type * as Upstream from '../../core/Upstream.js'

/**
 * A history of our own: scans the chain's blocks (full transactions, their receipts, their ERC-20 `Transfer` logs)
 * from genesis, in memory, and keeps every transaction by the addresses it touches. Each query first catches up from
 * the last block scanned, at most `maxBlocksPerCall` blocks per query; queries that arrive together share one
 * catch-up. Meant for the devnet, whose chain is short; a chain reorganization is not followed.
 */
export function indexer(parameters: indexer.Parameters): History.History {
  const { client, tokens, maxBlocksPerCall = 2_000, concurrency = 8 } = parameters
  const listed = new Map(tokens.map((token) => [token.address.toLowerCase(), token]))
  /** Every transaction scanned, in chain order. */
  const scanned: Scanned[] = []
  /** Positions in `scanned` of the transactions of each address (lowercase), in chain order. */
  const byAddress = new Map<string, number[]>()
  /** Creator and creating transaction of each contract created by a top-level transaction (lowercase). */
  const creations = new Map<string, { creator: Address; transaction: Hex }>()
  /** Symbol and decimals of every token seen, by address (lowercase). */
  const metadata = new Map<string, TxDecode.Metadata>()
  /** The next block to scan. */
  let next = 0n
  let running: Promise<Upstream.Outcome<{ head: bigint }>> | undefined

  /** One catch-up, shared by every query that arrives while it runs. */
  function catchUp(): Promise<Upstream.Outcome<{ head: bigint }>> {
    if (!running)
      running = scan().finally(() => {
        running = undefined
      })
    return running
  }

  async function scan(): Promise<Upstream.Outcome<{ head: bigint }>> {
    try {
      const head = await client.getBlockNumber({ cacheTime: 0 })
      const last = head < next + BigInt(maxBlocksPerCall) - 1n ? head : next + BigInt(maxBlocksPerCall) - 1n
      while (next <= last) {
        const count = Number(last - next + 1n < BigInt(concurrency) ? last - next + 1n : BigInt(concurrency))
        const numbers = Array.from({ length: count }, (_, index) => next + BigInt(index))
        // Read a few blocks at once, record them in order: `next` only ever moves past a block fully recorded.
        const blocks = await Promise.all(numbers.map(read))
        for (const block of blocks) await record(block)
        next += BigInt(count)
      }
      return { ok: true, head: next - 1n }
    } catch (error) {
      const message = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : ''
      return {
        ok: false,
        reason: 'failed',
        status: undefined,
        message: `The indexer could not read block ${next}: ${message.split('\n')[0]}`,
      }
    }
  }

  /** A block with its transactions and their receipts (one by one: EDR has no `eth_getBlockReceipts`). */
  async function read(number: bigint) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true })
    const receipts = await Promise.all(block.transactions.map(({ hash }) => client.getTransactionReceipt({ hash })))
    return { block, receipts }
  }

  async function record({ block, receipts }: Awaited<ReturnType<typeof read>>): Promise<void> {
    const byHash = new Map(receipts.map((receipt) => [receipt.transactionHash, receipt]))
    const entries: { transaction: Scanned; parties: Set<string> }[] = []
    for (const tx of block.transactions) {
      const receipt = byHash.get(tx.hash)
      if (!receipt) throw new Error(`no receipt of ${tx.hash}`)
      const events = receipt.logs.map((log) =>
        TxDecode.decodeLog({
          address: checksumAddress(log.address),
          topics: log.topics,
          data: log.data,
          logIndex: log.logIndex,
        }),
      )
      const transfers = TxDecode.transfersOf(events).filter((transfer) => transfer.standard === 'erc20')
      const created = receipt.contractAddress ? checksumAddress(receipt.contractAddress) : null
      const from = checksumAddress(tx.from)
      if (created) creations.set(created.toLowerCase(), { creator: from, transaction: tx.hash })
      const parties = new Set(
        [from, tx.to, created].filter((party) => party != null).map((party) => party.toLowerCase()),
      )
      for (const transfer of transfers) parties.add(transfer.from.toLowerCase()).add(transfer.to.toLowerCase())
      entries.push({
        parties,
        transaction: {
          hash: tx.hash,
          blockNumber: block.number,
          position: tx.transactionIndex,
          timestamp: Number(block.timestamp),
          from,
          to: tx.to ? checksumAddress(tx.to) : null,
          created,
          value: tx.value,
          status: receipt.status,
          input: tx.input,
          fee: receipt.gasUsed * receipt.effectiveGasPrice,
          transfers: transfers.map(({ token, from, to, amount, logIndex }) => ({ token, from, to, amount, logIndex })),
        },
      })
    }
    await learn(entries.flatMap(({ transaction }) => transaction.transfers.map(({ token }) => token)))
    for (const { transaction, parties } of entries) {
      const position = scanned.push(transaction) - 1
      for (const party of parties) {
        const list = byAddress.get(party)
        if (list) list.push(position)
        else byAddress.set(party, [position])
      }
    }
  }

  /** Symbol and decimals of tokens not seen before: the token list's, else what the token answers. */
  async function learn(seen: readonly Address[]): Promise<void> {
    const unknown = [...new Set(seen)].filter((token) => !metadata.has(token.toLowerCase()))
    const unlisted = unknown.filter((token) => {
      const entry = listed.get(token.toLowerCase())
      if (entry) metadata.set(token.toLowerCase(), { symbol: entry.symbol, decimals: entry.decimals })
      return !entry
    })
    if (unlisted.length === 0) return
    const answer = await client.call({ to: TxDecode.multicall3, data: TxDecode.metadataCalldata(unlisted) })
    const found = answer.data
      ? TxDecode.metadataOf(unlisted, answer.data)
      : new Map(unlisted.map((token) => [token, { symbol: null, decimals: null }]))
    for (const [token, value] of found) metadata.set(token.toLowerCase(), value)
  }

  /** The scanned transactions of `address`, in chain order. */
  function of(address: Address): Scanned[] {
    return (byAddress.get(address.toLowerCase()) ?? []).map((position) => scanned[position]!)
  }

  return {
    source: 'indexer',

    async transactions(address, limit) {
      const caught = await catchUp()
      if (!caught.ok) return caught
      const all = of(address)
      const party = address.toLowerCase()
      const transactions = all
        .slice(-limit)
        .reverse()
        .map(
          (transaction): History.Transaction => ({
            ...transaction,
            transfers: transaction.transfers
              .filter(({ from, to }) => from.toLowerCase() === party || to.toLowerCase() === party)
              .map((transfer) => ({ ...transfer, ...metadata.get(transfer.token.toLowerCase())! })),
          }),
        )
      return { ok: true, transactions, complete: all.length <= limit, head: caught.head }
    },

    async account(address) {
      const caught = await catchUp()
      if (!caught.ok) return caught
      const all = of(address)
      const party = address.toLowerCase()
      const creation = creations.get(party)
      return {
        ok: true,
        account: {
          seen: all.length > 0,
          isContract: null,
          creator: creation?.creator ?? null,
          creationTransaction: creation?.transaction ?? null,
          proxyType: null,
          implementations: [],
          transactionCount: all.length,
          transferCount: all.reduce(
            (sum, { transfers }) =>
              sum +
              transfers.filter(({ from, to }) => from.toLowerCase() === party || to.toLowerCase() === party).length,
            0,
          ),
        },
      }
    },

    available: () => ({ ok: true }),
  }
}

/** A scanned transaction: every ERC-20 transfer it emitted, without token metadata (kept once per token). */
type Scanned = Omit<History.Transaction, 'transfers'> & {
  /** Every ERC-20 transfer it emitted. */
  transfers: readonly Omit<History.TokenTransfer, 'symbol' | 'decimals'>[]
}

export declare namespace indexer {
  type Parameters = {
    /** The chain scanned. */
    client: PublicClient
    /** Tokens whose symbol and decimals are known without asking them. */
    tokens: readonly TokenList.Listed[]
    /** Most blocks one query scans before it answers. @default 2_000 */
    maxBlocksPerCall?: number
    /** Blocks read at once. @default 8 */
    concurrency?: number
  }
}
