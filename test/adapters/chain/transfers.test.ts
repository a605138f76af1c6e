import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createWalletClient, encodeFunctionData, erc20Abi, type Hash, multicall3Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devnet, multicall3Address } from '../../../adapters/chain/devnet.js'
import { transfers } from '../../../adapters/chain/transfers.js'

let chain: devnet.Devnet

beforeAll(async () => {
  // Blocks only on transactions, so every transfer below has a block of its own.
  chain = await devnet()
})

afterAll(async () => {
  await chain.close()
})

function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

/** Sends `amount` devnet USDC from account `index` to `to`; resolves with the mined receipt. */
async function send(index: number, to: Address, amount: bigint) {
  const wallet = createWalletClient({
    account: privateKeyToAccount(chain.accounts[index]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
  const hash = await wallet.writeContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, amount],
  })
  return chain.publicClient.waitForTransactionReceipt({ hash })
}

async function timestampOf(blockNumber: bigint) {
  return (await chain.publicClient.getBlock({ blockNumber })).timestamp
}

describe('transfers.find', () => {
  test('default: transfers of exactly the amount to the recipient, in chain order, with sender, block and time', async () => {
    const to = freshAddress()
    const fromBlock = (await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    const first = await send(1, to, 5n)
    await send(2, to, 7n)
    await send(3, freshAddress(), 5n)
    const second = await send(4, to, 5n)

    const found = await transfers({ client: chain.publicClient }).find({
      token: chain.token.address,
      to,
      amount: 5n,
      fromBlock,
    })
    expect(found).toEqual([
      {
        hash: first.transactionHash,
        from: chain.accounts[1]!.address,
        blockNumber: first.blockNumber,
        blockTimestamp: await timestampOf(first.blockNumber),
        logIndex: first.logs[0]!.logIndex,
      },
      {
        hash: second.transactionHash,
        from: chain.accounts[4]!.address,
        blockNumber: second.blockNumber,
        blockTimestamp: await timestampOf(second.blockNumber),
        logIndex: second.logs[0]!.logIndex,
      },
    ])
  })

  test('behavior: fromBlock and toBlock bound the search, both inclusive', async () => {
    const to = freshAddress()
    const receipts = [await send(1, to, 9n), await send(1, to, 9n), await send(1, to, 9n)]
    const find = (fromBlock: bigint, toBlock?: bigint) =>
      transfers({ client: chain.publicClient }).find({ token: chain.token.address, to, amount: 9n, fromBlock, toBlock })
    const hashes = (found: { hash: Hash }[]) => found.map(({ hash }) => hash)
    const [a, b, c] = receipts.map((receipt) => receipt.transactionHash) as [Hash, Hash, Hash]
    expect(hashes(await find(receipts[0]!.blockNumber))).toEqual([a, b, c])
    expect(hashes(await find(receipts[1]!.blockNumber))).toEqual([b, c])
    expect(hashes(await find(receipts[0]!.blockNumber, receipts[1]!.blockNumber))).toEqual([a, b])
    expect(hashes(await find(receipts[2]!.blockNumber + 1n))).toEqual([])
  })

  test('behavior: pages through the range in bounded requests and finds the same transfers', async () => {
    const to = freshAddress()
    const fromBlock = (await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    for (let index = 0; index < 5; index++) await send(index + 1, to, 3n)
    const toBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
    const ranges: [bigint, bigint][] = []
    const counting = {
      ...chain.publicClient,
      getLogs: ((parameters: { fromBlock: bigint; toBlock: bigint }) => {
        ranges.push([parameters.fromBlock, parameters.toBlock])
        return chain.publicClient.getLogs(parameters as never)
      }) as typeof chain.publicClient.getLogs,
    }

    const paged = await transfers({ client: counting, pageSize: 2n }).find({
      token: chain.token.address,
      to,
      amount: 3n,
      fromBlock,
      toBlock,
    })
    expect(ranges).toEqual([
      [fromBlock, fromBlock + 1n],
      [fromBlock + 2n, fromBlock + 3n],
      [fromBlock + 4n, fromBlock + 4n],
    ])
    expect(paged).toHaveLength(5)
    expect(paged).toEqual(
      await transfers({ client: chain.publicClient }).find({
        token: chain.token.address,
        to,
        amount: 3n,
        fromBlock,
        toBlock,
      }),
    )
  })

  test('behavior: two transfers in one transaction are told apart by log index', async () => {
    const to = freshAddress()
    await chain.fund({ address: multicall3Address, amount: 2n })
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 1n] })
    const wallet = createWalletClient({
      account: privateKeyToAccount(chain.accounts[5]!.privateKey),
      chain: chain.chain,
      transport: chain.transport,
    })
    const hash = await wallet.writeContract({
      address: multicall3Address,
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [[0, 1].map(() => ({ target: chain.token.address, allowFailure: false, callData: transfer }))],
    })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })

    const found = await transfers({ client: chain.publicClient }).find({
      token: chain.token.address,
      to,
      amount: 1n,
      fromBlock: receipt.blockNumber,
    })
    expect(found.map(({ hash, from, logIndex }) => ({ hash, from, logIndex }))).toEqual(
      receipt.logs.map((log) => ({ hash, from: multicall3Address, logIndex: log.logIndex })),
    )
    expect(new Set(found.map(({ logIndex }) => logIndex)).size).toBe(2)
  })

  test('behavior: another token at the same recipient is not reported', async () => {
    const to = freshAddress()
    const fromBlock = (await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n
    await send(1, to, 4n)
    const found = await transfers({ client: chain.publicClient }).find({
      token: multicall3Address,
      to,
      amount: 4n,
      fromBlock,
    })
    expect(found).toEqual([])
  })

  test('error: a page size below one block', () => {
    expect(() => transfers({ client: chain.publicClient, pageSize: 0n })).toThrow('pageSize must be at least 1 block')
  })
})

describe('transfers.blockNumber', () => {
  test('behavior: follows the chain head without caching', async () => {
    const adapter = transfers({ client: chain.publicClient })
    const before = await adapter.blockNumber()
    const receipt = await send(1, freshAddress(), 1n)
    expect(await adapter.blockNumber()).toBe(receipt.blockNumber)
    expect(receipt.blockNumber).toBe(before + 1n)
  })
})
