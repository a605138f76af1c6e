import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  isAddressEqual,
  maxUint256,
  parseAbi,
  zeroAddress,
} from 'viem'
import * as Codec from './Codec.js'
import { ConflictError, InvalidTransitionError, ValidationError } from './Errors.js'
import type { Deposit } from './EscrowChain.js'

/**
 * ERC-20 escrows held by the project's escrow contract (`adapters/chain/contracts/Escrow.sol`), as the gateway
 * records them.
 *
 * Lifecycle:
 *
 * ```
 * created --funded--> active --released--> released    the contract paid the beneficiary
 *                           \--cancelled--> cancelled   the contract refunded the depositor
 * ```
 *
 * `created` is the gateway's record before anything is on chain; `funded` is applied once the deposit is read
 * back from the contract and matches the record; `released` and `cancelled` once the contract says so.
 * `released` and `cancelled` are final. The order holds: nothing is released or cancelled before it is funded.
 */

/**
 * The functions, events and errors of `Escrow.sol` the gateway uses. Must match the compiled contract; a test
 * compares it with the committed artifact.
 */
export const abi = parseAbi([
  'struct Record { address depositor; uint64 expiry; uint8 status; address beneficiary; address arbiter; address token; uint256 amount; }',
  'function escrows(bytes32 id) view returns (Record)',
  'function deposit(bytes32 id, address token, uint256 amount, address beneficiary, address arbiter, uint64 expiry)',
  'function release(bytes32 id)',
  'function cancel(bytes32 id)',
  'event Deposited(bytes32 indexed id, address indexed depositor, address indexed beneficiary, address arbiter, address token, uint256 amount, uint64 expiry)',
  'event Released(bytes32 indexed id, address indexed by, address indexed beneficiary, uint256 amount)',
  'event Cancelled(bytes32 indexed id, address indexed by, address indexed depositor, uint256 amount)',
  'error EscrowExists(bytes32 id)',
  'error EscrowNotActive(bytes32 id, uint8 status)',
  'error NotAllowed(bytes32 id, address caller)',
  'error ZeroAmount()',
  'error ZeroAddress()',
  'error ExpiryInPast(uint64 expiry)',
  'error TokenCallFailed(address token)',
  'error AmountNotReceived(uint256 expected, uint256 received)',
])

/** The contract's `Status` enum by value; must match the order in `Escrow.sol`. */
export const contractStatuses = ['none', 'active', 'released', 'cancelled'] as const

/** Most characters (Unicode code points) of an escrow's description. */
export const maxDescriptionLength = 1000

/** Most conditions an escrow may list. */
export const maxConditions = 20

/** Most characters (Unicode code points) of one condition. */
export const maxConditionLength = 500

/** A token an escrow may hold. */
export type Token = {
  /** Symbol, e.g. `USDC`. */
  symbol: string
  /** Checksummed ERC-20 contract. */
  address: Address
  /** Base units per whole token as a power of ten, e.g. 6 for USDC. */
  decimals: number
}

/** An unsigned transaction the caller signs and sends. */
export type Transaction = {
  /** The contract called. */
  to: Address
  /** Calldata. */
  data: Hex
  /** Native value, in wei; always `'0'`. */
  value: '0'
  /** Chain the transaction must be sent on. */
  chainId: number
}

/** What the contract lets a caller do to an active escrow. */
export type Action = 'release' | 'cancel'

/** What every escrow has, whatever its status. */
export type Fields = {
  /** bytes32 id, lowercase hex: the key in the store and in the contract. */
  id: Hex
  /** Chain the escrow contract lives on. */
  chainId: number
  /** Checksummed escrow contract. */
  contract: Address
  /** Checksummed address that deposits and is refunded on cancel (the verified caller who created it). */
  depositor: Address
  /** Checksummed address paid on release. */
  beneficiary: Address
  /** Checksummed address that may release or cancel besides the depositor; none when undefined. */
  arbiter: Address | undefined
  /** Token held. */
  token: Token
  /** Amount held, in the token's atomic units. */
  amount: bigint
  /** Whole second from which anyone may cancel; never when undefined. */
  expiry: Date | undefined
  /** Free text saying what the escrow is for, kept by the gateway only (not on chain). */
  description: string | undefined
  /** What must happen before release, as the parties agreed, kept by the gateway only (not on chain). */
  conditions: readonly string[]
  /** When the gateway recorded it. */
  createdAt: Date
}

