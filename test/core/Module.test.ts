import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../core/Errors.js'
import * as Module from '../../core/Module.js'
import type * as Rpc from '../../core/Rpc.js'

/** An endpoint that is never asked anything. */
const endpointOf = (name: string, chainId: number): Rpc.Endpoint => ({
  name,
  chainId,
  request: () => Promise.reject(new Error('not asked')),
})

const onchain = { chainId: 8453 }

describe('settlementEndpoint', () => {
  test('default: the chain whose id is the settlement chain’s', () => {
    const base = endpointOf('base', 8453)
    expect(Module.settlementEndpoint({ chains: [endpointOf('ethereum', 1), base], onchain })).toBe(base)
  })

  test('error: no chain of its id is a configuration error naming the id', () => {
    expect(() => Module.settlementEndpoint({ chains: [endpointOf('ethereum', 1)], onchain })).toThrow(
      new ConfigError("No configured chain has the settlement chain's id 8453."),
    )
    expect(() => Module.settlementEndpoint({ chains: [], onchain })).toThrow(ConfigError)
  })
})
