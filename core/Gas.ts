import { type Chain, maxRecipients, resolveChain } from './Batch.js'
import { ValidationError } from './Errors.js'
import * as Units from './Units.js'

/**
 * Gas model of the batch-payment contract, shared by `GET /free/estimate-batch` (count only) and batch
 * estimate. It gives a conservative ceiling, never a measurement: with a live chain, batch estimate prefers
 * `eth_estimateGas`, falls back to this, and keeps `proofFloor` as a floor (`core/BatchPayment.ts` `gasLimit`).
 * The price of the gas (gas price, Base's L1 data fee) needs live data and is not here.
 *
 * The contract modelled: one call pays every recipient, then the fee recipient, from the sender.
 * - ERC-20: `transferFrom(sender, recipient, amount)` per recipient through the token (USDC-like: a proxy
 *   with a blocklist), plus one transfer of the 0.3% fee; a reentrancy guard; a few config reads; one
 *   summary event.
 * - Native (`isETH`): a value call per recipient, plus one for the fee. Recipients are taken to be accounts
 *   without code: a contract recipient runs its own code on receipt and is outside any fixed model.
 *
 * A recipient is *cold* when its balance is zero before the batch (ERC-20: the balance slot goes zero ->
 * non-zero; native: the account is empty and gets created) and *warm* when it already holds a balance.
 * Cold is the worst case and the default. Gas refunds (EIP-3529) only lower the final bill, so they are
 * ignored: the gas limit must cover the cost before refunds.
 */

/** EVM gas schedule the model is built from, post-Berlin (EIP-2929), in gas. */
export const schedule = {
  /** Every transaction (Yellow Paper `G_transaction`). */
  intrinsic: 21_000n,
  /** Per non-zero calldata byte (EIP-2028). */
  calldataNonZeroByte: 16n,
  /** Per zero calldata byte (EIP-2028). */
  calldataZeroByte: 4n,
  /** First touch of an account in a transaction (EIP-2929 `COLD_ACCOUNT_ACCESS_COST`). */
  coldAccountAccess: 2_600n,
  /** First read of a storage slot in a transaction (EIP-2929 `COLD_SLOAD_COST`). */
  coldSload: 2_100n,
  /** Any later touch of an account or slot (EIP-2929 `WARM_STORAGE_READ_COST`). */
  warmAccess: 100n,
  /** Storage write zero -> non-zero (EIP-2200 `SSTORE_SET_GAS`), on top of the cold read. */
  sstoreSet: 20_000n,
  /** Storage write non-zero -> non-zero: 5000 - `COLD_SLOAD_COST` (EIP-2929), on top of the cold read. */
  sstoreReset: 2_900n,
  /** A call that transfers value (Yellow Paper `G_callvalue`). */
  callValue: 9_000n,
  /** A value call to an empty account, which creates it (Yellow Paper `G_newaccount`, EIP-161). */
  newAccount: 25_000n,
  /** A log entry (`G_log`). */
  log: 375n,
  /** Per log topic (`G_logtopic`). */
  logTopic: 375n,
  /** Per byte of log data (`G_logdata`). */
  logDataByte: 8n,
} as const

const s = schedule

/** Calldata of the batch call, every byte counted as non-zero (the worst case), in gas. */
export const calldata = {
  /**
   * Selector (4 bytes), token (32), and for either ABI shape, a `Recipient[]` tuple array or two parallel
   * arrays, at most two offset words and two length words (128): 164 bytes.
   */
  head: 164n * s.calldataNonZeroByte,
  /** One `(address, uint256)` recipient: 64 bytes. */
  perRecipient: 64n * s.calldataNonZeroByte,
} as const

/** Execution the loop spends per recipient besides storage and calls: loop, ABI encoding, return-data check, memory. */
const loopPerRecipient = 3_000n
/** Execution once per call besides the items below: selector dispatch, ABI decoding, bounds checks, summing. */
const dispatch = 5_000n
/** Contract config read per call: fee rate, fee recipient, paused flag, each a cold slot. */
const configReads = 3n * s.coldSload
/** OpenZeppelin-style reentrancy guard: cold read, 1 -> 2, then back 2 -> 1 on a warm dirty slot. */
const reentrancyGuard = s.coldSload + s.sstoreReset + s.warmAccess
/** Summary event: three topics and three words of data. */
const batchEvent = s.log + 3n * s.logTopic + 96n * s.logDataByte

/** ERC-20 transfer execution inside the token, per recipient, after the first call has warmed the token. */
const erc20Transfer = {
  /** Warm call into the token (100), warm proxy delegatecall and implementation slot (200), sender balance and allowance re-read and re-written while dirty (4 x 100), recipient blocklist slot (cold 2100), the Transfer event (LOG3 with 32 bytes: 1756). */
  common:
    s.warmAccess +
    2n * s.warmAccess +
    4n * s.warmAccess +
    s.coldSload +
    (s.log + 3n * s.logTopic + 32n * s.logDataByte),
  /** Recipient balance slot zero -> non-zero: cold read + set (22100). */
  cold: s.coldSload + s.sstoreSet,
  /** Recipient balance slot non-zero -> non-zero: cold read + reset (5000). */
  warm: s.coldSload + s.sstoreReset,
} as const

