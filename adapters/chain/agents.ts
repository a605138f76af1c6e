import {
  type Account,
  type Address,
  type Chain,
  getContractAddress,
  type Hex,
  type PublicClient,
  parseEventLogs,
  type Transport,
  toHex,
  type WalletClient,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import agentIdentityRegistryJson from './contracts/artifacts/AgentIdentityRegistry.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/13) of the account that deploys the devnet's ERC-8004 Identity Registry
 * (`contracts/AgentIdentityRegistry.sol`). A deployer of its own, so the registry's address does not move when other
 * deployers' sequences change.
 */
export const agentRegistryDeployerIndex = 13

/** The committed artifact of our ERC-8004 Identity Registry; JSON imports widen ABI literals, so it is typed here. */
export const agentIdentityRegistry = agentIdentityRegistryJson as unknown as Artifact

/** The devnet's Identity Registry: the agent-registry deployer's first contract (nonce 0). */
export function agentRegistryAddress(parameters: agentRegistryAddress.Parameters): Address {
  return getContractAddress({ from: parameters.deployer, nonce: 0n })
}

export declare namespace agentRegistryAddress {
  type Parameters = {
    /** The agent-registry deployer's address. */
    deployer: Address
  }
}

/**
 * Deploys the Identity Registry from the agent-registry deployer in one signed transaction (its nonce, gas and fee
 * set here, so nothing waits for an estimate). Throws when it reverts. The deployer must hold ETH and have sent nothing.
 */
export async function deployAgentRegistry(parameters: deployAgentRegistry.Parameters): Promise<Address> {
  const { account, chainId, request } = parameters
  const latest = (await request('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: Hex }
  const signed = await account.signTransaction({
    data: agentIdentityRegistry.bytecode,
    type: 'eip1559',
    chainId,
    nonce: 0,
    gas: 3_000_000n,
    // Blocks below the gas target only lower the base fee, so twice the current one covers the transaction.
    maxFeePerGas: BigInt(latest.baseFeePerGas) * 2n,
    maxPriorityFeePerGas: 0n,
  })
  const hash = (await request('eth_sendRawTransaction', [signed])) as Hex
  const receipt = (await request('eth_getTransactionReceipt', [hash])) as { status: Hex } | null
  if (receipt?.status !== '0x1') throw new Error(`Deploying the agent identity registry (${hash}) reverted.`)
  return agentRegistryAddress({ deployer: account.address })
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
