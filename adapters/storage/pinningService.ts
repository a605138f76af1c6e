import * as ContentId from '../../core/ContentId.js'
import type { PinStatus, Provider } from '../../core/Storage.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** The states the Pinning Service API defines. */
const states: ReadonlySet<string> = new Set<PinStatus>(['queued', 'pinning', 'pinned', 'failed'])

/**
 * Any IPFS Pinning Service API (`POST /pins` with `{ cid, name }`, answered with a pin status `{ requestid, status,
 * pin: { cid } }`; `GET /pins/{requestid}` for its state). The service fetches the content from the IPFS network by
 * CID, so a pin stays `queued` or `pinning` until a node that holds it (a Kubo provider, say) is reachable: the state
 * is the service's, never assumed.
 */
export function pinningService(parameters: pinningService.Parameters): Provider {
  const { url, token, ...options } = parameters
  const client = vendor({
    id: 'pinning-service',
    name: 'The pinning service',
    baseUrl: url,
    timeoutMs: 15_000,
    auth: { type: 'bearer', token, env: 'PINNING_SERVICE_TOKEN' },
    errorMessage: ({ status, text }) => `The pinning service answered HTTP ${status}: ${reasonOf(text)}`,
    ...options,
  })
  /** A pin status body as ours, or a failure. */
  const statusOf = (body: unknown, status: number) => {
    const fields = fieldsOf(body)
    const state = String(fields.status)
    const cid = fieldsOf(fields.pin).cid
    if (!states.has(state) || typeof fields.requestid !== 'string' || typeof cid !== 'string')
      return client.fail('failed', 'The pinning service answered without a requestid, a status and a pin.', status)
    return { ok: true as const, cid, ref: fields.requestid, status: state as PinStatus }
  }
  return {
    name: 'pinning-service',
    async pin(content) {
      const answer = await client.post('/pins', { cid: content.cid, name: content.name }, { label: 'pin' })
      if (!answer.ok) return answer
      const pinned = statusOf(answer.body, answer.status)
      // The service echoes the CID it pins; compare it in one form (a CIDv0 echo of ours is the same content).
      return pinned.ok ? { ...pinned, cid: ContentId.normalize(pinned.cid) ?? pinned.cid } : pinned
    },
    async status({ ref }) {
      if (ref === undefined) return { ok: true, status: 'failed' }
      const answer = await client.get(`/pins/${encodeURIComponent(ref)}`, { accept: [404], label: 'pin status' })
      if (!answer.ok) return answer
      if (answer.status === 404) return { ok: true, status: 'failed' }
      const pinned = statusOf(answer.body, answer.status)
      return pinned.ok ? { ok: true, status: pinned.status } : pinned
    },
    async unpin({ ref }) {
      if (ref !== undefined) await client.json({ method: 'DELETE', path: `/pins/${encodeURIComponent(ref)}` })
    },
    available: () => client.available(),
  }
}

/** The API's error text (`{ error: { reason, details } }`), or the body itself. */
function reasonOf(text: string | undefined): string {
  try {
    const error = fieldsOf(fieldsOf(JSON.parse(text ?? '')).error)
    if (typeof error.reason === 'string')
      return typeof error.details === 'string' ? `${error.reason}: ${error.details}` : error.reason
  } catch {}
  return (text ?? '').trim() || 'no message'
}

export declare namespace pinningService {
  type Parameters = vendor.Options & {
    /** API base, e.g. `https://api.pinata.cloud/psa` or `https://api.web3.storage`. */
    url: string
    /** Bearer access token; without it the provider is unavailable. Never shown. */
    token: string | undefined
  }
}
