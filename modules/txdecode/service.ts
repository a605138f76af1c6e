import { type Address, checksumAddress, type Hex, type RpcTransaction, type RpcTransactionReceipt } from 'viem'
import * as Cache from '../../core/Cache.js'
import { NotFoundError } from '../../core/Errors.js'
import type { Token } from '../../core/Module.js'
import * as Rpc from '../../core/Rpc.js'
import * as TxDecode from '../../core/TxDecode.js'
import * as Upstream from '../../core/Upstream.js'
import type { DecodeQuery } from './schema.js'

/** What the decoder needs from outside. */
export type Deps = {
  /** The settlement chain, read over JSON-RPC. */
  endpoint: Rpc.Endpoint
  /** Tokens the gateway knows, used when a token does not answer `symbol` or `decimals`. */
  tokens: readonly Token[]
  /** Symbol and decimals of the tokens read in the last {@link metadataTtlMs}, by address. */
  metadata: Cache.Cache<TxDecode.Metadata>
}

/** How long a token's symbol and decimals are served again, in ms: they are set once when the token is deployed. */
export const metadataTtlMs = 3_600_000

/** The decoder's dependencies on the settlement chain's `endpoint`. */
export function from(parameters: { endpoint: Rpc.Endpoint; tokens: readonly Token[] }): Deps {
  return { ...parameters, metadata: Cache.create({ ttlMs: metadataTtlMs, maxEntries: 10_000 }) }
}

/** Reads the transaction `hash` and its receipt on the settlement chain and decodes them. */
export async function decode(deps: Deps, input: DecodeQuery): Promise<TxDecode.Decoded> {
  const hash = input.hash.toLowerCase() as Hex
  const [transaction, receipt] = (await Promise.all([
    Rpc.result(deps.endpoint, 'eth_getTransactionByHash', [hash]),
    Rpc.result(deps.endpoint, 'eth_getTransactionReceipt', [hash]),
  ])) as [RpcTransaction | null, RpcTransactionReceipt | null]
  if (!transaction) throw new NotFoundError(`No transaction ${hash} on ${deps.endpoint.name}.`)
  if (!receipt) throw new NotFoundError(`Transaction ${hash} on ${deps.endpoint.name} is not mined yet.`)
  const mined = TxDecode.minedOf(transaction, receipt)
  const events = mined.logs.map(TxDecode.decodeLog)
  const tokens = [...new Set(TxDecode.transfersOf(events).map(({ token }) => token))]
  return TxDecode.decode({ mined, events, metadata: await metadata(deps, tokens) })
}

/**
 * Symbol and decimals of `tokens`: from the cache, else in one Multicall3 call (what answered is cached); the
 * gateway's own tokens fill in what did not answer.
 */
async function metadata(deps: Deps, tokens: readonly Address[]): Promise<Map<Address, TxDecode.Metadata>> {
  const found = new Map<Address, TxDecode.Metadata>()
  for (const token of tokens) {
    const cached = deps.metadata.get(token)
    if (cached) found.set(token, cached)
  }
  const unread = tokens.filter((token) => !found.has(token))
  if (unread.length > 0) {
    const answer = await deps.endpoint.request('eth_call', [
      { to: TxDecode.multicall3, data: TxDecode.metadataCalldata(unread) },
      'latest',
    ])
    const read =
      !Upstream.isFailure(answer) && answer.ok && typeof answer.result === 'string'
        ? TxDecode.metadataOf(unread, answer.result as Hex)
        : new Map(unread.map((token) => [token, { symbol: null, decimals: null }]))
    for (const [token, answered] of read) {
      found.set(token, answered)
      if (answered.symbol !== null || answered.decimals !== null) deps.metadata.set(token, answered)
    }
  }
  for (const token of deps.tokens) {
    const known = found.get(checksumAddress(token.address))
    if (known && known.symbol === null && known.decimals === null)
      found.set(checksumAddress(token.address), { symbol: token.symbol, decimals: token.decimals })
  }
  return found
}
