import { type Address, encodeFunctionData, erc20Abi, formatUnits, type Hex, parseAbi, toHex, zeroAddress } from 'viem'
import { type Chain, fee, maxRecipients, type validateRecipients } from './Batch.js'
import { ValidationError } from './Errors.js'
import * as Gas from './Gas.js'

/**
 * Batch payments on the batch-payment contract (`adapters/chain/contracts/BatchPayments.sol`, the ABI of the one on
 * Base at `0x1646452F98E36A3c9Cfc3eDD8868221E207B5eEC`): the calldata the gateway builds, the gas limit it suggests,
 * and the answers of batch execute and batch estimate. Pure: the chain reads (fee rate, allowance, gas) happen in
 * the module through the `BatchChain` port and come in as parameters.
 */

/**
 * The functions, events and errors of the batch contract the gateway uses. Must match the compiled contract; a test
 * compares it with the committed artifact.
 */
export const abi = parseAbi([
  'struct Recipient { address recipient; uint256 amount; }',
  'function sprayETH(Recipient[] recipients) payable',
  'function sprayToken(address token, Recipient[] recipients)',
  'function sprayEqual(address token, address[] recipients, uint256 amountPerRecipient) payable',
  'function calculateFee(uint256 amount) view returns (uint256)',
  'function calculateTotalCost(uint256 totalAmount) view returns (uint256)',
  'function feeBps() view returns (uint256)',
  'function feeRecipient() view returns (address)',
  'function MAX_RECIPIENTS() view returns (uint256)',
  'function MAX_FEE_BPS() view returns (uint256)',
  'function paused() view returns (bool)',
  'event SprayETHExecuted(address indexed sender, uint256 totalAmount, uint256 recipientCount, uint256 feeAmount, uint256 timestamp)',
  'event SprayTokenExecuted(address indexed sender, address indexed token, uint256 totalAmount, uint256 recipientCount, uint256 feeAmount, uint256 timestamp)',
  'error EnforcedPause()',
  'error ReentrancyGuardReentrantCall()',
  'error SafeERC20FailedOperation(address token)',
])

/** The address that stands for native ether: `sprayEqual`'s token for an ether batch, and the token address answered for ETH. */
export const nativeToken: Address = zeroAddress

/**
 * Safety margin on a measured `eth_estimateGas`, in basis points (+5%), for state that moves between the estimate
 * and the block. Small on purpose: `eth_estimateGas` already answers the gas needed before refunds, which is up to
 * 17% above what a one-recipient batch finally uses, and the limit must stay within a quarter of the gas used.
 */
export const estimateMarginBps = 500n

/** The token a batch pays in, resolved on its chain. */
export type Token = {
  /** Symbol, e.g. `USDC`; for a token given by address, what its `symbol()` answers. */
  symbol: string
  /** Checksummed ERC-20 address; {@link nativeToken} for native ether. */
  address: Address
  /** Base units per whole token as a power of ten. */
  decimals: number
  /** True for native ether, sent as transaction value. */
  isETH: boolean
}

/** A batch's amounts in base units. */
export type Totals = {
  /** Number of payments. */
  recipientCount: number
  /** Sum of the payments. */
  total: bigint
  /** Protocol fee, as the contract's `calculateFee(total)`. */
  fee: bigint
  /** `total + fee`: the ERC-20 allowance, or the wei sent along. */
  totalWithFee: bigint
}

/** Sums the payments and applies the contract's fee rate, exactly as the contract's `calculateTotalCost`. */
export function totals(parameters: totals.Parameters): Totals {
  const { recipients, feeBps } = parameters
  let total = 0n
  for (const { amount } of recipients) total += amount
  return { recipientCount: recipients.length, total, ...fee({ total, feeBps }) }
}

export declare namespace totals {
  type Parameters = {
    /** The payments. */
    recipients: readonly validateRecipients.Entry[]
    /** The contract's `feeBps()`, in basis points. */
    feeBps: bigint
  }
}

/** A fee rate in basis points as the percent string the gateway on Base answers: `30n` -> `"0.3%"`. */
export function feePercent(feeBps: bigint): string {
  return `${formatUnits(feeBps, 2)}%`
}

/** Calldata of the batch call: `sprayETH(recipients)` for native ether, `sprayToken(token, recipients)` for an ERC-20. */
export function calldata(parameters: calldata.Parameters): Hex {
  const { token, recipients } = parameters
  const tuples = recipients.map(({ address, amount }) => ({ recipient: address, amount }))
  return token.isETH
    ? encodeFunctionData({ abi, functionName: 'sprayETH', args: [tuples] })
    : encodeFunctionData({ abi, functionName: 'sprayToken', args: [token.address, tuples] })
}

export declare namespace calldata {
  type Parameters = {
    /** The token paid. */
    token: Pick<Token, 'address' | 'isETH'>
    /** The payments, in order. */
    recipients: readonly validateRecipients.Entry[]
  }
}

