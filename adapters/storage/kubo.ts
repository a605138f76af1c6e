import { profile } from '../../core/ContentId.js'
import type { Provider } from '../../core/Storage.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { fileForm } from './internal/form.js'

/**
 * Kubo's RPC API (`/api/v0`): `add` with every import parameter of our CID profile set explicitly (so Kubo builds the
 * same DAG we did) and `pin=true`; the pin's state from `pin/ls`. Kubo answers a CID that is not pinned with HTTP 500
 * and a message saying so, which is the state `failed`, not a fault.
 */
export function kubo(parameters: kubo.Parameters): Provider {
  const { url, authorization, ...options } = parameters
  const client = vendor({
    id: 'kubo',
    name: 'Kubo',
    baseUrl: url,
    timeoutMs: 60_000,
    auth:
      authorization === undefined ? { type: 'none' } : { type: 'header', name: 'authorization', value: authorization },
    errorMessage: ({ status, text }) => `Kubo answered HTTP ${status}: ${messageOf(text)}`,
    ...options,
  })
  return {
    name: 'kubo',
    async pin(content) {
      const answer = await client.json({
        method: 'POST',
        path: '/api/v0/add',
        query: addQuery,
        multipart: () => fileForm(content),
        label: 'add',
      })
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      if (typeof body.Hash !== 'string')
        return client.fail('failed', 'Kubo answered add without a Hash.', answer.status)
      return { ok: true, cid: body.Hash, ref: undefined, status: 'pinned' }
    },
    async status({ cid }) {
      const answer = await client.json({
        method: 'POST',
        path: '/api/v0/pin/ls',
        query: { arg: cid, type: 'recursive' },
        idempotent: true,
        accept: [500],
        label: 'pin/ls',
      })
      if (!answer.ok) return answer
      if (answer.status === 500) {
        const message = String(fieldsOf(answer.body).Message ?? '')
        if (/not pinned/i.test(message)) return { ok: true, status: 'failed' }
        return client.fail('failed', `Kubo answered pin/ls with HTTP 500: ${message.slice(0, 200)}`, 500)
      }
      const keys = fieldsOf(fieldsOf(answer.body).Keys)
      return { ok: true, status: Object.keys(keys).length > 0 ? 'pinned' : 'failed' }
    },
    async unpin({ cid }) {
      await client.json({ method: 'POST', path: '/api/v0/pin/rm', query: { arg: cid }, label: 'pin/rm' })
    },
    available: () => client.available(),
  }
}

/** The `add` parameters that make Kubo build our DAG (ContentId's profile), pin it, and answer one line. */
export const addQuery: Record<string, string> = {
  'cid-version': String(profile.cidVersion),
  hash: profile.hash,
  'raw-leaves': String(profile.rawLeaves),
  chunker: `size-${profile.chunkSize}`,
  'max-file-links': String(profile.maxLinks),
  trickle: 'false',
  'wrap-with-directory': 'false',
  inline: 'false',
  pin: 'true',
  quieter: 'true',
  progress: 'false',
}

/** Kubo's error text (`{"Message": ...}`), or the body itself. */
function messageOf(text: string | undefined): string {
  try {
    const message = fieldsOf(JSON.parse(text ?? '')).Message
    if (typeof message === 'string') return message
  } catch {}
  return (text ?? '').trim() || 'no message'
}

export declare namespace kubo {
  type Parameters = vendor.Options & {
    /** RPC API origin, e.g. `http://127.0.0.1:5001`. */
    url: string
    /** Value of the `Authorization` header Kubo's `API.Authorizations` expects, if any; never shown. */
    authorization?: string | undefined
  }
}
