import { ed25519 } from '@noble/curves/ed25519'
import {
  type Address,
  type Hash,
  type Hex,
  isHex,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem'
import * as ContractCall from './ContractCall.js'
import { NotFoundError, RpcCallFailedError, UpstreamFailedError } from './Errors.js'
import * as EvmChain from './EvmChain.js'
import { base58, decode } from './internal/baseEncoding.js'
import * as Rpc from './Rpc.js'
import type { Record, Store } from './Store.js'
import * as Upstream from './Upstream.js'

/**
 * Custodial wallets: keys a server-wallet vendor holds (Phantom's server wallets, as the original gateway planned),
 * never this gateway. A wallet belongs to the address that created it, by a signed request; only that address lists,
 * reads, signs or sends with it, and to anyone else it does not exist (404). A transaction is simulated on the chain,
 * signed by the vendor, checked to be exactly the one simulated and signed by the wallet's key, then sent by the
 * gateway to its own node.
 */

/** A wallet's addresses, one per key the vendor derived. */
export type Addresses = {
  /** The EVM key's address, the same on every EVM chain; `null` when the vendor derived none. */
  evm: Address | null
  /** The Solana key's address (Base58); `null` when the vendor derived none. */
  solana: string | null
}

/** The key a message is signed with. */
export type Family = 'evm' | 'solana'

/** A server-wallet vendor: it creates wallets, derives their addresses and signs with their keys, which never leave it. */
export type Custodian = {
  /** Name of the vendor, shown to callers, e.g. `phantom`. */
  name: string
  /** Creates a wallet named `name`: its vendor id and addresses. */
  create: (parameters: { name: string }) => Promise<Upstream.Outcome<{ walletId: string; addresses: Addresses }>>
  /** The addresses of wallet `walletId`, as the vendor derives them now. */
  addresses: (parameters: { walletId: string }) => Promise<Upstream.Outcome<{ addresses: Addresses }>>
  /**
   * Signs a UTF-8 `message`: with the EVM key as EIP-191 `personal_sign` (a 65-byte hex signature), or with the
   * Solana key as Ed25519 over its bytes (a Base58 signature).
   */
  signMessage: (parameters: {
    walletId: string
    message: string
    family: Family
  }) => Promise<Upstream.Outcome<{ signature: string }>>
  /** Signs an unsigned serialized EVM transaction of chain `chainId` with the EVM key; nothing is sent. */
  signTransaction: (parameters: {
    walletId: string
    chainId: number
    transaction: Hex
  }) => Promise<Upstream.Outcome<{ signed: Hex }>>
  /** Whether calls may start now (checked before payment). */
  available: () => Upstream.Availability
}

/** Store collection of the wallets, by vendor wallet id, owned by their creator. */
export const collection = 'custodial_wallets'

/** Store collection of the nonces of signed create requests, `owner:nonce`. */
export const noncesCollection = 'custodial_wallet_nonces'

/** A wallet as the gateway keeps it: the vendor's id and addresses, and who may use it. */
export type Wallet = {
  /** The vendor's id of the wallet. */
  walletId: string
  /** The vendor that holds its keys, e.g. `phantom`. */
  vendor: string
  /** The address that created it, its only user. */
  owner: Address
  /** Its name at the vendor. */
  name: string
  /** Its label, as the original gateway keeps one. */
  label: string
  /** Its addresses at creation. */
  addresses: Addresses
  /** When it last signed or sent (ISO 8601); `null` before. */
  lastActive: string | null
  /** Transactions sent from it through this gateway. */
  totalTransactions: number
}

/** The wallet `walletId` when `caller` owns it; anyone else's, or none, is the same 404. */
export async function owned(parameters: { store: Store; walletId: string; caller: Address }): Promise<Record<Wallet>> {
  const { store, walletId, caller } = parameters
  const record = await store.get<Wallet>(collection, walletId)
  if (!record?.owners.some((owner) => owner.toLowerCase() === caller.toLowerCase()))
    throw new NotFoundError(`No wallet ${walletId} of ${caller}.`, { details: { field: 'walletId' } })
  return record
}

/**
 * The EVM chains the original gateway names in a wallet's `addresses`, each with the wallet's one EVM address (its
 * note: "EVM address works across all EVM chains").
 */
export const evmChains = ['ethereum', 'base', 'polygon', 'arbitrum', 'bnb', 'avalanche', 'unichain', 'plasma', 'bob']

/** A wallet's addresses as the original gateway answers them: `solana`, then each of {@link evmChains}. */
export function addressesOf(addresses: Addresses): { [chain: string]: string | null } {
  return { solana: addresses.solana, ...Object.fromEntries(evmChains.map((chain) => [chain, addresses.evm])) }
}

/** The EIP-712 domain of a create request on the settlement chain `chainId`. */
export function domain(chainId: number) {
  return { name: 'x402 Gateway Wallets', version: '1', chainId } as const
}

/** The EIP-712 types of a create request: the owner and what the wallet will be called, then the envelope. */
export const types = {
  CreateWallet: [
    { name: 'owner', type: 'address' },
    { name: 'name', type: 'string' },
    { name: 'label', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint64' },
  ],
} as const

/** The typed data `owner` signs to create a wallet (eth_signTypedData_v4). */
export function createTypedData(parameters: createTypedData.Parameters) {
  const { chainId, request } = parameters
  return {
    domain: domain(chainId),
    types,
    primaryType: 'CreateWallet' as const,
    message: {
      owner: request.owner,
      name: request.name,
      label: request.label,
      nonce: BigInt(request.nonce),
      expiry: BigInt(request.expiry),
    },
  }
}

export declare namespace createTypedData {
  type Parameters = {
    /** EIP-155 id of the settlement chain. */
    chainId: number
    /** The request: its owner, name and label, and the envelope. */
    request: { owner: Address; name: string; label: string; nonce: string; expiry: number }
  }
}

/** Solana mainnet's CAIP-2 id. */
export const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

/** A network a call names: an EVM chain (by registry name, when it has one) or Solana. */
export type Network =
  | {
      /** An EVM chain. */
      family: 'evm'
      /** Its EIP-155 id. */
      chainId: number
      /** Its name in the chain registry, when it is one of its chains. */
      name: EvmChain.Name | undefined
    }
  | {
      /** A Solana cluster. */
      family: 'solana'
    }

/**
 * The network `spelling` names, any case: a CAIP-2 id (`eip155:8453`, `solana:5eykt...`), a registry chain or one of
 * the original gateway's names of it (`base`, `base-mainnet`, `eth`), or `solana` / `solana-mainnet` /
 * `solana-devnet`; `undefined` for anything else.
 */
export function networkOf(spelling: string): Network | undefined {
  const value = spelling.trim().toLowerCase()
  if (/^solana(:[1-9a-z]{1,44}|-mainnet|-devnet|-testnet)?$/.test(value)) return { family: 'solana' }
  const caip2 = /^eip155:([1-9][0-9]{0,15})$/.exec(value)
  if (caip2) {
    const chainId = Number(caip2[1])
    return { family: 'evm', chainId, name: EvmChain.registry.find((entry) => entry.chainId === chainId)?.name }
  }
  const name = EvmChain.nameOf(value)
  return name === undefined ? undefined : { family: 'evm', chainId: EvmChain.find(name)!.chainId, name }
}

/**
 * Whether `signature` is `address`'s signature of `message`: EIP-191 `personal_sign` recovering to the EVM address, or
 * Ed25519 over the message's UTF-8 bytes by the Solana key. A vendor's signature is checked before it is answered.
 */
export async function verifyMessage(parameters: verifyMessage.Parameters): Promise<boolean> {
  const { family, address, message, signature } = parameters
  try {
    if (family === 'evm') {
      if (!isHex(signature)) return false
      return (await recoverMessageAddress({ message, signature })).toLowerCase() === address.toLowerCase()
    }
    const key = decode(base58, address)
    const bytes = decode(base58, signature)
    return key !== undefined && bytes !== undefined && ed25519.verify(bytes, new TextEncoder().encode(message), key)
  } catch {
    return false
  }
}

export declare namespace verifyMessage {
  type Parameters = {
    /** Which key signed. */
    family: Family
    /** Its address (0x for EVM, Base58 for Solana). */
    address: string
    /** The text signed. */
    message: string
    /** The signature: 65 bytes 0x-hex (EVM) or Base58 (Solana). */
    signature: string
  }
}

/** Margin on a measured gas estimate, as the original's contract/write adds: +20%. */
export const gasMarginPercent = 20n

/** A transaction sent from a wallet, as the gateway built, checked and sent it. */
export type Sent = {
  /** Its hash. */
  hash: Hash
  /** The wallet's EVM address, which signed it. */
  from: Address
  /** Its nonce. */
  nonce: number
  /** Its gas limit. */
  gasLimit: bigint
  /** Gas `eth_estimateGas` measured for it. */
  gasEstimate: bigint
  /** Its EIP-1559 fee cap per gas, in wei. */
  maxFeePerGas: bigint
  /** Its EIP-1559 tip per gas, in wei. */
  maxPriorityFeePerGas: bigint
  /** What the call returned in simulation. */
  returnData: Hex
}

/**
 * Sends `call` from `wallet` on the broadcaster's chain: simulated and measured on `endpoint` (a revert is the 400 of
 * {@link ContractCall.refused}), built as an EIP-1559 transaction at the wallet's pending nonce, signed by the
 * vendor, checked (the signed transaction must be exactly the one built, signed by the wallet's EVM address), then
 * sent. A failure before sending throws and nothing moves; the vendor never sends anything itself.
 */
export async function send(parameters: send.Parameters): Promise<Sent> {
  const { custodian, broadcaster, endpoint, wallet, call } = parameters
  const from = wallet.addresses.evm
  if (!from) throw new UpstreamFailedError(`${custodian.name} derived no EVM address for wallet ${wallet.walletId}.`)
  const simulated = await ContractCall.simulate({ endpoint, call: { ...call, from }, estimate: true })
  if (!simulated.ok) throw ContractCall.refused(simulated)
  const gasEstimate = simulated.gas!
  const [nonce, fees] = await Promise.all([
    Rpc.result(endpoint, 'eth_getTransactionCount', [from, 'pending']),
    feesOf(endpoint),
  ])
  const unsigned: TransactionSerializable = {
    type: 'eip1559',
    chainId: broadcaster.chainId,
    nonce: Number(quantityOf(nonce, 'eth_getTransactionCount')),
    to: call.to,
    data: call.data,
    value: call.value ?? 0n,
    gas: call.gas ?? (gasEstimate * (100n + gasMarginPercent)) / 100n,
    ...fees,
  }
  const serialized = serializeTransaction(unsigned)
  const signing = await custodian.signTransaction({
    walletId: wallet.walletId,
    chainId: broadcaster.chainId,
    transaction: serialized,
  })
  if (!signing.ok) throw Upstream.toError(signing)
  await assertSigned({ vendor: custodian.name, signed: signing.signed, unsigned: serialized, from })
  const sent = await broadcaster.send(signing.signed)
  if (Upstream.isFailure(sent)) throw Upstream.toError(sent)
  if (!sent.ok)
    throw new RpcCallFailedError(`The node refused the signed transaction: ${sent.message}`, {
      details: { rpcError: { code: sent.code, message: sent.message } },
    })
  return {
    hash: sent.hash,
    from,
    nonce: unsigned.nonce!,
    gasLimit: unsigned.gas!,
    gasEstimate,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    returnData: simulated.returnData,
  }
}

export declare namespace send {
  type Parameters = {
    /** The vendor holding the wallet's keys. */
    custodian: Custodian
    /** Sends to the chain the transaction is for. */
    broadcaster: Rpc.Broadcaster
    /** The same chain's node, for the simulation, the nonce and the fees. */
    endpoint: Rpc.Endpoint
    /** The wallet sending. */
    wallet: Wallet
    /** What to send. */
    call: {
      /** Recipient or contract. */
      to: Address
      /** Calldata (`0x` for none). */
      data: Hex
      /** Wei sent. @default 0n */
      value?: bigint | undefined
      /** Gas limit; absent, the estimate plus {@link gasMarginPercent}. */
      gas?: bigint | undefined
    }
  }
}

/** The EIP-1559 fees of the next block: a tip, and a cap of twice the latest base fee plus the tip. */
async function feesOf(endpoint: Rpc.Endpoint): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const block = (await Rpc.result(endpoint, 'eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas?: unknown }
  const baseFee = quantityOf(block?.baseFeePerGas, 'the latest block base fee')
  const tipped = await Rpc.attempt(endpoint, 'eth_maxPriorityFeePerGas', [])
  let maxPriorityFeePerGas: bigint
  if ('result' in tipped) maxPriorityFeePerGas = quantityOf(tipped.result, 'eth_maxPriorityFeePerGas')
  else {
    // A node without the method: the tip is what its gas price asks above the base fee.
    const price = quantityOf(await Rpc.result(endpoint, 'eth_gasPrice', []), 'eth_gasPrice')
    maxPriorityFeePerGas = price > baseFee ? price - baseFee : 0n
  }
  return { maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas }
}

/** A JSON-RPC quantity as a bigint; anything else is the node's fault (502). */
function quantityOf(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !isHex(value))
    throw new RpcCallFailedError(`The node answered no quantity for ${what}.`)
  return BigInt(value)
}

/** Refuses (502, nothing sent) a signed transaction that is not `unsigned` signed by `from`. */
async function assertSigned(parameters: { vendor: string; signed: Hex; unsigned: Hex; from: Address }): Promise<void> {
  const { vendor, signed, unsigned, from } = parameters
  let signer: Address | undefined
  let same = false
  try {
    const { r: _r, s: _s, v: _v, yParity: _yParity, ...fields } = parseTransaction(signed)
    same = serializeTransaction(fields as TransactionSerializable).toLowerCase() === unsigned.toLowerCase()
    signer = await recoverTransactionAddress({ serializedTransaction: signed as never })
  } catch {
    // Unreadable: refused below.
  }
  if (!same || signer?.toLowerCase() !== from.toLowerCase())
    throw new UpstreamFailedError(
      `${vendor} answered a signed transaction that is not the one simulated, signed by ${from}; nothing was sent.`,
    )
}