/** Calldata of `sprayEqual(token, recipients, amountPerRecipient)`; `token` {@link nativeToken} pays ether. */
export function equalCalldata(parameters: equalCalldata.Parameters): Hex {
  const { token, recipients, amountPerRecipient } = parameters
  return encodeFunctionData({ abi, functionName: 'sprayEqual', args: [token, [...recipients], amountPerRecipient] })
}

export declare namespace equalCalldata {
  type Parameters = {
    /** ERC-20 address, or {@link nativeToken} for ether. */
    token: Address
    /** Who is paid. */
    recipients: readonly Address[]
    /** Amount each recipient gets, in base units. */
    amountPerRecipient: bigint
  }
}

/** Calldata of the ERC-20 `approve(spender, amount)` that lets the batch contract move `amount`. */
export function approveCalldata(parameters: { spender: Address; amount: bigint }): Hex {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [parameters.spender, parameters.amount] })
}

/** How a gas limit was found. */
export type GasMethod =
  /** `eth_estimateGas` on the chain's state, the sender's allowance as it is. */
  | 'eth_estimateGas'
  /** `eth_estimateGas` with the sender's allowance overridden to the batch's `totalWithFee` (not yet approved). */
  | 'eth_estimateGas_with_allowance_override'
  /** `core/Gas.ts`'s conservative model, with the recipients' actual cold/warm state where it was read. */
  | 'model'

/**
 * The gas limit to suggest: a measured estimate plus {@link estimateMarginBps}, or, without one, the gas model's
 * ceiling for the batch. Never below the chain's storage-proof floor (peaq).
 */
export function gasLimit(parameters: gasLimit.Parameters): bigint {
  const { measured, recipientCount, coldRecipients, isETH, chain } = parameters
  const model = Gas.estimate({ recipientCount, coldRecipients, isETH, chain })
  if (measured === undefined) return model.gas
  const limit = Gas.withMargin({ gas: measured, marginBps: estimateMarginBps })
  return limit > model.proofFloor ? limit : model.proofFloor
}

export declare namespace gasLimit {
  type Parameters = {
    /** Gas from `eth_estimateGas`; absent when the chain could not measure the call. */
    measured?: bigint | undefined
    /** Payments in the batch. */
    recipientCount: number
    /** Payments to accounts holding none of the token yet. @default recipientCount */
    coldRecipients?: number | undefined
    /** Native ether batch. */
    isETH: boolean
    /** Chain the batch runs on. */
    chain: Chain
  }
}

/**
 * How many payments of a batch land on an empty balance (the gas model's cold recipients): an address paid twice
 * is cold at most once, since the first payment fills it.
 */
export function coldRecipients(parameters: coldRecipients.Parameters): number {
  const { recipients, balances } = parameters
  const seen = new Set<string>()
  let cold = 0
  for (const [index, { address }] of recipients.entries()) {
    const key = address.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    if ((balances[index] ?? 0n) === 0n) cold++
  }
  return cold
}

export declare namespace coldRecipients {
  type Parameters = {
    /** The payments, in order. */
    recipients: readonly validateRecipients.Entry[]
    /** Each recipient's balance before the batch, parallel to `recipients`. */
    balances: readonly bigint[]
  }
}

/** The unsigned batch transaction as answered. */
export type TransactionView = {
  /** The batch contract. */
  to: Address
  /** Calldata. */
  data: Hex
  /** Wei sent along, decimal string; `"0"` for ERC-20 batches. */
  value: string
  /** EIP-155 chain id. */
  chainId: number
  /** Suggested gas limit as a hex quantity. */
  gasLimit: Hex
}

/** The spec's "Batch execution result" of `POST /api/v1/batch/execute`. */
export type Execution = {
  /** Always true: failures are problem+json answers. */
  success: true
  /** The batch contract the transaction calls. */
  contract: Address
  /** The token paid. */
  token: Token
  /** Totals as human decimals (whole tokens, not base units). */
  batch: {
    /** Number of payments. */
    recipientCount: number
    /** Sum of the payments, human decimal. */
    totalAmount: string
    /** Protocol fee, human decimal. */
    fee: string
    /** Fee rate in percent, e.g. `"0.3%"`. */
    feePercent: string
    /** `totalAmount + fee`, human decimal. */
    totalWithFee: string
  }
  /** The unsigned transaction the sender signs and sends. */
  transaction: TransactionView
  /** ERC-20 batches only: the approval to send before the transaction. */
  approvalRequired?: {
    /** The ERC-20 to approve on. */
    token: Address
    /** The batch contract. */
    spender: Address
    /** Allowance in base units, decimal string: `totalWithFee`, to pass verbatim to `approve()`. */
    amount: string
    /** The same allowance as a human decimal, for display. */
    amountFormatted: string
  }
}

