import { base58, base64 } from '@scure/base'
import { Value } from '@sinclair/typebox/value'
import { type Address, encodeFunctionData, erc20Abi, getAddress, type Hash, isAddress, isAddressEqual } from 'viem'
import * as AuditChain from '../../core/AuditChain.js'
import * as Compute from '../../core/Compute.js'
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UpstreamFailedError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import * as Futures from '../../core/Futures.js'
import * as Machine from '../../core/Machine.js'
import * as Price from '../../core/Price.js'
import { genesisHash, type LogEntry, type Store, walk } from '../../core/Store.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import type { BalanceQuery, DepositBody, ExecuteBody, HistoryQuery, Job, RefundBody } from './schema.js'
import { Job as JobSchema } from './schema.js'

/** Compute jobs as a futures account runs them: priced from the operator's catalog, run on its upstream. */
export type Runner = {
  /**
   * The job's model, kind, list price (USDC atomic units) and where the model runs (`openai` for an OpenAI-compatible
   * upstream); throws a `ValidationError` for a job it refuses.
   */
  price: (job: Job) => { model: string; kind: string; price: bigint; provider: string }
  /** Runs the job; an upstream failure comes back as data. */
  run: (job: Job) => Promise<Upstream.Outcome<{ result: unknown }>>
  /** Every model a job may name, with its kind and list price per size. */
  models: () => readonly { model: string; kind: string; size: string; price: bigint }[]
}

/**
 * The runner over the operator's compute catalog and its OpenAI-compatible upstream: the kinds that answer at once
 * (text, embeddings, speech, transcription, images). A model that runs on Replicate is an asynchronous job, which
 * `execute` does not hold a reservation open for: it is refused before payment.
 */
export function runnerOf(compute: { models: Compute.Models; direct?: Compute.Direct | undefined }): Runner {
  const { models, direct } = compute
  const synchronous = [...models.values()].filter((model) => model.upstream === 'openai' && model.kind !== 'video')
  const read = (body: Job): Compute.Job => {
    const model = Compute.modelFor({
      models: new Map(synchronous.map((candidate) => [candidate.id, candidate])),
      model: body.model,
      kind: body.kind,
      field: 'job.model',
    })
    switch (body.kind) {
      case 'text': {
        const messages =
          body.messages ?? (body.prompt === undefined ? undefined : [{ role: 'user', content: body.prompt }])
        if (!messages) throw new ValidationError({ field: 'job.prompt', message: 'give `prompt` or `messages`.' })
        return { kind: 'text', model, messages, maxTokens: body.max_tokens, temperature: body.temperature }
      }
      case 'embeddings':
        return { kind: 'embeddings', model, input: typeof body.input === 'string' ? [body.input] : body.input }
      case 'tts':
        return { kind: 'tts', model, input: body.input, voice: body.voice, format: body.response_format }
      case 'stt': {
        let audio: Uint8Array
        try {
          audio = base64.decode(body.audio)
        } catch {
          throw new ValidationError({ field: 'job.audio', message: 'is not base64.' })
        }
        return { kind: 'stt', model, audio, filename: body.filename ?? 'audio.mp3', language: body.language }
      }
      case 'image':
        return { kind: 'image', model, prompt: body.prompt, size: body.size ?? [...model.prices.keys()][0]! }
    }
  }
  const checked = (body: Job) => {
    const job = read(body)
    Compute.check(job, 'job.')
    return job
  }
  return {
    price(body) {
      const job = checked(body)
      const size = job.kind === 'image' ? job.size : undefined
      return {
        model: job.model.id,
        kind: job.kind,
        price: Compute.priceOf({ models, request: { model: job.model.id, size } }),
        provider: job.model.upstream,
      }
    },
    async run(body) {
      const ran = await Compute.run({ direct, job: checked(body) })
      if (!ran.ok) return ran
      if (ran.ran.type !== 'done') throw new Error('A synchronous compute job started a prediction.')
      return { ok: true, result: ran.ran.output }
    },
    models: () =>
      synchronous.flatMap((model) =>
        [...model.prices].map(([size, price]) => ({ model: model.id, kind: model.kind, size, price })),
      ),
  }
}

/** What the compute-futures module needs from outside. */
export type Deps = {
  /**
   * The store itself, never a paid call's journal: a deposit, a job or a refund already happened on chain or upstream,
   * and its ledger entry must stay whatever becomes of the call's fee.
   */
  books: Store
  /** The operator's deposit address and refund wallet. */
  treasury: Futures.Treasury
  /** Confirmations a deposit needs before it is credited. */
  confirmations: bigint
  /** The operator's Solana deposit account and refund wallet; absent when not configured (Solana deposits answer 503). */
  solana?: Futures.SolanaTreasury | undefined
  /** How final a Solana deposit must be before it is credited. @default 'finalized' */
  solanaCommitment?: 'confirmed' | 'finalized' | undefined
  /** Runs the jobs of `execute`; absent when no compute upstream is configured (execute answers 503). */
  runner?: Runner | undefined
  /** Clock. @default () => new Date() */
  now?: () => Date
}

/** Store collection of futures accounts (id: the CFE id; value: {@link AccountRecord}), owned by the depositor. */
export const accounts = 'compute-futures'

/**
 * Store collection of deposit claims (id: `<chainId>:<transaction hash>`, or `solana:<genesis>:<signature>`), one per
 * transaction, ever.
 */
export const deposits = 'compute-futures-deposits'

/** How long a deposit claim belongs to the call that made it before a retry may finish it, in ms. */
export const claimTtlMs = 60_000

/** The journal of a futures account: its ledger, one hash-chained entry per movement. */
export function journalOf(id: string): string {
  return `compute-futures:${id}`
}

/** A futures account's record. */
type AccountRecord = {
  /** Whoever deposited first, the only one who may read, spend or refund. */
  depositor: Address
  /** Chain of its deposits: an EIP-155 chain id, or the Solana network. */
  chainId: number | Futures.SolanaNetwork
  /** Sequence of a journal entry known to exist: where reading the latest balances starts. */
  sequence: number
  /** Of an account of Solana deposits: the Solana wallet whose USDC its first deposit was, and that token account. */
  solana?: { depositor: string; tokenAccount: string }
}

