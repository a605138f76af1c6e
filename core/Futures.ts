import { type Address, getAddress, type Hash, type Hex, isAddress, keccak256, stringToBytes } from 'viem'
import * as Codec from './Codec.js'
import { InvalidTransitionError } from './Errors.js'

/**
 * Compute futures: prepaid credit bought with an on-chain USDC deposit and spent on compute jobs at a discount that
 * grows with the credit bought. The credit of one depositor is a double-entry ledger: every movement debits one
 * account and credits another by the same amount, so the operator's USDC always equals what it owes the depositor
 * (available, reserved, being refunded) plus what the depositor spent. This file holds the rules; the gateway keeps
 * the movements in a hash-chained journal of the store, one per futures account.
 */

/** A discount tier: from `minimum` credit bought (in USDC atomic units), `discountBps` off every job. */
export type Tier = {
  /** Name of the tier, as the original gateway names them. */
  name: 'starter' | 'builder' | 'scale' | 'enterprise'
  /** Credit bought from which the tier applies, in USDC atomic units (6 decimals). */
  minimum: bigint
  /** Discount on every job, in basis points of its list price. */
  discountBps: bigint
}

/** The tiers, lowest first: 10 USD and more 5%, 50 USD and more 10%, 200 USD and more 15%. */
export const tiers: readonly Tier[] = [
  { name: 'starter', minimum: 0n, discountBps: 0n },
  { name: 'builder', minimum: 10_000_000n, discountBps: 500n },
  { name: 'scale', minimum: 50_000_000n, discountBps: 1_000n },
  { name: 'enterprise', minimum: 200_000_000n, discountBps: 1_500n },
]

/** The tier of an account that bought `bought` (deposited less refunded, USDC atomic units), and the next one up. */
export function tierOf(bought: bigint): { tier: Tier; next: Tier | undefined } {
  const index = tiers.filter((tier) => bought >= tier.minimum).length - 1
  return { tier: tiers[index]!, next: tiers[index + 1] }
}

/**
 * What a job of list price `price` costs at `discountBps` off: rounded down to the atomic unit (the discount up), as
 * the compute batch discount is, so the depositor never pays above the advertised rate.
 */
export function costOf(parameters: costOf.Parameters): bigint {
  const { price, discountBps } = parameters
  if (price < 0n) throw new RangeError('A price is never negative.')
  return (price * (10_000n - discountBps)) / 10_000n
}

export declare namespace costOf {
  type Parameters = {
    /** List price, in USDC atomic units. */
    price: bigint
    /** Discount, in basis points. */
    discountBps: bigint
  }
}

/**
 * The ledger accounts of one futures account. The depositor's credit is `available` (spendable), `reserved` (held
 * by a running job) or `refunding` (held by a refund being sent): what the operator owes. `usdc` is the USDC the
 * operator holds for it (debit-normal); `revenue` what the depositor spent on jobs.
 */
export type Account = 'usdc' | 'available' | 'reserved' | 'refunding' | 'revenue'

/** What moves credit, and between which accounts (debit first, then credit). */
export const movements = {
  /** A verified on-chain deposit: the operator holds more USDC and owes more credit. */
  deposit: { debit: 'usdc', credit: 'available' },
  /** Credit held for a job before it runs. */
  reserve: { debit: 'available', credit: 'reserved' },
  /** A job failed: its hold goes back. */
  release: { debit: 'reserved', credit: 'available' },
  /** A job succeeded: its hold (the discounted cost) is spent. */
  charge: { debit: 'reserved', credit: 'revenue' },
  /** Credit held for a refund before the USDC is sent. */
  hold: { debit: 'available', credit: 'refunding' },
  /** The refund's USDC transfer is mined: the operator holds less USDC and owes less. */
  refund: { debit: 'refunding', credit: 'usdc' },
  /** The refund's transfer was never made (or reverted): its hold goes back. */
  reverse: { debit: 'refunding', credit: 'available' },
} as const satisfies Record<string, { debit: Account; credit: Account }>

