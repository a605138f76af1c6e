import {
  type Address,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  type Log,
  parseEventLogs,
  zeroAddress,
  zeroHash,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import * as Kyc from '../../core/Kyc.js'
import attestationIndexerJson from './contracts/artifacts/AttestationIndexer.json' with { type: 'json' }
import easJson from './contracts/artifacts/eas/EAS.json' with { type: 'json' }
import schemaRegistryJson from './contracts/artifacts/eas/SchemaRegistry.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import type { PublishedArtifact } from './contracts/published.js'
import { sendInOrder } from './seed.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/15) of the account that deploys the devnet's attestation contracts, registers the
 * Coinbase Verifications schemas and attests as the devnet's Coinbase attester. Its own account, so its nonces, and
 * the addresses they give, never move when other contracts are added.
 */
export const kycDeployerIndex = 15

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const schemaRegistry = schemaRegistryJson as unknown as PublishedArtifact
const eas = easJson as unknown as PublishedArtifact
const indexer = attestationIndexerJson as unknown as Artifact

/** The published EAS contracts' ABIs, for attesting and revoking on the devnet. */
export const easAbi = eas.abi

/** Our indexer's ABI (`index(uid)`, `getAttestationUid`). */
export const indexerAbi = indexer.abi

/** The addresses of the attestation contracts, which follow from the KYC deployer's nonces 0 to 2. */
export function kycContracts(parameters: kycContracts.Parameters): kycContracts.ReturnType {
  const at = (nonce: number) => getContractAddress({ from: parameters.deployer, nonce: BigInt(nonce) })
  return { schemaRegistry: at(0), eas: at(1), indexer: at(2) }
}

export declare namespace kycContracts {
  type Parameters = {
    /** The KYC deployer's address. */
    deployer: Address
  }
  type ReturnType = {
    /** EAS's SchemaRegistry from its published artifact (nonce 0). */
    schemaRegistry: Address
    /** EAS from its published artifact (nonce 1). */
    eas: Address
    /** Our AttestationIndexer on that EAS (nonce 2). */
    indexer: Address
  }
}

/**
 * Deploys SchemaRegistry, EAS and the indexer from the KYC deployer and registers the schemas of
 * {@link Kyc.schemaDefinitions}, revocable and without a resolver: one batch of five transactions.
 */
export async function seedKyc(parameters: seedKyc.Parameters): Promise<void> {
  const { account, chainId, request } = parameters
  const addresses = kycContracts({ deployer: account.address })
  const deploy = (artifact: { abi: Artifact['abi']; bytecode: Hex }, args: readonly unknown[]) => ({
    data:
      args.length === 0
        ? artifact.bytecode
        : encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args }),
  })
  await sendInOrder({
    account,
    chainId,
    request,
    label: 'KYC seeding',
    transactions: [
      deploy(schemaRegistry, []),
      deploy(eas, [addresses.schemaRegistry]),
      deploy(indexer, [addresses.eas]),
      ...Kyc.checks.map((check) => ({
        to: addresses.schemaRegistry,
        data: encodeFunctionData({
          abi: schemaRegistry.abi,
          functionName: 'register',
          args: [Kyc.schemaDefinitions[check], zeroAddress, true],
        }),
      })),
    ],
  })
}

export declare namespace seedKyc {
  type Parameters = {
    /** The KYC deployer ({@link kycDeployerIndex}), with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
  }
}

/**
 * Attests `value` for `recipient` in the schema of `check` on the devnet's EAS ({@link Kyc.devnet}), from `account` (the KYC deployer is
 * the devnet's Coinbase attester; any other account is an attester the gateway does not trust), then indexes it.
 * Resolves with the attestation's UID, read from EAS's `Attested` event.
 */
export async function attest(parameters: attest.Parameters): Promise<Hex> {
  const { account, chainId, request, recipient, check, value, expirationTime = 0n } = parameters
  const addresses = Kyc.devnet
  const schema = Kyc.devnet.schemas[check]
  const data = encodeAbiParameters([{ type: check === 'verifiedAccount' ? 'bool' : 'string' }], [value])
  const [hash] = await sendInOrder({
    account,
    chainId,
    request,
    label: 'Attestation',
    transactions: [
      {
        to: addresses.eas,
        data: encodeFunctionData({
          abi: eas.abi,
          functionName: 'attest',
          args: [
            {
              schema,
              data: { recipient, expirationTime, revocable: true, refUID: zeroHash, data, value: 0n },
            },
          ],
        }),
      },
    ],
  })
  const receipt = (await request('eth_getTransactionReceipt', [hash])) as { logs: Log[] }
  const [attested] = parseEventLogs({ abi: eas.abi, eventName: 'Attested', logs: receipt.logs })
  const uid = (attested as unknown as { args: { uid: Hex } }).args.uid
  await sendInOrder({
    account,
    chainId,
    request,
    label: 'Indexing',
    transactions: [
      { to: addresses.indexer, data: encodeFunctionData({ abi: indexer.abi, functionName: 'index', args: [uid] }) },
    ],
  })
  return uid
}

export declare namespace attest {
  type Parameters = {
    /** The attester, with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** Who the attestation is about. */
    recipient: Address
    /** Which check's schema. */
    check: Kyc.Check
    /** `true` for `verifiedAccount`, an ISO 3166-1 alpha-2 code for `verifiedCountry`. */
    value: boolean | string
    /** Unix seconds after which it no longer holds; 0 for never. @default 0n */
    expirationTime?: bigint
  }
}

/** Revokes attestation `uid` of `check`'s schema; only its attester may. */
export async function revoke(parameters: revoke.Parameters): Promise<void> {
  const { account, chainId, request, check, uid } = parameters
  await sendInOrder({
    account,
    chainId,
    request,
    label: 'Revocation',
    transactions: [
      {
        to: Kyc.devnet.eas,
        data: encodeFunctionData({
          abi: eas.abi,
          functionName: 'revoke',
          args: [{ schema: Kyc.devnet.schemas[check], data: { uid, value: 0n } }],
        }),
      },
    ],
  })
}

export declare namespace revoke {
  type Parameters = {
    /** The attestation's attester, with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** The attestation's check. */
    check: Kyc.Check
    /** The attestation's UID. */
    uid: Hex
  }
}
