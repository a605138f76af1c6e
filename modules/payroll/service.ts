import type { Address } from 'viem'
import * as Batch from '../../core/Batch.js'
import type { BatchChain } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as Gas from '../../core/Gas.js'
import * as Units from '../../core/Units.js'
import * as BatchService from '../batch/service.js'
import type { EstimateBody, ExecuteBody } from './schema.js'

/** What the payroll module needs from outside: the batch contracts, as the batch module. */
export type Deps = BatchService.Deps

/** Status of a payroll run the gateway has built and the employer has still to sign and send: the original's `ready`. */
export const ready = 'ready'

/** {@link BatchService.preflightExecute} for a payroll run: errors name `employees.<n>.address` and `employees.<n>.amount`. */
export async function preflightExecute(deps: Deps, body: unknown): Promise<void> {
  await asEmployees(() => BatchService.preflightExecute(deps, toBatch(body)))
}

/** Checks `employeeCount`, the chain and token as batch estimate does, and `totalAmount` in the token's decimals. */
export async function preflightEstimate(deps: Deps, body: unknown): Promise<void> {
  await totalOf(deps, body)
}

/**
 * Builds a payroll run as one batch transaction on the batch contract (`sprayToken`, or `sprayETH` for ETH) plus,
 * for an ERC-20, the `approve` the employer sends first. Each employee's `amount` is a HUMAN decimal of the token, as
 * the original gateway reads it: `"2500"` pays 2,500 USDC (2500000000 base units).
 *
 * The spec answers `status` and `txHash`. The gateway is non-custodial: it never holds the employer's key, so it
 * cannot send the run itself. It answers the original's `status: "ready"` and `txHash: null` with the unsigned
 * transactions; the hash exists only once the employer signs and broadcasts them, and is never invented here. Beside
 * the batch execution result it answers the original's `payroll`, `breakdown`, `transactions` and `balanceCheck`.
 * Built for a paid call (`caller`, the payer), it is that payer's `payroll.built` event.
 */
export async function execute(deps: Deps, body: ExecuteBody, caller?: Address) {
  const built = await asEmployees(() => BatchService.build(deps, toBatch(body)))
  const { execution, recipients, feeBps, sender, contract } = built
  if (caller !== undefined) await BatchService.built(deps, { type: 'payroll.built', caller, execution })
  const { approvalRequired, transaction, token } = execution
  const { total, fee, totalWithFee } = BatchPayment.totals({ recipients, feeBps })
  const human = (amount: bigint) => Units.toDecimal(amount, token.decimals)
  const approvalTransaction = approvalRequired && {
    to: approvalRequired.token,
    data: BatchPayment.approveCalldata({ spender: approvalRequired.spender, amount: BigInt(approvalRequired.amount) }),
    value: '0',
    chainId: transaction.chainId,
  }
  return {
    status: ready,
    txHash: null,
    employeeCount: body.employees.length,
    ...execution,
    ...(approvalTransaction ? { approvalTransaction } : {}),
    payroll: {
      token: { symbol: token.symbol, address: token.address, decimals: token.decimals, isETH: token.isETH },
      sender,
      employeeCount: recipients.length,
      totalAmount: human(total),
      totalAmountRaw: total.toString(),
      protocolFee: human(fee),
      protocolFeeRaw: fee.toString(),
      protocolFeeBps: Number(feeBps),
      totalWithFee: human(totalWithFee),
      totalWithFeeRaw: totalWithFee.toString(),
      memo: body.memo ?? null,
    },
    breakdown: recipients.map(({ address, amount }, index) => ({
      index,
      address,
      amount: human(amount),
      amountRaw: amount.toString(),
      label: body.employees[index]?.label ?? null,
    })),
    transactions: { approval: approvalTransaction ?? null, payroll: transaction },
    balanceCheck: await balanceCheck({ contract, token, sender, required: totalWithFee }),
  }
}

/**
 * The cost of a payroll run by employee count: the gas model's worst-case ceiling (every employee holding none of
 * the token yet), its parts, and the protocol fee rate read from the contract; with `totalAmount` (a HUMAN decimal of
 * the token), the original's `feeBreakdown` of the fee on it. `limits` as the original: 200 employees per run.
 */
export async function estimate(deps: Deps, body: EstimateBody) {
  const { count, total } = await totalOf(deps, body)
  const { estimate: counted, token, feeBps } = count
  const model = Gas.estimate({ recipientCount: body.employeeCount, isETH: token.isETH, chain: counted.chain })
  const human = (amount: bigint) => Units.toDecimal(amount, token.decimals)
  const fee = total === undefined ? undefined : Batch.fee({ total, feeBps })
  return {
    estimate: {
      employeeCount: body.employeeCount,
      chain: counted.chain,
      token: counted.token,
      estimatedGas: Number(counted.estimatedGas),
      suggestedGasLimit: counted.suggestedGasLimit,
      baseGas: model.base.toString(),
      gasPerEmployee: model.perRecipient.toString(),
      feePercent: counted.feePercent,
      note:
        `Worst-case gas ceiling for ${body.employeeCount} employees, each taken as holding none of the token yet; a ` +
        `payroll to funded employees uses less. The ${counted.feePercent} protocol fee (the batch contract's rate) is ` +
        'charged on top of the payroll total, so the employer approves total plus fee.',
    },
    feeBreakdown:
      total === undefined || fee === undefined
        ? null
        : {
            totalAmount: human(total),
            totalAmountRaw: total.toString(),
            protocolFee: human(fee.fee),
            protocolFeeRaw: fee.fee.toString(),
            protocolFeeBps: Number(feeBps),
            totalWithFee: human(fee.totalWithFee),
            totalWithFeeRaw: fee.totalWithFee.toString(),
            token: token.symbol,
          },
    limits: { maxEmployees: Batch.maxRecipients, batchesNeeded: Math.ceil(body.employeeCount / Batch.maxRecipients) },
  }
}

