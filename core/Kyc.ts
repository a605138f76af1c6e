import { type Address, type Hex, parseAbi } from 'viem'
import { base } from 'viem/chains'

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