/** One movement of the ledger, as the journal keeps it. */
type Entry = {
  kind: Futures.Kind
  /** USDC atomic units. */
  amount: string
  debit: Futures.Account
  credit: Futures.Account
  /** After the movement. */
  balances: Futures.SerializedBalances
  job?: string
  model?: string
  /** The compute kind of the job. */
  jobKind?: string
  /** List price of the job, atomic units. */
  price?: string
  discountBps?: string
  /** The deposit or refund: an EVM transaction hash or a Solana signature. */
  transaction?: string
  reason?: string
}

type Details = Omit<Entry, 'kind' | 'amount' | 'debit' | 'credit' | 'balances'>

const clock = (deps: Deps) => (deps.now ?? (() => new Date()))()

/**
 * Appends one movement to the account's journal, atomically: the store serialises appends to one journal across
 * processes (a row lock on PostgreSQL, the write lock on SQLite), `amountOf` sees the latest balances, and
 * {@link Futures.apply} refuses a movement that would take a balance below zero, which leaves the journal as it was.
 */
async function move(
  deps: Deps,
  id: string,
  kind: Futures.Kind,
  amountOf: (before: Futures.Balances) => bigint,
  details: Details = {},
): Promise<LogEntry<Entry>> {
  const createdAt = clock(deps)
  const entry = await deps.books.append<Entry>(journalOf(id), (last) => {
    const before = last ? Futures.deserialize(last.value.balances) : Futures.empty
    const amount = amountOf(before)
    const balances = Futures.apply(before, kind, amount)
    // Hash what the store gives back: JSON drops undefined fields.
    const value: Entry = JSON.parse(
      JSON.stringify({
        kind,
        amount: amount.toString(),
        ...Futures.movements[kind],
        balances: Futures.serialize(balances),
        ...details,
      }),
    )
    const linked = { sequence: (last?.sequence ?? 0) + 1, previousHash: last?.hash ?? genesisHash, value, createdAt }
    return { value, createdAt, hash: AuditChain.hash(linked) }
  })
  // A hint only: a lost race leaves an older sequence, from which `latest` still reads forward to the end.
  await deps.books.update<AccountRecord>(accounts, id, ({ value }) =>
    value.sequence >= entry.sequence
      ? { refused: true, reason: 'a later entry is known' }
      : { ...value, sequence: entry.sequence },
  )
  return entry
}

/** The account's latest journal entry, read forward from the record's hint. */
async function latest(deps: Deps, id: string, hint: number): Promise<LogEntry<Entry> | undefined> {
  let last: LogEntry<Entry> | undefined
  const pageSize = 500
  for (let from = Math.max(hint, 1); ; ) {
    const page = await deps.books.entries<Entry>(journalOf(id), { fromSequence: from, limit: pageSize })
    last = page.at(-1) ?? last
    if (page.length < pageSize) return last
    from = last!.sequence + 1
  }
}

/**
 * The account a call names: `id`, or the original gateway's `address` (its depositor's settlement-chain account),
 * which it also reads from `id` (`address || id`): an address in `id` names that account too; both is a 400.
 * @default undefined, the caller's own
 */
export function namedId(
  deps: Pick<Deps, 'treasury'>,
  input: { id?: string | undefined; address?: string | undefined },
) {
  if (input.id !== undefined && input.address !== undefined)
    throw new ValidationError({ field: 'address', message: 'give address or id, not both.' })
  const address = input.address ?? input.id
  return address === undefined || !isAddress(address, { strict: false })
    ? input.id
    : Futures.idOf({ depositor: getAddress(address), chainId: deps.treasury.chainId })
}

/** The original gateway's `depositor` is the payer: a futures account is the paying wallet's (403 otherwise). */
function assertDepositor(depositor: string | undefined, caller: Address): void {
  if (depositor !== undefined && !isAddressEqual(getAddress(depositor), caller))
    throw new ForbiddenError(
      `A futures account is the wallet's that pays for its calls: pay from ${getAddress(depositor)} to act for it (the payer is ${caller}).`,
    )
}

/** The caller's account `id` (by default their own): another's, or one that does not exist, is a 404. */
async function own(deps: Deps, caller: Address, id: string | undefined) {
  const accountId = id ?? Futures.idOf({ depositor: caller, chainId: deps.treasury.chainId })
  const record = await deps.books.get<AccountRecord>(accounts, accountId)
  if (!record?.owners.some((owner) => isAddressEqual(owner, caller)))
    throw new NotFoundError(
      id === undefined
        ? 'The paying wallet has no futures account yet: deposit USDC first (compute-futures/deposit).'
        : `No futures account ${accountId} of the paying wallet.`,
    )
  const last = await latest(deps, accountId, record.value.sequence)
  return {
    id: accountId,
    account: record.value,
    balances: last ? Futures.deserialize(last.value.balances) : Futures.empty,
  }
}

const usd = Price.fromAtomic
const percentOf = (bps: bigint) => Number(bps) / 100

function balancesView(balances: Futures.Balances) {
  return {
    available: usd(balances.available),
    reserved: usd(balances.reserved),
    refunding: usd(balances.refunding),
    deposited: usd(balances.deposited),
    spent: usd(balances.spent),
    refunded: usd(balances.refunded),
    jobs: balances.jobs,
  }
}

/**
 * Where deposits go, known before any deposit (pricing, discovery): on the settlement chain (`chain: "base"`) the
 * USDC and the operator's address; on Solana, where configured, the mint, the owner and its associated token account.
 */
export function depositTerms(deps: Pick<Deps, 'treasury' | 'solana'>) {
  const { treasury, solana } = deps
  return {
    base: { chainId: treasury.chainId, token: treasury.token, depositAddress: treasury.depositAddress },
    solana: solana
      ? { mint: solana.mint, depositAddress: solana.depositAddress, depositTokenAccount: solana.depositTokenAccount }
      : null,
  }
}

function tierView(tier: Futures.Tier) {
  return { name: tier.name, minimum: usd(tier.minimum), discountPercent: percentOf(tier.discountBps) }
}

