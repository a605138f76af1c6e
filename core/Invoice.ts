import { type Address, encodeFunctionData, erc20Abi, type Hash, type Hex, maxUint256, zeroAddress } from 'viem'
import * as Codec from './Codec.js'
import { InvalidTransitionError, ValidationError } from './Errors.js'

/**
 * Invoices paid by a plain ERC-20 transfer, detected on chain.
 *
 * Lifecycle:
 *
 * ```
 * open --payment_observed--> paid      a transfer of exactly `amount` of `token` to `recipient`, mined after
 *  |                                   `createdAtBlock` and no later than `dueDate`, that pays no other invoice
 *  +----------expire-------> expired   `dueDate` has passed and no such transfer was found
 * open --scanned--> open               payment detection searched through a block and found nothing usable
 * ```
 *
 * `paid` and `expired` are final. There is no `cancelled` state: no operation of the interface cancels an
 * invoice. A transfer pays at most one invoice; two identical invoices need two transfers, taken in chain order
 * (the store records which invoice claimed which transfer).
 */

/** Most characters (Unicode code points) of a memo. */
export const maxMemoLength = 280

/** Most characters of a reference, the creator's own identifier. */
export const maxReferenceLength = 64

/** A token invoices may be paid in. */
export type Token = {
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** Checksummed ERC-20 contract. */
  address: Address
  /** Base units per whole token as a power of ten, e.g. 6 for USDC. */
  decimals: number
}

/** The unsigned transaction that pays an invoice: `token.transfer(recipient, amount)`. */
export type Transaction = {
  /** The token contract. */
  to: Address
  /** `transfer(recipient, amount)` calldata. */
  data: Hex
  /** Native value, in wei; always `'0'`. */
  value: '0'
  /** Chain the transaction must be sent on. */
  chainId: number
}

/** The transfer that paid an invoice. */
export type Payment = {
  /** Hash of the paying transaction. */
  txHash: Hash
  /** Checksummed sender of the tokens (anyone may pay). */
  from: Address
  /** Block the transfer was mined in. */
  blockNumber: bigint
  /** Position of the Transfer event in its block. */
  logIndex: number
  /** Timestamp of that block. */
  paidAt: Date
}

/** What every invoice has, whatever its status. */
export type Fields = {
  /** Identifier, unique in the store. */
  id: string
  /** Checksummed address that created it (the verified caller). */
  creator: Address
  /** Checksummed address that receives the payment. */
  recipient: Address
  /** Checksummed address the invoice is addressed to, expected to pay it (anyone may); none for an open invoice. */
  payer: Address | undefined
  /** Token to pay in. */
  token: Token
  /** Amount due, in the token's atomic units. */
  amount: bigint
  /** Free text for the payer, at most {@link maxMemoLength} characters. */
  memo: string | undefined
  /** The creator's own identifier, at most {@link maxReferenceLength} characters. */
  reference: string | undefined
  /** Payments mined after this instant do not count; without it the invoice never expires. */
  dueDate: Date | undefined
  /** Chain the invoice is paid on. */
  chainId: number
  /** The unsigned transaction that pays it. */
  transaction: Transaction
  /** When it was created. */
  createdAt: Date
  /** Latest block when it was created; only transfers in later blocks pay it. */
  createdAtBlock: bigint
}

/** Waiting for payment. */
export type Open = Fields & {
  /** `open` */
  status: 'open'
  /** Every block up to this one has been searched for a payment. */
  scannedThroughBlock: bigint
}

/** Paid by an on-chain transfer. Final. */
export type Paid = Fields & {
  /** `paid` */
  status: 'paid'
  /** The transfer that paid it. */
  payment: Payment
  /** When the gateway observed the payment. */
  observedAt: Date
}

/** The due date passed without payment. Final. */
export type Expired = Fields & {
  /** `expired` */
  status: 'expired'
  /** When the gateway found it expired. */
  expiredAt: Date
}

/** An invoice in any status. */
export type Invoice = Open | Paid | Expired

/** Every status. */
export type Status = Invoice['status']

/** What moves an invoice from one status to the next. */
export type Event =
  | {
      /** Detection searched through `throughBlock` and found no usable payment. */ type: 'scanned'
      throughBlock: bigint
    }
  | { /** A transfer that pays the invoice was found and claimed for it. */ type: 'payment_observed'; payment: Payment }
  | { /** The due date has passed and no payment was found. */ type: 'expire' }

