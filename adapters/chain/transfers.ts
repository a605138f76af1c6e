import { type PublicClient, parseAbiItem } from 'viem'
import type * as Transfers from '../../core/Transfers.js'

/** The ERC-20 event; `to` is indexed, so the node filters by recipient and only `value` is checked here. */
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/**
 * Finds ERC-20 transfers with `eth_getLogs`, one bounded block range per request (public nodes refuse wide
 * ranges), filtering by recipient on the node and by exact amount here. Block timestamps come from the logs when
 * the node includes them, otherwise from one `eth_getBlockByNumber` per block that holds a match.
 */
export function transfers(parameters: transfers.Parameters): Transfers.Transfers {
  const { client, pageSize = 10_000n } = parameters
  if (pageSize < 1n) throw new Error(`pageSize must be at least 1 block (got ${pageSize}).`)

  const blockNumber = () => client.getBlockNumber({ cacheTime: 0 })

  return {
    async find({ token, to, amount, fromBlock, toBlock }) {
      const last = toBlock ?? (await blockNumber())
      const found: Omit<Transfers.Transfer, 'blockTimestamp'>[] = []
      const timestamps = new Map<bigint, bigint>()
      for (let start = fromBlock; start <= last; start += pageSize) {
        const end = start + pageSize - 1n < last ? start + pageSize - 1n : last
        const logs = await client.getLogs({
          address: token,
          event: transferEvent,
          args: { to },
          fromBlock: start,
          toBlock: end,
          strict: true,
        })
        for (const log of logs) {
          if (log.removed || log.args.value !== amount) continue
          found.push({
            hash: log.transactionHash,
            from: log.args.from,
            blockNumber: log.blockNumber,
            logIndex: log.logIndex,
          })
          if (log.blockTimestamp !== undefined && log.blockTimestamp !== null)
            timestamps.set(log.blockNumber, log.blockTimestamp)
        }
      }
      for (const { blockNumber } of found)
        if (!timestamps.has(blockNumber))
          timestamps.set(blockNumber, (await client.getBlock({ blockNumber })).timestamp)
      // Nodes answer in chain order already; sorting keeps "first come, first served" independent of the node.
      return found
        .map((transfer) => ({ ...transfer, blockTimestamp: timestamps.get(transfer.blockNumber)! }))
        .sort((a, b) =>
          a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
        )
    },
    blockNumber,
  }
}

export declare namespace transfers {
  type Parameters = {
    /** Client of the chain the invoices are paid on. */
    client: Pick<PublicClient, 'getLogs' | 'getBlock' | 'getBlockNumber'>
    /** Most blocks one `eth_getLogs` request covers. @default 10_000n */
    pageSize?: bigint
  }
}