/** A tier as pricing lists it: ours, and the original gateway's `minDeposit` and `discount`. */
function tierListing(tier: Futures.Tier) {
  return {
    ...tierView(tier),
    minDeposit: `$${Units.toDecimal(tier.minimum, 6)}`,
    discount: `${percentOf(tier.discountBps)}%`,
  }
}

/** The original gateway's `contract`, where deposits go: here the operator's deposit address, not a contract. */
function contractOf(address: string | null) {
  return {
    address,
    note: 'The deposit address is the operator’s wallet (no escrow contract): credit is refunded by POST /api/v1/compute-futures/refund, to the depositor only.',
  }
}

/**
 * When a deposit's credit expires, as every deposit answer says: never (the original gateway's `expiresInDays` is
 * accepted and not applied, as there).
 */
const creditExpiry = {
  expiresAt: null,
  note: 'Credit does not expire here: unused credit stays the depositor’s until refunded by POST /api/v1/compute-futures/refund; expiresInDays is accepted and not applied.',
}

/** The deposit address of an account's chain: the settlement chain's, or Solana's where its deposits are. */
function depositAddressOf(deps: Deps, account: AccountRecord): string | null {
  return account.solana ? (deps.solana?.depositAddress ?? null) : deps.treasury.depositAddress
}

/** USDC atomic units as the original gateway writes them: `"12.5 USDC"`. */
const usdcText = (amount: bigint) => `${Units.toDecimal(amount, 6)} USDC`

/** The original gateway's summary of an account: human amounts with their raw twins, job count and tier name. */
function summaryOf(balances: Futures.Balances) {
  return {
    balance: usdcText(balances.available),
    balanceRaw: balances.available.toString(),
    deposited: usdcText(balances.deposited),
    depositedRaw: balances.deposited.toString(),
    totalDrawn: usdcText(balances.spent),
    totalDrawnRaw: balances.spent.toString(),
    totalRefunded: usdcText(balances.refunded),
    totalRefundedRaw: balances.refunded.toString(),
    jobCount: balances.jobs,
    tier: Futures.tierOf(Futures.boughtOf(balances)).tier.name,
  }
}

function accountView(deps: Deps, owned: Awaited<ReturnType<typeof own>>) {
  const bought = Futures.boughtOf(owned.balances)
  const { tier, next } = Futures.tierOf(bought)
  const { solana } = owned.account
  return {
    id: owned.id,
    depositor: owned.account.depositor,
    chainId: owned.account.chainId,
    depositAddress: depositAddressOf(deps, owned.account),
    ...(solana ? { solana } : {}),
    balances: balancesView(owned.balances),
    ...summaryOf(owned.balances),
    tierDetails: tierView(tier),
    discountPercent: percentOf(tier.discountBps),
    nextTier: next ? { ...tierView(next), missing: usd(next.minimum - bought) } : null,
    address: owned.account.depositor,
    discount: tier.discountBps === 0n ? 'No discount' : `${percentOf(tier.discountBps)}% discount`,
    discountBps: Number(tier.discountBps),
  }
}

/** Balance, tier, discount and usage of the caller's account (`id`, or the original's `address`). */
export async function balance(deps: Deps, input: BalanceQuery & { caller: Address }) {
  return accountView(deps, await own(deps, input.caller, namedId(deps, input)))
}

/**
 * Refused before payment: a Solana deposit with no Solana node and deposit address configured, or a transaction id
 * of the wrong shape for its chain (a hash on the settlement chain, a base58 signature on Solana).
 */
export function preflightDeposit(deps: Pick<Deps, 'solana'>, body: Partial<DepositBody>): void {
  if (body.amount !== undefined && body.transaction !== undefined)
    throw new ValidationError({ field: 'amount', message: 'give amount (to be handed the transfer) or transaction.' })
  if (body.amount !== undefined || body.depositor !== undefined) {
    if (body.chain === 'solana')
      throw new ValidationError({
        field: 'chain',
        message:
          'an unsigned deposit is built on the settlement chain only; on Solana send USDC with the memo `compute-futures:<your EVM address>` and give its signature as `transaction`.',
      })
    amountOf(body.amount)
    return
  }
  if (body.transaction === undefined)
    throw new ValidationError({
      field: 'amount',
      message: 'give amount (human USDC) or transaction (a deposit’s hash).',
    })
  if (body.chain === 'solana' && !deps.solana)
    throw new UpstreamUnavailableError(
      'Solana deposits are not configured here (FUTURES_SOLANA_RPC_URL and FUTURES_SOLANA_DEPOSIT_ADDRESS): deposit USDC on the settlement chain (`chain: "base"`).',
      { details: { chain: 'solana' } },
    )
  // A body the schema refuses is left to it.
  if (typeof body.transaction !== 'string') return
  if (body.chain === 'solana' && !isSignature(body.transaction))
    throw new ValidationError({ field: 'transaction', message: 'is not a Solana transaction signature (base58).' })
  if (body.chain !== 'solana' && !/^0x[0-9a-fA-F]{64}$/.test(body.transaction))
    throw new ValidationError({
      field: 'transaction',
      message: 'is not a transaction hash (0x and 64 hex digits); a Solana signature needs `chain: "solana"`.',
    })
}

/** Least deposit the original gateway takes, in USDC atomic units: 1 USDC. */
export const minimumDeposit = 1_000_000n

/** A deposit's `amount`, human USDC, in atomic units; at least {@link minimumDeposit}. */
function amountOf(amount: unknown): bigint {
  const atomic = Units.fromDecimal({ value: amount, decimals: 6, field: 'amount' })
  if (atomic < minimumDeposit) throw new ValidationError({ field: 'amount', message: 'the least deposit is 1 USDC.' })
  return atomic
}

/**
 * The original gateway's deposit, asked with `amount` (human USDC): the unsigned USDC `transfer` to the deposit address
 * for the depositor to sign and send (no approve: the operator's address takes a plain transfer), and how its hash is
 * then credited.
 */
