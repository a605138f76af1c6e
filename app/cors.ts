/** Request headers that a browser-hosted agent may send, payment headers and its own request id included. */
const allowedHeaders = ['content-type', 'authorization', 'payment-signature', 'x-payment', 'accept', 'x-request-id']

/**
 * Headers added to every response. A browser-hosted agent may read every response header (the payment, receipt,
 * rate-limit and request-id headers among them): the wildcard holds for requests without credentials, the only ones
 * an origin of `*` admits.
 */
export const headers = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
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
