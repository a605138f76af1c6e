import { createPublicClient, type PublicClient, http as viemHttp } from 'viem'
import { escrowChain } from '../../adapters/chain/escrow.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { http } from '../../adapters/rpc/http.js'
import type { Onchain } from './gateway.js'

/** How the stand-in node answers: not before the caller gives up, or with HTTP 500. */
export type Mode = 'hang' | 'http_error'

/** The key a provider URL carries; it must never reach a log or a problem. */
export const rpcKey = 'sk-rpc-provider-key-4b1d'

/**
 * A JSON-RPC node on 127.0.0.1 that fails the way real ones do, and the gateway's chain ports on it: the RPC
 * forwarding endpoints (`faulty` on it, `gone` on a closed port), the escrow contract reader and the transfer finder.
 * Both URLs carry {@link rpcKey} in their path.
 */
export function faultyNode(parameters: { timeoutMs?: number } = {}) {
  const { timeoutMs = 150 } = parameters
  const state = { mode: 'hang' as Mode }
  const pending = new Set<() => void>()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch() {
      if (state.mode === 'http_error') return new Response('upstream exploded', { status: 500 })
      // Held until the test ends, well past every caller's time limit.
      await new Promise<void>((resolve) => pending.add(resolve))
      return new Response('{}')
    },
  })
  const url = `http://127.0.0.1:${server.port}/v2/${rpcKey}`
  // A port that was listening a moment ago and no longer is: connections to it are refused.
  const gone = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(null) })
  const goneUrl = `http://127.0.0.1:${gone.port}/v2/${rpcKey}`
  gone.stop(true)
  const client = createPublicClient({ transport: viemHttp(url, { timeout: timeoutMs, retryCount: 0 }) }) as PublicClient
  const onchain = (token: `0x${string}`): Onchain => ({
    chainId: 84532,
    transfers: transfers({ client }),
    escrow: escrowChain({ client, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', chainId: 84532 }),
    tokens: [{ symbol: 'USDC', address: token, decimals: 6 }],
  })
  return {
    url,
    goneUrl,
    state,
    chains: [
      http({ name: 'faulty', chainId: 84532, url, timeoutMs }),
      http({ name: 'gone', chainId: 84532, url: goneUrl, timeoutMs }),
    ],
    onchain,
    stop() {
      for (const resolve of pending) resolve()
      server.stop(true)
    },
  }
}
