import * as Cors from './cors.js'

/** Response header carrying the request id. */
export const header = 'x-request-id'

/** An id a client may choose for its request: short, no spaces or quotes. */
const acceptable = /^[A-Za-z0-9._:-]{1,64}$/

const ids = new WeakMap<Request, string>()

/** Gives `request` its id: the client's own `X-Request-Id` when it is acceptable, a new UUID otherwise. */
export function assign(request: Request): string {
  const sent = request.headers.get(header)
  const id = sent !== null && acceptable.test(sent) ? sent : crypto.randomUUID()
  ids.set(request, id)
  return id
}

/** The id of a request, once assigned. */
export function of(request: Request): string | undefined {
  return ids.get(request)
}

/** What every answer carries, for a response built whole: the CORS headers and the request id, once assigned. */
export function headersOf(request: Request): Record<string, string> {
  const id = ids.get(request)
  return id === undefined ? { ...Cors.headers } : { ...Cors.headers, [header]: id }
}
