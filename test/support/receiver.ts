import { Webhook } from 'standardwebhooks'
import { outbound } from '../../adapters/outbound/fetch.js'
import * as Outbound from '../../core/Outbound.js'

/** The outbound guard with this machine's loopback allowed, as the local receivers need. */
export function loopbackOutbound(): Outbound.Guard {
  const allowed = Outbound.parseAllowList('127.0.0.1')
  if (!allowed.ok) throw new Error(allowed.message)
  return outbound({ allow: allowed.list, timeoutMs: 5_000 })
}

/**
 * A local receiver of signed webhooks: verifies each delivery with standardwebhooks under the secret set for its path
 * (400 when it does not verify) and records what it received; a path set in `down` answers 503 that many times first.
 */
export function signedReceiver() {
  const secrets = new Map<string, string>()
  const down = new Map<string, number>()
  const received: { path: string; id: string; type: string; data: Record<string, unknown> }[] = []
  let unverified = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname
      const body = await request.text()
      const failing = down.get(path) ?? 0
      if (failing > 0) {
        down.set(path, failing - 1)
        return new Response(null, { status: 503 })
      }
      try {
        const payload = new Webhook(secrets.get(path) ?? '').verify(body, Object.fromEntries(request.headers)) as {
          type: string
          data: Record<string, unknown>
        }
        received.push({ path, id: request.headers.get('webhook-id')!, type: payload.type, data: payload.data })
      } catch {
        unverified++
        return new Response('bad signature', { status: 400 })
      }
      return new Response(null, { status: 204 })
    },
  })
  return {
    /** The URL of `path` on this receiver. */
    url: (path: string) => `http://127.0.0.1:${server.port}${path}`,
    /** The signing secret of each path. */
    secrets,
    /** How many more deliveries each path answers 503. */
    down,
    /** Every verified delivery, in order. */
    received,
    /** How many deliveries did not verify. */
    unverified: () => unverified,
    stop: () => server.stop(true),
  }
}
