import { Value } from '@sinclair/typebox/value'
import { Account, Asset, Keypair, Memo, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk/base'
import { bytesToHex, formatUnits } from 'viem'
import { StellarNetworkError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type * as StellarNetwork from '../../core/StellarNetwork.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { BatchBody, EstimateBody, isDestination, isSecretSeed, maxOperations, parseAmount } from './schema.js'

/** What the Stellar module needs from outside. */
export type Deps = {
  /** The network transactions are signed for and submitted to; absent (no Horizon configured), the module is not mounted. */
  network: StellarNetwork.StellarNetwork
  /** Clock, for the transaction's time bounds. @default () => new Date() */
  now?: () => Date
  /** How long a built transaction stays valid, in seconds. @default 60 */
  validForSeconds?: number
  /** Highest fee bid per operation, in stroops, whatever the fee stats say. @default 1_000_000n (0.1 XLM) */
  maxFeePerOperation?: bigint
}

/** Stroops per XLM, as a power of ten. */
const decimals = Units.units.xlm.decimals

/** The largest fee one transaction can carry, in stroops: the envelope's fee field is an unsigned 32-bit integer. */
const maxTransactionFee = 2n ** 32n - 1n

/** One payment of a batch, checked. */
type Payment = {
  /** `G...` or `M...` destination. */
  destination: string
  /** Amount in stroops. */
  stroops: bigint
}

/**
 * A batch of native XLM payments in ONE transaction of N payment operations: all apply or none do. With `sender` (the
 * original gateway's form) the answer is that transaction unsigned, for the sender to sign and submit; with
 * `sourceSecret` it is signed in memory here and submitted. The secret is used to sign and then dropped: it is never
 * logged, stored, or part of an answer or an error.
 */
export async function batch(deps: Deps, input: BatchBody): Promise<batch.ReturnType | unsigned.ReturnType> {
  const planned = plan(input)
  if (planned.form === 'unsigned') return unsigned(deps, planned)
  const { payments, memo } = planned
  const keypair = toKeypair(planned.secret)
  const source = keypair.publicKey()
  const { network } = deps

  const [account, fees] = await Promise.all([load(deps, source), network.feeStats().then(answered)])
  const feePerOperation = bid(deps, fees)
  const maxFee = checkedFee(feePerOperation, payments.length)
  const maxTime = Math.floor(clock(deps).getTime() / 1000) + (deps.validForSeconds ?? 60)
  const transaction = build(deps, { source, sequence: account.sequence, feePerOperation, payments, memo, maxTime })
  transaction.sign(keypair)
  const hash = bytesToHex(transaction.hash()).slice(2)
  const envelope = transaction.toEnvelope().toXDR('base64')

  const submitted = answered(await network.submit(envelope), {
    hash,
    message: `The transaction ${hash} may still be included until ${new Date(maxTime * 1000).toISOString()}; look it up before sending again.`,
  })
  if (!submitted.ok) throw refusal(submitted, payments, hash)

  const summary = {
    hash,
    source,
    recipientCount: payments.length,
    totalAmount: Units.toDecimal(sum(payments), decimals),
    maxFee: formatUnits(maxFee, decimals),
  }
  if (submitted.status === 'pending')
    return { ...summary, status: 'pending', validUntil: new Date(maxTime * 1000).toISOString() }
  return {
    ...summary,
    status: 'success',
    ledger: submitted.ledger,
    feeCharged: formatUnits(submitted.feeCharged, decimals),
  }
}

/** Checks a batch body before payment: whatever `batch` would refuse as bad input, whoever pays, is refused here. */
export function preflightBatch(body: unknown): void {
  if (Value.Check(BatchBody, body)) plan(body)
}

/** How long the unsigned transaction of the original gateway's form stays valid, in seconds: its signer needs time. */
const unsignedValidForSeconds = 300

/**
 * The original gateway's answer: the batch as one unsigned transaction from `sender`, at its next sequence number,
 * for the sender to sign and submit. Nothing is signed or sent here, so nothing can be paid twice by this call.
 */
async function unsigned(deps: Deps, planned: Extract<Plan, { form: 'unsigned' }>): Promise<unsigned.ReturnType> {
  const { sender, payments, memo } = planned
  const [account, fees] = await Promise.all([load(deps, sender), deps.network.feeStats().then(answered)])
  const feePerOperation = bid(deps, fees)
  const maxFee = checkedFee(feePerOperation, payments.length)
  const maxTime = Math.floor(clock(deps).getTime() / 1000) + unsignedValidForSeconds
  const transaction = build(deps, {
    source: sender,
    sequence: account.sequence,
    feePerOperation,
    payments,
    memo,
    maxTime,
  })
  const total = sum(payments)
  const totalAmount = Units.toDecimal(total, decimals)
  return {
    success: true,
    chain: 'stellar',
    chainId: 14,
    network: networkName(deps.network.networkPassphrase),
    status: 'unsigned',
    hash: bytesToHex(transaction.hash()).slice(2),
    source: sender,
    recipientCount: payments.length,
    totalAmount,
    totalAmountStroops: total.toString(),
    maxFee: formatUnits(maxFee, decimals),
    batch: {
      recipientCount: payments.length,
      totalAmount,
      fee: '0',
      feePercent: '0%',
      totalWithFee: totalAmount,
      feeAddress: null,
    },
    transaction: {
      unsignedXDR: transaction.toXDR(),
      sourceAccount: sender,
      sequenceNumber: transaction.sequence,
      operationCount: payments.length,
      networkFee: `${maxFee} stroops`,
      networkPassphrase: deps.network.networkPassphrase,
      timeout: `${unsignedValidForSeconds} seconds`,
      validUntil: new Date(maxTime * 1000).toISOString(),
      memo: planned.memoText ?? null,
    },
    instructions: {
      step1: 'Sign the unsignedXDR with the secret key of the sender account',
      step2: `Submit the signed transaction to the Stellar network before ${new Date(maxTime * 1000).toISOString()}`,
    },
    note: 'This gateway is paid per call (x402 or MPP): the transaction carries no fee operation, so fee is 0.',
  }
}

export declare namespace unsigned {
  type ReturnType = {
    /** Always true: the transaction was built. */
    success: true
    /** The chain, as the original gateway names it. */
    chain: 'stellar'
    /** The original gateway's number for Stellar (its chain #14), kept for its clients. */
    chainId: 14
    /** `mainnet`, `testnet`, `futurenet`, or `custom` for any other passphrase. */
    network: string
    /** Built, not signed: nothing was sent. */
    status: 'unsigned'
    /** Hex hash the transaction has (signing does not change it), to look it up once submitted. */
    hash: string
    /** The sender (`G...`). */
    source: string
    /** Number of payment operations. */
    recipientCount: number
    /** Sum of the amounts, in human decimal XLM. */
    totalAmount: string
    /** Sum of the amounts, in stroops (10^-7 XLM). */
    totalAmountStroops: string
    /** Highest network fee the transaction may be charged, in XLM. */
    maxFee: string
    /** The batch as the original gateway summarises it; amounts in human decimal XLM. */
    batch: {
      /** Number of payment operations. */
      recipientCount: number
      /** Sum of the amounts, in XLM. */
      totalAmount: string
      /** Percentage fee added by the gateway, in XLM: none, this gateway is paid per call. */
      fee: '0'
      /** The percentage fee's rate: none. */
      feePercent: '0%'
      /** Sum of the amounts plus `fee`, in XLM. */
      totalWithFee: string
      /** Account a fee operation would pay: none. */
      feeAddress: null
    }
    /** The transaction to sign. */
    transaction: {
      /** The unsigned transaction envelope, base64 XDR. */
      unsignedXDR: string
      /** Its source account: the sender. */
      sourceAccount: string
      /** Its sequence number (the sender's current one plus one). */
      sequenceNumber: string
      /** Its number of operations: one payment per recipient. */
      operationCount: number
      /** Its fee field, e.g. `"300 stroops"`. */
      networkFee: string
      /** Passphrase of the network it is built for. */
      networkPassphrase: string
      /** How long it stays valid, e.g. `"300 seconds"`. */
      timeout: string
      /** ISO time after which the network refuses it. */
      validUntil: string
      /** The memo as given, or null. */
      memo: string | null
    }
    /** What the sender does next. */
    instructions: {
      /** Sign. */
      step1: string
      /** Submit. */
      step2: string
    }
    /** Why no fee operation is in the transaction. */
    note: string
  }
}

export declare namespace batch {
  type ReturnType = {
    /** Hex hash of the transaction. */
    hash: string
    /** Stellar account (`G...`) that paid, derived from the secret. */
    source: string
    /** Number of payment operations in the transaction. */
    recipientCount: number
    /** Sum of the amounts, in XLM. */
    totalAmount: string
    /** Highest fee the transaction may be charged, in XLM. */
    maxFee: string
  } & (
    | {
        /** Included in a ledger: every recipient is paid. */
        status: 'success'
        /** Ledger it was included in. */
        ledger: number
        /** Fee charged, in XLM. */
        feeCharged: string
      }
    | {
        /** Submitted, not yet in a ledger when the network stopped waiting. */
        status: 'pending'
        /** ISO time after which it can no longer be included. */
        validUntil: string
      }
  )
}

/**
 * The fee of a batch from the network's fee stats: the per-operation bid the batch would use (the 90th percentile of
 * recent fees, at least the base fee) times one operation per recipient; with the original gateway's fields beside.
 */
export async function estimate(deps: Deps, input: EstimateBody) {
  const { count, total } = toSize(input)
  const fees = answered(await deps.network.feeStats())
  const feePerOperation = bid(deps, fees)
  const stroops = feePerOperation * BigInt(count)
  const estimatedFee = formatUnits(stroops, decimals)
  const totalAmount = total === undefined ? undefined : Units.toDecimal(total, decimals)
  return {
    estimatedFee,
    estimatedFeeStroops: stroops.toString(),
    feePerOperationStroops: feePerOperation.toString(),
    baseFeeStroops: fees.baseFee.toString(),
    minimumFee: formatUnits(fees.baseFee * BigInt(count), decimals),
    operations: count,
    ledger: fees.ledger,
    unit: 'XLM',
    success: true,
    chain: 'stellar',
    recipientCount: count,
    maxRecipientsPerTx: maxOperations,
    networkFee: `${stroops} stroops (${estimatedFee} XLM)`,
    spraayFee: '0',
    spraayFeePercent: '0%',
    estimatedFinality: '~5 seconds',
    ...(total === undefined ? {} : { totalAmount, totalAmountStroops: total.toString(), totalWithFee: totalAmount }),
    note: 'estimatedFee is the bid a batch of this size carries, in XLM; the network charges at most that, and minimumFee when ledgers are not full. This gateway is paid per call, so it adds no percentage fee (spraayFee 0).',
  }
}

/** Checks an estimate body before payment. */
export function preflightEstimate(body: unknown): void {
  if (Value.Check(EstimateBody, body)) toSize(body)
}

/** The number of operations and, where given, the sum an estimate is for. */
function toSize(input: EstimateBody): { count: number; total: bigint | undefined } {
  const { recipientCount, recipients, totalAmount } = input
  if (recipients !== undefined) {
    if (recipientCount !== undefined)
      throw new ValidationError({
        field: 'recipientCount',
        message: 'give recipientCount or recipients, not both: recipients already counts the batch',
      })
    if (totalAmount !== undefined)
      throw new ValidationError({
        field: 'totalAmount',
        message: 'goes with recipientCount; with recipients, each recipient carries its amount',
      })
    const payments = recipients.map((recipient, index) => toPayment(recipient.address, recipient.amount, index))
    return { count: toCount(payments.length), total: sum(payments) }
  }
  if (recipientCount === undefined)
    throw new ValidationError({
      field: 'recipientCount',
      message: 'required: the number of recipients, or recipients as [{ address, amount }]',
    })
  return {
    count: toCount(recipientCount),
    total:
      totalAmount === undefined ? undefined : Units.fromDecimal({ value: totalAmount, decimals, field: 'totalAmount' }),
  }
}

/** The fee bid per operation: the 90th percentile of recent fees, at least the base fee, at most the configured ceiling. */
function bid(deps: Deps, fees: StellarNetwork.FeeStats): bigint {
  const ceiling = deps.maxFeePerOperation ?? 1_000_000n
  const wanted = fees.charged.p90 < ceiling ? fees.charged.p90 : ceiling
  return wanted > fees.baseFee ? wanted : fees.baseFee
}

/** A batch as checked: its payments, its memo, and who signs. */
type Plan = {
  /** The payments, in recipient order. */
  payments: Payment[]
  /** The transaction's memo, if any. */
  memo: Memo | undefined
  /** The memo as the caller wrote it. */
  memoText: string | undefined
} & (
  | {
      /** The original gateway's form: the sender signs. */
      form: 'unsigned'
      /** The sender's public key (`G...`). */
      sender: string
    }
  | {
      /** The gateway signs with the caller's secret and submits. */
      form: 'signed'
      /** The caller's secret seed; never logged, stored or echoed. */
      secret: string
    }
)

/** The batch `input` asks for, every field checked; pure, so that it runs before payment as well as in `batch`. */
function plan(input: BatchBody): Plan {
  const { sender, sourceSecret, recipients, amounts } = input
  if (sender !== undefined && sourceSecret !== undefined)
    throw new ValidationError({
      field: 'sourceSecret',
      message: 'give sender (to sign the transaction yourself) or sourceSecret (to have the gateway sign), not both',
    })
  if (recipients.length === 0 || recipients.length > maxOperations)
    throw new ValidationError({
      field: 'recipients',
      message: `must hold 1 to ${maxOperations} accounts (one transaction holds at most ${maxOperations} operations)`,
    })
  const memoText = input.memo
  const memo = memoText === undefined ? undefined : toMemo(memoText)
  if (sender !== undefined) {
    if (amounts !== undefined)
      throw new ValidationError({
        field: 'amounts',
        message: 'goes with sourceSecret; with sender, each recipient is { address, amount }',
      })
    const payments = recipients.map((recipient, index) => {
      if (typeof recipient === 'string')
        throw new ValidationError({
          field: `recipients.${index}`,
          message: 'with sender, each recipient is { address, amount } (amount in XLM)',
        })
      return toPayment(recipient.address, recipient.amount, index)
    })
    return { form: 'unsigned', sender, payments, memo, memoText }
  }
  if (sourceSecret === undefined)
    throw new ValidationError({
      field: 'sender',
      message:
        'required: the public key (G...) of the paying account, answered with the unsigned transaction to sign; or sourceSecret to have the gateway sign',
    })
  if (amounts === undefined)
    throw new ValidationError({ field: 'amounts', message: 'required with sourceSecret, parallel to recipients' })
  if (amounts.length !== recipients.length)
    throw new ValidationError({
      field: 'amounts',
      message: `has ${amounts.length} entries for ${recipients.length} recipients; recipients and amounts are parallel arrays`,
    })
  const payments = recipients.map((destination, index) => {
    if (typeof destination !== 'string')
      throw new ValidationError({
        field: `recipients.${index}`,
        message: 'with sourceSecret, recipients are accounts parallel to amounts; { address, amount } goes with sender',
      })
    if (!isDestination(destination))
      throw new ValidationError({
        field: `recipients.${index}`,
        message: 'must be a Stellar account (G...) or muxed account (M...) with a valid checksum',
      })
    const amount = parseAmount(amounts[index]!)
    if (!amount.ok) throw new ValidationError({ field: `amounts.${index}`, message: amount.message })
    return { destination, stroops: amount.stroops }
  })
  return { form: 'signed', secret: sourceSecret, payments, memo, memoText }
}

/** One `{ address, amount }` recipient as a checked payment; `amount` is human XLM. */
function toPayment(destination: string, value: unknown, index: number): Payment {
  if (!isDestination(destination))
    throw new ValidationError({
      field: `recipients.${index}.address`,
      message: 'must be a Stellar account (G...) or muxed account (M...) with a valid checksum',
    })
  const amount = parseAmount(value)
  if (!amount.ok) throw new ValidationError({ field: `recipients.${index}.amount`, message: amount.message })
  return { destination, stroops: amount.stroops }
}

/** The memo as the original gateway writes it: text up to 28 bytes, else a hash memo of the first 32 bytes. */
function toMemo(text: string): Memo {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= 28) return Memo.text(text)
  const hash = new Uint8Array(32)
  hash.set(bytes.subarray(0, 32))
  return Memo.hash(Buffer.from(hash))
}

/** The sum of the payments, in stroops. */
function sum(payments: Payment[]): bigint {
  return payments.reduce((total, { stroops }) => total + stroops, 0n)
}

/** The account `source` as the network has it; an account that does not exist is the caller's to fund. */
async function load(deps: Deps, source: string): Promise<Extract<StellarNetwork.LoadedAccount, { ok: true }>> {
  const account = answered(await deps.network.loadAccount(source))
  if (!account.ok)
    throw new StellarNetworkError(
      account.reason === 'not_found'
        ? `The source account ${source} does not exist on the Stellar network; fund it first.`
        : `The Stellar network could not load the source account ${source}: ${account.reason}.`,
      { details: { network: 'stellar', reason: account.reason, source } },
    )
  return account
}

/** The transaction's fee for `count` operations at `feePerOperation`, refused above what one transaction can carry. */
function checkedFee(feePerOperation: bigint, count: number): bigint {
  const maxFee = feePerOperation * BigInt(count)
  if (maxFee > maxTransactionFee)
    throw new StellarNetworkError(
      `The network's fee of ${feePerOperation} stroops per operation puts this batch above the largest fee one transaction can carry.`,
      { details: { network: 'stellar', reason: 'fee_too_high', feePerOperationStroops: feePerOperation.toString() } },
    )
  return maxFee
}

/** The batch's transaction from `source` at `sequence + 1`, unsigned: one native payment operation per payment. */
function build(
  deps: Deps,
  parameters: {
    source: string
    sequence: bigint
    feePerOperation: bigint
    payments: Payment[]
    memo: Memo | undefined
    maxTime: number
  },
) {
  const { source, sequence, feePerOperation, payments, memo, maxTime } = parameters
  const builder = new TransactionBuilder(new Account(source, sequence.toString()), {
    fee: feePerOperation.toString(),
    networkPassphrase: deps.network.networkPassphrase,
    timebounds: { minTime: 0, maxTime },
    ...(memo === undefined ? {} : { memo }),
  })
  for (const { destination, stroops } of payments)
    builder.addOperation(
      Operation.payment({ destination, asset: Asset.native(), amount: formatUnits(stroops, decimals) }),
    )
  return builder.build()
}

/** The network a passphrase names, as the original gateway's `network` field says it. */
function networkName(passphrase: string): string {
  if (passphrase === Networks.PUBLIC) return 'mainnet'
  if (passphrase === Networks.TESTNET) return 'testnet'
  if (passphrase === Networks.FUTURENET) return 'futurenet'
  return 'custom'
}

/** The signing key of the secret; a secret that fails its check is refused without repeating any of it. */
function toKeypair(secret: string): Keypair {
  const refused = new ValidationError({
    field: 'sourceSecret',
    message: 'must be a Stellar secret seed (S..., 56 characters, valid checksum)',
  })
  if (typeof secret !== 'string' || !isSecretSeed(secret)) throw refused
  try {
    return Keypair.fromSecret(secret)
  } catch {
    throw refused
  }
}

function toCount(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > maxOperations)
    throw new ValidationError({ field: 'recipientCount', message: `must be an integer from 1 to ${maxOperations}` })
  return value
}

