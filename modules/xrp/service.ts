import { Value } from '@sinclair/typebox/value'
import { formatUnits, stringToHex } from 'viem'
import { type Payment as PaymentTransaction, Wallet } from 'xrpl'
import * as Address from '../../core/Address.js'
import { ConflictError, UpstreamUnavailableError, ValidationError, XrpNetworkError } from '../../core/Errors.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import type * as XrpNetwork from '../../core/XrpNetwork.js'
import { BatchBody, EstimateBody, isSecretSeed, maxRecipients, parseAmount } from './schema.js'

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
  /** Memo text of this payment, if any. */
  memo: string | undefined
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
 * A batch of XRP payments, one Payment transaction each at consecutive sequence numbers of the sender's account. With
 * `sender` (the original gateway's form) the answer is those transactions unsigned, for the sender to sign and submit
 * in order; with `senderSecret` they are signed in memory here and submitted in order, stopping at the first payment
 * the server refuses. The seed is used to sign and then dropped: it is never logged, stored, or part of an answer or
 * an error.
 *
 * `hash` is the hash of the LAST payment: sequence numbers apply in order, so once it is in a validated ledger the
 * whole batch has been processed. `hashes` lists every payment's hash in recipient order.
 */
export async function batch(deps: Deps, input: BatchBody) {
  const planned = plan(input)
  if (planned.form === 'unsigned') return unsigned(deps, planned)
  const { wallet, sender, payments } = planned
  const { network } = deps

  const { account, fee, server } = await read(deps, sender)
  const feePerTransaction = bid(deps, fee)
  const total = sum(payments)
  const fees = feePerTransaction * BigInt(payments.length)
  afford({ sender, account, server, required: total + fees })

  const lastLedgerSequence = server.validatedLedger + (deps.ledgerOffset ?? 20)
  const signed = payments.map((payment, index) => {
    const transaction = paymentOf({
      sender,
      payment,
      fee: feePerTransaction,
      sequence: account.sequence + index,
      lastLedgerSequence,
      server,
    })
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

/** Checks a batch body before payment: whatever `batch` would refuse as bad input, whoever pays, is refused here. */
export function preflightBatch(body: unknown): void {
  if (Value.Check(BatchBody, body)) plan(body)
}

/** Ledgers past the last validated one during which the unsigned transactions stay valid: a person signs each in turn. */
const unsignedLedgerOffset = 60

/**
 * The original gateway's answer: one unsigned Payment per recipient from `sender`, at consecutive sequence numbers,
 * for the sender to sign and submit in order. Nothing is signed or sent here.
 */
async function unsigned(deps: Deps, planned: Extract<Plan, { form: 'unsigned' }>) {
  const { sender, sourceTag, payments } = planned
  const { account, fee, server } = await read(deps, sender)
  const feePerTransaction = bid(deps, fee)
  const total = sum(payments)
  const fees = feePerTransaction * BigInt(payments.length)
  afford({ sender, account, server, required: total + fees })
  const lastLedgerSequence = server.validatedLedger + unsignedLedgerOffset
  const transactions = payments.map((payment, index) =>
    paymentOf({
      sender,
      sourceTag,
      payment,
      fee: feePerTransaction,
      sequence: account.sequence + index,
      lastLedgerSequence,
      server,
    }),
  )
  const totalAmount = Units.toDecimal(total, decimals)
  return {
    success: true,
    chain: 'xrp',
    chainId: 15,
    network: networkName(server.networkId),
    status: 'unsigned',
    sender,
    recipientCount: payments.length,
    totalAmount,
    totalAmountDrops: total.toString(),
    fee: formatUnits(fees, decimals),
    lastLedgerSequence,
    transactions,
    summary: {
      totalPayments: totalAmount,
      totalPaymentsDrops: total.toString(),
      spraayFee: '0',
      spraayFeePercent: '0%',
      networkFees: formatUnits(fees, decimals),
      totalCost: formatUnits(total + fees, decimals),
      baseFeePerTx: formatUnits(feePerTransaction, decimals),
      transactionCount: transactions.length,
      lastLedgerSequence,
    },
    instructions: {
      step1: 'Sign each transaction in order with the wallet of the sender account',
      step2: 'Submit each signed transaction to the XRP Ledger in sequence order',
      step3: 'Wait for each transaction to be validated before submitting the next',
      note: `Transactions use consecutive sequence numbers: submit them in order, before ledger ${lastLedgerSequence}.`,
    },
    note: 'This gateway is paid per call (x402 or MPP): no fee payment is added, so spraayFee is 0.',
  }
}

/**
 * The fee of a batch: what the open ledger asks per transaction now, times one transaction per recipient; for the
 * original gateway's `sender` with `recipients`, also the sum and whether the sender's balance covers it.
 */
export async function estimate(deps: Deps, input: EstimateBody) {
  const size = toSize(input)
  const { count } = size
  const fee = answered(await deps.network.fee())
  const feePerTransaction = bid(deps, fee)
  const drops = feePerTransaction * BigInt(count)
  const estimatedFee = formatUnits(drops, decimals)
  const ours = {
    estimatedFee,
    estimatedFeeDrops: drops.toString(),
    feePerTransactionDrops: feePerTransaction.toString(),
    baseFeeDrops: fee.baseFee.toString(),
    transactions: count,
    ledger: fee.currentLedger,
    unit: 'XRP',
    success: true,
    chain: 'xrp',
    chainId: 15,
  }
  const common = {
    recipientCount: count,
    spraayFee: '0',
    spraayFeePercent: '0%',
    networkFees: estimatedFee,
    transactionCount: count,
    // A validated ledger closes every 3 to 5 seconds and each payment waits for the previous one.
    estimatedTimeSeconds: count * 4,
  }
  if (size.sender === undefined) return { ...ours, estimate: common }
  const { sender, total } = size
  const [account, server] = await Promise.all([deps.network.accountInfo(sender), deps.network.serverInfo()])
  const known = !Upstream.isFailure(account) && account.ok && !Upstream.isFailure(server)
  return {
    ...ours,
    estimate: {
      ...common,
      totalPayments: Units.toDecimal(total, decimals),
      totalPaymentsDrops: total.toString(),
      totalCost: formatUnits(total + drops, decimals),
    },
    sender: {
      address: sender,
      balance: known ? Units.toDecimal(account.balance, decimals) : null,
      sufficient: known
        ? total + drops <= account.balance - server.reserveBase - server.reserveIncrement * BigInt(account.ownerCount)
        : null,
    },
  }
}

/** Checks an estimate body before payment. */
export function preflightEstimate(body: unknown): void {
  if (Value.Check(EstimateBody, body)) toSize(body)
}

/** The number of payments an estimate is for and, in the original gateway's form, the sender and the sum. */
function toSize(
  input: EstimateBody,
): { count: number; sender: undefined } | { count: number; sender: string; total: bigint } {
  const { recipientCount, recipients, sender } = input
  if (recipients === undefined) {
    if (recipientCount === undefined)
      throw new ValidationError({
        field: 'recipientCount',
        message: 'required: the number of recipients, or sender with recipients as [{ address, amount }]',
      })
    if (sender !== undefined)
      throw new ValidationError({ field: 'sender', message: 'goes with recipients, not with recipientCount' })
    return { count: toCount(recipientCount), sender: undefined }
  }
  if (recipientCount !== undefined)
    throw new ValidationError({
      field: 'recipientCount',
      message: 'give recipientCount or recipients, not both: recipients already counts the batch',
    })
  if (sender === undefined)
    throw new ValidationError({ field: 'sender', message: 'required with recipients: the paying account (r...)' })
  const from = toSender(sender)
  const payments = recipients.map((recipient, index) => toPayment(recipient, index, from.address, undefined))
  return { count: toCount(payments.length), sender: from.address, total: sum(payments) }
}

/** Base fee and reserves of the last validated ledger, in XRP (and in drops under `drops`), with the original gateway's facts beside. */
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
    success: true,
    chain: 'xrp',
    chainId: 15,
    name: 'XRP Ledger',
    network: networkName(server.networkId),
    nativeAsset: 'XRP',
    decimals,
    explorer: explorers[networkName(server.networkId)] ?? null,
    spraay: {
      feePercent: '0%',
      feeAddress: null,
      maxRecipients,
      minAmount: 0.000001,
      batchMethod: 'sequential-payments',
      batchNote:
        'One Payment per recipient at consecutive sequence numbers; this gateway is paid per call and adds no fee.',
    },
    walletSupport: ['Xaman (XUMM)', 'GemWallet', 'Crossmark', 'Ledger (via Xaman)'],
    features: { destinationTags: true, memos: true, nativeBatch: false, atomicBatch: false },
  }
}

/** Public explorers of the networks that have one. */
const explorers: Record<string, string> = {
  mainnet: 'https://livenet.xrpl.org',
  testnet: 'https://testnet.xrpl.org',
  devnet: 'https://devnet.xrpl.org',
}

/** The network an id names, as the original gateway's `network` field says it. */
function networkName(networkId: number | undefined): string {
  if (networkId === 0) return 'mainnet'
  if (networkId === 1) return 'testnet'
  if (networkId === 2) return 'devnet'
  return 'custom'
}

/** The fee per transaction: what the open ledger asks now (at least the base fee), at most the configured ceiling. */
function bid(deps: Deps, fee: XrpNetwork.Fee): bigint {
  const wanted = fee.openLedgerFee > fee.baseFee ? fee.openLedgerFee : fee.baseFee
  const ceiling = deps.maxFeePerTransaction ?? 2_000_000n
  return wanted < ceiling ? wanted : ceiling
}

/** A batch as checked: its sender, its payments, and who signs. */
type Plan = {
  /** Classic address of the paying account. */
  sender: string
  /** The payments, in recipient order. */
  payments: Payment[]
} & (
  | {
      /** The original gateway's form: the sender signs. */
      form: 'unsigned'
      /** Source tag carried by the sender's X-address, if any. */
      sourceTag: number | undefined
    }
  | {
      /** The gateway signs with the caller's seed and submits. */
      form: 'signed'
      /** The wallet of the caller's seed; never logged, stored or echoed. */
      wallet: Wallet
    }
)

/** The batch `input` asks for, every field checked; pure, so that it runs before payment as well as in `batch`. */
function plan(input: BatchBody): Plan {
  const { sender, senderSecret, recipients, amounts, memo } = input
  if (sender !== undefined && senderSecret !== undefined)
    throw new ValidationError({
      field: 'senderSecret',
      message: 'give sender (to sign the transactions yourself) or senderSecret (to have the gateway sign), not both',
    })
  if (recipients.length === 0 || recipients.length > maxRecipients)
    throw new ValidationError({ field: 'recipients', message: `must hold 1 to ${maxRecipients} accounts` })
  if (sender !== undefined) {
    if (amounts !== undefined)
      throw new ValidationError({
        field: 'amounts',
        message: 'goes with senderSecret; with sender, each recipient is { address, amount, tag? }',
      })
    const from = toSender(sender)
    const payments = recipients.map((recipient, index) => {
      if (typeof recipient === 'string')
        throw new ValidationError({
          field: `recipients.${index}`,
          message: 'with sender, each recipient is { address, amount, tag? } (amount in XRP)',
        })
      return toPayment(recipient, index, from.address, memo)
    })
    return { form: 'unsigned', sender: from.address, sourceTag: from.tag, payments }
  }
  if (senderSecret === undefined)
    throw new ValidationError({
      field: 'sender',
      message:
        'required: the paying account (r...), answered with the unsigned payments to sign; or senderSecret to have the gateway sign',
    })
  const wallet = toWallet(senderSecret)
  const from = wallet.classicAddress
  if (amounts === undefined)
    throw new ValidationError({ field: 'amounts', message: 'required with senderSecret, parallel to recipients' })
  if (amounts.length !== recipients.length)
    throw new ValidationError({
      field: 'amounts',
      message: `has ${amounts.length} entries for ${recipients.length} recipients; recipients and amounts are parallel arrays`,
    })
  const payments = recipients.map((recipient, index) => {
    if (typeof recipient !== 'string')
      throw new ValidationError({
        field: `recipients.${index}`,
        message:
          'with senderSecret, recipients are addresses parallel to amounts; { address, amount } goes with sender',
      })
    const { destination, tag } = toDestination(recipient, `recipients.${index}`, from)
    const amount = parseAmount(amounts[index]!)
    if (!amount.ok) throw new ValidationError({ field: `amounts.${index}`, message: amount.message })
    return { recipient, destination, tag, drops: amount.drops, memo }
  })
  return { form: 'signed', sender: from, wallet, payments }
}

/** The paying account of the original gateway's form: a classic address, or an X-address whose tag is the source tag. */
function toSender(sender: string): { address: string; tag: number | undefined } {
  const address = Address.validateXrp(sender)
  if (!address.valid)
    throw new ValidationError({
      field: 'sender',
      message: 'must be an XRP Ledger classic address (r...) or X-address with a valid checksum',
    })
  if (address.format !== 'xrp_x_address') return { address: sender, tag: undefined }
  return { address: address.details.classicAddress, tag: address.details.tag ?? undefined }
}

/** The classic address and tag a recipient names; never the sender, whom the ledger refuses to pay. */
function toDestination(
  recipient: string,
  field: string,
  sender: string,
): { destination: string; tag: number | undefined } {
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
  return { destination, tag }
}

/** One `{ address, amount, tag?, memo? }` recipient as a checked payment; `amount` is human XRP. */
function toPayment(
  recipient: { address: string; amount: unknown; tag?: number | undefined; memo?: string | undefined },
  index: number,
  sender: string,
  memo: string | undefined,
): Payment {
  const { destination, tag } = toDestination(recipient.address, `recipients.${index}.address`, sender)
  if (tag !== undefined && recipient.tag !== undefined && tag !== recipient.tag)
    throw new ValidationError({
      field: `recipients.${index}.tag`,
      message: `differs from the tag ${tag} the X-address carries`,
    })
  const amount = parseAmount(recipient.amount)
  if (!amount.ok) throw new ValidationError({ field: `recipients.${index}.amount`, message: amount.message })
  return {
    recipient: recipient.address,
    destination,
    tag: tag ?? recipient.tag,
    drops: amount.drops,
    memo: recipient.memo ?? memo,
  }
}

/** The sum of the payments, in drops. */
function sum(payments: Payment[]): bigint {
  return payments.reduce((total, { drops }) => total + drops, 0n)
}

/** The sender's account, the fee and the last validated ledger; an account that does not exist is the caller's to fund. */
async function read(deps: Deps, sender: string) {
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
  return { account, fee, server }
}

/**
 * Refuses a batch the account cannot afford: the ledger refuses an XRP payment that would leave less than the reserve,
 * so this is checked first, and a batch stops before any payment is sent instead of halfway through.
 */
function afford(parameters: {
  sender: string
  account: Extract<XrpNetwork.AccountInfo, { ok: true }>
  server: XrpNetwork.ServerInfo
  required: bigint
}): void {
  const { sender, account, server, required } = parameters
  const reserve = server.reserveBase + server.reserveIncrement * BigInt(account.ownerCount)
  if (required > account.balance - reserve)
    throw new ConflictError(
      `The sender ${sender} holds ${formatUnits(account.balance, decimals)} XRP and must keep ${formatUnits(reserve, decimals)} XRP in reserve; this batch needs ${formatUnits(required, decimals)} XRP (amounts and fees). Nothing was sent.`,
      {
        details: {
          reason: 'insufficient_balance',
          balance: formatUnits(account.balance, decimals),
          reserve: formatUnits(reserve, decimals),
          required: formatUnits(required, decimals),
        },
      },
    )
}

/** One payment of the batch as an XRP Ledger Payment transaction, unsigned. */
function paymentOf(parameters: {
  sender: string
  sourceTag?: number | undefined
  payment: Payment
  fee: bigint
  sequence: number
  lastLedgerSequence: number
  server: XrpNetwork.ServerInfo
}): PaymentTransaction {
  const { sender, sourceTag, payment, fee, sequence, lastLedgerSequence, server } = parameters
  return {
    TransactionType: 'Payment',
    Account: sender,
    Destination: payment.destination,
    ...(payment.tag === undefined ? {} : { DestinationTag: payment.tag }),
    ...(sourceTag === undefined ? {} : { SourceTag: sourceTag }),
    Amount: payment.drops.toString(),
    Fee: fee.toString(),
    Sequence: sequence,
    LastLedgerSequence: lastLedgerSequence,
    Flags: 0,
    ...(payment.memo === undefined ? {} : { Memos: [memoOf(payment.memo)] }),
    ...(server.networkId !== undefined && server.networkId > networkIdThreshold ? { NetworkID: server.networkId } : {}),
  }
}

/** A memo as the original gateway writes it: type `text/plain`, the text in UTF-8, both as uppercase hex. */
function memoOf(text: string) {
  return {
    Memo: {
      MemoType: stringToHex('text/plain').slice(2).toUpperCase(),
      MemoData: stringToHex(text).slice(2).toUpperCase(),
    },
  }
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