/**
 * The tokens a payroll run can pay in, per configured chain: every symbol of the batch token table that has an
 * address on that chain (ETH as the zero address), with the original gateway's `recommended` (USDC, USDT) and
 * `tokenCount`. A chain that is configured but refused (peaq whose contract code
 * is not verified identical) lists no tokens; `chains` says why.
 */
export async function tokens(deps: Deps) {
  const tokens: {
    chain: Batch.Chain
    chainId: number
    symbol: string
    address: string
    decimals: number
    isETH: boolean
  }[] = []
  const chains: {
    chain: Batch.Chain
    chainId: number | null
    contract: string | null
    available: boolean
    reason?: string
  }[] = []
  for (const chain of Batch.chains) {
    const contract = deps.chains[chain]
    if (!contract) {
      chains.push({
        chain,
        chainId: null,
        contract: null,
        available: false,
        reason: `${chain} is not configured on this gateway`,
      })
      continue
    }
    try {
      await BatchService.admit(deps, chain)
    } catch (error) {
      if (!(error instanceof UpstreamUnavailableError)) throw error
      chains.push({
        chain,
        chainId: contract.chainId,
        contract: contract.address,
        available: false,
        reason: error.message,
      })
      continue
    }
    chains.push({ chain, chainId: contract.chainId, contract: contract.address, available: true })
    for (const [symbol, { decimals, isETH }] of Object.entries(Batch.tokens[chain])) {
      const address = isETH ? BatchPayment.nativeToken : contract.tokens[symbol]
      if (address) tokens.push({ chain, chainId: contract.chainId, symbol, address, decimals, isETH })
    }
  }
  const listed = tokens.map((token) => ({ ...token, recommended: recommended.includes(token.symbol) }))
  return { tokens: listed, tokenCount: listed.length, recommended, chains }
}

/** The tokens the original gateway recommends for payroll. */
export const recommended: readonly string[] = ['USDC', 'USDT']

/**
 * A payroll body as a batch execute body in the original's object shape: employees become `{ address, amount }`
 * recipients, whose amounts the batch reads as HUMAN decimals of the token.
 */
function toBatch(body: unknown) {
  const input = fieldsOf(body)
  const { employees } = input
  if (!Array.isArray(employees))
    throw new ValidationError({
      field: 'employees',
      message: `must be an array of 1 to ${Batch.maxRecipients} { address, amount } objects`,
    })
  const recipients = employees.map((employee, index) => {
    if (typeof employee !== 'object' || employee === null || Array.isArray(employee))
      throw new ValidationError({ field: `employees.${index}`, message: 'must be an object with address and amount' })
    const { address, amount } = employee as Record<string, unknown>
    return { address, amount }
  })
  return { token: input.token, sender: input.sender, chain: input.chain, recipients }
}

/**
 * The count-only estimate of a payroll estimate body and its `totalAmount` in the token's base units (`undefined`
 * without one); `employeeCount` is checked here to name it.
 */
async function totalOf(deps: Deps, body: unknown) {
  const input = fieldsOf(body)
  const { employeeCount } = input
  if (
    typeof employeeCount !== 'number' ||
    !Number.isSafeInteger(employeeCount) ||
    employeeCount < 1 ||
    employeeCount > Batch.maxRecipients
  )
    throw new ValidationError({
      field: 'employeeCount',
      message: `must be an integer from 1 to ${Batch.maxRecipients}`,
    })
  const count = await BatchService.estimateByCount(deps, {
    token: input.token as string | undefined,
    chain: input.chain as Batch.Chain | undefined,
    recipientCount: employeeCount,
  })
  const total =
    input.totalAmount === undefined
      ? undefined
      : Units.fromDecimal({ value: input.totalAmount, decimals: count.token.decimals, field: 'totalAmount' })
  return { count, total }
}

/** The employer's balance of the token against what the run needs (total with fee); `null` when it cannot be read. */
async function balanceCheck(parameters: {
  contract: BatchChain
  token: BatchPayment.Token
  sender: Address
  required: bigint
}) {
  const { contract, token, sender, required } = parameters
  // As the original: the check is advice for the employer, so a chain that cannot answer leaves it out, not the run.
  const balances = await contract
    .balances({ token: token.isETH ? undefined : token.address, accounts: [sender] })
    .catch(() => undefined)
  const balance = balances?.[0]
  if (balance === undefined) return null
  const human = (amount: bigint) => Units.toDecimal(amount, token.decimals)
  const sufficient = balance >= required
  return {
    balance: human(balance),
    balanceRaw: balance.toString(),
    required: human(required),
    requiredRaw: required.toString(),
    sufficient,
    shortfall: sufficient ? null : human(required - balance),
    shortfallRaw: sufficient ? null : (required - balance).toString(),
  }
}

/** Runs a batch call and renames the batch's `recipients` in its validation errors to the payroll's `employees`. */
async function asEmployees<value>(run: () => Promise<value>): Promise<value> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof ValidationError) || !/^recipients(\.|$)/.test(error.field)) throw error
    const field = error.field.replace(/^recipients/, 'employees')
    const message = error.message.slice(error.field.length + 2).replace(/\brecipients\b/g, 'employees')
    throw new ValidationError({ field, message })
  }
}

function fieldsOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ field: 'body', message: 'must be a JSON object' })
  return body as Record<string, unknown>
}
