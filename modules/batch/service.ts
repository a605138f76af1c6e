import { type Address, type Hex, isAddressEqual, parseUnits } from 'viem'
import * as Batch from '../../core/Batch.js'
import type { BatchChain, Chains } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { Events } from '../../core/Events.js'
import type { EstimateBody, ExecuteBody } from './schema.js'

export type { Chains } from '../../core/BatchChain.js'

/** What the batch module needs from outside. */
export type Deps = {
  /** The batch contract on each configured chain. */
  chains: Chains
  /** The events outbox: a built transaction is `batch.built` (or `payroll.built`) to the payer. */
  events?: Events | undefined
}

/**
 * Refuses, before any payment is asked for, what can be refused without gas or totals: the chain (allowlist, and
 * for peaq its code verification), the token symbol and its configured address, the sender, and the recipients and
 * amounts by the BPA 1.0 rules. Routes run it ahead of schema validation so that its messages, which name the field
 * and the allowed values, are the ones the caller sees.
 */
export async function preflightExecute(deps: Deps, body: unknown): Promise<void> {
  await parseExecute(deps, body)
}

/** {@link preflightExecute} for batch estimate: the same chain and token rules, then either form's own. */
export async function preflightEstimate(deps: Deps, body: unknown): Promise<void> {
  await parseEstimate(deps, body)
}

/**
 * Builds the unsigned batch transaction (the spec's batch execution result) with the fee read from the contract and
 * a gas limit measured against the chain's state for `sender`. When the sender's allowance is short, gas is measured
 * as if it had approved `totalWithFee`; `gasEstimate` says how the limit was found. Built for a paid call (`caller`,
 * the payer), it is that payer's `batch.built` event.
 */
export async function execute(deps: Deps, body: ExecuteBody, caller?: Address) {
  const { execution } = await build(deps, body)
  if (caller !== undefined) await built(deps, { type: 'batch.built', caller, execution })
  return execution
}

/**
 * {@link execute} without the event: the execution result, and what it was built from (the payments in base units,
 * the contract's fee rate, the sender), for a family that answers more of it (payroll).
 */
export async function build(deps: Deps, body: unknown) {
  const request = await parseExecute(deps, body)
  const { chain, contract, recipients, sender } = request
  const token = await onChain(request)
  const feeBps = await read(chain, () => contract.feeBps())
  const gas = await measure({ chain, contract, token, recipients, sender, feeBps })
  const execution = {
    ...BatchPayment.toExecution({
      chainId: contract.chainId,
      contract: contract.address,
      token,
      recipients,
      feeBps,
      gasLimit: gas.limit,
    }),
    chain,
    gasEstimate: gas.view,
  }
  return { execution, recipients, feeBps, sender, contract }
}

/**
 * Records that a paid call built a batch transaction: `batch.built` (or `payroll.built`) to the payer, with the chain,
 * the token, the recipient count, the total with the fee RAW (`totalRaw`, atomic units) and the unsigned transaction. Nothing
 * without an events port; a store that cannot record it fails the call, which is then not charged.
 */
export async function built(deps: Deps, input: built.Input): Promise<void> {
  const { type, caller, execution } = input
  const { token, batch, transaction, chain } = execution
  await deps.events?.emit({
    type,
    owner: caller,
    data: {
      chain,
      token: token.address,
      recipients: batch.recipientCount,
      totalRaw: parseUnits(batch.totalWithFee, token.decimals).toString(),
      transaction,
    },
  })
}

export declare namespace built {
  type Input = {
    /** Which event. */
    type: 'batch.built' | 'payroll.built'
    /** The verified payer, who receives it. */
    caller: Address
    /** What was built. */
    execution: Pick<BatchPayment.Execution, 'token' | 'batch' | 'transaction'> & { chain: string }
  }
}

/**
 * The spec's batch estimate result. Detailed form (recipients and amounts): totals with the contract's fee and a gas
 * limit measured as execute measures it (for `sender` when given). Count-only form (recipientCount): the gas model's
 * worst-case ceiling, every recipient cold.
 */
export async function estimate(deps: Deps, body: EstimateBody) {
  const request = await parseEstimate(deps, body)
  if (request.form === 'count') return countEstimate(request)
  const { chain, contract, recipients, sender } = request
  const token = await onChain(request)
  const feeBps = await read(chain, () => contract.feeBps())
  const gas = await measure({ chain, contract, token, recipients, sender, feeBps })
  return {
    ...BatchPayment.toDetailedEstimate({ token, recipients, feeBps, gasLimit: gas.limit }),
    chain,
    gasEstimate: gas.view,
  }
}

