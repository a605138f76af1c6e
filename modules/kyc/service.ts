import { type Address, checksumAddress, isAddressEqual, toHex } from 'viem'
import { NotFoundError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Kyc from '../../core/Kyc.js'
import type { Endpoint } from '../../core/Rpc.js'
import type { Store } from '../../core/Store.js'

/** What the KYC service needs. */
export type Deps = {
  /** Where check records are kept, owned by the payer who asked. */
  store: Store
  /** The settlement chain's node: Base in production, the devnet on embedded defaults. */
  endpoint: Endpoint
  /** The current time, for attestations' expiry. @default () => new Date() */
  now?: () => Date
}

/** Store collection of the check records. */
export const collection = 'kyc_checks'

/** What each request `type` checks. */
const checksOf = {
  all: Kyc.checks,
  account: ['verifiedAccount'],
  country: ['verifiedCountry'],
  individual: Kyc.checks,
  business: Kyc.checks,
} as const satisfies Record<string, readonly Kyc.Check[]>

/** What the answers' `level` names: the checks this gateway runs, whatever level was asked for. */
const level = 'coinbase-verifications'

/** A stored check record. */
export type CheckRecord = {
  /** Check id. */
  id: string
  /** The checked address. */
  address: Address
  /** `verified` (every check passed), `partial` (some) or `not_verified` (none). */
  status: 'verified' | 'partial' | 'not_verified'
  /** The outcome per check name. */
  checks: Partial<Record<Kyc.Check, Kyc.CheckResult>>
  /** The payer who asked, the record's owner. */
  requestedBy: Address
  /** When the check ran, ISO 8601. */
  checkedAt: string
  /** The original gateway's kind of subject, as asked (`individual` unless `business`). */
  type?: 'individual' | 'business'
  /** The depth asked for, when given. */
  requestedLevel?: string | undefined
  /** When the earliest attestation a passed check rests on expires, ISO 8601; null when none expires. */
  expiresAt?: string | null
  /** The requester's own JSON. */
  metadata?: Record<string, unknown> | undefined
}

/**
 * Checks `address`'s Coinbase Verifications attestations and stores the record, owned by the payer. Any address may
 * be checked (attestations are public): knowing who one pays is the use; the record is only the payer's.
 */
export async function verify(deps: Deps, input: verify.Input) {
  const address = checksumAddress(input.address as Address)
  const now = deps.now?.() ?? new Date()
  const names = checksOf[input.type ?? 'all']
  const results = await Promise.all(names.map((check) => Kyc.check(deps.endpoint, address, check, now)))
  const checks = Object.fromEntries(names.map((check, index) => [check, results[index]!]))
  const passed = results.filter((result) => result.verified).length
  const expiries = results.flatMap((result) =>
    result.verified && result.attestation?.expirationTime ? [result.attestation.expirationTime] : [],
  )
  const record: CheckRecord = {
    id: `kyc_${toHex(crypto.getRandomValues(new Uint8Array(16))).slice(2)}`,
    address,
    status: passed === results.length ? 'verified' : passed === 0 ? 'not_verified' : 'partial',
    checks,
    requestedBy: checksumAddress(input.caller),
    checkedAt: now.toISOString(),
    type: input.type === 'business' ? 'business' : 'individual',
    requestedLevel: input.level,
    expiresAt: expiries.sort()[0] ?? null,
    metadata: input.metadata ?? {},
  }
  const inserted = await deps.store.insert({
    collection,
    id: record.id,
    owners: [record.requestedBy],
    value: record,
    createdAt: now,
  })
  if (!inserted.ok) throw new Error(`KYC check id ${record.id} is taken; 128 random bits should never collide.`)
  return {
    id: record.id,
    status: record.status,
    result: { address, chain: 'base', checks, checkedAt: record.checkedAt },
    ...originalFields(record),
    chain: 'base',
  }
}

/** The original gateway's answer fields of a check record. */
function originalFields(record: CheckRecord) {
  return {
    type: record.type ?? 'individual',
    address: record.address,
    level,
    requestedLevel: record.requestedLevel ?? null,
    checks: record.checks,
    metadata: record.metadata ?? {},
    createdAt: record.checkedAt,
    completedAt: record.checkedAt,
    expiresAt: record.expiresAt ?? null,
  }
}

export declare namespace verify {
  type Input = {
    /** The address to check. */
    address: string
    /** Which checks. @default 'all' */
    type?: keyof typeof checksOf
    /** Only `base`, checked before payment. */
    chain?: string
    /** The depth asked for. */
    level?: string
    /** The requester's own JSON. */
    metadata?: Record<string, unknown>
    /** The verified payer, who owns the record. */
    caller: Address
  }
}

/** A check the caller made: by id, or the latest of `address`; someone else's is not found. */
export async function status(deps: Deps, input: status.Input) {
  const caller = checksumAddress(input.caller)
  let record: CheckRecord | undefined
  if (input.id !== undefined) {
    const stored = await deps.store.get<CheckRecord>(collection, input.id)
    if (stored?.owners.includes(caller)) record = stored.value
    if (record && input.address !== undefined && !isAddressEqual(record.address, input.address as Address))
      record = undefined
  } else {
    const address = checksumAddress(input.address as Address)
    const records = await deps.store.list<CheckRecord>(collection, { owner: caller })
    record = records.find((stored) => stored.value.address === address)?.value
  }
  if (!record)
    throw new NotFoundError(
      input.id !== undefined ? `No KYC check ${input.id} of yours.` : `No KYC check of ${input.address} of yours.`,
    )
  return {
    id: record.id,
    status: record.status,
    checkedAt: record.checkedAt,
    ...originalFields(record),
  }
}

export declare namespace status {
  type Input = {
    /** Check id. */
    id?: string
    /** Checked address. */
    address?: string
    /** The verified payer. */
    caller: Address
  }
}

/** Refuses, before payment, a chain other than Base, in any spelling (`base-mainnet` is Base). */
export function preflightVerify(body: { chain?: unknown }): void {
  EvmChain.only({ value: body?.chain, served: 'base' })
}

/** Refuses, before payment, a status call that names neither a check nor an address. */
export function preflightStatus(query: { id?: unknown; address?: unknown }): void {
  if (query.id === undefined && query.address === undefined)
    throw new ValidationError({ field: 'id', message: 'required: a check id from kyc/verify, or an address' })
}