function depositTransaction(deps: Deps, input: DepositBody & { caller: Address }) {
  assertDepositor(input.depositor, input.caller)
  const amountRaw = amountOf(input.amount)
  const amount = Units.toDecimal(amountRaw, 6)
  const { token, depositAddress, chainId } = deps.treasury
  return {
    status: 'sign_required',
    message: `Sign and send this transaction to deposit ${amount} USDC, then send its hash as \`transaction\` to this endpoint to credit it.`,
    amount,
    amountRaw: amountRaw.toString(),
    depositor: input.caller,
    depositAddress,
    chainId,
    transactions: [
      {
        to: token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [depositAddress, amountRaw] }),
        value: '0x0',
        chainId,
        description: `Transfer ${amount} USDC to the compute-futures deposit address ${depositAddress}`,
      },
    ],
    contract: contractOf(depositAddress),
    creditExpiry,
    tiers: Futures.tiers.map(tierListing),
    afterDeposit: {
      credit: 'POST /api/v1/compute-futures/deposit {"transaction":"<the mined hash>"}',
      execute: 'POST /api/v1/compute-futures/execute',
      balance: `GET /api/v1/compute-futures/balance?address=${input.caller}`,
      refund: 'POST /api/v1/compute-futures/refund',
    },
  }
}

/** Whether `text` is a Solana signature: 64 bytes in base58. */
function isSignature(text: string): boolean {
  try {
    return base58.decode(text).length === 64
  } catch {
    return false
  }
}

/** A deposit verified on its chain: the amount, the account it credits, and the claim that makes it credit once. */
type Verified = {
  /** The account credited. */
  id: string
  /** Its record, for a first deposit. */
  account: AccountRecord
  /** The deposit's claim: its chain and transaction. */
  key: string
  /** The transaction hash or signature. */
  transaction: string
  /** USDC atomic units. */
  amount: bigint
}

/**
 * Credits a deposit: verifies it on its chain (the settlement chain's receipt, or a Solana transaction), then credits
 * the caller's account of that chain, opening it at the first deposit. A transaction credits once, ever: its claim is
 * a record whose id is the chain and the transaction, and the store refuses a second.
 */
export async function deposit(deps: Deps, input: DepositBody & { caller: Address }) {
  preflightDeposit(deps, input)
  if (input.transaction === undefined) return depositTransaction(deps, input)
  assertDepositor(input.depositor, input.caller)
  const caller = getAddress(input.caller)
  const verified =
    input.chain === 'solana'
      ? await verifySolana(deps, caller, input.transaction)
      : await verifyReceipt(deps, caller, input.transaction.toLowerCase() as Hash)
  const { id, key, transaction, amount } = verified
  const now = clock(deps)
  // Exists already from an earlier deposit: the id follows from the depositor, so it is theirs.
  const opened = await deps.books.insert<AccountRecord>({
    collection: accounts,
    id,
    owners: [caller],
    value: verified.account,
    createdAt: now,
  })
  if (!opened.ok && verified.account.solana) await assertSameSolanaDepositor(deps, id, verified.account.solana)

  const claimed = await deps.books.insert<Futures.Deposit>({
    collection: deposits,
    id: key,
    owners: [caller],
    value: { account: id, amount: amount.toString(), state: 'claimed', claimedAt: now.toISOString() },
    createdAt: now,
  })
  let entry: LogEntry<Entry> | undefined
  if (!claimed.ok) entry = await resume(deps, { key, id, hash: transaction, now })
  entry ??= await move(deps, id, 'deposit', () => amount, { transaction })
  const credited = entry.sequence
  // Refused only when a call that took the claim over credited it first: its entry stands.
  await deps.books.update<Futures.Deposit>(deposits, key, ({ value }) =>
    Machine.refusing(() => Futures.depositTransition(value, { type: 'credited', sequence: credited }, now)),
  )
  return {
    credited: usd(amount),
    transaction,
    sequence: entry.sequence,
    creditExpiry,
    ...(await balance(deps, { caller, id })),
  }
}

/**
 * A deposit on the settlement chain: the receipt's transfers of the settlement USDC to the deposit address, which
 * must all come from the paying wallet, with the configured confirmations.
 */
async function verifyReceipt(deps: Deps, caller: Address, hash: Hash): Promise<Verified> {
  const { chainId, depositAddress } = deps.treasury
  const receipt = await deps.treasury.receipt(hash)
  if (!receipt)
    throw new NotFoundError(`No mined transaction ${hash} on chain ${chainId}: retry once it is mined.`, {
      details: { transaction: hash },
    })
  if (receipt.status !== 'success')
    throw new ConflictError(`Transaction ${hash} reverted: it moved no USDC.`, { details: { transaction: hash } })
  if (receipt.transfers.length === 0)
    throw new ConflictError(
      `Transaction ${hash} sends no USDC (${deps.treasury.token}) to the deposit address ${depositAddress}.`,
      { details: { transaction: hash, depositAddress } },
    )
  const stranger = receipt.transfers.find((transfer) => !isAddressEqual(transfer.from, caller))
  if (stranger)
    throw new ForbiddenError(
      `Transaction ${hash} sends USDC from ${stranger.from}, not from the paying wallet ${caller}: a deposit is credited to the wallet that sent it, paying for the call.`,
      { details: { transaction: hash, from: stranger.from } },
    )
  if (receipt.confirmations < deps.confirmations)
    throw new ConflictError(
      `Transaction ${hash} has ${receipt.confirmations} of the ${deps.confirmations} confirmations a deposit needs: retry shortly.`,
      { details: { confirmations: Number(receipt.confirmations), required: Number(deps.confirmations) } },
    )
  return {
    id: Futures.idOf({ depositor: caller, chainId }),
    account: { depositor: caller, chainId, sequence: 0 },
    key: `${chainId}:${hash}`,
    transaction: hash,
    amount: receipt.transfers.reduce((sum, transfer) => sum + transfer.amount, 0n),
  }
}

/**
 * A deposit on Solana ({@link Futures.solanaDepositOf}): USDC into the operator's deposit token account, from one
 * token account whose owner signed, with a memo naming the EVM wallet to credit, which must be the paying wallet; at
 * the configured commitment. It credits the payer's account of Solana deposits, which refunds to that owner.
 */
