import { type Address, parseAbi } from 'viem'
import { base } from 'viem/chains'

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

/** The registry on the chain of a node by its id: the canonical one on Base, the devnet's on any other id. */
export function of(chainId: number): Deployment {
  return chainId === base.id ? baseMainnet : devnet
}
