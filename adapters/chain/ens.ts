import {
  type Account,
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  concat,
  encodeFunctionData,
  getAddress,
  type Hash,
  type Hex,
  isAddress,
  keccak256,
  labelhash,
  type PublicClient,
  parseAbi,
  type Transport,
  type WalletClient,
  zeroHash,
} from 'viem'
import { getEnsAddress, getEnsName } from 'viem/ens'
import type { NameService, Primary } from '../../core/NameService.js'

/**
 * A name service read through a Universal Resolver with viem's own ENS actions (`getEnsAddress`, which calls
 * `resolveWithGateways`, and `getEnsName`, which calls `reverseWithGateways`): ENS's on Ethereum (viem's
 * `ensUniversalResolver` of the client's chain, with CCIP-read through the client), or ours on a devnet.
 * Basenames (`*.base.eth`) resolve through the same resolver with Base's coin type: ENS's `base.eth` resolver
 * answers them from Base by CCIP-read.
 */
export function ens(parameters: ens.Parameters): NameService {
  const { client, chainId, source, universalResolver } = parameters
  const at = universalResolver ? { universalResolverAddress: universalResolver } : {}

  async function address({ name, coinType }: { name: string; coinType: bigint }): Promise<Address | null> {
    const resolved = await getEnsAddress(client, { name, coinType, ...at })
    return resolved === null ? null : getAddress(resolved)
  }

  return {
    chainId,
    source,
    address,
    async primaryName({ address: lookup, coinType }): Promise<Primary> {
      let name: string | null
      try {
        // Strict, so that a reverse record whose name does not resolve back is seen (ReverseAddressMismatch)
        // rather than answered as no name.
        name = await getEnsName(client, { address: lookup, coinType, strict: true, ...at })
      } catch (error) {
        const revert = revertOf(error)
        if (revert?.errorName === 'ReverseAddressMismatch') {
          const [claimed, resolved] = revert.args as readonly [string, `0x${string}`]
          return { status: 'unverified', claimed, resolvesTo: isAddress(resolved) ? getAddress(resolved) : null }
        }
        if (revert && noRecordErrors.has(revert.errorName)) return { status: 'none' }
        throw error
      }
      if (!name) return { status: 'none' }
      // Checked here as well: a resolver that skipped the check must not hand out a name that points elsewhere.
      const forward = await address({ name, coinType })
      if (forward?.toLowerCase() !== lookup.toLowerCase())
        return { status: 'unverified', claimed: name, resolvesTo: forward }
      return { status: 'verified', name }
    },
  }
}

export declare namespace ens {
  type Parameters = {
    /** Reads the chain holding the registry. */
    client: PublicClient
    /** Its EIP-155 id. */
    chainId: number
    /** Where names are read, for answers, e.g. `ens`. */
    source: string
    /** The Universal Resolver. @default viem's `ensUniversalResolver` of the client's chain */
    universalResolver?: Address | undefined
  }
}

/** Universal Resolver errors that mean "no such record" (viem's `isNullUniversalResolverError`, without the mismatch). */
const noRecordErrors = new Set([
  'HttpError',
  'ResolverError',
  'ResolverNotContract',
  'ResolverNotFound',
  'UnsupportedResolverProfile',
])

function revertOf(error: unknown): { errorName: string; args: readonly unknown[] } | undefined {
  if (!(error instanceof BaseError)) return undefined
  const cause = error.walk((candidate) => candidate instanceof ContractFunctionRevertedError)
  if (!(cause instanceof ContractFunctionRevertedError) || !cause.data) return undefined
  return { errorName: cause.data.errorName, args: cause.data.args ?? [] }
}

/** The functions of our registry, resolver and reverse registrar (`contracts/NameService.sol`) that registration calls. */
export const nameServiceAbi = parseAbi([
  'function setSubnodeOwner(bytes32 node, bytes32 label, address owner) returns (bytes32)',
  'function setResolver(bytes32 node, address resolver)',
  'function owner(bytes32 node) view returns (address)',
  'function setAddr(bytes32 node, uint256 coinType, bytes a)',
  'function setName(string name) returns (bytes32)',
])

/**
 * Registers `name` on a devnet's registry as `owner`, who must own the root (the devnet's deployer): every level of
 * the name becomes `owner`'s, its resolver the public resolver, and its address on `coinType` `address`. Resolves
 * with the hashes of the transactions, in order.
 */
export async function register(parameters: register.Parameters): Promise<Hash[]> {
  const { client, wallet, contracts, name, address, coinType } = parameters
  const send = sender(client, wallet)
  let node: Hex = zeroHash
  const hashes: Hash[] = []
  for (const label of name.split('.').reverse()) {
    const args = [node, labelhash(label), wallet.account.address] as const
    hashes.push(await send(contracts.registry, encodeFunctionData({ abi, functionName: 'setSubnodeOwner', args })))
    node = keccak256(concat([node, labelhash(label)]))
  }
  const resolver = encodeFunctionData({ abi, functionName: 'setResolver', args: [node, contracts.resolver] })
  hashes.push(await send(contracts.registry, resolver))
  const record = encodeFunctionData({ abi, functionName: 'setAddr', args: [node, coinType, address] })
  hashes.push(await send(contracts.resolver, record))
  return hashes
}

export declare namespace register {
  type Parameters = {
    /** Reads the devnet (receipts). */
    client: PublicClient
    /** Sends as the owner of the registry's root. */
    wallet: WalletClient<Transport, Chain, Account>
    /** The devnet's name-service contracts. */
    contracts: {
      /** EIP-137 registry. */
      registry: Address
      /** Public resolver. */
      resolver: Address
    }
    /** Normalized name, e.g. `alice.eth`. */
    name: string
    /** The address it resolves to. */
    address: Address
    /** ENSIP-11 coin type of the record: 60 for Ethereum. */
    coinType: bigint
  }
}

/** Sets the primary name (reverse record under `addr.reverse`) of the wallet's account to `name`. */
export async function setPrimaryName(parameters: setPrimaryName.Parameters): Promise<Hash> {
  const { client, wallet, reverseRegistrar, name } = parameters
  return sender(client, wallet)(reverseRegistrar, encodeFunctionData({ abi, functionName: 'setName', args: [name] }))
}

export declare namespace setPrimaryName {
  type Parameters = {
    /** Reads the devnet (receipts). */
    client: PublicClient
    /** Sends as the account whose primary name is set. */
    wallet: WalletClient<Transport, Chain, Account>
    /** The devnet's reverse registrar. */
    reverseRegistrar: Address
    /** The name, as written (a primary name is only valid when normalized and resolving back). */
    name: string
  }
}

/** The functions of our registry, resolver and reverse registrar (`contracts/NameService.sol`) that registration calls. */
const abi = parseAbi([
  'function setSubnodeOwner(bytes32 node, bytes32 label, address owner) returns (bytes32)',
  'function setResolver(bytes32 node, address resolver)',
  'function setAddr(bytes32 node, uint256 coinType, bytes a)',
  'function setName(string name) returns (bytes32)',
])

/** Sends one transaction as the wallet's account and waits for it; a revert throws. */
function sender(client: PublicClient, wallet: WalletClient<Transport, Chain, Account>) {
  return async (to: Address, data: Hex): Promise<Hash> => {
    const hash = await wallet.sendTransaction({ to, data })
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`The transaction ${hash} to ${to} reverted.`)
    return hash
  }
}