/**
 * The count-only batch estimate of `recipientCount` payments (the gas model's worst case and the contract's fee rate),
 * with the token resolved on its chain and the fee rate in basis points, for a family that answers more (payroll).
 */
export async function estimateByCount(deps: Deps, input: estimateByCount.Input) {
  const { recipientCount } = input
  const target = await parseTarget(deps, input, { tokenRequired: false })
  const token = await onChain(target)
  const feeBps = await read(target.chain, () => target.contract.feeBps())
  return { estimate: countView({ chain: target.chain, token, feeBps, recipientCount }), token, feeBps }
}

export declare namespace estimateByCount {
  type Input = {
    /** Number of payments, 1 to 200. */
    recipientCount: number
    /** Token symbol or ERC-20 address. @default 'USDC' */
    token?: string | undefined
    /** Chain. @default 'base' */
    chain?: Batch.Chain | undefined
  }
}

/** The token a request names (`token`, default USDC, on `chain`, default base) with its address and decimals. */
export async function tokenOf(deps: Deps, input: { token?: unknown; chain?: unknown }): Promise<BatchPayment.Token> {
  return onChain(await parseTarget(deps, input, { tokenRequired: false }))
}

async function countEstimate(request: Parsed & { recipientCount: number }) {
  const { chain, contract, recipientCount } = request
  const token = await onChain(request)
  const feeBps = await read(chain, () => contract.feeBps())
  return countView({ chain, token, feeBps, recipientCount })
}

function countView(parameters: {
  chain: Batch.Chain
  token: BatchPayment.Token
  feeBps: bigint
  recipientCount: number
}) {
  const { chain, token, feeBps, recipientCount } = parameters
  return { ...BatchPayment.toCountEstimate({ token, recipientCount, feeBps, chain }), chain }
}

/**
 * The batch contract of `value` (a request's `chain`): `base` when absent. peaq is accepted only when configured and
 * verified; otherwise 503 `upstream_unavailable` with the reason, since the value is allowed and the refusal is this
 * gateway's state, not the caller's mistake. Anything outside the allowlist is 400, naming the allowed values.
 */
export async function admit(deps: Deps, value: unknown): Promise<{ chain: Batch.Chain; contract: BatchChain }> {
  const chain = Batch.resolveChain(value)
  if (chain === 'base') return { chain, contract: deps.chains.base }
  const peaq = deps.chains.peaq
  if (!peaq)
    throw new UpstreamUnavailableError(
      'Chain peaq is not configured on this gateway, so no batch can be built or quoted for it; use chain base.',
      { details: { field: 'chain', chain, reason: 'not_configured' } },
    )
  const verdict = await verifyCode(deps.chains.base, peaq)
  if (!verdict.ok)
    throw new UpstreamUnavailableError(verdict.message, { details: { field: 'chain', chain, ...verdict.details } })
  return { chain, contract: peaq }
}

/** Outcome of comparing a chain's batch contract code with the primary chain's. */
export type Verdict =
  | {
      ok: true
      /** keccak256 of the runtime code both contracts share. */
      codeHash: Hex
    }
  | {
      ok: false
      /** Why the chain is refused, for people. */
      message: string
      /** Machine-readable reason and the hashes compared. */
      details: { reason: 'no_code' | 'code_mismatch'; codeHash: Hex | null; primaryCodeHash: Hex | null }
    }

// Verdicts per (primary, candidate) pair, kept for the life of the process: deployed code does not change. A read
// that fails is not a verdict and is retried on the next request.
const verdicts = new WeakMap<BatchChain, WeakMap<BatchChain, Promise<Verdict>>>()

/**
 * Whether `candidate`'s batch contract runs exactly the primary chain's code (equal runtime code hashes, both
 * read from their chains), cached per pair. Throws {@link UpstreamUnavailableError} when a chain cannot be read.
 */
export function verifyCode(primary: BatchChain, candidate: BatchChain): Promise<Verdict> {
  let byCandidate = verdicts.get(primary)
  if (!byCandidate) {
    byCandidate = new WeakMap()
    verdicts.set(primary, byCandidate)
  }
  const cached = byCandidate.get(candidate)
  if (cached) return cached
  const verdict = compareCode(primary, candidate)
  byCandidate.set(candidate, verdict)
  verdict.catch(() => byCandidate.delete(candidate))
  return verdict
}

