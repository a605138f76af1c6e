import type { Provider } from '../../core/Storage.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { fileForm } from './internal/form.js'

/**
 * Pinata's v3 API: content goes up with `POST /v3/files` on the upload host (multipart, `network=public`), answered
 * `{ data: { id, cid, ... } }`; the pin's state is whether `GET /v3/files/public/{id}` still finds it. Pinata chooses
 * its own import parameters: content it imports into another DAG than ours answers another CID and is refused.
 */
export function pinata(parameters: pinata.Parameters): Provider {
  const { uploadUrl, apiUrl, jwt, ...options } = parameters
  const auth = { type: 'bearer', token: jwt, env: 'PINATA_JWT' } as const
  const upload = vendor({
    id: 'pinata-upload',
    name: 'Pinata',
    baseUrl: uploadUrl,
    timeoutMs: 120_000,
    auth,
    ...options,
  })
  const api = vendor({ id: 'pinata', name: 'Pinata', baseUrl: apiUrl, timeoutMs: 15_000, auth, ...options })
  return {
    name: 'pinata',
    async pin(content) {
      const answer = await upload.json({
        method: 'POST',
        path: '/files',
        multipart: () => fileForm(content, { network: 'public', name: content.name }),
        label: 'upload',
      })
      if (!answer.ok) return answer
      const data = fieldsOf(fieldsOf(answer.body).data)
      if (typeof data.cid !== 'string' || typeof data.id !== 'string')
        return upload.fail('failed', 'Pinata answered the upload without an id and a cid.', answer.status)
      return { ok: true, cid: data.cid, ref: data.id, status: 'pinned' }
    },
    async status({ ref }) {
      if (ref === undefined) return { ok: true, status: 'failed' }
      const answer = await api.get(`/files/public/${encodeURIComponent(ref)}`, { accept: [404], label: 'file' })
      if (!answer.ok) return answer
      return { ok: true, status: answer.status === 404 ? 'failed' : 'pinned' }
    },
    async unpin({ ref }) {
      if (ref !== undefined) await api.json({ method: 'DELETE', path: `/files/public/${encodeURIComponent(ref)}` })
    },
    available: () => upload.available(),
  }
}

export declare namespace pinata {
  type Parameters = vendor.Options & {
    /** Upload API base, e.g. `https://uploads.pinata.cloud/v3`. */
    uploadUrl: string
    /** API base, e.g. `https://api.pinata.cloud/v3`. */
    apiUrl: string
    /** Pinata API key (JWT); without it the provider is unavailable. Never shown. */
    jwt: string | undefined
  }
}
