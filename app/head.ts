import { HeadersTooLargeError, UriTooLongError } from '../core/Errors.js'

// Bun's HTTP parser answers a bare 431 with no body when a request head passes its own limit (16 KiB unless
// `--max-http-header-size` raises it), before any of our code runs. `npm start` raises that limit well above the
// gateway's, so an oversized head reaches the gateway and is refused here as problem+json; only a head past Bun's
// raised limit still gets the bare answer.

/** Longest accepted request target (path and query string), in bytes. */
export const maxTargetBytes = 8 * 1024

/** Largest accepted header section (every name and value with its separators), in bytes. */
export const maxHeaderBytes = 12 * 1024

/** The refusal of a request head past the gateway's limits, if it is one. */
export function oversized(request: Request): UriTooLongError | HeadersTooLargeError | undefined {
  const url = request.url
  const target = url.length - url.indexOf('/', url.indexOf('//') + 2)
  if (target > maxTargetBytes) return new UriTooLongError({ limitBytes: maxTargetBytes })
  let bytes = 0
  // ": " and CRLF around each field, as on the wire.
  for (const [name, value] of request.headers) bytes += name.length + value.length + 4
  if (bytes > maxHeaderBytes) return new HeadersTooLargeError({ limitBytes: maxHeaderBytes })
  return undefined
}
