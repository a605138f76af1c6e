/** Request headers that a browser-hosted agent may send, payment headers included. */
const allowedHeaders = ['content-type', 'authorization', 'payment-signature', 'x-payment', 'accept']

/** Response headers a browser-hosted agent may read, payment and rate-limit headers included. */
const exposedHeaders = [
  'payment-required',
  'payment-response',
  'x-payment-response',
  'payment-receipt',
  'www-authenticate',
  'retry-after',
  'ratelimit',
  'ratelimit-policy',
  'allow',
]

/** Headers added to every response. */
export const headers = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': exposedHeaders.join(', '),
} as const

/** The answer to a CORS preflight request. */
export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...headers,
      'access-control-allow-methods': 'GET, POST, PATCH, OPTIONS',
      'access-control-allow-headers': allowedHeaders.join(', '),
      'access-control-max-age': '600',
    },
  })
}