/** Builds the spec's batch execution result from the resolved batch and the suggested gas limit. */
export function toExecution(parameters: toExecution.Parameters): Execution {
  const { chainId, contract, token, recipients, feeBps, gasLimit } = parameters
  if (recipients.length === 0 || recipients.length > maxRecipients)
    throw new ValidationError({ field: 'recipients', message: `must have 1 to ${maxRecipients} entries` })
  const amounts = totals({ recipients, feeBps })
  const human = (amount: bigint) => formatUnits(amount, token.decimals)
  return {
    success: true,
    contract,
    token: toTokenView(token),
    batch: {
      recipientCount: amounts.recipientCount,
      totalAmount: human(amounts.total),
      fee: human(amounts.fee),
      feePercent: feePercent(feeBps),
      totalWithFee: human(amounts.totalWithFee),
    },
    transaction: {
      to: contract,
      data: calldata({ token, recipients }),
      value: token.isETH ? amounts.totalWithFee.toString() : '0',
      chainId,
      gasLimit: toHex(gasLimit),
    },
    ...(token.isETH
      ? {}
      : {
          approvalRequired: {
            token: token.address,
            spender: contract,
            amount: amounts.totalWithFee.toString(),
            amountFormatted: human(amounts.totalWithFee),
          },
        }),
  }
}

export declare namespace toExecution {
  type Parameters = {
    /** EIP-155 chain id of the batch contract. */
    chainId: number
    /** The batch contract. */
    contract: Address
    /** The token paid. */
    token: Token
    /** The payments, in order. */
    recipients: readonly validateRecipients.Entry[]
    /** The contract's `feeBps()`. */
    feeBps: bigint
    /** Gas limit of the transaction, in gas. */
    gasLimit: bigint
  }
}

/** The spec's "Batch estimate result", detailed form (recipients and amounts given). */
export type DetailedEstimate = {
  /** Always true. */
  success: true
  /** The token paid. */
  token: Token
  /** Number of payments. */
  recipientCount: number
  /** Sum of the payments, human decimal. */
  totalAmount: string
  /** Protocol fee, human decimal. */
  fee: string
  /** `totalAmount + fee`, human decimal. */
  totalWithFee: string
  /** Fee rate in percent. */
  feePercent: string
  /** Suggested gas limit, DECIMAL string (execute's `gasLimit` is hex). */
  suggestedGasLimit: string
}

/** Builds the detailed batch estimate. */
export function toDetailedEstimate(parameters: toDetailedEstimate.Parameters): DetailedEstimate {
  const { token, recipients, feeBps, gasLimit } = parameters
  const amounts = totals({ recipients, feeBps })
  const human = (amount: bigint) => formatUnits(amount, token.decimals)
  return {
    success: true,
    token: toTokenView(token),
    recipientCount: amounts.recipientCount,
    totalAmount: human(amounts.total),
    fee: human(amounts.fee),
    totalWithFee: human(amounts.totalWithFee),
    feePercent: feePercent(feeBps),
    suggestedGasLimit: gasLimit.toString(),
  }
}

export declare namespace toDetailedEstimate {
  type Parameters = {
    /** The token paid. */
    token: Token
    /** The payments, in order. */
    recipients: readonly validateRecipients.Entry[]
    /** The contract's `feeBps()`. */
    feeBps: bigint
    /** Suggested gas limit, in gas. */
    gasLimit: bigint
  }
}

/** The spec's "Batch estimate result", count-only form (`recipientCount` given). */
export type CountEstimate = {
  /** Always true. */
  success: true
  /** The token paid. */
  token: Token
  /** Number of payments. */
  recipientCount: number
  /** Fee rate in percent. */
  feePercent: string
  /** Worst-case gas ceiling (every recipient cold), DECIMAL string. */
  estimatedGas: string
  /** The same ceiling, as the gas limit to use, DECIMAL string. */
  suggestedGasLimit: string
  /** Says the figure is a conservative ceiling. */
  note: string
}

/** Builds the count-only batch estimate from the gas model: every recipient cold, the worst case. */
export function toCountEstimate(parameters: toCountEstimate.Parameters): CountEstimate {
  const { token, recipientCount, feeBps, chain } = parameters
  const { gas } = Gas.estimate({ recipientCount, isETH: token.isETH, chain })
  return {
    success: true,
    token: toTokenView(token),
    recipientCount,
    feePercent: feePercent(feeBps),
    estimatedGas: gas.toString(),
    suggestedGasLimit: gas.toString(),
    note:
      'Conservative ceiling from the gas model, every recipient taken as cold (holding none of the token yet); a ' +
      'batch to funded recipients uses less. Send recipients and amounts (and sender) for an estimate against the ' +
      `chain's state. The ${feePercent(feeBps)} protocol fee is charged on the batch total.`,
  }
}

export declare namespace toCountEstimate {
  type Parameters = {
    /** The token paid. */
    token: Token
    /** Number of payments, 1 to 200. */
    recipientCount: number
    /** The contract's `feeBps()`. */
    feeBps: bigint
    /** Chain the batch runs on. */
    chain: Chain
  }
}

/** The four fields the spec answers, whatever else the caller's object carries. */
function toTokenView(token: Token): Token {
  return { symbol: token.symbol, address: token.address, decimals: token.decimals, isETH: token.isETH }
}
