import {
  type Address,
  checksumAddress,
  formatTransaction,
  formatTransactionReceipt,
  type Hex,
  type RpcTransaction,
  type RpcTransactionReceipt,
} from 'viem'
import { NotFoundError, RpcCallFailedError } from '../../core/Errors.js'
import type { Token } from '../../core/Module.js'
import type * as Rpc from '../../core/Rpc.js'
import * as TxDecode from '../../core/TxDecode.js'
import * as Upstream from '../../core/Upstream.js'
import type { DecodeQuery } from './schema.js'

/** What the decoder needs from outside. */
export type Deps = {
  /** The settlement chain, read over JSON-RPC. */
  endpoint: Rpc.Endpoint
  /** Tokens the gateway knows, used when a token does not answer `symbol` or `decimals`. */
  tokens: readonly Token[]
}

/** Reads the transaction `hash` and its receipt on the settlement chain and decodes them. */
export async function decode(deps: Deps, input: DecodeQuery): Promise<TxDecode.Decoded> {
  const hash = input.hash.toLowerCase() as Hex
  const transaction = (await request(deps, 'eth_getTransactionByHash', [hash])) as RpcTransaction | null
  if (!transaction) throw new NotFoundError(`No transaction ${hash} on ${deps.endpoint.name}.`)
  const receipt = (await request(deps, 'eth_getTransactionReceipt', [hash])) as RpcTransactionReceipt | null
  if (!receipt) throw new NotFoundError(`Transaction ${hash} on ${deps.endpoint.name} is not mined yet.`)
  const tx = formatTransaction(transaction)
  const mined = formatTransactionReceipt(receipt)
  const logs = mined.logs.map((log) => ({
    address: checksumAddress(log.address),
    topics: log.topics,
    data: log.data,
    logIndex: log.logIndex,
  }))
  const tokens = [...new Set(TxDecode.transfersOf(logs.map(TxDecode.decodeLog)).map(({ token }) => token))]
  return TxDecode.decode({
    mined: {
      hash: tx.hash,
      from: tx.from,
      to: tx.to ?? null,
      value: tx.value,
      input: tx.input,
      status: mined.status,
      gasUsed: mined.gasUsed,
      // A node that predates EIP-1559 receipts answers no effective price; the transaction's own price is what it paid.
      effectiveGasPrice: mined.effectiveGasPrice ?? tx.gasPrice ?? 0n,
      contractAddress: mined.contractAddress ?? null,
      blockNumber: mined.blockNumber,
      logs,
    },
    metadata: await metadata(deps, tokens),
  })
}

/** Symbol and decimals of `tokens` in one Multicall3 call; the gateway's own tokens fill in what did not answer. */
async function metadata(deps: Deps, tokens: readonly Address[]): Promise<Map<Address, TxDecode.Metadata>> {
  if (tokens.length === 0) return new Map()
  const answer = await deps.endpoint.request('eth_call', [
    { to: TxDecode.multicall3, data: TxDecode.metadataCalldata(tokens) },
    'latest',
  ])
  const found =
    !Upstream.isFailure(answer) && answer.ok && typeof answer.result === 'string'
      ? TxDecode.metadataOf(tokens, answer.result as Hex)
      : new Map(tokens.map((token) => [token, { symbol: null, decimals: null }]))
  for (const token of deps.tokens) {
    const known = found.get(checksumAddress(token.address))
    if (known && known.symbol === null && known.decimals === null)
      found.set(checksumAddress(token.address), { symbol: token.symbol, decimals: token.decimals })
  }
  return found
}

/** One JSON-RPC read; no answer or the node's own error is a fault of the upstream. */
async function request(deps: Deps, method: Rpc.Method, params: readonly unknown[]): Promise<unknown> {
  const answer = await deps.endpoint.request(method, params)
  if (Upstream.isFailure(answer)) throw Upstream.toError(answer)
  if (!answer.ok)
    throw new RpcCallFailedError(`${method} failed on ${deps.endpoint.name}: ${answer.message}`, {
      details: { rpcError: { code: answer.code, message: answer.message } },
    })
  return answer.result
}