async function verifySolana(deps: Deps, caller: Address, signature: string): Promise<Verified> {
  const solana = deps.solana!
  const transaction = await solana.transaction(signature)
  const details = { transaction: signature }
  if (!transaction)
    throw new NotFoundError(`No confirmed Solana transaction ${signature}: retry once it is confirmed.`, { details })
  const found = Futures.solanaDepositOf({ transaction, depositTokenAccount: solana.depositTokenAccount })
  if (!found.ok)
    switch (found.reason) {
      case 'failed':
        throw new ConflictError(`Transaction ${signature} failed: it moved no USDC.`, { details })
      case 'no_transfer':
        throw new ConflictError(
          `Transaction ${signature} sends no USDC (${solana.mint}) to the deposit token account ${solana.depositTokenAccount} of ${solana.depositAddress}.`,
          { details: { ...details, depositAddress: solana.depositAddress } },
        )
      case 'several_sources':
        throw new ConflictError(
          `Transaction ${signature} takes USDC from more than one token account: a deposit comes from one, to which its refunds go.`,
          { details },
        )
      case 'unsigned_source':
        throw new ForbiddenError(
          `Transaction ${signature} deposits USDC that is not its signer's own (the owner of the token account it left did not sign, or it left none): only an owner's deposit is credited.`,
          { details },
        )
      case 'no_memo':
      case 'several_memos':
        throw new ValidationError({
          field: 'transaction',
          message: `carries ${found.reason === 'no_memo' ? 'no' : 'more than one'} SPL Memo "${Futures.memoPrefix}<EVM address>": the memo, signed by the sender, names the one wallet the deposit credits.`,
        })
    }
  if (!isAddressEqual(found.payer, caller))
    throw new ForbiddenError(
      `Transaction ${signature} credits ${found.payer} (its memo), not the paying wallet ${caller}: a Solana deposit is credited to the wallet its sender named.`,
      { details: { ...details, payer: found.payer } },
    )
  const required = deps.solanaCommitment ?? 'finalized'
  if (Futures.commitments.indexOf(transaction.commitment) < Futures.commitments.indexOf(required))
    throw new ConflictError(
      `Transaction ${signature} is ${transaction.commitment}, not yet ${required}: retry shortly.`,
      { details: { ...details, commitment: transaction.commitment, required } },
    )
  const network = await solana.network()
  return {
    id: Futures.idOf({ depositor: caller, chainId: network }),
    account: {
      depositor: caller,
      chainId: network,
      sequence: 0,
      solana: { depositor: found.depositor, tokenAccount: found.tokenAccount },
    },
    key: `${network}:${signature}`,
    transaction: signature,
    amount: found.amount,
  }
}

/**
 * Refunds go to the Solana wallet of an account's first deposit, so a later deposit from another wallet is refused
 * (409) before it is claimed: its credit would be refunded to someone else. Its sender should deposit from the first.
 */
async function assertSameSolanaDepositor(deps: Deps, id: string, solana: NonNullable<AccountRecord['solana']>) {
  const existing = await deps.books.get<AccountRecord>(accounts, id)
  const first = existing?.value.solana
  if (first && first.depositor !== solana.depositor)
    throw new ConflictError(
      `Account ${id} refunds to the Solana wallet ${first.depositor}, whose deposit opened it; this transaction's USDC is ${solana.depositor}'s, and is not credited: deposit from ${first.depositor}.`,
      { details: { depositor: first.depositor, from: solana.depositor } },
    )
}

/**
 * A second call for a claimed transaction. Credited already: a 409. Claimed by a call that is still within its
 * {@link claimTtlMs}: a 409, retry. Claimed by a call that stopped between the claim and the credit (a crash): this
 * call takes the claim over and finds the credit in the journal, or makes it.
 */
async function resume(
  deps: Deps,
  parameters: { key: string; id: string; hash: string; now: Date },
): Promise<LogEntry<Entry> | undefined> {
  const { key, id, hash, now } = parameters
  const taken = await deps.books.update<Futures.Deposit>(deposits, key, ({ value }) =>
    Machine.refusing(() => Futures.depositTransition(value, { type: 'taken', ttlMs: claimTtlMs }, now)),
  )
  if (!taken.ok)
    throw new ConflictError(
      taken.reason === 'in_progress'
        ? `Transaction ${hash} is being credited by another call right now: retry shortly.`
        : `Transaction ${hash} was credited already: each deposit credits once.`,
      { details: { transaction: hash } },
    )
  for await (const entry of walk<Entry>(deps.books, journalOf(id)))
    if (entry.value.kind === 'deposit' && entry.value.transaction === hash) return entry
  return undefined
}

/** Refused before payment: `execute` with no compute upstream, or a job the compute catalog refuses. */
export function preflightExecute(deps: Pick<Deps, 'runner'>, body: Partial<ExecuteBody>): void {
  if (!deps.runner)
    throw new UpstreamUnavailableError(
      'No compute model runs here (COMPUTE_MODELS with an OpenAI-compatible upstream), so no futures job can run; deposits, balances and refunds work.',
    )
  // A job the schema refuses is left to it (a 400 naming the field); one it admits is priced and checked here.
  if (Value.Check(JobSchema, body.job)) deps.runner.price(body.job)
}

/**
 * Runs a compute job on credit: reserves its discounted cost (refused when the available credit is short, so the
 * balance never goes below zero, whatever runs at the same time), runs it, then charges the reservation, or releases
 * it when the job failed; a failure is not charged and the call's fee is not either.
 */
