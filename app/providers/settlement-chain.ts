import * as Module from '../../core/Module.js'
import type { Endpoint } from '../../core/Rpc.js'
import { define } from './shared.js'

/**
 * The settlement chain's node, found once among `chains` by the settlement chain's id; a deployment whose own `chains`
 * lack it stops at boot with a `ConfigError` naming the id.
 */
export const settlementChain = define({
  port: 'settlementChain',
  description: 'a chain',
  build: ({ ports }) => settlementChainOf(ports),
})

/**
 * The node of `chains` on the settlement chain of `onchain`; `undefined` while either port is absent (or `chains` is
 * empty), so that the families reading the chain answer 503 rather than stop the start.
 */
export function settlementChainOf(ports: Partial<Pick<Module.Ports, 'chains' | 'onchain'>>): Endpoint | undefined {
  const { chains, onchain } = ports
  return chains?.length && onchain ? Module.settlementEndpoint({ chains, onchain }) : undefined
}
