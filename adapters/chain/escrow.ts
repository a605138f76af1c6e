import { type Address, getAddress, type PublicClient, zeroAddress } from 'viem'
import * as Escrow from '../../core/Escrow.js'
import type { EscrowChain } from '../../core/EscrowChain.js'

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