async function compareCode(primary: BatchChain, candidate: BatchChain): Promise<Verdict> {
  const [primaryCodeHash, codeHash] = await Promise.all([
    read('base', () => primary.codeHash()),
    read('peaq', () => candidate.codeHash()),
  ])
  const details = { codeHash: codeHash ?? null, primaryCodeHash: primaryCodeHash ?? null }
  if (primaryCodeHash === undefined)
    return {
      ok: false,
      message: `The primary chain's batch contract ${primary.address} has no code, so no other chain can be verified against it.`,
      details: { reason: 'no_code', ...details },
    }
  if (codeHash === undefined)
    return {
      ok: false,
      message: `peaq is refused: its configured batch contract ${candidate.address} has no code on chain ${candidate.chainId}.`,
      details: { reason: 'no_code', ...details },
    }
  if (codeHash !== primaryCodeHash)
    return {
      ok: false,
      message:
        `peaq is refused: its batch contract ${candidate.address} runs different code from the primary chain's ` +
        `${primary.address} (code hash ${codeHash}, expected ${primaryCodeHash}); a chain is accepted only when its ` +
        'contract code is verified identical. Use chain base.',
      details: { reason: 'code_mismatch', ...details },
    }
  return { ok: true, codeHash }
}

/** How the suggested gas limit was found, answered beside the spec's fields. */
export type GasEstimateView = {
  /** `eth_estimateGas`, `eth_estimateGas_with_allowance_override` (allowance short), or `model`. */
  method: BatchPayment.GasMethod
  /** Whether the sender's allowance covers `totalWithFee`; `null` for ether or without a sender. */
  allowanceSufficient: boolean | null
  /** The sender's allowance to the batch contract, base units; `null` for ether or without a sender. */
  allowance: string | null
  /** Gas `eth_estimateGas` answered, before the margin; `null` when the model was used. */
  measuredGas: string | null
  /** Recipients taken as cold by the model; `null` when gas was measured. */
  coldRecipients: number | null
  /** One or two sentences on the method and what the sender must do. */
  note: string
}

type Parsed = {
  chain: Batch.Chain
  contract: BatchChain
  token: Batch.Token
}

async function parseExecute(deps: Deps, body: unknown) {
  const input = fieldsOf(body)
  const target = await parseTarget(deps, input, { tokenRequired: true })
  const sender = Batch.resolveAddress({ value: input.sender, field: 'sender' })
  const { recipients } = await paymentsOf(target, input)
  return { ...target, sender, recipients }
}

async function parseEstimate(deps: Deps, body: unknown) {
  const input = fieldsOf(body)
  const target = await parseTarget(deps, input, { tokenRequired: false })
  const sender = input.sender === undefined ? undefined : Batch.resolveAddress({ value: input.sender, field: 'sender' })
  const { recipientCount } = input
  if (input.recipients === undefined && input.amounts === undefined) {
    // As the original gateway: neither form given is the count-only form for one payment.
    if (recipientCount === undefined) return { ...target, form: 'count' as const, recipientCount: 1 }
    if (
      typeof recipientCount !== 'number' ||
      !Number.isSafeInteger(recipientCount) ||
      recipientCount < 1 ||
      recipientCount > Batch.maxRecipients
    )
      throw new ValidationError({
        field: 'recipientCount',
        message: `must be an integer from 1 to ${Batch.maxRecipients}`,
      })
    return { ...target, form: 'count' as const, recipientCount }
  }
  const { recipients } = await paymentsOf(target, input)
  if (recipientCount !== undefined && recipientCount !== recipients.length)
    throw new ValidationError({
      field: 'recipientCount',
      message: `is ${String(recipientCount)} but recipients has ${recipients.length} entries; give one form or make them agree`,
    })
  return { ...target, form: 'detailed' as const, sender, recipients }
}

/** The payments of a request in either form (Batch.payments), the object form's amounts in the token's decimals. */
function paymentsOf(parsed: Parsed, input: Record<string, unknown>) {
  const { recipients, amounts } = input
  return Batch.payments({ recipients, amounts, decimals: async () => (await onChain(parsed)).decimals })
}

/** Chain and token of a request; a symbol must have an address configured on the chain. */
async function parseTarget(
  deps: Deps,
  input: Record<string, unknown>,
  options: { tokenRequired: boolean },
): Promise<Parsed> {
  const { chain, contract } = await admit(deps, input.chain)
  if (options.tokenRequired && input.token === undefined)
    throw new ValidationError({ field: 'token', message: 'required: a token symbol or an ERC-20 address' })
  const token = Batch.resolveToken({ chain, token: input.token })
  if (token.symbol !== null && !token.isETH && contract.tokens[token.symbol] === undefined)
    throw new UpstreamUnavailableError(
      `${token.symbol} has no contract address configured for ${chain} on this gateway.`,
      {
        details: { field: 'token', chain },
      },
    )
  return { chain, contract, token }
}