/** Recorded by the gateway; nothing on chain yet. */
export type Created = Fields & {
  /** `created` */
  status: 'created'
}

/** The deposit was read back from the contract and matches the record. */
export type Active = Fields & {
  /** `active` */
  status: 'active'
  /** When the gateway verified the deposit. */
  fundedAt: Date
}

/** The contract paid the beneficiary. Final. */
export type Released = Fields & {
  /** `released` */
  status: 'released'
  /** When the gateway verified the deposit. */
  fundedAt: Date
  /** When the gateway saw the release on chain. */
  settledAt: Date
}

/** The contract refunded the depositor. Final. */
export type Cancelled = Fields & {
  /** `cancelled` */
  status: 'cancelled'
  /** When the gateway verified the deposit. */
  fundedAt: Date
  /** When the gateway saw the cancellation on chain. */
  settledAt: Date
}

/** An escrow in any status. */
export type Escrow = Created | Active | Released | Cancelled

/** Every status. */
export type Status = Escrow['status']

/** What moves an escrow from one status to the next. */
export type Event =
  | { /** The deposit is on chain and matches the record. */ type: 'funded' }
  | { /** The contract paid the beneficiary. */ type: 'released' }
  | { /** The contract refunded the depositor. */ type: 'cancelled' }

/**
 * A new escrow in status `created`. Throws {@link ValidationError} (naming the field) for anything the contract's
 * `deposit` would refuse: an id that is not bytes32, an amount of 0 or above a uint256, a zero beneficiary or
 * token, or an expiry that is not after `createdAt` (any valid Date fits the contract's uint64 of seconds); and for a
 * description or conditions beyond their bounds. The expiry is cut to whole seconds.
 */
export function from(parameters: from.Parameters): Created {
  const { id, chainId, contract, depositor, beneficiary, arbiter, token, amount, expiry, createdAt } = parameters
  const { description, conditions = [] } = parameters
  if (!/^0x[0-9a-f]{64}$/.test(id))
    throw new ValidationError({ field: 'id', message: 'must be 32 bytes of lowercase hex' })
  if (amount <= 0n) throw new ValidationError({ field: 'amount', message: 'must be greater than 0' })
  if (amount > maxUint256) throw new ValidationError({ field: 'amount', message: 'exceeds a uint256' })
  if (isAddressEqual(beneficiary, zeroAddress))
    throw new ValidationError({ field: 'beneficiary', message: 'is the zero address' })
  if (isAddressEqual(token.address, zeroAddress))
    throw new ValidationError({ field: 'token', message: 'is the zero address' })
  // The contract stores no arbiter as the zero address; naming it would only hide that there is none.
  if (arbiter !== undefined && isAddressEqual(arbiter, zeroAddress))
    throw new ValidationError({ field: 'arbiter', message: 'is the zero address; omit it for no arbiter' })
  const expirySeconds = expiry === undefined ? undefined : BigInt(Math.floor(expiry.getTime() / 1000))
  if (expirySeconds !== undefined && expirySeconds <= toSeconds(createdAt))
    throw new ValidationError({ field: 'expiry', message: `must be in the future (now is ${createdAt.toISOString()})` })
  if (description !== undefined && [...description].length > maxDescriptionLength)
    throw new ValidationError({ field: 'description', message: `has more than ${maxDescriptionLength} characters` })
  if (conditions.length > maxConditions)
    throw new ValidationError({ field: 'conditions', message: `lists more than ${maxConditions} conditions` })
  conditions.forEach((condition, index) => {
    if (condition.length === 0 || [...condition].length > maxConditionLength)
      throw new ValidationError({
        field: `conditions.${index}`,
        message: `must have 1 to ${maxConditionLength} characters`,
      })
  })
  return {
    status: 'created',
    id,
    chainId,
    contract,
    depositor,
    beneficiary,
    arbiter,
    token,
    amount,
    expiry: expirySeconds === undefined ? undefined : new Date(Number(expirySeconds) * 1000),
    description,
    conditions: [...conditions],
    createdAt,
  }
}

