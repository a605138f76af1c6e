import {
  type Address,
  BaseError,
  type Chain,
  concat,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  HttpRequestError,
  isAddressEqual,
  keccak256,
  type LocalAccount,
  type PublicClient,
  parseEventLogs,
  TimeoutError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Transport,
} from 'viem'
import type * as Futures from '../../core/Futures.js'

/** Mnemonic index (m/44'/60'/0'/0/17) of the devnet's compute-futures operator, its deposit address and refund sender. */
export const futuresOperatorIndex = 17

/**
 * The compute-futures treasury on an EVM chain: reads deposits from transaction receipts (the `Transfer` logs of the
 * settlement USDC to the deposit address) and, with the operator's key, sends refunds as plain ERC-20 transfers, one
 * at a time so that concurrent refunds of this process never race for its nonce, each simulated, then signed and
 * recorded before it is broadcast; `trace` reads what became of a recorded one.
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

  const transfer = async (
    to: Address,
    amount: bigint,
    reference: Hex,
    record: (signed: Futures.Signed) => Promise<boolean>,
  ): Promise<Futures.Sent> => {
    let serializedTransaction: `0x${string}`
    let signed: Futures.Signed
    try {
      const { request } = await client.simulateContract({
        account,
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, amount],
      })
      const prepared = await wallet.prepareTransactionRequest({
        to: token,
        data: concat([encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: request.args }), reference]),
      })
      serializedTransaction = await wallet.signTransaction(prepared)
      signed = { hash: keccak256(serializedTransaction), nonce: prepared.nonce }
      // Recorded before it leaves this process: whatever happens next, the record says which transaction to look for.
      if (!(await record(signed))) return { status: 'not_sent', reason: 'the refund was settled before its broadcast' }
    } catch (error) {
      return { status: 'not_sent', reason: messageOf(error) }
    }
    const { hash } = signed
    try {
      await wallet.sendRawTransaction({ serializedTransaction })
    } catch (error) {
      // A node that answered refused it; a lost connection or a timeout says nothing of whether it was broadcast.
      if (!isLost(error)) return { status: 'not_sent', reason: messageOf(error) }
      return { status: 'unknown', hash, reason: messageOf(error) }
    }
    try {
      const mined = await client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs })
      return mined.status === 'success' ? { status: 'sent', hash } : { status: 'reverted', hash }
    } catch (error) {
      // Broadcast already: a timeout or a lost node says nothing of whether it will be mined.
      return { status: 'unknown', hash, reason: messageOf(error) }
    }
  }

  /** Reads the operator's mined nonce before the receipt: a transfer mined in between is found, never called replaced. */
  const trace = async ({ hash, nonce }: Futures.Signed): Promise<Futures.Trace> => {
    const mined = await client.getTransactionCount({ address: account.address, blockTag: 'latest' })
    try {
      const receipt = await client.getTransactionReceipt({ hash })
      return { status: receipt.status }
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
    }
    if (mined > nonce) return { status: 'replaced' }
    try {
      await client.getTransaction({ hash })
      return { status: 'pending' }
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return { status: 'missing' }
      throw error
    }
  }

  return {
    chainId,
    token,
    depositAddress,
    receipt,
    send({ to, amount, reference, record }) {
      const next = queue.then(
        () => transfer(to, amount, reference, record),
        () => transfer(to, amount, reference, record),
      )
      queue = next.catch(() => undefined)
      return next
    },
    trace,
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

/** Whether a request failed without an answer from the node (a lost connection, a timeout). */
function isLost(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null
  )
}

/** The first line of an error's message (viem's run over several lines, with request details). */
function messageOf(error: unknown): string {
  const { shortMessage, message } = error as { shortMessage?: string; message?: string }
  return (shortMessage ?? message ?? String(error)).split('\n')[0]!
}
