import {
  type Address,
  BaseError,
  type Chain,
  concat,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  encodePacked,
  type Hash,
  type Hex,
  HttpRequestError,
  isAddressEqual,
  isHex,
  keccak256,
  type LocalAccount,
  multicall3Abi,
  NonceTooHighError,
  NonceTooLowError,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  parseSignature,
  size,
  TimeoutError,
  type TransactionReceipt,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Domain, Signed } from '../../core/Authorization.js'
import type { Facilitator, Outcome, Refusal, Status } from '../../core/Facilitator.js'
import * as Multicall3 from '../../core/Multicall3.js'
import * as Eip3009 from './internal/eip3009.js'

/** Calldata of Multicall3's `getCurrentBlockTimestamp()`. */
const currentBlockTimestamp = encodeFunctionData({ abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp' })

/** Canonical Multicall3 address, the same on every chain (mds1/multicall). */
export const canonicalMulticall3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * A facilitator that settles with its own relayer key: verifies on chain, then submits `transferWithAuthorization`.
 * Settlements arriving within `batchWindowMs`, or while the previous batch is in flight, share one transaction (one direct call, or a Multicall3 `aggregate3`
 * whose items fail independently); the relayer's nonce is kept in process so concurrent batches never collide.
 */
export function local(parameters: local.Parameters): Facilitator {
  const {
    client,
    chain,
    transport,
    batchWindowMs = 5,
    maxBatch = 100,
    multicall = chain.contracts?.multicall3?.address ?? canonicalMulticall3,
    settler,
    confirmations = 1,
    expiryMarginSeconds = 6,
    gasMarginPercent = 25,
    gasBudget = { base: 50_000n, perItem: 100_000n },
    lookbackBlocks = 100_000n,
    onBatch,
  } = parameters
  const { relayer } = parameters
  const fixed: LocalAccount | undefined =
    typeof relayer === 'function'
      ? undefined
      : 'privateKey' in relayer
        ? privateKeyToAccount(relayer.privateKey)
        : relayer
  // The key to sign the next transaction with, asked before every one; one that cannot be had is a fault: nothing
  // was signed, and the settlement is not failed but undecided.
  const keyNow = async (): Promise<LocalAccount> => {
    if (fixed) return fixed
    try {
      return await (relayer as () => Promise<LocalAccount>)()
    } catch (error) {
      throw new NoRelayerKeyError(error)
    }
  }
  // The key of the last transaction, which also reads (simulations, estimates) as the sender.
  let account = fixed
  const wallet = createWalletClient({ chain, transport })

  /** Runs `calls` through `aggregate3` as an eth_call from the relayer; every call may fail. */
  // One eth_call of Multicall3's aggregate3, every call allowed to fail; encoded and decoded directly, since every
  // verification makes one.
  async function aggregate(calls: readonly { target: Address; callData: Hex }[]) {
    const { data } = await client.call({
      account: account?.address,
      to: multicall,
      data: Multicall3.encodeAggregate3(calls.map((call) => ({ ...call, allowFailure: true }))),
    })
    return Multicall3.decodeAggregate3(data ?? '0x')
  }

  async function verify({
    authorization,
    domain,
  }: {
    authorization: Signed
    domain: Domain
  }): Promise<Outcome<{ balance: bigint }>> {
    const mismatch = checkNetwork(domain)
    if (mismatch) return mismatch
    const transfer = encodeTransfer(authorization)
    if (!transfer.ok) return transfer
    const token = domain.verifyingContract
    const { from, nonce, value, validAfter, validBefore } = authorization

    // One eth_call answers (a), (b) and (d), and the time of the block they were read at (Multicall3's own).
    const [used, balance, simulation, now] = await aggregate([
      { target: token, callData: Eip3009.encode.authorizationState(from, nonce) },
      { target: token, callData: Eip3009.encode.balanceOf(from) },
      { target: token, callData: transfer.data },
      { target: multicall, callData: currentBlockTimestamp },
    ])
    const blockTime =
      now!.success && size(now!.returnData) === 32
        ? BigInt(now!.returnData)
        : (await client.getBlock({ blockTag: 'latest' })).timestamp
    // A call to an address without code succeeds with no data, so the length tells a token from nothing.
    if (!used!.success || !balance!.success || size(used!.returnData) !== 32 || size(balance!.returnData) !== 32)
      return refuse('wrong_asset', `${token} does not answer authorizationState and balanceOf: not an EIP-3009 token.`)
    if (BigInt(used!.returnData) !== 0n)
      return refuse('replayed', `Nonce ${nonce} of ${from} is already used on chain.`)
    if (BigInt(balance!.returnData) < value)
      return refuse(
        'insufficient_funds',
        `${from} holds ${BigInt(balance!.returnData)}, the authorization moves ${value}.`,
      )

    const wallClock = BigInt(Math.floor(Date.now() / 1000))
    for (const [clock, time] of [
      ['wall clock', wallClock],
      ['latest block', blockTime],
    ] as const) {
      // The token requires block.timestamp > validAfter, strictly.
      if (validAfter >= time) return refuse('not_yet_valid', `Valid after ${validAfter}; ${clock} is ${time}.`)
      if (validBefore <= time + BigInt(expiryMarginSeconds))
        return refuse(
          'expired',
          `Valid before ${validBefore}; ${clock} is ${time}, and settling needs ${expiryMarginSeconds} s.`,
        )
    }
    if (!simulation!.success) return fromRevert(simulation!.returnData)
    return { ok: true, balance: BigInt(balance!.returnData) }
  }

  // Settlements waiting for the batch window to close, or for the batch in flight to finish.
  let queue: Pending[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  // At most one batch is being estimated, sent and mined at a time; the next one gathers everything that came meanwhile.
  let inFlight = false

  function settle({
    authorization,
    domain,
    onSigned,
    onSubmitted,
  }: Parameters<Facilitator['settle']>[0]): Promise<Outcome<{ transaction: Hash }>> {
    const mismatch = checkNetwork(domain)
    if (mismatch) return Promise.resolve(mismatch)
    const transfer = encodeTransfer(authorization)
    if (!transfer.ok) return Promise.resolve(transfer)
    return new Promise((resolve, reject) => {
      queue.push({
        authorization,
        token: domain.verifyingContract,
        callData: transfer.data,
        onSigned,
        onSubmitted,
        resolve,
        reject,
      })
      // While a batch is in flight, arrivals wait for it and then go out together (group commit).
      if (inFlight) return
      if (queue.length >= maxBatch) flush()
      else timer ??= setTimeout(flush, batchWindowMs)
    })
  }

  function flush() {
    clearTimeout(timer)
    timer = undefined
    if (inFlight || queue.length === 0) return
    // One (payer, nonce) at most once per transaction, so each AuthorizationUsed log names exactly one item;
    // a copy waits for the next batch, where it fails as `replayed` or succeeds if the first copy failed.
    const batch: Pending[] = []
    const rest: Pending[] = []
    const keys = new Set<string>()
    for (const item of queue) {
      const key = keyOf(item)
      if (batch.length < maxBatch && !keys.has(key)) {
        batch.push(item)
        keys.add(key)
      } else rest.push(item)
    }
    queue = rest
    inFlight = true
    submit(batch)
      .catch((error) => {
        for (const item of batch) item.reject(error)
      })
      .finally(() => {
        inFlight = false
        flush()
      })
  }

  async function submit(batch: Pending[]) {
    // Through our settler a shared batch goes out on a gas budget, without an estimate first (one run in the EVM and
    // one round trip fewer): an item that fails does so alone and is answered from the receipt. One that may have been
    // starved reverts the whole call (ItemStarved), and a node that refuses the budget (past its block's gas limit,
    // more than the relayer can cover) sends nothing; either way the batch then goes out on an estimate.
    const budgeted = budget(batch)
    if (budgeted) {
      const hash = await send(budgeted, batch).catch((error: unknown) => {
        // A lost connection may have carried the transaction out: the outcome is unknown, which is a fault.
        if (isFault(error)) throw error
        return undefined
      })
      if (hash) {
        for (const item of batch) item.onSubmitted?.(hash)
        const receipt = await receiptOf(hash)
        if (receipt.status === 'success') return conclude(batch, { hash, receipt })
      }
    }
    const mined = await sendEstimated(batch)
    if (mined === undefined) return
    if (mined.receipt.status !== 'success') {
      for (const item of mined.items) item.resolve(refuse('settlement_failed', `Transaction ${mined.hash} reverted.`))
      return
    }
    await conclude(mined.items, mined)
  }

  /**
   * Sends the batch on an estimate and waits for its receipt; `undefined` once every item is answered (the estimate
   * left none, or the node refused the transaction). A transport fault may have carried the transaction out, so the
   * outcome is unknown: it is thrown as a fault.
   */
  async function sendEstimated(batch: Pending[]) {
    let items = batch
    let hash: Hash
    try {
      const prepared = await estimated(batch)
      if (!prepared) return undefined
      items = prepared.items
      hash = await send(prepared.transaction, items)
      for (const item of items) item.onSubmitted?.(hash)
    } catch (error) {
      if (isFault(error)) throw error
      for (const item of items) item.resolve(refuse('settlement_failed', `Submission failed: ${describe(error)}`))
      return undefined
    }
    return { items, hash, receipt: await receiptOf(hash) }
  }

  /** The settler's call for a shared batch with its gas budget; `undefined` when the batch goes the estimated way. */
  function budget(batch: Pending[]): Transaction | undefined {
    if (!settler || batch.length < 2) return undefined
    const { transaction } = toRequest(batch)
    if (transaction.to !== settler) return undefined
    return { ...transaction, gas: gasBudget.base + gasBudget.perItem * BigInt(batch.length) }
  }

  /**
   * The batch's transaction on an estimate, which requires every item to succeed and so is the simulation too in the
   * usual case; items that would revert are answered now at no gas. `undefined` when none is left.
   */
  async function estimated(batch: Pending[]): Promise<{ items: Pending[]; transaction: Transaction } | undefined> {
    let items = batch
    let request = toRequest(items)
    let gas = await estimate(request)
    if (gas === undefined) {
      // Some item would revert: one eth_call tells which.
      const simulated = await aggregate(batch.map(({ token, callData }) => ({ target: token, callData })))
      items = batch.filter((item, index) => {
        const result = simulated[index]!
        if (!result.success) item.resolve(fromRevert(result.returnData))
        return result.success
      })
      if (items.length === 0) return undefined
      request = toRequest(items)
      // Still failing means the state moves under us; a generous budget per item lets the others settle.
      gas = (await estimate(request)) ?? 40_000n + 100_000n * BigInt(items.length)
    }
    return { items, transaction: { ...request.transaction, gas } }
  }

  /** Answers each item of a mined batch: settled when the token logged its nonce as used, else why not. */
  async function conclude(items: Pending[], { hash, receipt }: { hash: Hash; receipt: TransactionReceipt }) {
    const used = parseEventLogs({ abi: Eip3009.abi, eventName: 'AuthorizationUsed', logs: receipt.logs })
    onBatch?.({ transaction: hash, size: items.length, gasUsed: receipt.gasUsed })
    await Promise.all(
      items.map(async (item) => {
        if (used.some((log) => Eip3009.matches(log, usedBy(item)))) return item.resolve({ ok: true, transaction: hash })
        // Failed inside the batch although it verified: something changed in between; ask the chain why.
        const [again] = await aggregate([{ target: item.token, callData: item.callData }]).catch(() => [undefined])
        if (again && !again.success) return item.resolve(fromRevert(again.returnData))
        item.resolve(refuse('settlement_failed', `Transaction ${hash} did not use nonce ${item.authorization.nonce}.`))
      }),
    )
  }

  /** The receipt: asked for at once (a node that mines on send has it), and waited for when not there yet. */
  async function receiptOf(hash: Hash): Promise<TransactionReceipt> {
    if (confirmations <= 1) {
      const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined)
      if (receipt) return receipt
    }
    return client.waitForTransactionReceipt({ hash, confirmations })
  }

  /**
   * The transaction for a batch: the transfer itself for one item; for several, the settler's `settle` with the
   * authorizations packed when it can take them all (one token, one payee, EOA signatures), else `aggregate3`.
   */
  function toRequest(items: Pending[]) {
    if (items.length === 1) {
      const [item] = items as [Pending]
      const transaction = { to: item.token, data: item.callData }
      return { transaction, estimateWith: transaction }
    }
    const packed = settler ? pack(items) : undefined
    if (settler && packed) {
      const { token, authorization } = items[0]!
      const { to } = authorization
      const settle = (strict: boolean) =>
        encodeFunctionData({ abi: settlerAbi, functionName: 'settle', args: [token, to, packed, strict] })
      // Strict for the estimate: an item starved of gas must revert it rather than pass for a cheap success.
      return { transaction: { to: settler, data: settle(false) }, estimateWith: { to: settler, data: settle(true) } }
    }
    const calls = (allowFailure: boolean) =>
      items.map(({ token, callData }) => ({ target: token, allowFailure, callData }))
    return {
      transaction: {
        to: multicall,
        data: Multicall3.encodeAggregate3(calls(true)),
      },
      // With allowFailure an inner call that runs out of gas does not revert the batch, so an estimate on it can come
      // out too low and silently fail items; estimating with allowFailure false makes every item count.
      estimateWith: {
        to: multicall,
        data: Multicall3.encodeAggregate3(calls(false)),
      },
    }
  }

  /** Gas for the request with the margin; undefined when some item reverts (or the node cannot say). */
  async function estimate(request: ReturnType<typeof toRequest>): Promise<bigint | undefined> {
    try {
      const gas = await client.estimateGas({ account: account?.address, ...request.estimateWith })
      return (gas * BigInt(100 + gasMarginPercent)) / 100n
    } catch {
      return undefined
    }
  }

  // The relayer's next nonce, fetched once from `pending` and then counted here; sends run one at a time.
  let nextNonce: number | undefined
  let sending: Promise<unknown> = Promise.resolve()

  // Signed here and sent raw: the chain id is known and the fees are read at most once a second, so a send is one
  // round trip (a wallet client's sendTransaction asks for the chain id, a block and the tip each time).
  // The items hear the hash once it is signed, before it is sent: a caller told "pending" can be given it.
  function send(transaction: Transaction, items: readonly Pending[]): Promise<Hash> {
    const run = async (): Promise<Hash> => {
      for (let attempt = 0; ; attempt++) {
        const signer = await keyNow()
        if (signer.address !== account?.address) {
          // Another key (this process's lease moved to another slot): its nonces are counted from the chain's.
          account = signer
          nextNonce = undefined
        }
        nextNonce ??= await client.getTransactionCount({ address: signer.address, blockTag: 'pending' })
        try {
          const serializedTransaction = await signer.signTransaction(
            { ...transaction, ...(await fees()), type: 'eip1559', chainId: chain.id, nonce: nextNonce },
            { serializer: chain.serializers?.transaction },
          )
          // The key may have changed while this one signed (its lease lost meanwhile): what it signed is not sent.
          if ((await keyNow()).address !== signer.address) continue
          const signed = keccak256(serializedTransaction)
          for (const item of items) item.onSigned?.(signed)
          const hash = await wallet.sendRawTransaction({ serializedTransaction })
          nextNonce++
          return hash
        } catch (error) {
          // Somebody else sent from the relayer, or a transaction was dropped: read the count again.
          nextNonce = undefined
          if (attempt < 2 && isNonceError(error)) continue
          throw error
        }
      }
    }
    const result = sending.then(run, run)
    sending = result.catch(() => undefined)
    return result
  }

  // The fees of the last second: the node's tip, and room for the base fee to grow (viem's estimate).
  let feesRead: { at: number; fees: Promise<Fees> } | undefined
  function fees(): Promise<Fees> {
    const at = performance.now()
    if (feesRead && at - feesRead.at < 1_000) return feesRead.fees
    const read = client.estimateFeesPerGas({ chain })
    feesRead = { at, fees: read }
    // A failed read is not kept: the next send asks again.
    read.catch(() => {
      if (feesRead?.fees === read) feesRead = undefined
    })
    return read
  }

  function status(parameters: Parameters<Facilitator['status']>[0]): Promise<Status> {
    return Eip3009.status({ ...parameters, client, lookbackBlocks })
  }

  function checkNetwork(domain: Domain): Refused | undefined {
    if (domain.chainId === chain.id) return undefined
    return refuse(
      'wrong_network',
      `The authorization is for chain ${domain.chainId}; this facilitator settles on chain ${chain.id}.`,
    )
  }

  return { verify, settle, status }
}

export declare namespace local {
  type Parameters = {
    /** Reads the chain: simulations, balances, receipts, logs. */
    client: PublicClient
    /** Told of every mined settlement transaction: how many authorizations it carried and the gas it used. */
    onBatch?: ((batch: { transaction: Hash; size: number; gasUsed: bigint }) => void) | undefined
    /**
     * Key that signs and pays for settlement transactions (it needs native currency for gas), or a function asked for
     * it before every transaction, which may answer another key from one transaction to the next (the key of the
     * lease this process holds now) and rejects when there is none to sign with (the settlement is then undecided).
     */
    relayer:
      | { /** 32-byte private key, `0x`-prefixed. */ privateKey: Hex }
      | LocalAccount
      | (() => Promise<LocalAccount>)
    /** Chain the relayer sends on; its id must match every authorization's domain. */
    chain: Chain
    /** Transport of the relayer's wallet client (eth_sendRawTransaction). */
    transport: Transport
    /** How long the first settlement of a batch waits for others, in ms. @default 5 */
    batchWindowMs?: number
    /** Most settlements in one transaction; a full batch is sent at once. @default 100 */
    maxBatch?: number
    /** Multicall3 contract used to simulate and to batch. @default chain.contracts.multicall3.address, else the canonical `0xcA11bde05977b3631167028862bE2a173976CA11` */
    multicall?: Address
    /**
     * Our AuthorizationSettler, which settles a batch of one token to one payee from packed authorizations (less
     * calldata and per-item work than `aggregate3`). @default none: batches go through Multicall3
     */
    settler?: Address | undefined
    /** Blocks a settlement waits for before it resolves. @default 1 */
    confirmations?: number
    /** Time left before `validBefore` that verify requires, in seconds, so a settlement can still land. @default 6 */
    expiryMarginSeconds?: number
    /** Added to the estimated gas of a batch, in percent. @default 25 */
    gasMarginPercent?: number
    /**
     * Gas a shared batch through the settler is sent with, instead of an estimate: `base` plus `perItem` for each
     * authorization. An item that needs more is starved, the call reverts (`ItemStarved`) and the batch goes out
     * again on an estimate. @default { base: 50_000n, perItem: 100_000n } (a USDC transferWithAuthorization in a
     * batch takes about 45,000)
     */
    gasBudget?: { base: bigint; perItem: bigint }
    /** How far back `status` searches AuthorizationUsed logs when no transaction hash is given, in blocks. @default 100_000n */
    lookbackBlocks?: bigint
  }
}

/** A settlement transaction before it is signed. */
type Transaction = { to: Address; data: Hex; gas: bigint }

/** EIP-1559 fees per gas. */
type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** A settlement waiting for its batch. */
type Pending = {
  /** The signed authorization. */
  authorization: Signed
  /** Token contract (the domain's verifying contract). */
  token: Address
  /** Encoded `transferWithAuthorization`. */
  callData: Hex
  /** Hears the transaction hash once signed, before it is sent. */
  onSigned: ((transaction: Hash) => void) | undefined
  /** Hears the transaction hash once sent. */
  onSubmitted: ((transaction: Hash) => void) | undefined
  /** Answers the caller's `settle`. */
  resolve: (outcome: Outcome<{ transaction: Hash }>) => void
  /** Fails the caller's `settle` with a fault. */
  reject: (error: unknown) => void
}

/** AuthorizationSettler's entry point (adapters/chain/contracts/AuthorizationSettler.sol). */
const settlerAbi = parseAbi(['function settle(address token, address to, bytes items, bool strict) returns (uint256)'])

/**
 * The items as AuthorizationSettler's packed authorizations (145 bytes each: from, value as uint128, validAfter and
 * validBefore as uint48, nonce, v, r, s); `undefined` when they are not one token to one payee with EOA signatures
 * and fields that fit, or more than the 256 one call takes.
 */
function pack(items: Pending[]): Hex | undefined {
  const [first] = items
  if (!first || items.length > 256) return undefined
  const parts: Hex[] = []
  for (const { token, authorization } of items) {
    const { from, to, value, validAfter, validBefore, nonce, signature } = authorization
    if (!isAddressEqual(token, first.token) || !isAddressEqual(to, first.authorization.to)) return undefined
    if (size(signature) !== 65 || value >= 2n ** 128n || validAfter >= 2n ** 48n || validBefore >= 2n ** 48n)
      return undefined
    const { r, s, yParity } = parseSignature(signature)
    parts.push(
      encodePacked(
        ['address', 'uint128', 'uint48', 'uint48', 'bytes32', 'uint8', 'bytes32', 'bytes32'],
        [from, value, Number(validAfter), Number(validBefore), nonce, yParity + 27, r, s],
      ),
    )
  }
  return concat(parts)
}

/** The refusal branch of an `Outcome`. */
type Refused = Extract<Outcome<{}>, { ok: false }>

function refuse(reason: Refusal, message: string): Refused {
  return { ok: false, reason, message }
}

/** Maps the revert data of a simulated or executed transfer to a refusal. */
function fromRevert(data: Hex): Refused {
  let message = `reverted with ${data === '0x' ? 'no data' : data}`
  try {
    const { errorName, args } = decodeErrorResult({ abi: [], data })
    message = errorName === 'Error' ? String(args?.[0]) : `${errorName}(${(args ?? []).join(', ')})`
  } catch {}
  return refuse(Eip3009.toRefusal(message), `transferWithAuthorization would revert: ${message}`)
}

/** Encodes `transferWithAuthorization`: the (v, r, s) form for a 65-byte signature, the `bytes` form otherwise. */
function encodeTransfer(authorization: Signed): { ok: true; data: Hex } | Refused {
  const { from, to, value, validAfter, validBefore, nonce, signature } = authorization
  const args = [from, to, value, validAfter, validBefore, nonce] as const
  try {
    if (!isHex(signature, { strict: true })) return refuse('malformed_payment', 'The signature is not hex.')
    if (size(signature) !== 65)
      return {
        ok: true,
        data: encodeFunctionData({
          abi: Eip3009.abi,
          functionName: 'transferWithAuthorization',
          args: [...args, signature],
        }),
      }
    const { r, s, yParity } = parseSignature(signature)
    // Wallets write v as 0/1 or 27/28; the token accepts only 27/28.
    return {
      ok: true,
      data: Eip3009.encode.transferWithAuthorization({ ...authorization, v: yParity + 27, r, s }),
    }
  } catch (error) {
    return refuse('malformed_payment', `The authorization cannot be encoded: ${describe(error)}`)
  }
}

function usedBy(item: Pending): Eip3009.Used {
  return { token: item.token, payer: item.authorization.from, nonce: item.authorization.nonce }
}

function keyOf(item: Pending): string {
  return `${item.token}:${item.authorization.from}:${item.authorization.nonce}`.toLowerCase()
}

/** Whether a send failed on the sender's nonce (another sender used it first): send again with a fresh one. */
export function isNonceError(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  if (error.walk((cause) => cause instanceof NonceTooLowError || cause instanceof NonceTooHighError)) return true
  return /nonce too (low|high)|invalid nonce|already known|replacement transaction underpriced/i.test(error.message)
}

/** The relayer key to sign with could not be had: nothing was signed, and the settlement's outcome is undecided. */
class NoRelayerKeyError extends Error {
  override readonly name = 'NoRelayerKeyError'

  constructor(cause: unknown) {
    super('No relayer key to sign with.', { cause })
  }
}

/** Whether a send's outcome is unknown (a transport fault) or nothing could be signed: either way, not a refusal. */
function isFault(error: unknown): boolean {
  return error instanceof NoRelayerKeyError || isTransportFault(error)
}

/** Whether a call failed in transport, so that what it sent may have arrived: its outcome is unknown. */
export function isTransportFault(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null
  )
}

function describe(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
