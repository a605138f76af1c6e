import {
  type Address,
  type Chain,
  createWalletClient,
  erc20Abi,
  getAddress,
  isAddressEqual,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
  TransactionReceiptNotFoundError,
  type Transport,
} from 'viem'
import type * as Futures from '../../core/Futures.js'

/** Mnemonic index (m/44'/60'/0'/0/17) of the devnet's compute-futures operator, its deposit address and refund sender. */
export const futuresOperatorIndex = 17

/**
 * The compute-futures treasury on an EVM chain: reads deposits from transaction receipts (the `Transfer` logs of the
 * settlement USDC to the deposit address) and, with the operator's key, sends refunds as plain ERC-20 transfers, one
 * at a time so that concurrent refunds of this process never race for its nonce, each simulated before it is sent.
 */
export function futuresTreasury(parameters: futuresTreasury.Parameters): Futures.Treasury {
  const { client, chainId, operator, receiptTimeoutMs = 60_000 } = parameters
  const token = getAddress(parameters.token)
  const depositAddress = getAddress(parameters.depositAddress)

  async function receipt(hash: `0x${string}`): Promise<Futures.Receipt | undefined> {
    let mined: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>
    try {
      mined = await client.getTransactionReceipt({ hash })
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return undefined
      throw error
    }
    const latest = await client.getBlockNumber({ cacheTime: 0 })
    const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: mined.logs, strict: true })
      .filter(
        (log) => !log.removed && isAddressEqual(log.address, token) && isAddressEqual(log.args.to, depositAddress),
      )
      .map((log) => ({
        from: getAddress(log.args.from),
        to: getAddress(log.args.to),
        amount: log.args.value,
        logIndex: log.logIndex,
      }))
    return {
      status: mined.status,
      blockNumber: mined.blockNumber,
      confirmations: latest >= mined.blockNumber ? latest - mined.blockNumber + 1n : 0n,
      transfers,
    }
  }

  if (!operator) return { chainId, token, depositAddress, receipt }
  const { account, chain, transport } = operator
  const wallet = createWalletClient({ account, chain, transport })
  let queue: Promise<unknown> = Promise.resolve()

  const transfer = async (to: Address, amount: bigint): Promise<Futures.Sent> => {
    let hash: `0x${string}`
    try {
      const { request } = await client.simulateContract({
        account,
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, amount],
      })
      hash = await wallet.writeContract(request)
    } catch (error) {
      return { status: 'not_sent', reason: messageOf(error) }
    }
    try {
      const mined = await client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs })
      return mined.status === 'success' ? { status: 'sent', hash } : { status: 'reverted', hash }
    } catch (error) {
      // Broadcast already: a timeout or a lost node says nothing of whether it will be mined.
      return { status: 'unknown', hash, reason: messageOf(error) }
    }
  }

  return {
    chainId,
    token,
    depositAddress,
    receipt,
    send({ to, amount }) {
      const next = queue.then(
        () => transfer(to, amount),
        () => transfer(to, amount),
      )
      queue = next.catch(() => undefined)
      return next
    },
  }
}

export declare namespace futuresTreasury {
  type Parameters = {
    /** Public client of the settlement chain. */
    client: PublicClient
    /** EIP-155 chain id of `client`'s chain. */
    chainId: number
    /** The settlement USDC. */
    token: Address
    /** Where depositors send USDC; usually the operator's own address. */
    depositAddress: Address
    /** The operator's wallet, with ETH for gas and USDC for refunds; without it refunds are unavailable. */
    operator?:
      | {
          /** Its key. */
          account: LocalAccount
          /** The chain, for signing. */
          chain: Chain
          /** Transport to send through. */
          transport: Transport
        }
      | undefined
    /** How long a refund waits for its receipt before its outcome is reported unknown, in ms. @default 60_000 */
    receiptTimeoutMs?: number
  }
}

/** The first line of an error's message (viem's run over several lines, with request details). */
function messageOf(error: unknown): string {
  const { shortMessage, message } = error as { shortMessage?: string; message?: string }
  return (shortMessage ?? message ?? String(error)).split('\n')[0]!
}