/** The error for a transaction the network refused, naming the payments whose operations failed. */
function refusal(
  submitted: Extract<StellarNetwork.Submitted, { ok: false }>,
  payments: Payment[],
  hash: string,
): StellarNetworkError {
  const { reason, operations } = submitted
  const failed = operations.flatMap((code, index) =>
    code === 'op_success' ? [] : [{ index, recipient: payments[index]?.destination, code }],
  )
  const detail =
    failed.length === 0 ? '' : ` (${failed.map(({ index, code }) => `recipients.${index}: ${code}`).join(', ')})`
  return new StellarNetworkError(`The Stellar network refused the transaction: ${reason}${detail}. Nothing was paid.`, {
    details: { network: 'stellar', reason, operations, failed, hash },
  })
}

/**
 * The network's answer; a failure (unreachable, timed out, unreadable answer) becomes a 502 that names no URL, or a 503
 * when the call was refused before it was sent (open breaker, rate limit). `submitted` is given once the signed
 * transaction was handed over, when its outcome is no longer known.
 */
function answered<value>(outcome: value | Upstream.Failure, submitted?: { hash: string; message: string }): value {
  if (!Upstream.isFailure(outcome)) return outcome
  const upstream = { reason: outcome.reason, status: outcome.status ?? null }
  // Nothing was sent, so nothing can land: the caller may simply try again later.
  if (outcome.reason === 'unavailable')
    throw new UpstreamUnavailableError(`The Stellar network is unavailable for now: ${outcome.message}`, {
      details: { network: 'stellar', upstream },
    })
  throw new StellarNetworkError(
    `The Stellar network failed: ${outcome.message}${submitted ? ` ${submitted.message}` : ''}`,
    {
      details: {
        network: 'stellar',
        reason: 'network_error',
        upstream,
        ...(submitted ? { hash: submitted.hash } : {}),
      },
    },
  )
}

/** The current time from `deps.now`, or the wall clock. */
function clock(deps: Deps): Date {
  return deps.now?.() ?? new Date()
}
