import { expect } from 'bun:test'
import { createWalletClient, parseAbi, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../../adapters/chain/devnet.js'
import type { paidGateway } from './paid.js'

/** The setters of the devnet's `PriceFeed` contract. */
export const feedAbi = parseAbi(['function setAnswer(int256)', 'function setAnswerAt(int256, uint256)'])

/**
 * Sets the devnet feeds of `gateway` from the deployer (their owner): `set(symbol, usd)` starts a round with `usd`
 * (8 decimals; a leading `-` for a negative answer), updated now or as of `updatedAt` (seconds), and waits for it.
 */
export function feedSetter(gateway: Awaited<ReturnType<typeof paidGateway>>) {
  const owner = createWalletClient({
    account: mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }),
    chain: gateway.devnet.chain,
    transport: gateway.devnet.transport,
  })
  return async function set(symbol: string, usd: string, updatedAt?: number) {
    const address = gateway.devnet.priceFeeds[symbol]!
    const answer = usd.startsWith('-') ? -parseUnits(usd.slice(1), 8) : parseUnits(usd, 8)
    const hash =
      updatedAt === undefined
        ? await owner.writeContract({
            address,
            abi: feedAbi,
            functionName: 'setAnswer',
            args: [answer],
            account: owner.account,
            chain: gateway.devnet.chain,
          })
        : await owner.writeContract({
            address,
            abi: feedAbi,
            functionName: 'setAnswerAt',
            args: [answer, BigInt(updatedAt)],
            account: owner.account,
            chain: gateway.devnet.chain,
          })
    const receipt = await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
  }
}