/**
 * A new open invoice with the transaction that pays it. Throws {@link ValidationError} (naming the field) when the
 * amount is 0 or above a uint256, the recipient is the zero address, the memo or reference is too long, or the due
 * date is not after `createdAt`.
 */
export function from(parameters: from.Parameters): Open {
  const {
    id,
    creator,
    recipient = creator,
    payer,
    token,
    amount,
    memo,
    reference,
    dueDate,
    chainId,
    createdAt,
    createdAtBlock,
  } = parameters
  if (amount <= 0n) throw new ValidationError({ field: 'amount', message: 'must be greater than 0' })
  if (amount > maxUint256) throw new ValidationError({ field: 'amount', message: 'exceeds a uint256' })
  // ERC-20 transfers to the zero address revert, so such an invoice could never be paid.
  if (recipient === zeroAddress) throw new ValidationError({ field: 'recipient', message: 'is the zero address' })
  if (memo !== undefined && [...memo].length > maxMemoLength)
    throw new ValidationError({
      field: 'memo',
      message: `has ${[...memo].length} characters; at most ${maxMemoLength}`,
    })
  if (reference !== undefined && (reference.length === 0 || [...reference].length > maxReferenceLength))
    throw new ValidationError({ field: 'reference', message: `must have 1 to ${maxReferenceLength} characters` })
  if (dueDate !== undefined && dueDate.getTime() <= createdAt.getTime())
    throw new ValidationError({
      field: 'dueDate',
      message: `must be in the future (now is ${createdAt.toISOString()})`,
    })
  return {
    status: 'open',
    id,
    creator,
    recipient,
    payer,
    token,
    amount,
    memo,
    reference,
    dueDate,
    chainId,
    transaction: {
      to: token.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] }),
      value: '0',
      chainId,
    },
    createdAt,
    createdAtBlock,
    scannedThroughBlock: createdAtBlock,
  }
}

export declare namespace from {
  type Parameters = {
    /** Identifier, unique in the store. */
    id: string
    /** Checksummed creator (the verified caller). */
    creator: Address
    /** Checksummed recipient. @default creator */
    recipient?: Address | undefined
    /** Checksummed address expected to pay; none for an open invoice. */
    payer?: Address | undefined
    /** Token to pay in. */
    token: Token
    /** Amount due, in the token's atomic units. */
    amount: bigint
    /** Free text for the payer. */
    memo?: string | undefined
    /** The creator's own identifier. */
    reference?: string | undefined
    /** Deadline for payment; must be after `createdAt`. */
    dueDate?: Date | undefined
    /** Chain the invoice is paid on. */
    chainId: number
    /** Creation time. */
    createdAt: Date
    /** Latest block at creation. */
    createdAtBlock: bigint
  }
}

/**
 * Whether a mined transfer of the right token, recipient and amount can pay the invoice: it is mined after
 * `createdAtBlock` and, when there is a due date, no later than it. Whether another invoice claimed it is the
 * store's concern.
 */
export function canPay(invoice: Fields, transfer: { blockNumber: bigint; paidAt: Date }): boolean {
  if (transfer.blockNumber <= invoice.createdAtBlock) return false
  return invoice.dueDate === undefined || transfer.paidAt.getTime() <= invoice.dueDate.getTime()
}

/** Whether the due date has passed at `now`; never for an invoice without one. */
export function isPastDue(invoice: Fields, now: Date): boolean {
  return invoice.dueDate !== undefined && now.getTime() > invoice.dueDate.getTime()
}

/**
 * The next state of an invoice, in the shape of every state machine (`Machine.Transition`). Pure: store
 * implementations may retry it. Throws {@link InvalidTransitionError} for an event that does not apply: anything on
 * a final invoice, a payment {@link canPay} refuses, or `expire` before the due date.
 */
