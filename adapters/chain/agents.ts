import {
  type Account,
  type Address,
  type Chain,
  encodeDeployData,
  getContractAddress,
  type PublicClient,
  parseEventLogs,
  type Transport,
  toHex,
  type WalletClient,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import agentIdentityRegistryJson from './contracts/artifacts/AgentIdentityRegistry.json' with { type: 'json' }
import agentReputationRegistryJson from './contracts/artifacts/AgentReputationRegistry.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import { sendInOrder } from './seed.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/13) of the account that deploys the devnet's ERC-8004 Identity Registry
 * (`contracts/AgentIdentityRegistry.sol`). A deployer of its own, so the registry's address does not move when other
 * deployers' sequences change.
 */
export const agentRegistryDeployerIndex = 13

/** The committed artifact of our ERC-8004 Identity Registry; JSON imports widen ABI literals, so it is typed here. */
export const agentIdentityRegistry = agentIdentityRegistryJson as unknown as Artifact

/** The committed artifact of our ERC-8004 Reputation Registry. */
export const agentReputationRegistry = agentReputationRegistryJson as unknown as Artifact

/** The devnet's Identity Registry: the agent-registry deployer's first contract (nonce 0). */
export function agentRegistryAddress(parameters: agentRegistryAddress.Parameters): Address {
  return getContractAddress({ from: parameters.deployer, nonce: 0n })
}

/** The devnet's Reputation Registry: the agent-registry deployer's second contract (nonce 1). */
export function reputationRegistryAddress(parameters: agentRegistryAddress.Parameters): Address {
  return getContractAddress({ from: parameters.deployer, nonce: 1n })
}

export declare namespace agentRegistryAddress {
  type Parameters = {
    /** The agent-registry deployer's address. */
    deployer: Address
  }
}

/**
 * Deploys the Identity Registry (nonce 0) and the Reputation Registry that rates its agents (nonce 1) from the
 * agent-registry deployer. Throws when one reverts. The deployer must hold ETH and have sent nothing.
 */
export async function deployAgentRegistry(parameters: deployAgentRegistry.Parameters): Promise<Address> {
  const identity = agentRegistryAddress({ deployer: parameters.account.address })
  const { abi, bytecode } = agentReputationRegistry
  await sendInOrder({
    ...parameters,
    label: 'Agent registries',
    transactions: [
      { data: agentIdentityRegistry.bytecode },
      { data: encodeDeployData({ abi, bytecode, args: [identity] }) },
    ],
  })
  return identity
}

export declare namespace deployAgentRegistry {
  type Parameters = {
    /** The agent-registry deployer ({@link agentRegistryDeployerIndex}). */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
  }
}

/**
 * Registers an agent owned by `wallet`'s account with `agentURI` and on-chain `metadata` and waits for its block; resolves
 * with the new agentId, read from the `Registered` event. Throws when the transaction reverts.
 */
export async function registerAgent(parameters: registerAgent.Parameters): Promise<bigint> {
  const { client, wallet, registry, agentURI, metadata = [] } = parameters
  const entries = metadata.map(({ key, value }) => ({ metadataKey: key, metadataValue: toHex(value) }))
  const hash = await wallet.writeContract({
    address: registry,
    abi: agentIdentityRegistry.abi,
    functionName: 'register',
    args: entries.length === 0 ? [agentURI] : [agentURI, entries],
    account: wallet.account,
    chain: wallet.chain,
  })
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`Registering the agent (${hash}) reverted.`)
  const [registered] = parseEventLogs({ abi: agentIdentityRegistry.abi, eventName: 'Registered', logs: receipt.logs })
  return (registered!.args as { agentId: bigint }).agentId
}

export declare namespace registerAgent {
  type Parameters = {
    /** Reads the receipt. */
    client: PublicClient
    /** Signs and sends the registration; its account owns the agent. */
    wallet: WalletClient<Transport, Chain, Account>
    /** The Identity Registry. */
    registry: Address
    /** Where the agent's registration file is. */
    agentURI: string
    /** On-chain metadata entries, each value stored as its UTF-8 bytes (`agentWallet` is reserved). @default none */
    metadata?: readonly {
      /** Metadata key. */
      key: string
      /** Text value. */
      value: string
    }[]
  }
}
