import type { Address, Hex } from 'viem'
import type { LocalAccount } from 'viem/accounts'

/**
 * Sends a devnet deployer's transactions in order, each signed here with its nonce, gas and fee so none waits for an
 * estimate (each is mined on arrival). Answers their hashes, in order; throws when one reverts.
 */
export async function sendInOrder(parameters: sendInOrder.Parameters): Promise<Hex[]> {
  const { account, chainId, request, transactions, label } = parameters
  const latest = (await request('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: Hex }
  // Blocks below the gas target only lower the base fee, so twice the current one covers every transaction.
  const maxFeePerGas = BigInt(latest.baseFeePerGas) * 2n
  const nonce = Number(BigInt((await request('eth_getTransactionCount', [account.address, 'latest'])) as Hex))
  const hashes: Hex[] = []
  for (const [index, transaction] of transactions.entries()) {
    const signed = await account.signTransaction({
      ...transaction,
      type: 'eip1559',
      chainId,
      nonce: nonce + index,
      gas: 15_000_000n,
      maxFeePerGas,
      maxPriorityFeePerGas: 0n,
    })
    const hash = (await request('eth_sendRawTransaction', [signed])) as Hex
    const receipt = (await request('eth_getTransactionReceipt', [hash])) as { status: Hex } | null
    if (receipt?.status !== '0x1') throw new Error(`${label} transaction ${index} (${hash}) reverted.`)
    hashes.push(hash)
  }
  return hashes
}

export declare namespace sendInOrder {
  type Parameters = {
    /** The deployer, with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** The transactions: a creation without `to`. */
    transactions: readonly {
      /** Recipient; absent for a contract creation. */
      to?: Address
      /** Call data or creation code. */
      data: Hex
    }[]
    /** Names the batch in the error of a reverted transaction. */
    label: string
  }
}