/** Native value call per recipient: cold account touch + value transfer (11600), plus account creation when empty (25000). */
const nativeTransfer = {
  /** Empty account: touch, value, creation. */
  cold: s.coldAccountAccess + s.callValue + s.newAccount,
  /** Account with a balance: touch and value. */
  warm: s.coldAccountAccess + s.callValue,
} as const

/** Gas of the model per token kind, in gas. */
export const model = {
  /** ERC-20 batches (`transferFrom` per recipient). */
  erc20: {
    /** Once per batch: intrinsic, calldata head, dispatch, config, guard, first touch of token, implementation, implementation slot (2600 + 2600 + 2100), of the sender's balance and allowance (2 x 5000) and blocklist slot (2100), the fee transfer to a cold fee recipient, the summary event. */
    base:
      s.intrinsic +
      calldata.head +
      dispatch +
      configReads +
      reentrancyGuard +
      (2n * s.coldAccountAccess + s.coldSload) +
      (2n * (s.coldSload + s.sstoreReset) + s.coldSload) +
      (loopPerRecipient + erc20Transfer.common + erc20Transfer.cold) +
      batchEvent,
    /** Per recipient whose balance slot is zero. */
    perColdRecipient: calldata.perRecipient + loopPerRecipient + erc20Transfer.common + erc20Transfer.cold,
    /** Per recipient already holding the token. */
    perWarmRecipient: calldata.perRecipient + loopPerRecipient + erc20Transfer.common + erc20Transfer.warm,
  },
  /** Native-currency batches (a value call per recipient). */
  native: {
    /** Once per batch: intrinsic, calldata head, dispatch, config, guard, the fee transfer to an empty fee recipient, the summary event. */
    base:
      s.intrinsic +
      calldata.head +
      dispatch +
      configReads +
      reentrancyGuard +
      (loopPerRecipient + nativeTransfer.cold) +
      batchEvent,
    /** Per recipient that is an empty account. */
    perColdRecipient: calldata.perRecipient + loopPerRecipient + nativeTransfer.cold,
    /** Per recipient account that already holds a balance. */
    perWarmRecipient: calldata.perRecipient + loopPerRecipient + nativeTransfer.warm,
  },
} as const

/**
 * Proof-size accounting of Frontier (Substrate EVM) chains, in bytes of storage proof, worst case.
 * Frontier charges `max(execution gas, proof bytes x ratio, storage growth x ratio)` and refuses a
 * transaction whose proof needs more than `gasLimit / ratio` bytes, so the gas limit must cover both.
 * Sizes are Frontier's constants: account basic 96, code metadata 76, storage read 116, write 32, emptiness
 * check 93; a code read reserves the EIP-170 maximum of 24576 bytes until the real size is known.
 */
export const proof = {
  erc20: {
    /** Code of the batch contract, the token proxy and its implementation (3 x (24576 + 76 + 96)), 8 cold slot reads (8 x 116), 4 writes (4 x 32), 2 accounts (2 x 96). */
    base: 3n * (24_576n + 76n + 96n) + 8n * 116n + 4n * 32n + 2n * 96n,
    /** Recipient balance and blocklist reads (2 x 116), 3 writes (3 x 32). Paid once more for the fee recipient. */
    perRecipient: 2n * 116n + 3n * 32n,
  },
  native: {
    /** Code of the batch contract (24576 + 76 + 96), 4 cold slot reads (4 x 116), 2 writes (2 x 32), the sender (96). */
    base: 24_576n + 76n + 96n + 4n * 116n + 2n * 32n + 96n,
    /** Recipient account (96), emptiness check (93), code metadata (76), write (32). Paid once more for the fee recipient. */
    perRecipient: 96n + 93n + 76n + 32n,
  },
} as const

/** How each batch chain meters gas beyond the EVM schedule. */
export const chains = {
  /** Base (OP Stack): plain EVM metering; its L1 data fee is billed outside the gas limit. */
  base: { proofSizeGasRatio: 0n },
  /** peaq (Frontier): gas per byte of storage proof, `GasLimitPovSizeRatio` of the peaq runtime. */
  peaq: { proofSizeGasRatio: 4n },
} as const satisfies Record<Chain, { proofSizeGasRatio: bigint }>

/**
 * Conservative gas ceiling of one batch call. Throws {@link ValidationError} naming `recipientCount`,
 * `coldRecipients` or `chain`.
 *
 * @example
 * estimate({ recipientCount: 200, isETH: false }).gas // every recipient cold on base
 */
