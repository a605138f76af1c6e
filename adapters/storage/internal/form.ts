import type { Content } from '../../../core/Storage.js'

/**
 * A multipart body with the content as the part `file` (named after the pin, typed as the caller declared) and
 * `fields` beside it: what Kubo's `add` and Pinata's upload both take.
 */
export function fileForm(content: Content, fields: Record<string, string> = {}): FormData {
  const form = new FormData()
  const type = content.contentType ?? 'application/octet-stream'
  form.append('file', new Blob([content.bytes as Uint8Array<ArrayBuffer>], { type }), content.name)
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  return form
}
