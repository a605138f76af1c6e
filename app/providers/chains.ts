import { define } from './shared.js'

/** The chains RPC forwarding reads from: the settlement chain's node. */
export const chains = define({
  port: 'chains',
  description: 'a chain',
  build: ({ shared }) => [shared.settlement.endpoint],
})
