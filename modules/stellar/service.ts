import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk/base'
import { bytesToHex, formatUnits } from 'viem'
import { StellarNetworkError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type * as StellarNetwork from '../../core/StellarNetwork.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { type BatchBody, type EstimateBody, isDestination, isSecretSeed, maxOperations, parseAmount } from './schema.js'

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
 * Pays every recipient its amount of native XLM in ONE transaction of N payment operations, signed in memory with the
 * caller's secret and submitted to the network. All payments apply or none do. The secret is used to sign and then
 * dropped: it is never logged, stored, or part of an answer or an error.
 */
export async function batch(deps: Deps, input: BatchBody): Promise<batch.ReturnType> {
  const payments = toPayments(input)
  const keypair = toKeypair(input.sourceSecret)
  const source = keypair.publicKey()
  const { network } = deps

  const [account, fees] = await Promise.all([
    network.loadAccount(source).then(answered),
    network.feeStats().then(answered),
  ])
  if (!account.ok)
    throw new StellarNetworkError(
      account.reason === 'not_found'
        ? `The source account ${source} does not exist on the Stellar network; fund it first.`
        : `The Stellar network could not load the source account ${source}: ${account.reason}.`,
      { details: { network: 'stellar', reason: account.reason, source } },
    )

  const feePerOperation = bid(deps, fees)
  const maxFee = feePerOperation * BigInt(payments.length)
  if (maxFee > maxTransactionFee)
    throw new StellarNetworkError(
      `The network's fee of ${feePerOperation} stroops per operation puts this batch above the largest fee one transaction can carry.`,
      { details: { network: 'stellar', reason: 'fee_too_high', feePerOperationStroops: feePerOperation.toString() } },
    )
  const maxTime = Math.floor(clock(deps).getTime() / 1000) + (deps.validForSeconds ?? 60)
  const builder = new TransactionBuilder(new Account(source, account.sequence.toString()), {
    fee: feePerOperation.toString(),
    networkPassphrase: network.networkPassphrase,
    timebounds: { minTime: 0, maxTime },
  })
  for (const { destination, stroops } of payments)
    builder.addOperation(
      Operation.payment({ destination, asset: Asset.native(), amount: formatUnits(stroops, decimals) }),
    )
  const transaction = builder.build()
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
    totalAmount: formatUnits(
      payments.reduce((sum, { stroops }) => sum + stroops, 0n),
      decimals,
    ),
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
 * The fee of a batch of `recipientCount` payments from the network's fee stats: the per-operation bid the batch
 * would use (the 90th percentile of recent fees, at least the base fee) times one operation per recipient.
 */
export async function estimate(deps: Deps, input: EstimateBody) {
  const count = toCount(input.recipientCount)
  const fees = answered(await deps.network.feeStats())
  const feePerOperation = bid(deps, fees)
  const stroops = feePerOperation * BigInt(count)
  return {
    estimatedFee: formatUnits(stroops, decimals),
    estimatedFeeStroops: stroops.toString(),
    feePerOperationStroops: feePerOperation.toString(),
    baseFeeStroops: fees.baseFee.toString(),
    minimumFee: formatUnits(fees.baseFee * BigInt(count), decimals),
    operations: count,
    ledger: fees.ledger,
    unit: 'XLM',
    note: 'estimatedFee is the bid a batch of this size carries, in XLM; the network charges at most that, and minimumFee when ledgers are not full.',
  }
}

/** The fee bid per operation: the 90th percentile of recent fees, at least the base fee, at most the configured ceiling. */
function bid(deps: Deps, fees: StellarNetwork.FeeStats): bigint {
  const ceiling = deps.maxFeePerOperation ?? 1_000_000n
  const wanted = fees.charged.p90 < ceiling ? fees.charged.p90 : ceiling
  return wanted > fees.baseFee ? wanted : fees.baseFee
}

/** The recipients and amounts as checked payments; the arrays are parallel. */
function toPayments(input: BatchBody): Payment[] {
  const { recipients, amounts } = input
  if (recipients.length === 0 || recipients.length > maxOperations)
    throw new ValidationError({
      field: 'recipients',
      message: `must hold 1 to ${maxOperations} accounts (one transaction holds at most ${maxOperations} operations)`,
    })
  if (amounts.length !== recipients.length)
    throw new ValidationError({
      field: 'amounts',
      message: `has ${amounts.length} entries for ${recipients.length} recipients; recipients and amounts are parallel arrays`,
    })
  return recipients.map((destination, index) => {
    if (!isDestination(destination))
      throw new ValidationError({
        field: `recipients.${index}`,
        message: 'must be a Stellar account (G...) or muxed account (M...) with a valid checksum',
      })
    const amount = parseAmount(amounts[index]!)
    if (!amount.ok) throw new ValidationError({ field: `amounts.${index}`, message: amount.message })
    return { destination, stroops: amount.stroops }
  })
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
