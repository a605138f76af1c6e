import { http } from '../../adapters/rpc/http.js'
import { define } from './shared.js'

/** JSON-RPC clients of any EVM chain by URL: chain-data reads fan out to several public nodes at once. */
export const evm = define({
  port: 'evm',
  description: 'an EVM JSON-RPC client',
  // A node that does not answer in 4 s is reported as such, and its reads are not retried.
  build: () => (chain) => http({ ...chain, timeoutMs: 4_000, retryReads: false }),
})
