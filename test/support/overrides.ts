import { type Address, createPublicClient, custom, type Hex, type PublicClient } from 'viem'
import type { devnet } from '../../adapters/chain/devnet.js'

/** One account's override in `eth_estimateGas`'s third parameter, as geth and reth take it. */
type AccountOverride = { balance?: Hex; stateDiff?: Record<Hex, Hex> }

/**
 * A viem public client on the devnet whose `eth_estimateGas` honours a state override (`stateDiff` and `balance`)
 * the way geth and reth do. EDR refuses the third parameter, so the override is written into the real devnet state
 * inside an `evm_snapshot` / `evm_revert` pair around a plain estimate: the gas still comes from EDR executing the
 * call, nothing is made up. Requests through this client run one at a time, so no other request of it lands inside
 * the window; tests must not send transactions through other clients while an estimate runs.
 */
export function withEstimateOverrides(chain: devnet.Devnet): PublicClient {
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <value>(run: () => Promise<value>): Promise<value> => {
    const result = queue.then(run, run)
    queue = result.catch(() => undefined)
    return result
  }

  async function estimate(params: unknown[]): Promise<unknown> {
    const [transaction, block = 'latest', overrides] = params as [unknown, string?, Record<Address, AccountOverride>?]
    if (!overrides) return chain.request('eth_estimateGas', [transaction, block])
    const snapshot = await chain.request('evm_snapshot')
    try {
      for (const [address, override] of Object.entries(overrides)) {
        if (override.balance !== undefined) await chain.request('hardhat_setBalance', [address, override.balance])
        for (const [slot, value] of Object.entries(override.stateDiff ?? {}))
          await chain.request('hardhat_setStorageAt', [address, slot, value])
      }
      return await chain.request('eth_estimateGas', [transaction, 'latest'])
    } finally {
      await chain.request('evm_revert', [snapshot])
    }
  }

  const transport = custom(
    {
      request: ({ method, params }) =>
        serial(() =>
          method === 'eth_estimateGas' ? estimate(params as unknown[]) : chain.request(method, params as unknown[]),
        ),
    },
    { retryCount: 0 },
  )
  return createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 }) as PublicClient
}