/** A kind of movement. */
export type Kind = keyof typeof movements

/** The state of a futures account after a movement, in USDC atomic units. */
export type Balances = {
  /** Spendable credit. */
  available: bigint
  /** Credit held by running jobs. */
  reserved: bigint
  /** Credit held by refunds being sent. */
  refunding: bigint
  /** Every verified deposit, ever. */
  deposited: bigint
  /** Spent on jobs, ever. */
  spent: bigint
  /** Sent back to the depositor, ever. */
  refunded: bigint
  /** Jobs charged, ever. */
  jobs: number
}

/** An account with no movement yet. */
export const empty: Balances = {
  available: 0n,
  reserved: 0n,
  refunding: 0n,
  deposited: 0n,
  spent: 0n,
  refunded: 0n,
  jobs: 0,
}

/** Credit bought: deposited less refunded, what the tier is chosen by (a refund gives back the tier it bought). */
export function boughtOf(balances: Balances): bigint {
  return balances.deposited - balances.refunded
}

/**
 * The balances after moving `amount` by `kind`. Throws {@link InvalidTransitionError} when the account it debits
 * holds less than `amount` (no balance ever goes negative), or for a non-positive amount.
 */
export function apply(balances: Balances, kind: Kind, amount: bigint): Balances {
  if (amount <= 0n) throw new InvalidTransitionError(`A ${kind} moves a positive amount, not ${amount}.`)
  const { debit } = movements[kind]
  const next = { ...balances }
  const held: Record<'available' | 'reserved' | 'refunding', bigint> = next
  if (debit !== 'usdc') {
    if (held[debit] < amount)
      throw new InvalidTransitionError(
        `Not enough ${debit} credit: ${amount} needed, ${held[debit]} ${debit === 'available' ? 'left' : 'held'}.`,
        { details: { [debit]: held[debit].toString(), required: amount.toString() } },
      )
    held[debit] -= amount
  }
  switch (kind) {
    case 'deposit':
      next.available += amount
      next.deposited += amount
      break
    case 'reserve':
    case 'hold':
      held[movements[kind].credit] += amount
      break
    case 'release':
    case 'reverse':
      next.available += amount
      break
    case 'charge':
      next.spent += amount
      next.jobs += 1
      break
    case 'refund':
      next.refunded += amount
      break
  }
  return next
}

/**
 * The balance of every ledger account, from the totals: debit-normal `usdc` equals the sum of the credit-normal
 * ones, which is what double entry guarantees and what a test checks after every movement.
 */
export function accountsOf(balances: Balances): Record<Account, bigint> {
  return {
    usdc: balances.deposited - balances.refunded,
    available: balances.available,
    reserved: balances.reserved,
    refunding: balances.refunding,
    revenue: balances.spent,
  }
}

/** {@link Balances} as JSON keeps them: amounts as decimal strings. */
export type SerializedBalances = { [key in keyof Balances]: Balances[key] extends bigint ? string : number }

/** How balances are kept: amounts as decimal strings, in this order. */
const balancesCodec = Codec.from<Balances, SerializedBalances>({
  available: 'bigint',
  reserved: 'bigint',
  refunding: 'bigint',
  deposited: 'bigint',
  spent: 'bigint',
  refunded: 'bigint',
  jobs: 'json',
})

/** Balances as JSON. */
export function serialize(balances: Balances): SerializedBalances {
  return balancesCodec.serialize(balances)
}

/** Balances from JSON. */
export function deserialize(balances: SerializedBalances): Balances {
  return balancesCodec.deserialize(balances)
}

/**
 * The id of the futures account of `depositor` on chain `chainId` (an EIP-155 id, or a CAIP-2 Solana network for the
 * account its Solana deposits credit): `cfe_` and 24 hex digits of a hash of both. One account per depositor and
 * chain, so concurrent first deposits never open two. It is a name, not a secret: only the depositor may read, spend
 * or refund it.
 */
