import {
  type Address,
  decodeFunctionResult,
  encodeEventTopics,
  encodeFunctionData,
  type Hex,
  hexToBigInt,
  parseAbi,
  zeroAddress,
} from 'viem'
import { base } from 'viem/chains'
import { RpcCallFailedError, UpstreamUnavailableError } from './Errors.js'
import type { Endpoint } from './Rpc.js'
import { isFailure, toError } from './Upstream.js'

/**
 * The reads of an ERC-8004 Identity Registry (eips.ethereum.org/EIPS/eip-8004): ERC-721 with URI storage, the agentId
 * is the token id and `tokenURI` the agentURI; `getAgentWallet` is the reserved `agentWallet` metadata; `Transfer` is
 * ERC-721's, emitted by every registration and change of hands.
 */
export const abi = parseAbi([
  'function ownerOf(uint256 agentId) view returns (address)',
  'function tokenURI(uint256 agentId) view returns (string)',
  'function balanceOf(address owner) view returns (uint256)',
  'function getAgentWallet(uint256 agentId) view returns (address)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
])

/** The `type` every ERC-8004 registration file names. */
export const registrationType = 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1'

/** Where the Identity Registry is on one chain. */
export type Deployment = {
  /** The registry's address. */
  address: Address
  /** Who deployed it: `erc-8004` (the canonical singleton) or `devnet` (ours, `contracts/AgentIdentityRegistry.sol`). */
  source: 'erc-8004' | 'devnet'
}

/**
 * The canonical Identity Registry on Base mainnet, the same singleton on every mainnet the ERC-8004 team deployed to
 * (github.com/erc-8004/erc-8004-contracts README; docs.pinata.cloud/tools/erc-8004).
 */
export const baseMainnet: Deployment = { address: '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432', source: 'erc-8004' }

/**
 * Our registry on the embedded devnet, at the address the agent-registry deployer's nonce 0 gives it
 * (adapters/chain/devnet.ts `contracts().agentRegistry`; a test keeps the two equal).
 */
export const devnet: Deployment = { address: '0x17F24D3b8Bc1150553b54Da30B4d993AcB889212', source: 'devnet' }

/**
 * The reads of an ERC-8004 Reputation Registry: the clients that rated an agent, and the count and average of their
 * standing feedback (`summaryValue` with `summaryValueDecimals`) as `getSummary` computes it for the clients named.
 */
export const reputationAbi = parseAbi([
  'function getClients(uint256 agentId) view returns (address[])',
  'function getSummary(uint256 agentId, address[] clientAddresses, string tag1, string tag2) view returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)',
])

/**
 * The canonical Reputation Registry on Base mainnet, beside the Identity Registry (github.com/erc-8004/erc-8004-contracts
 * README).
 */
export const baseMainnetReputation: Address = '0x8004BAa17C55a88189AE136b182e5fdA19dE9b63'

/**
 * Our Reputation Registry on the embedded devnet, at the agent-registry deployer's nonce 1
 * (adapters/chain/devnet.ts `contracts().agentReputation`; a test keeps the two equal).
 */
export const devnetReputation: Address = '0x51Bb5928dDbE14344FB71e5db06974390CEC2Fba'

/** The Reputation Registry on the chain of a node by its id: the canonical one on Base, the devnet's on any other id. */
export function reputationOf(chainId: number): Address {
  return chainId === base.id ? baseMainnetReputation : devnetReputation
}

/** The registry on the chain of a node by its id: the canonical one on Base, the devnet's on any other id. */
export function of(chainId: number): Deployment {
  return chainId === base.id ? baseMainnet : devnet
}

/** Most agents an address lookup lists. */
export const maxListed = 100

/** Where the registry read on one chain is. */
export type Registry = {
  /** EIP-155 id of the chain. */
  chainId: number
  /** The registry's address. */
  address: Address
  /** `erc-8004` (the canonical deployment) or `devnet` (ours). */
  source: Deployment['source']
}

/** One agent an address owns. */
export type OwnedAgent = {
  /** The agent's id, decimal. */
  agentId: string
  /** Its agentURI, as stored. */
  tokenURI: string
}

/** The agents an address owns. */
export type OwnedAgents = {
  /** The registry the agents are in. */
  registry: Registry
  /** The owner asked about, checksummed. */
  address: Address
  /** Its ERC-721 balance in the registry: how many agents it owns, decimal. */
  balance: string
  /**
   * How the agents were found: `transfer-logs`, the registry's ERC-721 `Transfer` events to the address (its
   * registrations and the agents handed to it), each confirmed by a current `ownerOf`.
   */
  method: 'transfer-logs'
  /** The agents found, lowest id first, at most {@link maxListed}; null when the node would not return the events. */
  agents: OwnedAgent[] | null
  /** Whether `agents` lists as many agents as `balance` counts. */
  complete: boolean
  /** Why the list is missing or short, when it is. */
  message: string | null
}

