import {
  type Address,
  type Chain,
  createWalletClient,
  decodeAbiParameters,
  type Hash,
  type Hex,
  hashTypedData,
  type LocalAccount,
  type PublicClient,
  type Transport,
} from 'viem'
import { type RecoverPublicKey, recoverDigest } from '../../core/Authorization.js'
import {
  type ChannelChain,
  type Claim,
  type Config,
  contractAddress,
  domainOf,
  permit2CollectorAddress,
  voucherDigest,
} from '../../core/Channel.js'
import collectorJson from './contracts/artifacts/ERC3009DepositCollector.json' with { type: 'json' }
import permit2CollectorJson from './contracts/artifacts/Permit2DepositCollector.json' with { type: 'json' }
import settlementJson from './contracts/artifacts/X402BatchSettlement.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const settlement = settlementJson as unknown as Artifact
const collector = collectorJson as unknown as Artifact
const permit2Collector = permit2CollectorJson as unknown as Artifact

/** x402's canonical batch-settlement contract (CREATE2, the same on every chain). */
export const batchSettlementAddress: Address = contractAddress
/** x402's canonical ERC-3009 deposit collector. */
export const erc3009CollectorAddress: Address = '0x4020806089470a89826cB9fB1f4059150b550004'

/** Our compatible contracts' runtime code at the canonical addresses, for the devnet's genesis. */
export const channelContractsGenesis = [
  { address: batchSettlementAddress, code: settlement.deployedBytecode },
  { address: erc3009CollectorAddress, code: collector.deployedBytecode },
  { address: permit2CollectorAddress, code: permit2Collector.deployedBytecode },
] as const

/** Mnemonic index (m/44'/60'/0'/0/20) of the devnet's receiver authorizer; it signs, never sends. */
export const channelAuthorizerIndex = 20

/** Mnemonic index of the devnet account that relays the channel transactions of lease `slot` (21 to 27). */
export function channelRelayerIndex(slot: number): number | undefined {
  return slot <= 6 ? 21 + slot : undefined
}

/** Every devnet index the channels use, funded with ether at genesis. */
export const channelDevnetIndices = [channelAuthorizerIndex, 21, 22, 23, 24, 25, 26, 27] as const

const configComponents = [
  { name: 'payer', type: 'address' },
  { name: 'payerAuthorizer', type: 'address' },
  { name: 'receiver', type: 'address' },
  { name: 'receiverAuthorizer', type: 'address' },
  { name: 'token', type: 'address' },
  { name: 'withdrawDelay', type: 'uint40' },
  { name: 'salt', type: 'bytes32' },
] as const

