import {
  type Address,
  checksumAddress,
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  toHex,
  zeroHash,
} from 'viem'
import { NotFoundError, ValidationError } from '../../core/Errors.js'
import * as Kyc from '../../core/Kyc.js'
import type { Endpoint } from '../../core/Rpc.js'
import * as Rpc from '../../core/Rpc.js'
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
} as const satisfies Record<string, readonly Kyc.Check[]>

/** The attestation behind a check, as EAS holds it. */
export type Attestation = {
  /** Attestation UID. */
  uid: Hex
  /** Its schema UID. */
  schema: Hex
  /** Who attested. */
  attester: Address
  /** Who it is about. */
  recipient: Address
  /** When it was made, ISO 8601. */
  time: string
  /** When it stops holding, ISO 8601; null for never. */
  expirationTime: string | null
  /** When it was revoked, ISO 8601; null when it stands. */
  revocationTime: string | null
}

/** One check's outcome, with the attestation it rests on and where it was read. */
export type CheckResult = {
  /** Whether the check passed: an indexed attestation of the right schema and attester, about the address, standing and unexpired. */
  verified: boolean
  /** The attested value when verified: `true` for verifiedAccount, the ISO 3166-1 alpha-2 code for verifiedCountry. */
  value: boolean | string | null
  /** Why it did not pass; null when it did. */
  reason: string | null
  /** The schema UID required. */
  schema: Hex
  /** The attester required. */
  attester: Address
  /** The attestation the indexer returned; null when it has none. */
  attestation: Attestation | null
  /** Where it was read: the EAS and indexer contracts on the chain. */
  source: {
    /** Chain id. */
    chainId: number
    /** EAS contract. */
    eas: Address
    /** Indexer contract. */
    indexer: Address
  }
}

/** A stored check record. */
export type CheckRecord = {
  /** Check id. */
  id: string
  /** The checked address. */
  address: Address
  /** `verified` (every check passed), `partial` (some) or `not_verified` (none). */
  status: 'verified' | 'partial' | 'not_verified'
  /** The outcome per check name. */
  checks: Partial<Record<Kyc.Check, CheckResult>>
  /** The payer who asked, the record's owner. */
  requestedBy: Address
  /** When the check ran, ISO 8601. */
  checkedAt: string
}

/**
 * Checks `address`'s Coinbase Verifications attestations and stores the record, owned by the payer. Any address may
 * be checked (attestations are public): knowing who one pays is the use; the record is only the payer's.
 */
export async function verify(deps: Deps, input: verify.Input) {
  const address = checksumAddress(input.address as Address)
  const deployment = Kyc.of(deps.endpoint.chainId)
  const now = deps.now?.() ?? new Date()
  const names = checksOf[input.type ?? 'all']
  const results = await Promise.all(names.map((check) => checkOne(deps, deployment, address, check, now)))
  const checks = Object.fromEntries(names.map((check, index) => [check, results[index]!]))
  const passed = results.filter((result) => result.verified).length
  const record: CheckRecord = {
    id: `kyc_${toHex(crypto.getRandomValues(new Uint8Array(16))).slice(2)}`,
    address,
    status: passed === results.length ? 'verified' : passed === 0 ? 'not_verified' : 'partial',
    checks,
    requestedBy: checksumAddress(input.caller),
    checkedAt: now.toISOString(),
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
  }
}

export declare namespace verify {
  type Input = {
    /** The address to check. */
    address: string
    /** Which checks. @default 'all' */
    type?: keyof typeof checksOf
    /** Only `base`. */
    chain?: 'base'
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
    address: record.address,
    status: record.status,
    checks: record.checks,
    checkedAt: record.checkedAt,
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

/** Refuses, before payment, a status call that names neither a check nor an address. */
export function preflightStatus(query: { id?: unknown; address?: unknown }): void {
  if (query.id === undefined && query.address === undefined)
    throw new ValidationError({ field: 'id', message: 'required: a check id from kyc/verify, or an address' })
}

/** One check: the indexer's latest attestation of the address in the schema, read from EAS and held to the rules. */
async function checkOne(
  deps: Deps,
  deployment: Kyc.Deployment,
  address: Address,
  check: Kyc.Check,
  now: Date,
): Promise<CheckResult> {
  const schema = deployment.schemas[check]
  const base = {
    schema,
    attester: deployment.attester,
    source: { chainId: deps.endpoint.chainId, eas: deployment.eas, indexer: deployment.indexer },
  }
  const uid = (await read(deps, deployment.indexer, 'getAttestationUid', [address, schema])) as Hex
  if (uid === zeroHash)
    return {
      ...base,
      verified: false,
      value: null,
      reason: 'The indexer has no attestation of this address in this schema.',
      attestation: null,
    }
  const found = (await read(deps, deployment.eas, 'getAttestation', [uid])) as {
    uid: Hex
    schema: Hex
    time: bigint
    expirationTime: bigint
    revocationTime: bigint
    recipient: Address
    attester: Address
    data: Hex
  }
  const attestation: Attestation = {
    uid: found.uid,
    schema: found.schema,
    attester: found.attester,
    recipient: found.recipient,
    time: isoOf(found.time)!,
    expirationTime: isoOf(found.expirationTime),
    revocationTime: isoOf(found.revocationTime),
  }
  const refusal = (reason: string): CheckResult => ({ ...base, verified: false, value: null, reason, attestation })
  if (found.uid !== uid) return refusal(`EAS has no attestation ${uid}.`)
  if (found.schema !== schema) return refusal(`The attestation's schema ${found.schema} is not ${schema}.`)
  if (!isAddressEqual(found.attester, deployment.attester))
    return refusal(`The attestation's attester ${found.attester} is not the trusted attester ${deployment.attester}.`)
  if (!isAddressEqual(found.recipient, address))
    return refusal(`The attestation is about ${found.recipient}, not ${address}.`)
  if (found.revocationTime !== 0n) return refusal(`The attestation was revoked at ${attestation.revocationTime}.`)
  if (found.expirationTime !== 0n && found.expirationTime * 1000n <= BigInt(now.getTime()))
    return refusal(`The attestation expired at ${attestation.expirationTime}.`)
  const value = decodeValue(check, found.data)
  if (value === undefined) return refusal('The attestation data does not decode as the schema.')
  if (value === false) return refusal('The attestation says the account is not verified.')
  return { ...base, verified: true, value, reason: null, attestation }
}

/** The attested value of a check's one field; undefined when the data is not of the schema. */
function decodeValue(check: Kyc.Check, data: Hex): boolean | string | undefined {
  try {
    const [value] = decodeAbiParameters([{ type: check === 'verifiedAccount' ? 'bool' : 'string' }], data)
    return value as boolean | string
  } catch {
    return undefined
  }
}

/** Calls a view of EAS or the indexer on the settlement chain; a node that cannot answer throws, charging nothing. */
async function read(
  deps: Deps,
  to: Address,
  functionName: 'getAttestationUid' | 'getAttestation',
  args: readonly unknown[],
) {
  const data = encodeFunctionData({ abi: Kyc.abi, functionName, args } as Parameters<typeof encodeFunctionData>[0])
  const result = (await Rpc.result(deps.endpoint, 'eth_call', [{ to, data }, 'latest'])) as Hex
  return decodeFunctionResult({ abi: Kyc.abi, functionName, data: result } as Parameters<
    typeof decodeFunctionResult
  >[0])
}

function isoOf(seconds: bigint): string | null {
  return seconds === 0n ? null : new Date(Number(seconds) * 1000).toISOString()
}