export async function execute(deps: Deps, input: ExecuteBody & { caller: Address }) {
  preflightExecute(deps, input)
  const runner = deps.runner!
  const { model, kind, price, provider } = runner.price(input.job)
  const { id, account } = await own(deps, input.caller, input.id)
  const job = `job_${crypto.randomUUID()}`
  let discountBps = 0n
  const reserved = await move(
    deps,
    id,
    'reserve',
    (before) => {
      discountBps = Futures.tierOf(Futures.boughtOf(before)).tier.discountBps
      return Futures.costOf({ price, discountBps })
    },
    { job, model },
  )
  const cost = BigInt(reserved.value.amount)
  const details = { job, model, jobKind: kind, price: price.toString(), discountBps: discountBps.toString() }
  let outcome: Awaited<ReturnType<Runner['run']>>
  try {
    outcome = await runner.run(input.job)
  } catch (error) {
    await move(deps, id, 'release', () => cost, { ...details, reason: 'the job failed' })
    throw error
  }
  if (!outcome.ok) {
    await move(deps, id, 'release', () => cost, { ...details, reason: outcome.message })
    throw Upstream.toError(outcome)
  }
  const charged = await move(deps, id, 'charge', () => cost, details)
  const balances = Futures.deserialize(charged.value.balances)
  return {
    id,
    job,
    kind,
    model,
    price: usd(price),
    discountPercent: percentOf(discountBps),
    cost: usd(cost),
    balances: balancesView(balances),
    result: outcome.result,
    // The original gateway's answer beside ours: its billing in its words (human amounts, each with its raw twin) and
    // the job as it names it. The debit is a ledger entry here, not an on-chain drawdown: no transaction to show.
    status: 'completed',
    billing: {
      basePrice: `$${Units.toDecimal(price, 6)}`,
      basePriceRaw: price.toString(),
      discount: discountBps === 0n ? 'none' : `${percentOf(discountBps)}%`,
      charged: `$${usdcText(cost)}`,
      chargedRaw: cost.toString(),
      balanceRemaining: `$${usdcText(balances.available)}`,
      balanceRemainingRaw: balances.available.toString(),
      drawdownTx: null,
      settlement: 'ledger',
      ledgerEntry: { sequence: charged.sequence, hash: charged.hash },
    },
    compute: { type: jobTypeOf(kind), model, modelLabel: model, provider, result: outcome.result },
    contract: contractOf(depositAddressOf(deps, account)),
    timestamp: charged.createdAt.toISOString(),
  }
}

/** Every credit and debit of the caller's account in order, each with its job, model, price and resulting balances. */
export async function history(deps: Deps, input: HistoryQuery & { caller: Address }) {
  const owned = await own(deps, input.caller, namedId(deps, input))
  const { id } = owned
  const limit = Number(input.limit ?? 50)
  const page = await deps.books.entries<Entry>(journalOf(id), {
    fromSequence: Number(input.from ?? 1),
    limit: limit + 1,
  })
  const shown = page.slice(0, limit)
  return {
    id,
    entries: shown.map(({ sequence, createdAt, value, hash }) => ({
      sequence,
      at: createdAt.toISOString(),
      kind: value.kind,
      amount: usd(BigInt(value.amount)),
      debit: value.debit,
      credit: value.credit,
      balances: balancesView(Futures.deserialize(value.balances)),
      ...(value.job === undefined ? {} : { job: value.job }),
      ...(value.model === undefined ? {} : { model: value.model }),
      ...(value.price === undefined ? {} : { price: usd(BigInt(value.price)) }),
      ...(value.discountBps === undefined ? {} : { discountPercent: percentOf(BigInt(value.discountBps)) }),
      ...(value.transaction === undefined ? {} : { transaction: value.transaction }),
      ...(value.reason === undefined ? {} : { reason: value.reason }),
      hash,
    })),
    next: page.length > limit ? page[limit]!.sequence : null,
    address: owned.account.depositor,
    onChain: summaryOf(owned.balances),
    usage: shown
      .filter(({ value }) => value.kind === 'charge')
      .map(({ createdAt, value }) => ({
        futuresId: id,
        jobType: value.jobKind ? jobTypeOf(value.jobKind) : 'unknown',
        model: value.model ?? '',
        basePrice: usd(BigInt(value.price ?? value.amount)),
        discount: (Number(value.discountBps ?? 0) / 10_000).toFixed(4),
        effectivePrice: usd(BigInt(value.amount)),
        balanceAfter: usd(Futures.deserialize(value.balances).available),
        timestamp: createdAt.toISOString(),
      })),
  }
}

/** The original gateway's job type of a compute kind: the last segment of its endpoint, e.g. `text-inference`. */
function jobTypeOf(kind: string): string {
  const endpoint = Compute.endpoints[kind as Compute.Kind]
  return endpoint ? endpoint.slice(endpoint.lastIndexOf('/') + 1) : kind
}

/** Tiers, each offered model's list price and cost per tier, the compute batch discount, and where deposits go. */
export function pricing(
  deps: Pick<Deps, 'runner'> & Partial<Pick<Deps, 'treasury' | 'solana'>>,
  parameters: { batchDiscountBps: bigint; maxBatchJobs: number },
) {
  const { treasury, solana } = deps
  const listed = deps.runner?.models() ?? []
  return {
    tiers: Futures.tiers.map(tierListing),
    deposit: treasury ? depositTerms({ treasury, solana }) : null,
    basis: 'credit bought: deposited less refunded',
    models: (deps.runner?.models() ?? []).map(({ model, kind, size, price }) => ({
      model,
      kind,
      size,
      price: usd(price),
      costs: Object.fromEntries(
        Futures.tiers.map((tier) => [tier.name, usd(Futures.costOf({ price, discountBps: tier.discountBps }))]),
      ),
    })),
    bulk: {
      endpoint: '/api/v1/compute/batch',
      discountPercent: percentOf(parameters.batchDiscountBps),
      maxJobs: parameters.maxBatchJobs,
      note: 'compute/batch is paid per call, not from futures credit; its discount does not stack with a tier.',
    },
    pricing: Object.fromEntries(
      Compute.kinds
        .filter((kind) => listed.some((model) => model.kind === kind))
        .map((kind) => [
          jobTypeOf(kind),
          listed
            .filter((model) => model.kind === kind)
            .map(({ model, size, price }) => ({
              model,
              size,
              label: model,
              provider: 'openai',
              basePrice: `$${usd(price)}`,
              tierPrices: Object.fromEntries(
                Futures.tiers.map((tier) => [
                  tier.name,
                  `$${usd(Futures.costOf({ price, discountBps: tier.discountBps }))} (${percentOf(tier.discountBps)}% off)`,
                ]),
              ),
            })),
        ]),
    ),
    batchDiscount: `${percentOf(parameters.batchDiscountBps)}% (via /compute/batch)`,
  }
}