/** The token with its address and decimals on the chain: configured symbols from config, other addresses read on chain. */
async function onChain(parsed: Parsed): Promise<BatchPayment.Token> {
  const { chain, contract, token } = parsed
  if (token.isETH)
    return { symbol: token.symbol ?? 'ETH', address: BatchPayment.nativeToken, decimals: 18, isETH: true }
  if (token.symbol !== null)
    return { symbol: token.symbol, address: contract.tokens[token.symbol]!, decimals: token.decimals!, isETH: false }
  const address = token.address!
  const table = Batch.tokens[chain]
  for (const [symbol, configured] of Object.entries(contract.tokens)) {
    const known = Object.hasOwn(table, symbol) ? table[symbol] : undefined
    if (known && isAddressEqual(configured, address)) return { symbol, address, decimals: known.decimals, isETH: false }
  }
  const info = await read(chain, () => contract.readToken(address))
  if (!info.ok) throw new ValidationError({ field: 'token', message: `is not an ERC-20 on ${chain}: ${info.reason}` })
  return { symbol: info.symbol, address, decimals: info.decimals, isETH: false }
}

/**
 * The gas limit of the batch call. With a sender: `eth_estimateGas` on the chain's state (allowance overridden to
 * `totalWithFee` when short) plus the margin. Without one, or when the chain cannot measure the call: the gas model
 * with each recipient's actual balance deciding cold or warm.
 */
async function measure(parameters: {
  chain: Batch.Chain
  contract: BatchChain
  token: BatchPayment.Token
  recipients: readonly Batch.validateRecipients.Entry[]
  sender: Address | undefined
  feeBps: bigint
}): Promise<{ limit: bigint; view: GasEstimateView }> {
  const { chain, contract, token, recipients, sender, feeBps } = parameters
  const { totalWithFee, recipientCount } = BatchPayment.totals({ recipients, feeBps })
  const { isETH } = token
  const margin = `${BatchPayment.estimateMarginBps / 100n}%`
  let allowance: bigint | undefined
  let approve = ''
  let reason = 'no sender was given, so the call could not be simulated'
  if (sender !== undefined) {
    if (!isETH) allowance = await read(chain, () => contract.allowance({ token: token.address, owner: sender }))
    const short = allowance !== undefined && allowance < totalWithFee
    if (short) approve = ` The sender must approve ${totalWithFee} base units to ${contract.address} before sending.`
    const data = BatchPayment.calldata({ token, recipients })
    const value = isETH ? totalWithFee : 0n
    const result = await read(chain, () =>
      contract.estimateGas({
        from: sender,
        data,
        value,
        allowance: short ? { token: token.address, amount: totalWithFee } : undefined,
      }),
    )
    if (result.ok)
      return {
        limit: BatchPayment.gasLimit({ measured: result.gas, recipientCount, isETH, chain }),
        view: {
          method: short ? 'eth_estimateGas_with_allowance_override' : 'eth_estimateGas',
          ...allowanceView(allowance, totalWithFee),
          measuredGas: result.gas.toString(),
          coldRecipients: null,
          note:
            (short
              ? `Measured with eth_estimateGas as if the sender had approved ${totalWithFee} base units (its allowance is ${allowance}), plus a ${margin} margin.`
              : `Measured with eth_estimateGas on the chain's latest state, plus a ${margin} margin.`) + approve,
        },
      }
    reason =
      result.reason === 'reverted'
        ? `the call reverts on the chain's current state (${result.message}); sent as it is now, it would fail`
        : result.message
  }
  const accounts = recipients.map(({ address }) => address)
  const balances = await read(chain, () => contract.balances({ token: isETH ? undefined : token.address, accounts }))
  const cold = BatchPayment.coldRecipients({ recipients, balances })
  return {
    limit: BatchPayment.gasLimit({ recipientCount, coldRecipients: cold, isETH, chain }),
    view: {
      method: 'model',
      ...allowanceView(allowance, totalWithFee),
      measuredGas: null,
      coldRecipients: cold,
      note:
        `Conservative ceiling from the gas model with ${cold} of ${recipientCount} recipients cold (holding none of ` +
        `the token yet), because ${reason}.${approve}`,
    },
  }
}

function allowanceView(allowance: bigint | undefined, totalWithFee: bigint) {
  return {
    allowanceSufficient: allowance === undefined ? null : allowance >= totalWithFee,
    allowance: allowance === undefined ? null : allowance.toString(),
  }
}

/** Runs a chain read; a fault becomes 503 `upstream_unavailable` naming the chain. */
async function read<value>(chain: Batch.Chain, run: () => Promise<value>): Promise<value> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) throw error
    throw new UpstreamUnavailableError(
      `The ${chain} chain could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      { cause: error, details: { chain } },
    )
  }
}

function fieldsOf(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw new ValidationError({ field: 'body', message: 'must be a JSON object' })
  return body
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
