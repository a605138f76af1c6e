import { type Static, Type } from '@sinclair/typebox'
import * as EvmChain from '../../core/EvmChain.js'

/** Query of `GET /free/nonce`. */
export const NonceQuery = Type.Object({
  address: Type.String({
    maxLength: 64,
    description: 'EVM address, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.',
  }),
  chain: Type.String({ maxLength: 32, description: `One of: ${EvmChain.names.join(', ')}.` }),
})
/** Query of `GET /free/nonce`. */
export type NonceQuery = Static<typeof NonceQuery>
