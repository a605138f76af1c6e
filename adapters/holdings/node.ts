import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc721Abi,
  erc1155Abi,
  getAddress,
  type Hex,
  hexToNumber,
  type PublicClient,
  pad,
  toEventSelector,
} from 'viem'
import * as Balances from '../../core/Balances.js'
import type * as Holdings from '../../core/Holdings.js'
import * as Multicall3 from '../../core/Multicall3.js'
import type * as TokenList from '../../core/TokenList.js'
import * as TxDecode from '../../core/TxDecode.js'
import type * as Upstream from '../../core/Upstream.js'

/** `Transfer(address,address,uint256)`: ERC-20 (3 topics) and ERC-721 (4 topics) alike. */
const transferTopic = toEventSelector('event Transfer(address indexed from, address indexed to, uint256 value)')
/** ERC-1155 `TransferSingle` and `TransferBatch`, whose recipient is their fourth topic. */
const multiTopics = [
  toEventSelector(
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  ),
  toEventSelector(
    'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  ),
]

/**
 * The holdings of an address read from a node alone: every token that ever came to it (its `Transfer`,
 * `TransferSingle` and `TransferBatch` logs from genesis, by `eth_getLogs` on the recipient topic), then what it still
 * holds, in one Multicall3 `aggregate3` `eth_call`: ERC-20 `balanceOf` (with `symbol` and `decimals` of a token not
 * listed), ERC-721 `ownerOf` and `tokenURI`, ERC-1155 `balanceOf` and `uri`, and each collection's `name` and
 * `symbol`. Logs from genesis suit a short chain (the devnet); public nodes refuse such ranges. Nothing is priced here.
 */
export function node(parameters: node.Parameters): Holdings.Network {
  const { client, chain, chainId, native, tokens: listed, pageSize = 50 } = parameters

  /** Every token transfer to `address`, in chain order. */
  async function received(address: Address): Promise<TxDecode.Transfer[]> {
    const recipient = pad(address.toLowerCase() as Hex)
    const queries = [
      [[transferTopic], null, recipient],
      [multiTopics, null, null, recipient],
    ]
    const found = await Promise.all(
      queries.map((topics) =>
        client.request({
          method: 'eth_getLogs',
          params: [{ fromBlock: '0x0', toBlock: 'latest', topics: topics as never }],
        }),
      ),
    )
    const logs = found
      .flat()
      .sort((left, right) =>
        left.blockNumber === right.blockNumber
          ? hexToNumber(left.logIndex!) - hexToNumber(right.logIndex!)
          : hexToNumber(left.blockNumber!) - hexToNumber(right.blockNumber!),
      )
    const events = logs.map((log) =>
      TxDecode.decodeLog({
        address: getAddress(log.address),
        topics: log.topics,
        data: log.data,
        logIndex: hexToNumber(log.logIndex!),
      }),
    )
    return TxDecode.transfersOf(events).filter((transfer) => transfer.to.toLowerCase() === address.toLowerCase())
  }

  /** `calls` in one `aggregate3` `eth_call`, each allowed to fail: each one's return data, or `undefined`. */
  async function aggregate(calls: readonly { target: Address; callData: Hex }[]): Promise<(Hex | undefined)[]> {
    if (calls.length === 0) return []
    const data = Multicall3.encodeAggregate3(calls.map((call) => ({ ...call, allowFailure: true })))
    const answer = await client.call({ to: Multicall3.address, data })
    const results = Multicall3.decodeAggregate3(answer.data ?? '0x')
    return results.map((result) => (result.success && result.returnData !== '0x' ? result.returnData : undefined))
  }

  /** Every ERC-20 token `address` holds now: the listed ones first, in list order, then the others as they came. */
  async function heldTokens(address: Address): Promise<Holdings.Token[]> {
    const known = new Set(listed.map((token) => token.address.toLowerCase()))
    const unlisted = [
      ...new Set(
        (await received(address))
          .filter((transfer) => transfer.standard === 'erc20' && !known.has(transfer.token.toLowerCase()))
          .map((transfer) => getAddress(transfer.token)),
      ),
    ]
    const answer = await client.call({
      to: Multicall3.address,
      data: Balances.calldata({ wallet: address, listed, unlisted }),
    })
    const read = Balances.decode({ data: answer.data ?? '0x', listed, unlisted })
    if (!read) throw new Error('the node did not answer the Multicall3 balance read')
    const token = (entry: { address: Address; symbol: string; decimals: number; name?: string | undefined }) => ({
      address: entry.address,
      name: entry.name ?? null,
      symbol: entry.symbol,
      decimals: entry.decimals,
      logo: null,
      usd: null,
    })
    return [
      ...read.listed.flatMap((entry) => (entry.raw ? [{ ...token(entry), balance: entry.raw }] : [])),
      ...read.unlisted.flatMap((entry) =>
        entry.ok && entry.raw > 0n ? [{ ...token(entry), balance: entry.raw }] : [],
      ),
    ]
  }

  /** Every NFT `address` holds now, in the order they came. */
  async function heldNfts(address: Address): Promise<Holdings.Nft[]> {
    const seen = new Map<string, TxDecode.Transfer>()
    for (const transfer of await received(address))
      if (transfer.standard !== 'erc20') seen.set(`${transfer.token.toLowerCase()}:${transfer.tokenId}`, transfer)
    const candidates = [...seen.values()]
    const contracts = [...new Set(candidates.map((candidate) => getAddress(candidate.token)))]
    const call = (target: Address, callData: Hex) => ({ target, callData })
    const results = await aggregate([
      ...contracts.flatMap((contract) => [
        call(contract, encodeFunctionData({ abi: erc721Abi, functionName: 'name' })),
        call(contract, encodeFunctionData({ abi: erc721Abi, functionName: 'symbol' })),
      ]),
      ...candidates.flatMap(({ token, tokenId, standard }) =>
        standard === 'erc721'
          ? [
              call(token, encodeFunctionData({ abi: erc721Abi, functionName: 'ownerOf', args: [tokenId!] })),
              call(token, encodeFunctionData({ abi: erc721Abi, functionName: 'tokenURI', args: [tokenId!] })),
            ]
          : [
              call(
                token,
                encodeFunctionData({ abi: erc1155Abi, functionName: 'balanceOf', args: [address, tokenId!] }),
              ),
              call(token, encodeFunctionData({ abi: erc1155Abi, functionName: 'uri', args: [tokenId!] })),
            ],
      ),
    ])
    const decoded = <value>(read: () => value): value | undefined => {
      try {
        return read()
      } catch {
        return undefined
      }
    }
    const text = (data: Hex | undefined, functionName: 'name' | 'symbol' | 'tokenURI') =>
      data === undefined ? null : (decoded(() => decodeFunctionResult({ abi: erc721Abi, functionName, data })) ?? null)
    const collections = new Map(
      contracts.map((contract, index) => [
        contract,
        { name: text(results[2 * index], 'name'), symbol: text(results[2 * index + 1], 'symbol') },
      ]),
    )
    return candidates.flatMap(({ token, tokenId, standard }, index): Holdings.Nft[] => {
      const [held, uri] = [results[2 * contracts.length + 2 * index], results[2 * contracts.length + 2 * index + 1]]
      if (held === undefined) return []
      const amount =
        standard === 'erc721'
          ? decoded(() =>
              decodeFunctionResult({ abi: erc721Abi, functionName: 'ownerOf', data: held }),
            )?.toLowerCase() === address.toLowerCase()
            ? 1n
            : 0n
          : (decoded(() => decodeFunctionResult({ abi: erc1155Abi, functionName: 'balanceOf', data: held })) ?? 0n)
      if (amount === 0n) return []
      const collection = collections.get(getAddress(token))!
      return [
        {
          contract: getAddress(token),
          standard: standard === 'erc721' ? 'ERC-721' : 'ERC-1155',
          tokenId: tokenId!,
          amount,
          collectionName: collection.name,
          collectionSymbol: collection.symbol,
          tokenUri: text(uri, 'tokenURI') || null,
          metadata: null,
          image: null,
        },
      ]
    })
  }

  /** One page of `all`, from the offset `cursor`; a node failure as data. */
  async function page<item>(
    all: () => Promise<item[]>,
    what: string,
    cursor: string | undefined,
  ): Promise<Upstream.Outcome<Holdings.Page<item>>> {
    const offset = cursor === undefined ? 0 : Number(cursor)
    try {
      const items = await all()
      const end = offset + pageSize
      return { ok: true, items: items.slice(offset, end), next: end < items.length ? String(end) : null }
    } catch (error) {
      return failure(what, error)
    }
  }

  return {
    chain,
    chainId,
    native,
    source: 'node',
    async balance(address) {
      try {
        return { ok: true, balance: await client.getBalance({ address }), usd: null }
      } catch (error) {
        return failure('the balance', error)
      }
    },
    tokens: (address, cursor) => page(() => heldTokens(address), 'the tokens', cursor),
    nfts: (address, cursor) => page(() => heldNfts(address), 'the NFTs', cursor),
    isCursor: (cursor) => /^\d{1,9}$/.test(cursor),
    available: () => ({ ok: true }),
  }
}

/** A node that could not be read, as an upstream failure. */
function failure(what: string, error: unknown): Upstream.Failure {
  const message = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : ''
  return {
    ok: false,
    reason: 'failed',
    status: undefined,
    message: `The node could not read ${what}: ${message.split('\n')[0]}`,
  }
}

export declare namespace node {
  type Parameters = {
    /** The chain's node. */
    client: PublicClient
    /** Our name of the chain, e.g. `base`. */
    chain: string
    /** EIP-155 id of the chain. */
    chainId: number
    /** Its native coin. */
    native: Holdings.Coin
    /** Tokens whose symbol and decimals are known without asking them. */
    tokens: readonly TokenList.Listed[]
    /** Items per page. @default 50 */
    pageSize?: number
  }
}