export function idOf(parameters: { depositor: Address; chainId: number | SolanaNetwork }): string {
  const digest = keccak256(stringToBytes(`compute-futures:${parameters.chainId}:${parameters.depositor.toLowerCase()}`))
  return `cfe_${digest.slice(2, 26)}`
}

/** Whether `text` has the shape of a futures account id. */
export function isId(text: string): boolean {
  return /^cfe_[0-9a-f]{24}$/.test(text)
}

/** One USDC `Transfer` of a mined transaction. */
export type Transfer = {
  /** Sender. */
  from: Address
  /** Recipient. */
  to: Address
  /** Amount, in atomic units. */
  amount: bigint
  /** Position of the log in its block. */
  logIndex: number
}

/** A mined transaction as a deposit: its status, its confirmations and its USDC transfers to the deposit address. */
export type Receipt = {
  /** Whether it succeeded; a reverted one moved nothing. */
  status: 'success' | 'reverted'
  /** Block it was mined in. */
  blockNumber: bigint
  /** Blocks from it to the latest, itself included (1 when it is in the latest block). */
  confirmations: bigint
  /** Transfers of the settlement USDC to the deposit address, in log order. */
  transfers: readonly Transfer[]
}

/**
 * What became of a USDC transfer the operator's wallet was asked to send; `hash` is its transaction hash (EVM) or
 * signature (Solana).
 */
export type Sent<hash extends string = Hash> =
  | { /** Mined and successful. */ status: 'sent'; hash: hash }
  | { /** Mined and reverted: nothing moved. */ status: 'reverted'; hash: hash }
  | { /** Refused before it was broadcast: nothing moved. */ status: 'not_sent'; reason: string }
  | {
      /** Broadcast, but its outcome is not known (no receipt in time): it may still be mined. */ status: 'unknown'
      hash: hash
      reason: string
    }

/** The operator's side of compute futures on the settlement chain: where deposits go and whence refunds come. */
export type Treasury = {
  /** EIP-155 chain id. */
  chainId: number
  /** The settlement USDC. */
  token: Address
  /** Where depositors send USDC. */
  depositAddress: Address
  /** Reads a transaction as a deposit; `undefined` when it is unknown or not mined yet. */
  receipt: (hash: Hash) => Promise<Receipt | undefined>
  /**
   * Sends USDC from the operator's wallet; absent when no operator key is configured (refunds unavailable).
   * `reference` follows the transfer's arguments in its calldata (ERC-20 ignores it), so that no two refunds ever sign
   * the same transaction, even on the same nonce. `record` persists the signed transfer before it is broadcast; when
   * it answers `false` nothing is broadcast (`not_sent`).
   */
  send?:
    | ((parameters: {
        to: Address
        amount: bigint
        reference: Hex
        record: (signed: Signed) => Promise<boolean>
      }) => Promise<Sent>)
    | undefined
  /** What became of a signed refund transfer, read off the chain; present with `send`. */
  trace?: ((signed: Signed) => Promise<Trace>) | undefined
}

/** A refund transfer the operator's wallet signed, recorded before it is broadcast. */
export type Signed = {
  /** Its transaction hash. */
  hash: Hash
  /** Its nonce in the operator's account. */
  nonce: number
}

/** What the chain says of a signed refund transfer. */
export type Trace =
  | { /** Mined and successful: the USDC moved. */ status: 'success' }
  | { /** Mined and reverted: nothing moved. */ status: 'reverted' }
  | { /** Known to the node, not mined yet. */ status: 'pending' }
  | { /** Not mined, and a mined transaction of the operator took its nonce: it never will be. */ status: 'replaced' }
  | { /** Unknown to the node, its nonce still open: never broadcast, or dropped. */ status: 'missing' }

/**
 * A refund in flight, as its durable record keeps it. `holding`: recorded before its hold, nothing signed;
 * `signed`: its transfer is signed and recorded (and maybe broadcast), so only the chain says what became of it;
 * `settling`: one settler took it to move the hold by `movement`; `refunded` / `reversed`: done.
 */
