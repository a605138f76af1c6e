import type { Address } from 'viem'
import * as Batch from '../../core/Batch.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as Gas from '../../core/Gas.js'
import * as BatchService from '../batch/service.js'
import type { EstimateBody, ExecuteBody } from './schema.js'

/** What the payroll module needs from outside: the batch contracts, as the batch module. */
export type Deps = BatchService.Deps

/** Status of a payroll run the gateway has built but nobody has sent yet. */
export const awaitingSignature = 'awaiting_signature'

/** {@link BatchService.preflightExecute} for a payroll run: errors name `employees.<n>.address` and `employees.<n>.amount`. */
export async function preflightExecute(deps: Deps, body: unknown): Promise<void> {
  await asEmployees(() => BatchService.preflightExecute(deps, toBatch(body)))
}

/** Checks `employeeCount`, then the chain and token as batch estimate does, before any payment. */
export async function preflightEstimate(deps: Deps, body: unknown): Promise<void> {
  await BatchService.preflightEstimate(deps, toCount(body))
}

/**
 * Builds a payroll run as one batch transaction on the batch contract (`sprayToken`, or `sprayETH` for ETH) plus,
 * for an ERC-20, the `approve` the employer sends first.
 *
 * The spec answers `status` and `txHash`. The gateway is non-custodial: it never holds the employer's key, so it
 * cannot send the run itself. It answers `status: "awaiting_signature"` and `txHash: null` with the unsigned
 * transactions; the hash exists only once the employer signs and broadcasts them, and is never invented here. Built
 * for a paid call (`caller`, the payer), it is that payer's `payroll.built` event.
 */
export async function execute(deps: Deps, body: ExecuteBody, caller?: Address) {
  const batch = await asEmployees(() => BatchService.execute(deps, toBatch(body)))
  if (caller !== undefined) await BatchService.built(deps, { type: 'payroll.built', caller, execution: batch })
  const { approvalRequired, transaction } = batch
  return {
    status: awaitingSignature,
    txHash: null,
    employeeCount: body.employees.length,
    ...batch,
    ...(approvalRequired
      ? {
          approvalTransaction: {
            to: approvalRequired.token,
            data: BatchPayment.approveCalldata({
              spender: approvalRequired.spender,
              amount: BigInt(approvalRequired.amount),
            }),
            value: '0',
            chainId: transaction.chainId,
          },
        }
      : {}),
  }
}

/**
 * The cost of a payroll run by employee count: the gas model's worst-case ceiling (every employee holding none of
 * the token yet), its parts, and the protocol fee rate read from the contract.
 */
export async function estimate(deps: Deps, body: EstimateBody) {
  const count = await BatchService.estimateByCount(deps, toCount(body))
  const model = Gas.estimate({ recipientCount: body.employeeCount, isETH: count.token.isETH, chain: count.chain })
  return {
    estimate: {
      employeeCount: body.employeeCount,
      chain: count.chain,
      token: count.token,
      estimatedGas: count.estimatedGas,
      suggestedGasLimit: count.suggestedGasLimit,
      baseGas: model.base.toString(),
      gasPerEmployee: model.perRecipient.toString(),
      feePercent: count.feePercent,
      note:
        `Worst-case gas ceiling for ${body.employeeCount} employees, each taken as holding none of the token yet; a ` +
        `payroll to funded employees uses less. The ${count.feePercent} protocol fee (the batch contract's rate) is ` +
        'charged on top of the payroll total, so the employer approves total plus fee.',
    },
  }
}

/**
 * The tokens a payroll run can pay in, per configured chain: every symbol of the batch token table that has an
 * address on that chain (ETH as the zero address). A chain that is configured but refused (peaq whose contract code
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
  return { tokens, chains }
}

/** A payroll body as a batch execute body: employees become the parallel recipients and amounts. */
function toBatch(body: unknown) {
  const input = fieldsOf(body)
  const { employees } = input
  if (!Array.isArray(employees))
    throw new ValidationError({
      field: 'employees',
      message: `must be an array of 1 to ${Batch.maxRecipients} { address, amount } objects`,
    })
  const entries = employees.map((employee, index) => {
    if (typeof employee !== 'object' || employee === null || Array.isArray(employee))
      throw new ValidationError({ field: `employees.${index}`, message: 'must be an object with address and amount' })
    return employee as Record<string, unknown>
  })
  return {
    token: input.token as string,
    sender: input.sender as string,
    chain: input.chain as Batch.Chain | undefined,
    recipients: entries.map((employee) => employee.address as string),
    amounts: entries.map((employee) => employee.amount as string),
  }
}

/** A payroll estimate body as a count-only batch estimate body; `employeeCount` is checked here to name it. */
function toCount(body: unknown) {
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
  return {
    token: input.token as string | undefined,
    chain: input.chain as Batch.Chain | undefined,
    recipientCount: employeeCount,
  }
}

/** Runs a batch call and renames the batch's fields in its validation errors to the payroll's. */
async function asEmployees<value>(run: () => Promise<value>): Promise<value> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    const match = /^(recipients|amounts)(?:\.(\d+))?$/.exec(error.field)
    if (!match) throw error
    const [, list, index] = match
    const field =
      index === undefined ? 'employees' : `employees.${index}.${list === 'recipients' ? 'address' : 'amount'}`
    const message = error.message.slice(error.field.length + 2).replace(/\brecipients\b/g, 'employees')
    throw new ValidationError({ field, message })
  }
}

function fieldsOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError({ field: 'body', message: 'must be a JSON object' })
  return body as Record<string, unknown>
}