export declare namespace from {
  type Parameters = {
    /** bytes32 id, lowercase hex, unused so far. */
    id: Hex
    /** Chain the escrow contract lives on. */
    chainId: number
    /** Checksummed escrow contract. */
    contract: Address
    /** Checksummed depositor (the verified caller). */
    depositor: Address
    /** Checksummed beneficiary. */
    beneficiary: Address
    /** Checksummed arbiter; none when undefined. */
    arbiter?: Address | undefined
    /** Token to hold. */
    token: Token
    /** Amount, in the token's atomic units. */
    amount: bigint
    /** From when anyone may cancel; never when undefined. */
    expiry?: Date | undefined
    /** What the escrow is for, at most {@link maxDescriptionLength} characters. */
    description?: string | undefined
    /** What must happen before release, at most {@link maxConditions} of 1 to {@link maxConditionLength} characters. @default [] */
    conditions?: readonly string[] | undefined
    /** Creation time. */
    createdAt: Date
  }
}

/**
 * The next state of an escrow, in the shape of every state machine (`Machine.Transition`). Pure: store
 * implementations may retry it. Throws {@link InvalidTransitionError} when the event breaks the order: release or
 * cancel before funding, funding twice, anything after settlement; `details.reason` says which (`not_funded`,
 * `already_funded`, `settled`).
 */
export function transition(escrow: Escrow, event: Event, now: Date): Escrow {
  // `escrowStatus`, not `status`: details become members of the problem document, where `status` is the HTTP status.
  const details = { escrowId: escrow.id, escrowStatus: escrow.status, event: event.type }
  const invalid = (reason: 'not_funded' | 'already_funded' | 'settled', message: string) =>
    new InvalidTransitionError(message, { details: { ...details, reason } })
  if (escrow.status === 'released' || escrow.status === 'cancelled')
    throw invalid('settled', `Escrow ${escrow.id} is already ${escrow.status}.`)
  switch (event.type) {
    case 'funded':
      if (escrow.status !== 'created') throw invalid('already_funded', `Escrow ${escrow.id} is already funded.`)
      return { ...fieldsOf(escrow), status: 'active', fundedAt: now }
    case 'released':
    case 'cancelled':
      if (escrow.status !== 'active')
        throw invalid(
          'not_funded',
          `Escrow ${escrow.id} is not funded yet; it must be funded before it can be ${event.type}.`,
        )
      return { ...fieldsOf(escrow), status: event.type, fundedAt: escrow.fundedAt, settledAt: now }
  }
}

/**
 * Whether `caller` may send `action` for `escrow` at `now`: the depositor or the arbiter may release and cancel;
 * once the expiry is reached anyone may cancel. Must match `release` and `cancel` of `Escrow.sol`
 * (`block.timestamp >= expiry`).
 */
export function isAllowed(parameters: isAllowed.Parameters): boolean {
  const { escrow, action, caller, now } = parameters
  if (isAddressEqual(caller, escrow.depositor)) return true
  if (escrow.arbiter !== undefined && isAddressEqual(caller, escrow.arbiter)) return true
  return action === 'cancel' && isExpired(escrow, now)
}

export declare namespace isAllowed {
  type Parameters = {
    /** The escrow. */
    escrow: Fields
    /** What the caller wants to send. */
    action: Action
    /** Who would send the transaction. */
    caller: Address
    /** The time the chain is assumed to have. */
    now: Date
  }
}