export type Refund = {
  /** The futures account. */
  account: string
  /** The depositor, the only recipient. */
  to: Address
  /** When the refund started, ISO 8601. */
  createdAt: string
} & (
  | {
      /** Recorded before its hold; nothing signed. */
      state: 'holding'
    }
  | {
      /** Its transfer is signed and recorded, maybe broadcast. */
      state: 'signed'
      /** The transfer. */
      signed: Signed
      /** When it was recorded, ISO 8601. */
      signedAt: string
    }
  | {
      /** One settler took it. */
      state: 'settling'
      /** What the hold becomes. */
      movement: 'refund' | 'reverse'
      /** Why, in one sentence. */
      reason: string
      /** The transfer, once signed. */
      signed?: Signed | undefined
      /** When the settler took it, ISO 8601. */
      since: string
    }
  | {
      /** The transfer is mined and the hold refunded. */
      state: 'refunded'
      /** The transfer. */
      signed: Signed
      /** Journal entry of the `refund` movement. */
      sequence: number
    }
  | {
      /** The hold went back, or nothing was held. */
      state: 'reversed'
      /** Why, in one sentence. */
      reason: string
      /** The transfer, when one was signed. */
      signed?: Signed | undefined
      /** Journal entry of the `reverse` movement; none when nothing was held. */
      sequence?: number | undefined
    }
)

/** What happens to a refund in flight; `at` is the clock's time. */
export type RefundEvent =
  | {
      /** Its transfer was signed and is about to be broadcast. */
      type: 'sign'
      /** The transfer. */
      signed: Signed
      /** Now. */
      at: Date
    }
  | {
      /** A settler takes it to move its hold. */
      type: 'settle'
      /** What the hold becomes. */
      movement: 'refund' | 'reverse'
      /** Why, in one sentence. */
      reason: string
      /** Now. */
      at: Date
      /** How long a settler keeps it before another may take it over, in ms. */
      ttlMs: number
    }
  | {
      /** The settler moved the hold (or found nothing held). */
      type: 'settled'
      /** Journal entry of the movement, if any. */
      sequence: number | undefined
    }

/**
 * The refund after `event`, or {@link InvalidTransitionError}. Only a `holding` refund is signed, so a refund a
 * settler reversed is never broadcast afterwards. A `signed` one settles as the chain says (a `refund` needs its
 * transfer), a `holding` one only by `reverse`; a `settling` one is taken again only after `ttlMs` (its settler
 * stopped), keeping the movement it chose; `settled` ends it.
 */
export function transition(refund: Refund, event: RefundEvent): Refund {
  const { account, to, createdAt } = refund
  const common = { account, to, createdAt }
  switch (event.type) {
    case 'sign':
      if (refund.state !== 'holding') throw new InvalidTransitionError(`A ${refund.state} refund is not signed.`)
      return { ...common, state: 'signed', signed: event.signed, signedAt: event.at.toISOString() }
    case 'settle': {
      const since = event.at.toISOString()
      if (refund.state === 'settling') {
        if (event.at.getTime() - Date.parse(refund.since) < event.ttlMs)
          throw new InvalidTransitionError('Another settler holds this refund.')
        return { ...refund, since }
      }
      if (refund.state === 'holding' && event.movement === 'refund')
        throw new InvalidTransitionError('A refund with no signed transfer is never refunded.')
      if (refund.state !== 'holding' && refund.state !== 'signed')
        throw new InvalidTransitionError(`A ${refund.state} refund is settled already.`)
      const signed = refund.state === 'signed' ? refund.signed : undefined
      return { ...common, state: 'settling', movement: event.movement, reason: event.reason, signed, since }
    }
    case 'settled': {
      if (refund.state !== 'settling') throw new InvalidTransitionError(`A ${refund.state} refund is not settling.`)
      if (refund.movement === 'refund') {
        if (!refund.signed || event.sequence === undefined)
          throw new InvalidTransitionError('A refund is refunded by its signed transfer, with a journal entry.')
        return { ...common, state: 'refunded', signed: refund.signed, sequence: event.sequence }
      }
      return { ...common, state: 'reversed', reason: refund.reason, signed: refund.signed, sequence: event.sequence }
    }
  }
}