/** The agents `address` owns, from the registry's `Transfer` events to it, each confirmed by `ownerOf`. */
export async function owned(endpoint: Endpoint, address: Address): Promise<OwnedAgents> {
  const registry = registryOn(endpoint)
  const balance = (await read(endpoint, registry, 'balanceOf', [address])) as bigint | undefined
  if (balance === undefined)
    throw new UpstreamUnavailableError(`The Identity Registry at ${registry.address} did not answer balanceOf.`)
  const answer = { registry, address, balance: balance.toString(), method: 'transfer-logs' as const }
  if (balance === 0n) return { ...answer, agents: [], complete: true, message: null }

  const topics = encodeEventTopics({ abi: abi, eventName: 'Transfer', args: { to: address } })
  const logs = await endpoint.request('eth_getLogs', [
    { address: registry.address, topics, fromBlock: '0x0', toBlock: 'latest' },
  ])
  if (isFailure(logs) || !logs.ok || !Array.isArray(logs.result))
    return {
      ...answer,
      agents: null,
      complete: false,
      message: `The node would not return the registry's Transfer events to ${address}: ${isFailure(logs) || logs.ok ? 'no answer' : logs.message}. The balance stands; the agents are not listed.`,
    }
  const candidates = [
    ...new Set((logs.result as { topics: Hex[] }[]).map((log) => hexToBigInt(log.topics[3] ?? '0x0'))),
  ].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const agents: OwnedAgent[] = []
  for (const agentId of candidates) {
    if (agents.length >= maxListed) break
    const owner = (await read(endpoint, registry, 'ownerOf', [agentId])) as Address | undefined
    if (owner !== address) continue
    const tokenURI = ((await read(endpoint, registry, 'tokenURI', [agentId])) as string | undefined) ?? ''
    agents.push({ agentId: agentId.toString(), tokenURI })
  }
  const complete = BigInt(agents.length) === balance
  return {
    ...answer,
    agents,
    complete,
    message: complete
      ? null
      : agents.length >= maxListed
        ? `Listed the first ${maxListed} agents of ${balance}.`
        : `Found ${agents.length} of the ${balance} agents the balance counts among the Transfer events the node returned.`,
  }
}

/** How many agents the registry holds. */
export type Census = {
  /** The registry counted. */
  registry: Registry
  /** The agents registered and not burned: its ERC-721 mints less its burns; null when the node would not return them. */
  totalAgents: number | null
  /** How they were counted: `transfer-logs`, the registry's `Transfer` events from and to the zero address. */
  method: 'transfer-logs'
  /** Why the count is missing, when it is. */
  message: string | null
}

/**
 * The agents of the registry on the chain of `endpoint`, counted from its ERC-721 `Transfer` events (ERC-8004 registries
 * need not answer `totalSupply`): mints, from the zero address, less burns, to it.
 */
export async function census(endpoint: Endpoint): Promise<Census> {
  const registry = registryOn(endpoint)
  const count = async (args: { from: Address } | { to: Address }) => {
    const topics = encodeEventTopics({ abi: abi, eventName: 'Transfer', args })
    const logs = await endpoint.request('eth_getLogs', [
      { address: registry.address, topics, fromBlock: '0x0', toBlock: 'latest' },
    ])
    if (isFailure(logs) || !logs.ok || !Array.isArray(logs.result))
      return { ok: false as const, message: isFailure(logs) || logs.ok ? 'no answer' : logs.message }
    return { ok: true as const, count: logs.result.length }
  }
  const [minted, burned] = await Promise.all([count({ from: zeroAddress }), count({ to: zeroAddress })])
  if (!minted.ok || !burned.ok)
    return {
      registry,
      totalAgents: null,
      method: 'transfer-logs',
      message: `The node would not return the registry's Transfer events: ${minted.ok ? '' : minted.message}${!minted.ok && !burned.ok ? '; ' : ''}${burned.ok ? '' : burned.message}.`,
    }
  return { registry, totalAgents: minted.count - burned.count, method: 'transfer-logs', message: null }
}

/** The registry on the chain of `endpoint`, with its chain id. */
export function registryOn(endpoint: Endpoint): Registry {
  const { address, source } = of(endpoint.chainId)
  return { chainId: endpoint.chainId, address, source }
}

/** A view of the registry {@link read} calls. */
export type ReadFunction = 'ownerOf' | 'tokenURI' | 'balanceOf' | 'getAgentWallet'

/**
 * One view call of the registry: its decoded result, or undefined when it reverts (no such agent). A node that does
 * not answer throws as the upstream's error; a registry without code there throws {@link UpstreamUnavailableError}.
 */
export async function read(
  endpoint: Endpoint,
  registry: Registry,
  functionName: ReadFunction,
  args: readonly unknown[],
): Promise<unknown> {
  const data = encodeFunctionData({ abi: abi, functionName, args } as never)
  const answer = await endpoint.request('eth_call', [{ to: registry.address, data }, 'latest'])
  if (isFailure(answer)) throw toError(answer)
  if (!answer.ok) {
    if (answer.code === 3 || /revert/i.test(answer.message)) return undefined
    throw new RpcCallFailedError(`${functionName} failed on ${endpoint.name}: ${answer.message}`, {
      details: { rpcError: { code: answer.code, message: answer.message } },
    })
  }
  if (answer.result === '0x')
    throw new UpstreamUnavailableError(
      `No Identity Registry answers at ${registry.address} on ${endpoint.name}: a devnet started before the registry was deployed has none; start a new one.`,
    )
  return decodeFunctionResult({ abi: abi, functionName, data: answer.result as Hex } as never)
}
