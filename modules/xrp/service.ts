import { formatUnits } from 'viem'
import { type Payment as PaymentTransaction, Wallet } from 'xrpl'
import * as Address from '../../core/Address.js'
import { ConflictError, UpstreamUnavailableError, ValidationError, XrpNetworkError } from '../../core/Errors.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import type * as XrpNetwork from '../../core/XrpNetwork.js'
import { type BatchBody, type EstimateBody, isSecretSeed, maxRecipients, parseAmount } from './schema.js'

/** What the XRP module needs from outside. */
export type Deps = {
  /** The network transactions are signed for and submitted to; absent (no rippled configured), the module is not mounted. */
  network: XrpNetwork.XrpNetwork
  /** Ledgers past the last validated one during which a batch's transactions may still be included. @default 20 */
  ledgerOffset?: number
  /** Highest fee per transaction, in drops, whatever the open ledger asks. @default 2_000_000n (2 XRP) */
  maxFeePerTransaction?: bigint
}

/** Drops per XRP, as a power of ten. */
const decimals = Units.units.xrp.decimals

/** Network ids above this must be written into every transaction (`NetworkID`); mainnet, testnet and devnet are below. */
const networkIdThreshold = 1024

/** One payment of a batch, checked. */
type Payment = {
  /** The recipient as the caller wrote it. */
  recipient: string
  /** Classic address the payment goes to. */
  destination: string
  /** Destination tag carried by an X-address, if any. */
  tag: number | undefined
  /** Amount in drops. */
  drops: bigint
}

/** What became of one payment of a batch. */
type Outcome = {
  /** The recipient as the caller wrote it. */
  recipient: string
  /** Amount in XRP. */
  amount: string
  /** Hex hash of the signed transaction. */
  hash: string
  /** Its account sequence number. */
  sequence: number
  /** `tesSUCCESS` or `terQUEUED` when submitted; the server's code when refused; `unknown` when the server did not answer; `not_submitted` after a refusal. */
  result: string
}

/**
 * Pays every recipient its amount of XRP with one Payment transaction each, consecutive sequence numbers from the
 * sender's account, all signed in memory with the caller's seed, then submitted in order. The batch stops at the
 * first payment the server refuses. The seed is used to sign and then dropped: it is never logged, stored, or part
 * of an answer or an error.
 *
 * `hash` is the hash of the LAST payment: sequence numbers apply in order, so once it is in a validated ledger the
 * whole batch has been processed. `hashes` lists every payment's hash in recipient order.
 */
