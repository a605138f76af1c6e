import {
  type Address,
  BaseError,
  type Chain,
  createWalletClient,
  erc20Abi,
  type Hash,
  type LocalAccount,
  type PublicClient,
  parseSignature,
  type Transport,
} from 'viem'
import type { Outcome } from '../../core/Facilitator.js'
import * as Permit2 from '../../core/Permit2.js'
import * as Upto from '../../core/Upto.js'
import { isNonceError, isTransportFault } from '../facilitator/local.js'
import permit2Json from './contracts/artifacts/Permit2.json' with { type: 'json' }
import proxyJson from './contracts/artifacts/X402UptoPermit2Proxy.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const permit2 = permit2Json as unknown as Artifact
const proxy = proxyJson as unknown as Artifact

/** The ABI of our Permit2 (`contracts/Permit2.sol`), the signature-transfer half of Uniswap's. */
export const permit2Abi = permit2.abi

/** The ABI of our `upto` proxy (`contracts/X402UptoPermit2Proxy.sol`), the ABI of x402's. */
export const uptoProxyAbi = proxy.abi

/** Our compatible contracts' runtime code at the canonical addresses, for the devnet's genesis. */
export const uptoContractsGenesis = [
  { address: Permit2.address, code: permit2.deployedBytecode },
  { address: Upto.proxyAddress, code: proxy.deployedBytecode },
] as const

/**
 * The `upto` contracts through the facilitator's relayer key, which is also the `facilitator` every permit names:
 * the proxy takes settlements from that address only, so they are sent from it directly, one at a time (never through
 * a Multicall3 batch, whose sender would be the batch contract). Every gateway process settles as the same address,
 * so that a permit offered by one can be settled by any; a send that loses its nonce to another is sent again.
 */
export function uptoChain(parameters: uptoChain.Parameters): uptoChain.ReturnType {
  const { client, chain, transport, relayer, confirmations = 1 } = parameters
  const wallet = createWalletClient({ account: relayer, chain, transport })

  /** The proxy call that settles `amount` of `permit`: `settleWithPermit` when it carries an EIP-2612 approval. */
  function call(permit: Upto.Permit, amount: bigint) {
    const transfer = {
      permitted: { token: permit.token, amount: permit.max },
      nonce: permit.nonce,
      deadline: permit.deadline,
    }
    const witness = { to: permit.to, facilitator: permit.facilitator, validAfter: permit.validAfter }
    if (!permit.approval)
      return {
        address: Upto.proxyAddress,
        abi: uptoProxyAbi,
        functionName: 'settle',
        args: [transfer, amount, permit.owner, witness, permit.signature],
      } as const
    const { r, s, v, yParity } = parseSignature(permit.approval.signature)
    return {
      address: Upto.proxyAddress,
      abi: uptoProxyAbi,
      functionName: 'settleWithPermit',
      args: [
        { value: permit.max, deadline: permit.approval.deadline, r, s, v: Number(v ?? BigInt(yParity + 27)) },
        transfer,
        amount,
        permit.owner,
        witness,
        permit.signature,
      ],
    } as const
  }

  /** Whether Permit2 has marked the permit's nonce used. */
  async function used(owner: Address, nonce: bigint): Promise<boolean> {
    const word = await client.readContract({
      address: Permit2.address,
      abi: permit2Abi,
      functionName: 'nonceBitmap',
      args: [owner, nonce >> 8n],
    })
    return (((word as bigint) >> (nonce & 0xffn)) & 1n) === 1n
  }

  // One transaction at a time: the relayer's nonce never races within the process.
  let queue: Promise<unknown> = Promise.resolve()

  return {
    facilitator: relayer.address,
    used,
    async outcome(permit, transaction, now) {
      if (transaction) {
        const receipt = await client.getTransactionReceipt({ hash: transaction }).catch(() => undefined)
        if (receipt?.status === 'success') return { state: 'settled', transaction }
      }
      // Unused once the deadline passed: Permit2 refuses it from now on, so nothing moved and nothing can.
      if (permit.deadline * 1000n <= BigInt(now.getTime()) && !(await used(permit.owner, permit.nonce)))
        return { state: 'expired' }
      return { state: 'unknown' }
    },
    async check(permit) {
      const [allowance, balance, nonceUsed] = await Promise.all([
        client.readContract({
          address: permit.token,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [permit.owner, Permit2.address],
        }),
        client.readContract({ address: permit.token, abi: erc20Abi, functionName: 'balanceOf', args: [permit.owner] }),
        used(permit.owner, permit.nonce),
      ])
      if (nonceUsed)
        return {
          ok: false,
          reason: 'replayed',
          message: `Permit2 nonce ${permit.nonce} of ${permit.owner} is already used.`,
        }
      if (allowance < permit.max && !permit.approval)
        return {
          ok: false,
          reason: 'allowance_required',
          message: `${permit.owner} allows Permit2 ${allowance} of the token, less than the ${permit.max} authorized: approve Permit2 once, or sign an EIP-2612 permit (eip2612GasSponsoring).`,
        }
      if (balance < permit.max)
        return {
          ok: false,
          reason: 'insufficient_funds',
          message: `${permit.owner} holds ${balance}, the permit authorizes up to ${permit.max}.`,
        }
      // The worst case, as the relayer would send it: the whole authorized amount.
      try {
        await client.simulateContract({ ...call(permit, permit.max), account: relayer } as never)
      } catch (error) {
        return { ok: false, reason: 'invalid_signature', message: `The settlement would revert: ${describe(error)}` }
      }
      return { ok: true, balance }
    },
    settle(permit, amount, onSubmitted) {
      const run = async (): Promise<Outcome<{ transaction: Hash }>> => {
        let hash: Hash
        for (let attempt = 0; ; attempt++) {
          try {
            hash = await wallet.writeContract(call(permit, amount) as never)
            break
          } catch (error) {
            // A lost connection may have carried the transaction out: the outcome is unknown, which is a fault.
            if (isTransportFault(error)) throw error
            // Other processes settle from the same facilitator address: one of them took the nonce.
            if (attempt < 2 && isNonceError(error)) continue
            return { ok: false, reason: 'settlement_failed', message: `Submission failed: ${describe(error)}` }
          }
        }
        onSubmitted?.(hash)
        const receipt = await client.waitForTransactionReceipt({ hash, confirmations, pollingInterval: 250 })
        if (receipt.status !== 'success')
          return { ok: false, reason: 'settlement_failed', message: `Transaction ${hash} reverted.` }
        return { ok: true, transaction: hash }
      }
      const result = queue.then(run, run)
      queue = result.catch(() => undefined)
      return result
    },
  }
}

export declare namespace uptoChain {
  type Parameters = {
    /** Reads and waits for receipts. */
    client: PublicClient
    /** The chain the relayer sends on. */
    chain: Chain
    /** Transport of the relayer's wallet. */
    transport: Transport
    /** Sends the settlements; its address is the `facilitator` of every permit offered. */
    relayer: LocalAccount
    /** Blocks to wait for. @default 1 */
    confirmations?: number | undefined
  }
  type ReturnType = Upto.UptoChain
}

/** One line of what went wrong, without a node's URL. */
function describe(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.name : 'unknown error'
}