/** Whether the expiry is reached at `now`; never for an escrow without one. */
export function isExpired(escrow: Fields, now: Date): boolean {
  return escrow.expiry !== undefined && toSeconds(now) >= toSeconds(escrow.expiry)
}

/** The record fields that differ from the contract's, in the order the contract's `deposit` takes them. */
export type Field = 'depositor' | 'token' | 'amount' | 'beneficiary' | 'arbiter' | 'expiry'

/**
 * Compares the record with what the contract holds under its id: `not_deposited` when nothing, `mismatch` (with
 * the differing fields) when someone deposited other terms under the id.
 */
export function verify(escrow: Fields, deposit: Deposit | undefined): verify.ReturnType {
  if (deposit === undefined) return { ok: false, reason: 'not_deposited' }
  const sameAddress = (a: Address | undefined, b: Address | undefined) =>
    isAddressEqual(a ?? zeroAddress, b ?? zeroAddress)
  const fields: Field[] = []
  if (!sameAddress(escrow.depositor, deposit.depositor)) fields.push('depositor')
  if (!sameAddress(escrow.token.address, deposit.token)) fields.push('token')
  if (escrow.amount !== deposit.amount) fields.push('amount')
  if (!sameAddress(escrow.beneficiary, deposit.beneficiary)) fields.push('beneficiary')
  if (!sameAddress(escrow.arbiter, deposit.arbiter)) fields.push('arbiter')
  if ((escrow.expiry === undefined ? 0n : toSeconds(escrow.expiry)) !== (deposit.expiry ?? 0n)) fields.push('expiry')
  if (fields.length > 0) return { ok: false, reason: 'mismatch', fields }
  return { ok: true, status: deposit.status }
}

export declare namespace verify {
  type ReturnType =
    | {
        /** The deposit matches. */
        ok: true
        /** Its on-chain status. */
        status: Deposit['status']
      }
    | { /** Nothing is deposited under the id. */ ok: false; reason: 'not_deposited' }
    | {
        /** Other terms are deposited under the id. */ ok: false
        reason: 'mismatch'
        /** The differing fields. */
        fields: Field[]
      }
}

/**
 * The escrow brought in line with its deposit on chain: `funded` when it is still `created`, then `released` or
 * `cancelled` when the contract says so; unchanged when already in line. Pure, so it may run inside a store
 * update. Throws {@link ConflictError} when the deposit is missing or does not match (see {@link verify}).
 */
export function reconcile(escrow: Escrow, deposit: Deposit | undefined, now: Date): Escrow {
  const verified = verify(escrow, deposit)
  if (!verified.ok) {
    if (verified.reason === 'not_deposited')
      throw new ConflictError(
        `Escrow ${escrow.id} is not deposited on chain yet; send the approve and deposit transactions first.`,
        {
          details: { escrowId: escrow.id, reason: 'not_deposited' },
        },
      )
    throw new ConflictError(
      `The deposit on chain under escrow ${escrow.id} does not match the escrow's terms (${verified.fields.join(', ')}).`,
      { details: { escrowId: escrow.id, reason: 'mismatch', fields: verified.fields } },
    )
  }
  let next = escrow
  if (next.status === 'created') next = transition(next, { type: 'funded' }, now)
  if (next.status === 'active' && verified.status !== 'active') next = transition(next, { type: verified.status }, now)
  return next
}

/** `token.approve(spender, amount)` calldata: lets the escrow contract take the deposit. */
export function approve(parameters: approve.Parameters): Hex {
  const { spender, amount } = parameters
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] })
}

export declare namespace approve {
  type Parameters = {
    /** The escrow contract. */
    spender: Address
    /** Allowance, in the token's atomic units. */
    amount: bigint
  }
}

/** `deposit(id, token, amount, beneficiary, arbiter, expiry)` calldata for the escrow's terms. */
export function deposit(escrow: Pick<Fields, 'id' | 'token' | 'amount' | 'beneficiary' | 'arbiter' | 'expiry'>): Hex {
  const { id, token, amount, beneficiary, arbiter = zeroAddress, expiry } = escrow
  return encodeFunctionData({
    abi,
    functionName: 'deposit',
    args: [id, token.address, amount, beneficiary, arbiter, expiry === undefined ? 0n : toSeconds(expiry)],
  })
}

