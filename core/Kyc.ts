import {
  type Address,
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  parseAbi,
  zeroHash,
} from 'viem'
import { base } from 'viem/chains'
import type { Endpoint } from './Rpc.js'
import * as Rpc from './Rpc.js'

/** Where Coinbase Verifications (or the devnet's look-alike) are read on one chain. */
export type Deployment = {
  /** The Ethereum Attestation Service contract. */
  eas: Address
  /** Indexer answering `getAttestationUid(recipient, schemaUid)` with the latest attestation's UID. */
  indexer: Address
  /** The only attester whose attestations count. */
  attester: Address
  /** The schema UIDs of the checks, by check name. */
  schemas: Readonly<Record<Check, Hex>>
}

/** The identity checks: a verified Coinbase account, and the verified country of residence. */
export const checks = ['verifiedAccount', 'verifiedCountry'] as const

/** One identity check's name. */
export type Check = (typeof checks)[number]

/** The EAS schema of each check, as Coinbase registered it: one field, named as the check. */
export const schemaDefinitions: Readonly<Record<Check, string>> = {
  verifiedAccount: 'bool verifiedAccount',
  verifiedCountry: 'string verifiedCountry',
}

/**
 * Coinbase Verifications on Base mainnet (github.com/coinbase/verifications README, "Base Mainnet (Production)"):
 * EAS is Base's predeploy, the indexer and the attester are Coinbase's.
 */
export const baseMainnet: Deployment = {
  eas: '0x4200000000000000000000000000000000000021',
  indexer: '0x2c7eE1E5f416dfF40054c27A62f7B357C4E8619C',
  attester: '0x357458739F90461b99789350868CD7CF330Dd7EE',
  schemas: {
    verifiedAccount: '0xf8b05c79f090979bf4a80270aba232dff11a10d9ca55c4f88de95317970f0de9',
    verifiedCountry: '0x1801901fabd0e6189356b4fb52bb0ab855276d84f7ec140839fbd1f6801ca065',
  },
}

/**
 * The embedded devnet's: the published EAS contracts and our AttestationIndexer at the addresses the KYC deployer's
 * nonces give them, the KYC deployer as attester, and the schemas it registered without a resolver
 * (adapters/chain/kyc.ts; a test keeps the two equal).
 */
export const devnet: Deployment = {
  eas: '0xDAEaB5ef86487b4f777A80dFa9BC0DE6878d7607',
  indexer: '0xcD3bFD04F09D5d1230C7804A9358d6feDb3549A1',
  attester: '0xcd3B766CCDd6AE721141F452C550Ca635964ce71',
  schemas: {
    verifiedAccount: '0xbda8dd64efa4c537514cfe4c96ab5d5f14a8ec0c9105b799b47a010e89c0c72d',
    verifiedCountry: '0x83f7cceadc616dd0ec0809145029f9c9eba1c58278b1540e2d809722df8420e5',
  },
}

/** The deployment read on the chain of a node by its id: Coinbase's on Base, the devnet's on any other. */
export function of(chainId: number): Deployment {
  return chainId === base.id ? baseMainnet : devnet
}

/** The reads of EAS and of the indexer. */
export const abi = parseAbi([
  'struct Attestation { bytes32 uid; bytes32 schema; uint64 time; uint64 expirationTime; uint64 revocationTime; bytes32 refUID; address recipient; address attester; bool revocable; bytes data; }',
  'function getAttestation(bytes32 uid) view returns (Attestation)',
  'function getAttestationUid(address recipient, bytes32 schemaUid) view returns (bytes32)',
])

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

/**
 * One check of `address` on the chain of `endpoint`: the indexer's latest attestation of the address in the schema, read from EAS and held to the rules
 * (schema, attester, recipient, revocation, expiry). A node that cannot answer throws.
 */
export async function check(endpoint: Endpoint, address: Address, check: Check, now: Date): Promise<CheckResult> {
  const deployment = of(endpoint.chainId)
  const schema = deployment.schemas[check]
  const base = {
    schema,
    attester: deployment.attester,
    source: { chainId: endpoint.chainId, eas: deployment.eas, indexer: deployment.indexer },
  }
  const uid = (await read(endpoint, deployment.indexer, 'getAttestationUid', [address, schema])) as Hex
  if (uid === zeroHash)
    return {
      ...base,
      verified: false,
      value: null,
      reason: 'The indexer has no attestation of this address in this schema.',
      attestation: null,
    }
  const found = (await read(endpoint, deployment.eas, 'getAttestation', [uid])) as {
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
function decodeValue(check: Check, data: Hex): boolean | string | undefined {
  try {
    const [value] = decodeAbiParameters([{ type: check === 'verifiedAccount' ? 'bool' : 'string' }], data)
    return value as boolean | string
  } catch {
    return undefined
  }
}

/** Calls a view of EAS or the indexer on the settlement chain; a node that cannot answer throws, charging nothing. */
async function read(
  endpoint: Endpoint,
  to: Address,
  functionName: 'getAttestationUid' | 'getAttestation',
  args: readonly unknown[],
) {
  const data = encodeFunctionData({ abi: abi, functionName, args } as Parameters<typeof encodeFunctionData>[0])
  const result = (await Rpc.result(endpoint, 'eth_call', [{ to, data }, 'latest'])) as Hex
  return decodeFunctionResult({ abi: abi, functionName, data: result } as Parameters<typeof decodeFunctionResult>[0])
}

function isoOf(seconds: bigint): string | null {
  return seconds === 0n ? null : new Date(Number(seconds) * 1000).toISOString()
}