/**
 * Refused before payment: a refund with no operator key to send it, on the chain of the account's deposits (the
 * account named by `id`, else the caller's own on the settlement chain).
 */
export async function preflightRefund(
  deps: Pick<Deps, 'treasury' | 'solana' | 'books'>,
  body: Partial<RefundBody>,
): Promise<void> {
  const named = typeof body.id === 'string' && Futures.isId(body.id)
  const record = named ? await deps.books.get<AccountRecord>(accounts, body.id!) : undefined
  assertRefundable(deps, record?.value)
}

/** A 503 when no operator key is configured on the chain `account`'s refunds are sent on. */
function assertRefundable(deps: Pick<Deps, 'treasury' | 'solana'>, account: AccountRecord | undefined): void {
  if (account?.solana) {
    if (!deps.solana?.send)
      throw new UpstreamUnavailableError(
        'No Solana operator key is configured (FUTURES_SOLANA_OPERATOR_SECRET_KEY), so the gateway cannot refund Solana deposits; credit stays on the account.',
      )
  } else if (!deps.treasury.send)
    throw new UpstreamUnavailableError(
      'No operator key is configured (FUTURES_OPERATOR_PRIVATE_KEY), so the gateway cannot send refunds; credit stays on the account.',
    )
}

/** Store collection of refunds in flight and done (id: the refund id; value: {@link Futures.Refund}). */
export const refunds = 'compute-futures-refunds'

/** Queue whose worker reconciles each refund (item id: the refund id), due once its call should have ended. */
export const refundQueue = 'compute-futures-refunds'

/** How long a refund that signed no transfer belongs to its call, in ms: past it, the worker reverses its hold. */
export const holdTtlMs = 5 * 60_000

/**
 * How long a signed transfer the node does not know is waited for before its hold is reversed, in ms: generous,
 * since a dropped transaction can come back until its nonce is taken (which reverses it at once).
 */
export const missingAfterMs = 30 * 60_000

/** How often the worker asks the chain again about a transfer not mined yet, in ms. */
export const traceEveryMs = 30_000

/** What settling a refund came to: its settled record and its movement (none when nothing was held), or a refusal. */
type Settlement =
  | { ok: true; record: Futures.Refund; entry: LogEntry<Entry> | undefined }
  | { ok: false; reason: string }

/**
 * Settles a refund in flight by `movement`, exactly once: the settler first takes its record (an atomic transition
 * that one caller wins across processes), then moves the hold unless the journal shows this refund's movement
 * already (a settler that stopped after its move), then marks the record settled. A refund that never held credit
 * (its hold was refused) is closed with no movement. A settler is taken over only after {@link claimTtlMs}, far longer
 * than the few store round trips a settlement takes.
 */
async function settle(
  deps: Deps,
  refundId: string,
  decision: { movement: 'refund' | 'reverse'; reason: string },
): Promise<Settlement> {
  const taken = await deps.books.update<Futures.Refund>(refunds, refundId, ({ value }) =>
    Machine.refusing(() =>
      Futures.transition(value, { type: 'settle', ...decision, at: clock(deps), ttlMs: claimTtlMs }),
    ),
  )
  if (!taken.ok) return { ok: false, reason: taken.reason }
  const settling = taken.record.value
  if (settling.state !== 'settling') throw new Error(`Refund ${refundId} was taken, yet it is ${settling.state}.`)
  let hold: LogEntry<Entry> | undefined
  let entry: LogEntry<Entry> | undefined
  for await (const candidate of walk<Entry>(deps.books, journalOf(settling.account)))
    if (candidate.value.job === refundId)
      if (candidate.value.kind === 'hold') hold = candidate
      else entry = candidate
  if (hold && !entry)
    entry = await move(deps, settling.account, settling.movement, () => BigInt(hold.value.amount), {
      job: refundId,
      ...(settling.signed ? { transaction: settling.signed.hash } : {}),
      ...(settling.movement === 'reverse' ? { reason: settling.reason } : {}),
    })
  const done = await deps.books.update<Futures.Refund>(refunds, refundId, ({ value }) =>
    Machine.refusing(() => Futures.transition(value, { type: 'settled', sequence: entry?.sequence })),
  )
  if (!done.ok) throw new Error(`Refund ${refundId} was taken from its settler: ${done.reason}.`)
  return { ok: true, record: done.record.value, entry }
}

/**
 * Sends unused credit back to the account's depositor, never to anyone else. Records the refund first (with the
 * worker's item that reconciles it if this call stops), holds the amount (so two refunds never send the same credit),
 * signs the USDC transfer from the operator's wallet and records it before it is broadcast, then settles: mined,
 * the hold is refunded with the transfer's hash; never sent or reverted, the hold goes back (and the call is not
 * charged). One whose outcome is unknown stays held: the worker reads the chain until it knows, never sending again.
 */
