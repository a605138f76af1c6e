import {
  type Address,
  type Chain,
  createWalletClient,
  getAddress,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type Transport,
  zeroAddress,
} from 'viem'
import * as Escrow from '../../core/Escrow.js'
import type { EscrowArbiter, EscrowChain } from '../../core/EscrowChain.js'

/**
 * The escrow port over `Escrow.sol` through a viem public client: `read` calls the contract's `escrows(id)` view
 * at the latest block.
 */
export function escrowChain(parameters: escrowChain.Parameters): EscrowChain {
  const { client, chainId } = parameters
  const address = getAddress(parameters.address)
  return {
    address,
    chainId,
    async read(id) {
      const record = await client.readContract({ address, abi: Escrow.abi, functionName: 'escrows', args: [id] })
      const status = Escrow.contractStatuses[record.status]
      if (status === undefined)
        throw new Error(`Escrow ${id} on ${address} has status ${record.status}, which this gateway does not know.`)
      if (status === 'none') return undefined
      return {
        status,
        depositor: record.depositor,
        beneficiary: record.beneficiary,
        arbiter: record.arbiter === zeroAddress ? undefined : record.arbiter,
        token: record.token,
        amount: record.amount,
        expiry: record.expiry === 0n ? undefined : record.expiry,
      }
    },
  }
}

export declare namespace escrowChain {
  type Parameters = {
    /** Public client of the chain the contract lives on. */
    client: PublicClient
    /** The escrow contract. */
    address: Address
    /** Chain id of `client`'s chain. */
    chainId: number
  }
}

/** Mnemonic index (m/44'/60'/0'/0/19) of the devnet's escrow arbiter for robot tasks, funded with ETH at genesis. */
export const arbiterIndex = 19

/**
 * The escrow arbiter port: `account` sends `release` and `cancel` to the escrow contract, one transaction at a time
 * so that concurrent settlements of this process never race for its nonce, each simulated before it is sent.
 */
export function escrowArbiter(parameters: escrowArbiter.Parameters): EscrowArbiter {
  const { client, account, chain, transport } = parameters
  const address = getAddress(parameters.address)
  const wallet = createWalletClient({ account, chain, transport })
  let queue: Promise<unknown> = Promise.resolve()
  const send = (functionName: 'release' | 'cancel', id: Hex) => {
    const run = async () => {
      const { request } = await client.simulateContract({
        account,
        address,
        abi: Escrow.abi,
        functionName,
        args: [id],
      })
      const hash = await wallet.writeContract(request)
      const receipt = await client.waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`escrow ${functionName} ${hash} reverted.`)
      return hash
    }
    const next = queue.then(run, run)
    queue = next.catch(() => undefined)
    return next
  }
  return {
    address: account.address,
    release: (id) => send('release', id),
    cancel: (id) => send('cancel', id),
  }
}

export declare namespace escrowArbiter {
  type Parameters = {
    /** Public client of the chain the contract lives on. */
    client: PublicClient
    /** The escrow contract. */
    address: Address
    /** The arbiter's key, with ETH for gas. */
    account: LocalAccount
    /** The chain, for signing. */
    chain: Chain
    /** Transport to send through. */
    transport: Transport
  }
}