/** `release(id)` calldata. */
export function release(parameters: { /** bytes32 escrow id. */ id: Hex }): Hex {
  return encodeFunctionData({ abi, functionName: 'release', args: [parameters.id] })
}

/** `cancel(id)` calldata. */
export function cancel(parameters: { /** bytes32 escrow id. */ id: Hex }): Hex {
  return encodeFunctionData({ abi, functionName: 'cancel', args: [parameters.id] })
}

/** The two transactions the depositor sends, in order, to fund the escrow: approve, then deposit. */
export function toFundingTransactions(escrow: Fields): { approve: Transaction; deposit: Transaction } {
  const { chainId, contract, token, amount } = escrow
  return {
    approve: { to: token.address, data: approve({ spender: contract, amount }), value: '0', chainId },
    deposit: { to: contract, data: deposit(escrow), value: '0', chainId },
  }
}

/** The transaction that releases or cancels the escrow. */
export function toSettlementTransaction(escrow: Fields, action: Action): Transaction {
  const data = action === 'release' ? release({ id: escrow.id }) : cancel({ id: escrow.id })
  return { to: escrow.contract, data, value: '0', chainId: escrow.chainId }
}

/** An escrow as JSON: bigints as decimal strings, dates as ISO 8601, absent fields as `null`. */
export type Serialized = {
  /** bytes32 id. */
  id: Hex
  /** Status. */
  status: Status
  /** Chain id. */
  chainId: number
  /** Checksummed escrow contract. */
  contract: Address
  /** Checksummed depositor. */
  depositor: Address
  /** Checksummed beneficiary. */
  beneficiary: Address
  /** Checksummed arbiter. */
  arbiter: Address | null
  /** Token held. */
  token: Token
  /** Atomic units, decimal. */
  amount: string
  /** ISO 8601. */
  expiry: string | null
  /** What the escrow is for. */
  description: string | null
  /** What must happen before release. */
  conditions: string[]
  /** ISO 8601. */
  createdAt: string
  /** ISO 8601; set from `active` on. */
  fundedAt: string | null
  /** ISO 8601; set when `released` or `cancelled`. */
  settledAt: string | null
}

/** How an escrow is kept: every field in the order of {@link Serialized}, those it may lack as `null`. */
const codec = Codec.from<Escrow, Serialized>({
  id: 'json',
  status: 'json',
  chainId: 'json',
  contract: 'json',
  depositor: 'json',
  beneficiary: 'json',
  arbiter: Codec.nullable('json'),
  token: 'json',
  amount: 'bigint',
  expiry: Codec.nullable('date'),
  // Records stored before escrows had a description and conditions have neither.
  description: Codec.nullable('json'),
  conditions: Codec.withDefault('json', []),
  createdAt: 'date',
  fundedAt: Codec.nullable('date'),
  settledAt: Codec.nullable('date'),
})

/** Turns an escrow into JSON-safe values, for the store and for responses. */
export function serialize(escrow: Escrow): Serialized {
  return codec.serialize(escrow)
}

/** Reads an escrow back from {@link serialize}'s form. */
export function deserialize(value: Serialized): Escrow {
  return codec.deserialize(value)
}

/** The fields of an escrow without its status and what the status carries. */
function fieldsOf(escrow: Escrow): Fields {
  const { id, chainId, contract, depositor, beneficiary, arbiter, token, amount, expiry, description, conditions } =
    escrow
  return {
    id,
    chainId,
    contract,
    depositor,
    beneficiary,
    arbiter,
    token,
    amount,
    expiry,
    description,
    conditions,
    createdAt: escrow.createdAt,
  }
}

/** Whole Unix seconds of a date, as the contract counts time. */
function toSeconds(date: Date): bigint {
  return BigInt(Math.floor(date.getTime() / 1000))
}