/**
 * A deposit's claim: one record per transaction, ever, so that a deposit credits once. `claimed`: a call verified it
 * and is crediting it; `credited`: its journal entry exists.
 */
export type Deposit = {
  /** The futures account it credits. */
  account: string
  /** What it credits, in USDC atomic units (a decimal string). */
  amount: string
  /** When the call crediting it took it, ISO 8601. */
  claimedAt: string
} & (
  | { /** A call is crediting it. */ state: 'claimed' }
  | {
      /** Its credit is in the journal. */
      state: 'credited'
      /** Journal entry of its `deposit` movement. */
      sequence: number
    }
)

/** What happens to a deposit's claim. */
export type DepositEvent =
  | {
      /** A second call for the transaction takes the claim over: the call that claimed it stopped before crediting. */
      type: 'taken'
      /** How long a claim belongs to the call that made it before another may take it over, in ms. */
      ttlMs: number
    }
  | {
      /** Its `deposit` movement is in the journal. */
      type: 'credited'
      /** Journal entry of the movement. */
      sequence: number
    }

/**
 * The claim after `event` (`Machine.Transition`), or {@link InvalidTransitionError} with `details.reason`: a credited
 * claim takes nothing (`credited`), and a claimed one is taken over only after `ttlMs` (`in_progress`: the call that
 * made it may still be crediting it).
 */
export function depositTransition(deposit: Deposit, event: DepositEvent, now: Date): Deposit {
  const { account, amount } = deposit
  if (deposit.state === 'credited')
    throw new InvalidTransitionError('The deposit was credited already.', { details: { reason: 'credited' } })
  switch (event.type) {
    case 'taken':
      if (now.getTime() - Date.parse(deposit.claimedAt) < event.ttlMs)
        throw new InvalidTransitionError('Another call is crediting the deposit.', {
          details: { reason: 'in_progress' },
        })
      return { account, amount, state: 'claimed', claimedAt: now.toISOString() }
    case 'credited':
      return { ...deposit, state: 'credited', sequence: event.sequence }
  }
}

/** A CAIP-2 Solana network: `solana:` and the first 32 characters of its genesis hash. */
export type SolanaNetwork = `solana:${string}`

/** SPL Memo programs (v2, and v1 which older wallets still use): a memo instruction's data is its UTF-8 text. */
export const memoPrograms = [
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]

/** What a Solana deposit's memo starts with; the EVM address that pays the deposit call follows. */
export const memoPrefix = 'compute-futures:'

/** How final a Solana transaction is, least first. */
export const commitments = ['processed', 'confirmed', 'finalized'] as const

/** How final a Solana transaction is. */
export type Commitment = (typeof commitments)[number]

/** A Solana transaction as the node tells it, reduced to what a deposit is judged by. */
export type SolanaTransaction = {
  /** Whether it succeeded; a failed one moved nothing but its fee. */
  status: 'success' | 'failed'
  /** How final it is. */
  commitment: Commitment
  /** Accounts that signed it, base58. */
  signers: readonly string[]
  /** Texts of its top-level SPL Memo instructions, in order. */
  memos: readonly string[]
  /**
   * Every token account of the deposit mint whose balance it changed (from the node's pre and post token balances,
   * so transfers made by inner instructions count): the account, its owner, and post less pre, in atomic units.
   */
  changes: readonly { tokenAccount: string; owner: string; change: bigint }[]
}

