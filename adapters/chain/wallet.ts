import { type Address, encodeDeployData, getContractAddress, type Hex } from 'viem'
import type { LocalAccount } from 'viem/accounts'
import agentAccountFactoryJson from './contracts/artifacts/AgentAccountFactory.json' with { type: 'json' }
import entryPointJson from './contracts/artifacts/account-abstraction/EntryPoint.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import type { PublishedArtifact } from './contracts/published.js'
import { sendInOrder } from './seed.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/16) of the account that deploys the devnet's ERC-4337 contracts: the EntryPoint
 * v0.7 from its published artifact and our AgentAccountFactory. Its own nonces keep these addresses fixed whatever the
 * other deployers add.
 */
export const walletDeployerIndex = 16

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const entryPoint = entryPointJson as unknown as PublishedArtifact
const agentAccountFactory = agentAccountFactoryJson as unknown as Artifact

/** The addresses of the agent-wallet contracts, which follow from the wallet deployer's nonces 0 and 1. */
export function walletContracts(parameters: walletContracts.Parameters): walletContracts.ReturnType {
  const { deployer } = parameters
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) })
  return { entryPoint: at(0), accountFactory: at(1) }
}

export declare namespace walletContracts {
  type Parameters = {
    /** The wallet deployer's address. */
    deployer: Address
  }
  type ReturnType = {
    /** EntryPoint v0.7 from `@account-abstraction/contracts@0.7.0` (nonce 0). */
    entryPoint: Address
    /** AgentAccountFactory (`contracts/AgentAccount.sol`) bound to that EntryPoint (nonce 1). */
    accountFactory: Address
  }
}

/** Deploys the EntryPoint and the AgentAccountFactory from the wallet deployer, which must hold ETH. */
export async function seedWallet(parameters: seedWallet.Parameters): Promise<void> {
  const { account, chainId, request } = parameters
  const addresses = walletContracts({ deployer: account.address })
  const transactions: { data: Hex }[] = [
    { data: entryPoint.bytecode },
    {
      data: encodeDeployData({
        abi: agentAccountFactory.abi,
        bytecode: agentAccountFactory.bytecode,
        args: [addresses.entryPoint],
      }),
    },
  ]
  await sendInOrder({ account, chainId, request, transactions, label: 'Agent-wallet deployment' })
}

export declare namespace seedWallet {
  type Parameters = {
    /** The wallet deployer ({@link walletDeployerIndex}), with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
  }
}