export async function batch(deps: Deps, input: BatchBody) {
  const wallet = toWallet(input.senderSecret)
  const sender = wallet.classicAddress
  const payments = toPayments(input, sender)
  const { network } = deps

  const [account, fee, server] = await Promise.all([
    network.accountInfo(sender).then(answered),
    network.fee().then(answered),
    network.serverInfo().then(answered),
  ])
  if (!account.ok)
    throw new XrpNetworkError(
      account.reason === 'actNotFound'
        ? `The sender account ${sender} does not exist on the XRP Ledger; fund it first.`
        : `The XRP Ledger could not load the sender account ${sender}: ${account.reason}.`,
      { details: { network: 'xrp', reason: account.reason, sender } },
    )

  const feePerTransaction = bid(deps, fee)
  const total = payments.reduce((sum, { drops }) => sum + drops, 0n)
  const fees = feePerTransaction * BigInt(payments.length)
  const reserve = server.reserveBase + server.reserveIncrement * BigInt(account.ownerCount)
  // The ledger refuses an XRP payment that would leave less than the reserve; checked first so that a batch the
  // account cannot afford stops before any payment is sent, instead of halfway through.
  if (total + fees > account.balance - reserve)
    throw new ConflictError(
      `The sender ${sender} holds ${formatUnits(account.balance, decimals)} XRP and must keep ${formatUnits(reserve, decimals)} XRP in reserve; this batch needs ${formatUnits(total + fees, decimals)} XRP (amounts and fees). Nothing was sent.`,
      {
        details: {
          reason: 'insufficient_balance',
          balance: formatUnits(account.balance, decimals),
          reserve: formatUnits(reserve, decimals),
          required: formatUnits(total + fees, decimals),
        },
      },
    )

  const lastLedgerSequence = server.validatedLedger + (deps.ledgerOffset ?? 20)
  const signed = payments.map((payment, index) => {
    const transaction: PaymentTransaction = {
      TransactionType: 'Payment',
      Account: sender,
      Destination: payment.destination,
      ...(payment.tag === undefined ? {} : { DestinationTag: payment.tag }),
      Amount: payment.drops.toString(),
      Fee: feePerTransaction.toString(),
      Sequence: account.sequence + index,
      LastLedgerSequence: lastLedgerSequence,
      Flags: 0,
      ...(server.networkId !== undefined && server.networkId > networkIdThreshold
        ? { NetworkID: server.networkId }
        : {}),
    }
    const { tx_blob, hash } = wallet.sign(transaction)
    return { txBlob: tx_blob, hash, sequence: account.sequence + index }
  })

  const outcomes: Outcome[] = payments.map((payment, index) => ({
    recipient: payment.recipient,
    amount: formatUnits(payment.drops, decimals),
    hash: signed[index]!.hash,
    sequence: signed[index]!.sequence,
    result: 'not_submitted',
  }))
  for (const [index, transaction] of signed.entries()) {
    const submitted = await network.submit(transaction.txBlob)
    if (Upstream.isFailure(submitted)) {
      const details = {
        network: 'xrp',
        failedIndex: index,
        sender,
        upstream: { reason: submitted.reason, status: submitted.status ?? null },
      }
      // Refused before it was sent (open breaker, rate limit): this payment and the rest were not submitted.
      if (submitted.reason === 'unavailable')
        throw new UpstreamUnavailableError(
          `The XRP Ledger is unavailable for now; payment ${index} (${transaction.hash}) was not sent: ${submitted.message} ${sentSoFar(index)}`,
          { details: { ...details, payments: outcomes } },
        )
      outcomes[index]!.result = 'unknown'
      throw new XrpNetworkError(
        `The XRP Ledger failed while payment ${index} (${transaction.hash}) was being submitted: ${submitted.message} ${sentSoFar(index)} Look the hashes up before sending again.`,
        { details: { ...details, reason: 'network_error', payments: outcomes } },
      )
    }
    if (!submitted.ok) {
      outcomes[index]!.result = submitted.reason
      throw new XrpNetworkError(
        `The XRP Ledger refused payment ${index} (recipients.${index}): ${submitted.reason} (${submitted.message}). ${sentSoFar(index)}`,
        { details: { network: 'xrp', reason: submitted.reason, failedIndex: index, sender, payments: outcomes } },
      )
    }
    outcomes[index]!.result = submitted.result
  }

  return {
    hash: outcomes[outcomes.length - 1]!.hash,
    hashes: outcomes.map(({ hash }) => hash),
    status: outcomes.some(({ result }) => result === 'terQUEUED') ? 'queued' : 'submitted',
    sender,
    recipientCount: outcomes.length,
    totalAmount: formatUnits(total, decimals),
    fee: formatUnits(fees, decimals),
    lastLedgerSequence,
    payments: outcomes,
    note: `Every payment was accepted by the server; each is final once in a validated ledger, and can no longer be included after ledger ${lastLedgerSequence}.`,
  }
}

/** The fee of a batch of `recipientCount` payments: what the open ledger asks per transaction now, times one transaction per recipient. */
export async function estimate(deps: Deps, input: EstimateBody) {
  const count = toCount(input.recipientCount)
  const fee = answered(await deps.network.fee())
  const feePerTransaction = bid(deps, fee)
  const drops = feePerTransaction * BigInt(count)
  return {
    estimatedFee: formatUnits(drops, decimals),
    estimatedFeeDrops: drops.toString(),
    feePerTransactionDrops: feePerTransaction.toString(),
    baseFeeDrops: fee.baseFee.toString(),
    transactions: count,
    ledger: fee.currentLedger,
    unit: 'XRP',
  }
}