/**
 * Judges a Solana transaction as a deposit into `depositTokenAccount`, from its net token balance changes rather
 * than its instructions (a `transfer`, a `transferChecked` or one a program made for the sender all move balances
 * alike). A deposit succeeded; raised the deposit account's balance; took that USDC from one token account only, whose
 * owner signed (so a delegate, a program's vault or a mint cannot fund it); and carries one SPL Memo
 * `compute-futures:<EVM address>`, signed with the rest by that owner: the owner's statement of which EVM wallet the
 * credit belongs to. The caller checks the address against the paying wallet, and the commitment.
 */
export function solanaDepositOf(parameters: solanaDepositOf.Parameters): solanaDepositOf.ReturnType {
  const { transaction, depositTokenAccount } = parameters
  if (transaction.status !== 'success') return { ok: false, reason: 'failed' }
  const amount = transaction.changes
    .filter((change) => change.tokenAccount === depositTokenAccount)
    .reduce((sum, change) => sum + change.change, 0n)
  if (amount <= 0n) return { ok: false, reason: 'no_transfer' }
  const sources = transaction.changes.filter((change) => change.change < 0n)
  if (sources.length > 1) return { ok: false, reason: 'several_sources' }
  const source = sources[0]
  if (!source || -source.change < amount || !transaction.signers.includes(source.owner))
    return { ok: false, reason: 'unsigned_source' }
  const named = new Set(
    transaction.memos
      .map((memo) => memo.trim())
      .filter((memo) => memo.startsWith(memoPrefix))
      .map((memo) => memo.slice(memoPrefix.length).trim())
      .filter((text) => isAddress(text))
      .map((text) => getAddress(text)),
  )
  if (named.size === 0) return { ok: false, reason: 'no_memo' }
  if (named.size > 1) return { ok: false, reason: 'several_memos' }
  return {
    ok: true,
    amount,
    payer: [...named][0]!,
    depositor: source.owner,
    tokenAccount: source.tokenAccount,
  }
}

export declare namespace solanaDepositOf {
  type Parameters = {
    /** The transaction. */
    transaction: SolanaTransaction
    /** The operator's deposit token account, base58. */
    depositTokenAccount: string
  }
  type ReturnType =
    | {
        /** A deposit. */
        ok: true
        /** USDC the deposit account received, in atomic units. */
        amount: bigint
        /** The EVM wallet its memo names: the only payer that may credit it. */
        payer: Address
        /** Owner of the token account it came from, a signer: the only one refunds go to. */
        depositor: string
        /** The token account it came from. */
        tokenAccount: string
      }
    | {
        /** Not a deposit. */
        ok: false
        /**
         * `failed`: the transaction failed; `no_transfer`: nothing arrived in the deposit account (another mint or
         * destination); `several_sources`: USDC left more than one token account; `unsigned_source`: it left an
         * account whose owner did not sign, or came from no account at all; `no_memo`: no memo names an EVM address;
         * `several_memos`: memos name different addresses.
         */
        reason: 'failed' | 'no_transfer' | 'several_sources' | 'unsigned_source' | 'no_memo' | 'several_memos'
      }
}

/**
 * The operator's side of compute futures on Solana: the token account deposits go to, and the operator's key that
 * sends refunds from its own token account of the same mint.
 */
export type SolanaTreasury = {
  /** The deposit mint (USDC), base58. */
  mint: string
  /** Owner of the deposit token account: the address depositors send USDC to. */
  depositAddress: string
  /** The associated token account of `depositAddress` for `mint`: the one a deposit must credit. */
  depositTokenAccount: string
  /** The node's network, read once. */
  network: () => Promise<SolanaNetwork>
  /** Reads a transaction (`confirmed` or better); `undefined` when the node does not know it. */
  transaction: (signature: string) => Promise<SolanaTransaction | undefined>
  /**
   * Sends `amount` of `mint` from the operator's token account to the token account `to`, which must still be of
   * `mint` and owned by `owner` (else nothing is sent); absent without an operator key (refunds unavailable).
   */
  send?: ((parameters: { to: string; owner: string; amount: bigint }) => Promise<Sent<string>>) | undefined
}
