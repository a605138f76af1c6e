import type { Address } from 'viem'

/** Uniswap's Permit2, at its canonical address (the same on every chain): the spender `upto` payers approve. */
export const address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** The EIP-712 domain of Permit2 on `chainId` (it has no version). */
export function domainOf(chainId: number) {
  return { name: 'Permit2', chainId, verifyingContract: address } as const
}