export async function refund(deps: Deps, input: RefundBody & { caller: Address }) {
  assertDepositor(input.depositor, input.caller)
  const { id, account } = await own(deps, input.caller, input.id)
  assertRefundable(deps, account)
  const asked = input.amount === undefined ? undefined : Price.toAtomic(input.amount)
  if (account.solana) return refundOnSolana(deps, { id, solana: account.solana, asked })
  const uuid = crypto.randomUUID()
  const refundId = `refund_${uuid}`
  const to = account.depositor
  const now = clock(deps)
  await deps.books.insert<Futures.Refund>(
    {
      collection: refunds,
      id: refundId,
      owners: [to],
      value: { account: id, to, createdAt: now.toISOString(), state: 'holding' },
      createdAt: now,
    },
    {
      enqueue: [
        { queue: refundQueue, id: refundId, payload: { id: refundId }, dueAt: new Date(now.getTime() + holdTtlMs) },
      ],
    },
  )
  let held: LogEntry<Entry>
  try {
    held = await hold(deps, { id, refundId, asked })
  } catch (error) {
    await settle(deps, refundId, { movement: 'reverse', reason: 'nothing was held' })
    throw error
  }
  const amount = BigInt(held.value.amount)
  const sent = await deps.treasury.send!({
    to,
    amount,
    reference: `0x${uuid.replaceAll('-', '')}`,
    record: async (signed) =>
      (
        await deps.books.update<Futures.Refund>(refunds, refundId, ({ value }) =>
          Machine.refusing(() => Futures.transition(value, { type: 'sign', signed, at: clock(deps) })),
        )
      ).ok,
  })
  if (sent.status === 'unknown')
    throw new UpstreamTimeoutError(
      `The refund transfer ${sent.hash} was sent, but its outcome is not known yet; the amount stays held, is never sent again, and is recorded as refunded once the transfer is mined (or given back if it never is): see compute-futures/history.`,
      { details: { refund: refundId, transaction: sent.hash } },
    )
  const reason =
    sent.status === 'sent'
      ? `the transfer ${sent.hash} was mined`
      : sent.status === 'reverted'
        ? `the transfer ${sent.hash} reverted`
        : sent.reason
  const settled = await settle(deps, refundId, { movement: sent.status === 'sent' ? 'refund' : 'reverse', reason })
  const record = settled.ok ? settled.record : (await deps.books.get<Futures.Refund>(refunds, refundId))?.value
  if (record?.state === 'refunded') {
    const balances =
      settled.ok && settled.entry
        ? Futures.deserialize(settled.entry.value.balances)
        : (await own(deps, input.caller, id)).balances
    return {
      id,
      refund: refundId,
      status: 'sent',
      to,
      amount: usd(amount),
      transaction: record.signed.hash,
      balances: balancesView(balances),
      refundAmount: usdcText(amount),
      refundAmountRaw: amount.toString(),
    }
  }
  throw new UpstreamFailedError(`The refund could not be sent (${reason}); the credit is available again.`, {
    details: { refund: refundId },
  })
}

/** Holds `asked` (by default all the available credit) of account `id` for refund `refundId`. */
function hold(deps: Deps, parameters: { id: string; refundId: string; asked: bigint | undefined }) {
  const { id, refundId, asked } = parameters
  return move(
    deps,
    id,
    'hold',
    (before) => {
      const amount = asked ?? before.available
      if (amount === 0n)
        throw new ConflictError('No available credit to refund.', { details: { available: '0.000000' } })
      return amount
    },
    { job: refundId },
  )
}

/**
 * The refund of an account of Solana deposits, on Solana, to the token account they came from: holds the amount,
 * sends it from the operator's Solana wallet, then records the transfer with its signature. A transfer never sent or
 * failed gives the hold back (and the call is not charged); one whose outcome is unknown keeps it held, so it is
 * never sent twice (no worker reconciles it yet: the operator reads its signature in the history).
 */
async function refundOnSolana(
  deps: Deps,
  parameters: { id: string; solana: NonNullable<AccountRecord['solana']>; asked: bigint | undefined },
) {
  const { id, solana, asked } = parameters
  const refundId = `refund_${crypto.randomUUID()}`
  const amount = BigInt((await hold(deps, { id, refundId, asked })).value.amount)
  const sent = await deps.solana!.send!({ to: solana.tokenAccount, owner: solana.depositor, amount })
  if (sent.status === 'sent') {
    const done = await move(deps, id, 'refund', () => amount, { job: refundId, transaction: sent.hash })
    return {
      id,
      refund: refundId,
      status: 'sent',
      to: solana.depositor,
      amount: usd(amount),
      transaction: sent.hash,
      balances: balancesView(Futures.deserialize(done.value.balances)),
    }
  }
  if (sent.status === 'unknown')
    throw new UpstreamTimeoutError(
      `The refund transfer ${sent.hash} was sent, but its outcome is not known yet; the amount stays held and is never sent again.`,
      { details: { refund: refundId, transaction: sent.hash } },
    )
  const reason = sent.status === 'reverted' ? `the transfer ${sent.hash} failed` : sent.reason
  await move(deps, id, 'reverse', () => amount, {
    job: refundId,
    reason,
    ...(sent.status === 'reverted' ? { transaction: sent.hash } : {}),
  })
  throw new UpstreamFailedError(`The refund could not be sent (${reason}); the credit is available again.`, {
    details: { refund: refundId },
  })
}

/**
 * The worker's step on one refund: settles it when the chain says what became of its transfer, or says when to look
 * again. A refund that signed nothing within {@link holdTtlMs} is reversed (its call stopped, and since only a
 * `holding` refund is ever signed, its transfer never will be); a signed one is refunded once mined, reversed once
 * it reverted or its nonce went to another transaction, or after {@link missingAfterMs} unknown to the node.
 */
export async function reconcile(deps: Deps, refundId: string): Promise<{ done: true } | { retryAt: Date }> {
  const now = clock(deps)
  const later = (ms: number) => ({ retryAt: new Date(now.getTime() + ms) })
  const record = (await deps.books.get<Futures.Refund>(refunds, refundId))?.value
  if (!record || record.state === 'refunded' || record.state === 'reversed') return { done: true }
  let decision: { movement: 'refund' | 'reverse'; reason: string }
  if (record.state === 'holding') {
    const left = Date.parse(record.createdAt) + holdTtlMs - now.getTime()
    if (left > 0) return later(left)
    decision = { movement: 'reverse', reason: 'the refund stopped before its transfer was signed' }
  } else if (record.state === 'signed') {
    const { hash } = record.signed
    const trace = await deps.treasury.trace!(record.signed)
    if (trace.status === 'success') decision = { movement: 'refund', reason: `the transfer ${hash} was mined` }
    else if (trace.status === 'reverted') decision = { movement: 'reverse', reason: `the transfer ${hash} reverted` }
    else if (trace.status === 'replaced')
      decision = { movement: 'reverse', reason: `the transfer ${hash} was replaced: its nonce went to another` }
    else if (trace.status === 'missing' && now.getTime() - Date.parse(record.signedAt) >= missingAfterMs)
      decision = { movement: 'reverse', reason: `the transfer ${hash} is unknown to the node` }
    else return later(traceEveryMs)
  } else decision = { movement: record.movement, reason: record.reason }
  const settled = await settle(deps, refundId, decision)
  return settled.ok ? { done: true } : later(claimTtlMs)
}