/** Base fee and reserves of the last validated ledger, in XRP (and in drops under `drops`). */
export async function info(deps: Deps) {
  const server = answered(await deps.network.serverInfo())
  return {
    baseFee: formatUnits(server.baseFee, decimals),
    reserveBase: formatUnits(server.reserveBase, decimals),
    reserveInc: formatUnits(server.reserveIncrement, decimals),
    unit: 'XRP',
    drops: {
      baseFee: server.baseFee.toString(),
      reserveBase: server.reserveBase.toString(),
      reserveInc: server.reserveIncrement.toString(),
    },
    loadFactor: server.loadFactor,
    ledger: server.validatedLedger,
    ...(server.networkId === undefined ? {} : { networkId: server.networkId }),
  }
}

/** The fee per transaction: what the open ledger asks now (at least the base fee), at most the configured ceiling. */
function bid(deps: Deps, fee: XrpNetwork.Fee): bigint {
  const wanted = fee.openLedgerFee > fee.baseFee ? fee.openLedgerFee : fee.baseFee
  const ceiling = deps.maxFeePerTransaction ?? 2_000_000n
  return wanted < ceiling ? wanted : ceiling
}

/** The recipients and amounts as checked payments; the arrays are parallel. */
function toPayments(input: BatchBody, sender: string): Payment[] {
  const { recipients, amounts } = input
  if (recipients.length === 0 || recipients.length > maxRecipients)
    throw new ValidationError({ field: 'recipients', message: `must hold 1 to ${maxRecipients} accounts` })
  if (amounts.length !== recipients.length)
    throw new ValidationError({
      field: 'amounts',
      message: `has ${amounts.length} entries for ${recipients.length} recipients; recipients and amounts are parallel arrays`,
    })
  return recipients.map((recipient, index) => {
    const field = `recipients.${index}`
    const address = Address.validateXrp(recipient)
    if (!address.valid)
      throw new ValidationError({
        field,
        message: 'must be an XRP Ledger classic address (r...) or X-address with a valid checksum',
      })
    const { destination, tag } =
      address.format === 'xrp_x_address'
        ? { destination: address.details.classicAddress, tag: address.details.tag ?? undefined }
        : { destination: recipient, tag: undefined }
    if (destination === sender)
      throw new ValidationError({
        field,
        message: `is the sender's own account (${sender}); the XRP Ledger refuses payments to oneself`,
      })
    const amount = parseAmount(amounts[index]!)
    if (!amount.ok) throw new ValidationError({ field: `amounts.${index}`, message: amount.message })
    return { recipient, destination, tag, drops: amount.drops }
  })
}

/** The wallet of the seed; a seed that fails its check is refused without repeating any of it. */
function toWallet(seed: string): Wallet {
  const refused = new ValidationError({
    field: 'senderSecret',
    message: 'must be an XRP Ledger secret seed (s... family seed or sEd... ed25519 seed, valid checksum)',
  })
  if (typeof seed !== 'string' || !isSecretSeed(seed)) throw refused
  try {
    return Wallet.fromSeed(seed)
  } catch {
    throw refused
  }
}

function toCount(value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > maxRecipients)
    throw new ValidationError({ field: 'recipientCount', message: `must be an integer from 1 to ${maxRecipients}` })
  return value
}

/** What was sent before payment `index` stopped the batch. */
function sentSoFar(index: number): string {
  if (index === 0) return 'Nothing was sent.'
  return `Payments 0 to ${index - 1} were submitted and are final once validated (see details.payments); the rest were not submitted.`
}

/**
 * The network's answer to a read; a failure (unreachable, timed out, unreadable answer) becomes a 502 that names no
 * URL, or a 503 when the read was refused before it was sent (open breaker, rate limit).
 */
function answered<value>(outcome: value | Upstream.Failure): value {
  if (!Upstream.isFailure(outcome)) return outcome
  const upstream = { reason: outcome.reason, status: outcome.status ?? null }
  if (outcome.reason === 'unavailable')
    throw new UpstreamUnavailableError(`The XRP Ledger is unavailable for now: ${outcome.message}`, {
      details: { network: 'xrp', upstream },
    })
  throw new XrpNetworkError(`The XRP Ledger failed: ${outcome.message}`, {
    details: { network: 'xrp', reason: 'network_error', upstream },
  })
}