export function estimate(parameters: estimate.Parameters): estimate.ReturnType {
  const { recipientCount, isETH } = parameters
  if (!Number.isSafeInteger(recipientCount) || recipientCount < 1 || recipientCount > maxRecipients)
    throw new ValidationError({
      field: 'recipientCount',
      message: `must be an integer from 1 to ${maxRecipients} (got ${String(recipientCount)})`,
    })
  const coldRecipients = parameters.coldRecipients ?? recipientCount
  if (!Number.isSafeInteger(coldRecipients) || coldRecipients < 0 || coldRecipients > recipientCount)
    throw new ValidationError({
      field: 'coldRecipients',
      message: `must be an integer from 0 to recipientCount (${recipientCount}) (got ${String(coldRecipients)})`,
    })
  const chain = resolveChain(parameters.chain)

  const costs = isETH ? model.native : model.erc20
  const cold = BigInt(coldRecipients)
  const warm = BigInt(recipientCount - coldRecipients)
  const execution = costs.base + cold * costs.perColdRecipient + warm * costs.perWarmRecipient

  const proofBytes = isETH ? proof.native : proof.erc20
  // The fee recipient is one more transfer, hence recipientCount + 1.
  const proofFloor =
    chains[chain].proofSizeGasRatio * (proofBytes.base + BigInt(recipientCount + 1) * proofBytes.perRecipient)

  return {
    gas: execution > proofFloor ? execution : proofFloor,
    base: costs.base,
    perRecipient: costs.perColdRecipient,
    perWarmRecipient: costs.perWarmRecipient,
    proofFloor,
  }
}

export declare namespace estimate {
  type Parameters = {
    /** Number of recipients, an integer from 1 to 200. */
    recipientCount: number
    /** True for native-currency batches (ETH on base), false for ERC-20 batches. */
    isETH: boolean
    /** How many recipients hold no balance yet. @default recipientCount (all cold: the worst case) */
    coldRecipients?: number
    /** Chain the batch runs on. @default 'base' */
    chain?: Chain
  }
  type ReturnType = {
    /** Gas ceiling of the whole call, in gas: the execution model, or the chain's proof-size floor if higher. */
    gas: bigint
    /** Gas spent once per batch, in gas. */
    base: bigint
    /** Gas per cold recipient (the worst case), in gas. */
    perRecipient: bigint
    /** Gas per warm recipient (already holding a balance), in gas. */
    perWarmRecipient: bigint
    /** Gas the chain charges for storage proof (peaq); `0n` where there is no such metering (base). */
    proofFloor: bigint
  }
}

/** Adds a safety margin to a gas amount, rounding up: `ceil(gas * (10000 + marginBps) / 10000)`. */
export function withMargin(parameters: withMargin.Parameters): bigint {
  const { gas, marginBps } = parameters
  if (gas < 0n) throw new ValidationError({ field: 'gas', message: 'must not be negative' })
  if (marginBps < 0n) throw new ValidationError({ field: 'marginBps', message: 'must not be negative' })
  return (gas * (10_000n + marginBps) + 9_999n) / 10_000n
}

export declare namespace withMargin {
  type Parameters = {
    /** Gas amount, in gas. */
    gas: bigint
    /** Margin in basis points, e.g. `2000n` for +20%. */
    marginBps: bigint
  }
}

/**
 * What `gas` costs at `gasPrice`: in wei, and in atomic USD at `usdPerEther` (a decimal string, USD per whole ether),
 * rounded up to `usdDecimals` places so that a cost is never understated. Throws {@link ValidationError} naming
 * `usdPerEther` when it is not a non-negative decimal.
 */
export function cost(parameters: cost.Parameters): cost.ReturnType {
  const { gas, gasPrice, usdPerEther, usdDecimals = 6 } = parameters
  const wei = gas * gasPrice
  // usd = wei / 10^18 * price, with price read at 18 decimals: wei * price18 / 10^(36 - usdDecimals), rounded up.
  const price = Units.fromDecimal({ value: usdPerEther, decimals: 18, field: 'usdPerEther' })
  const divisor = 10n ** BigInt(36 - usdDecimals)
  return { wei, usd: (wei * price + divisor - 1n) / divisor }
}

export declare namespace cost {
  type Parameters = {
    /** Gas used, in gas. */
    gas: bigint
    /** Price of one gas, in wei. */
    gasPrice: bigint
    /** USD per whole ether, a decimal string such as "3150.25". */
    usdPerEther: string
    /** Decimal places of the USD amount returned. @default 6 */
    usdDecimals?: number
  }
  type ReturnType = {
    /** `gas * gasPrice`, in wei. */
    wei: bigint
    /** The same in USD, atomic at `usdDecimals` places, rounded up. */
    usd: bigint
  }
}