/** The collector data of each deposit method, as the x402 SDK encodes it. */
const collectorDataOf = {
  eip3009: [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
  permit2: [{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes' }],
} as const

/**
 * The channel contract through a relayer key (sends, one transaction at a time, each waited for) and the receiver
 * authorizer key (signs claim batches and refunds). Each process needs its own relayer, or their nonces collide.
 */
export function channelChain(parameters: channelChain.Parameters): ChannelChain {
  const { client, chain, transport, relayer, authorizer, token, receiver, recoverPublicKey } = parameters
  const wallet = createWalletClient({ chain, transport })
  const domain = domainOf(chain.id)
  const abi = settlement.abi

  // One transaction at a time: the relayer's nonce never races within the process.
  let queue: Promise<unknown> = Promise.resolve()
  function send(functionName: string, args: readonly unknown[]): Promise<Hash> {
    const run = async () => {
      // Asked for each transaction: a process whose lease moved to another slot relays with that slot's key.
      const account = typeof relayer === 'function' ? await relayer() : relayer
      const hash = await wallet.writeContract({
        account,
        address: batchSettlementAddress,
        abi,
        functionName,
        args,
      } as never)
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 250 })
      if (receipt.status !== 'success') throw new Error(`${functionName} transaction ${hash} reverted.`)
      return hash
    }
    const result = queue.then(run, run)
    queue = result.catch(() => undefined)
    return result
  }

  const toStruct = (config: Config) => ({ ...config, withdrawDelay: config.withdrawDelay })
  // Every paid call names its channel by config; the id is hashed once per config.
  const ids = new Map<string, Hex>()
  const channelId = (config: Config): Hex => {
    const key = JSON.stringify([
      config.payer,
      config.payerAuthorizer,
      config.receiver,
      config.receiverAuthorizer,
      config.token,
      config.withdrawDelay,
      config.salt,
    ]).toLowerCase()
    const known = ids.get(key)
    if (known) return known
    const id = hashTypedData({
      domain,
      types: { ChannelConfig: configComponents },
      primaryType: 'ChannelConfig',
      message: toStruct(config),
    }).toLowerCase() as Hex
    if (ids.size >= 10_000) ids.clear()
    ids.set(key, id)
    return id
  }

  return {
    authorizer: authorizer.address,
    channelId,
    async verifyVoucher(config, voucher) {
      const signer = /^0x0{40}$/i.test(config.payerAuthorizer) ? config.payer : config.payerAuthorizer
      const maxClaimableAmount = BigInt(voucher.maxClaimableAmount)
      const digest = voucherDigest(domain, voucher.channelId, maxClaimableAmount)
      const recovered = recoverDigest(digest, voucher.signature, { recoverPublicKey })
      if (recovered?.toLowerCase() === signer.toLowerCase()) return true
      // A signer that is a contract (ERC-1271) or a wallet not deployed yet (ERC-6492 wraps the signature): the chain
      // answers. A plain signature of an address without code was just refused by the recovery.
      if (voucher.signature.length <= 132 && !(await client.getCode({ address: signer }))) return false
      return client
        .verifyTypedData({
          address: signer,
          domain,
          types: {
            Voucher: [
              { name: 'channelId', type: 'bytes32' },
              { name: 'maxClaimableAmount', type: 'uint128' },
            ],
          },
          primaryType: 'Voucher',
          message: { channelId: voucher.channelId, maxClaimableAmount },
          signature: voucher.signature,
        })
        .catch(() => false)
    },
    async read(id) {
      const read = (functionName: string, args: readonly unknown[]) =>
        client.readContract({ address: batchSettlementAddress, abi, functionName, args } as never) as Promise<unknown>
      const [money, pending, nonce] = (await Promise.all([
        read('channels', [id]),
        read('pendingWithdrawals', [id]),
        read('refundNonce', [id]),
      ])) as [[bigint, bigint], [bigint, number], bigint]
      return {
        balance: money[0],
        totalClaimed: money[1],
        withdrawRequestedAt: Number(pending[1]),
        refundNonce: nonce,
      }
    },
    async deposit({ config, amount, method, collectorData }) {
      // The collector data must decode as the SDK builds it; anything else is refused before a transaction.
      decodeAbiParameters(collectorDataOf[method], collectorData)
      const collectorAddress = method === 'permit2' ? permit2CollectorAddress : erc3009CollectorAddress
      return send('deposit', [toStruct(config), amount, collectorAddress, collectorData])
    },
    async claim(claims: readonly Claim[]) {
      const signature = await authorizer.signTypedData({
        domain,
        types: {
          ClaimBatch: [{ name: 'claims', type: 'ClaimEntry[]' }],
          ClaimEntry: [
            { name: 'channelId', type: 'bytes32' },
            { name: 'maxClaimableAmount', type: 'uint128' },
            { name: 'totalClaimed', type: 'uint128' },
          ],
        },
        primaryType: 'ClaimBatch',
        message: {
          claims: claims.map((claim) => ({
            channelId: channelId(claim.config),
            maxClaimableAmount: claim.maxClaimableAmount,
            totalClaimed: claim.totalClaimed,
          })),
        },
      })
      const voucherClaims = claims.map((claim) => ({
        voucher: { channel: toStruct(claim.config), maxClaimableAmount: claim.maxClaimableAmount },
        signature: claim.signature,
        totalClaimed: claim.totalClaimed,
      }))
      return send('claimWithSignature', [voucherClaims, signature])
    },
    async settle() {
      const [claimed, settled] = (await client.readContract({
        address: batchSettlementAddress,
        abi,
        functionName: 'receivers',
        args: [receiver, token],
      } as never)) as [bigint, bigint]
      if (claimed <= settled) return undefined
      return send('settle', [receiver, token])
    },
    async refund({ config, amount, nonce }) {
      const signature = await authorizer.signTypedData({
        domain,
        types: {
          Refund: [
            { name: 'channelId', type: 'bytes32' },
            { name: 'nonce', type: 'uint256' },
            { name: 'amount', type: 'uint128' },
          ],
        },
        primaryType: 'Refund',
        message: { channelId: channelId(config), nonce, amount },
      })
      return send('refundWithSignature', [toStruct(config), amount, nonce, signature])
    },
  }
}

export declare namespace channelChain {
  type Parameters = {
    /** Reads and receipts. */
    client: PublicClient
    /** The settlement chain. */
    chain: Chain
    /** Its transport, for the relayer's wallet. */
    transport: Transport
    /** Sends the channel transactions (needs ether only), or a function asked for it before each one. */
    relayer: LocalAccount | (() => Promise<LocalAccount>)
    /** The receiver authorizer: signs claim batches and refunds. */
    authorizer: LocalAccount
    /** The payment token. */
    token: Address
    /** The receiver (the gateway's payee). */
    receiver: Address
    /** secp256k1 public-key recovery for vouchers (native where installed). @default the pure-JS one */
    recoverPublicKey?: RecoverPublicKey | undefined
  }
}