export function transition(invoice: Invoice, event: Event, now: Date): Invoice {
  if (invoice.status !== 'open')
    throw new InvalidTransitionError(`An invoice in status ${invoice.status} cannot take event ${event.type}.`)
  const fields = fieldsOf(invoice)
  switch (event.type) {
    case 'scanned': {
      const { throughBlock } = event
      return {
        ...invoice,
        scannedThroughBlock: throughBlock > invoice.scannedThroughBlock ? throughBlock : invoice.scannedThroughBlock,
      }
    }
    case 'payment_observed': {
      const { payment } = event
      if (!canPay(invoice, payment))
        throw new InvalidTransitionError(
          `Transfer ${payment.txHash}:${payment.logIndex} cannot pay invoice ${invoice.id}: ` +
            `it is mined at or before block ${invoice.createdAtBlock} or after the due date.`,
        )
      return { ...fields, status: 'paid', payment, observedAt: now }
    }
    case 'expire':
      if (!isPastDue(invoice, now))
        throw new InvalidTransitionError(`Invoice ${invoice.id} is not past its due date at ${now.toISOString()}.`)
      return { ...fields, status: 'expired', expiredAt: now }
  }
}

/** An invoice as JSON: bigints as decimal strings, dates as ISO 8601, absent optional fields as `null`. */
export type Serialized = Serialized.Fields &
  (
    | {
        /** `open` */
        status: 'open'
        /** Block number, decimal. */
        scannedThroughBlock: string
      }
    | {
        /** `paid` */
        status: 'paid'
        /** The transfer that paid it. */
        payment: Serialized.Payment
        /** ISO 8601. */
        observedAt: string
      }
    | {
        /** `expired` */
        status: 'expired'
        /** ISO 8601. */
        expiredAt: string
      }
  )

export declare namespace Serialized {
  /** {@link Invoice.Fields} as JSON. */
  type Fields = {
    /** Identifier. */
    id: string
    /** Checksummed creator. */
    creator: Address
    /** Checksummed recipient. */
    recipient: Address
    /** Checksummed address expected to pay; null for an open invoice. */
    payer: Address | null
    /** Token to pay in. */
    token: Token
    /** Atomic units, decimal. */
    amount: string
    /** Free text for the payer. */
    memo: string | null
    /** The creator's own identifier. */
    reference: string | null
    /** ISO 8601. */
    dueDate: string | null
    /** Chain the invoice is paid on. */
    chainId: number
    /** The unsigned transaction that pays it. */
    transaction: Transaction
    /** ISO 8601. */
    createdAt: string
    /** Block number, decimal. */
    createdAtBlock: string
  }
  /** {@link Invoice.Payment} as JSON. */
  type Payment = {
    /** Hash of the paying transaction. */
    txHash: Hash
    /** Checksummed sender of the tokens. */
    from: Address
    /** Block number, decimal. */
    blockNumber: string
    /** Position of the Transfer event in its block. */
    logIndex: number
    /** Block timestamp, ISO 8601. */
    paidAt: string
  }
}

/** How an invoice is kept: every field in the order of {@link Serialized}, those it may lack as `null`. */
const codec = Codec.from<Invoice, Serialized>({
  id: 'json',
  creator: 'json',
  recipient: 'json',
  // Records stored before invoices named a payer have none: they are open.
  payer: Codec.nullable('json'),
  token: 'json',
  amount: 'bigint',
  memo: Codec.nullable('json'),
  reference: Codec.nullable('json'),
  dueDate: Codec.nullable('date'),
  chainId: 'json',
  transaction: 'json',
  createdAt: 'date',
  createdAtBlock: 'bigint',
  status: 'json',
  scannedThroughBlock: 'bigint',
  payment: { txHash: 'json', from: 'json', blockNumber: 'bigint', logIndex: 'json', paidAt: 'date' },
  observedAt: 'date',
  expiredAt: 'date',
})

/** Turns an invoice into JSON-safe values, for the store and for responses. */
export function serialize(invoice: Invoice): Serialized {
  return codec.serialize(invoice)
}

/** Reads an invoice back from {@link serialize}'s form. */
export function deserialize(value: Serialized): Invoice {
  return codec.deserialize(value)
}

/** The fields of an invoice without its status and what the status carries. */
function fieldsOf(invoice: Invoice): Fields {
  const {
    id,
    creator,
    recipient,
    payer,
    token,
    amount,
    memo,
    reference,
    dueDate,
    chainId,
    transaction,
    createdAt,
    createdAtBlock,
  } = invoice
  return {
    id,
    creator,
    recipient,
    payer,
    token,
    amount,
    memo,
    reference,
    dueDate,
    chainId,
    transaction,
    createdAt,
    createdAtBlock,
  }
}
