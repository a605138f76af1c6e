import { createHmac, timingSafeEqual } from 'node:crypto'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { type AnyElysia, Elysia } from 'elysia'
import { privateKeyToAccount } from 'viem/accounts'
import type * as Catalog from '../core/Catalog.js'
import type { Ledger } from '../core/Ledger.js'
import type { Config } from './config.js'
import * as Dashboard from './dashboard.js'
import type { Availability } from './discovery/terms.js'
import type { metrics } from './metrics.js'

/** Paths the operator routes serve, with their methods (the gateway's coverage check knows them). */
export const operatorRoutes = [
  'GET /metrics',
  'GET /dashboard',
  'POST /dashboard/login',
  'GET /mcp',
  'POST /mcp',
  'DELETE /mcp',
] as const

/** Name of the dashboard's login cookie. */
const cookie = 'operator_session'

/** How long an MCP session over HTTP may sit unused before a new session closes it, in ms. */
const sessionIdleMs = 15 * 60_000

/** Most MCP sessions kept open at once over HTTP; the oldest is closed beyond it. */
const maxSessions = 100

/**
 * The routes operators and agents use besides the catalog: `/metrics` (Prometheus text, bearer `OPERATOR_TOKEN`),
 * `/dashboard` (bearer or login cookie; off without a token) and `/mcp` (the MCP server over streamable HTTP; it pays
 * from `MCP_PRIVATE_KEY` only for a session opened with the operator's bearer).
 */
export function operator(parameters: operator.Parameters): AnyElysia {
  const { config, metrics, availability, handle, origin } = parameters
  const token = config.operatorToken
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  // When each session was last used: a client that leaves without DELETE leaves its session idle.
  const lastUsed = new Map<string, number>()
  function closeIdle(now: number): void {
    for (const [sessionId, used] of lastUsed)
      if (now - used > sessionIdleMs) {
        lastUsed.delete(sessionId)
        const idle = sessions.get(sessionId)
        sessions.delete(sessionId)
        void idle?.close()
      }
  }

  // The cookie holds a value derived from the token, never the token itself.
  const cookieValue = token === undefined ? undefined : createHmac('sha256', token).update('dashboard').digest('hex')
  /** Whether `presented` is `expected`, compared in constant time. */
  function same(presented: string | undefined, expected: string | undefined): boolean {
    if (expected === undefined || presented === undefined) return false
    const [a, b] = [Buffer.from(presented), Buffer.from(expected)]
    return a.length === b.length && timingSafeEqual(a, b)
  }
  const isOperator = (presented: string | undefined) => same(presented, token)
  const bearerOf = (request: Request) => /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1]
  const cookieOf = (request: Request) =>
    (request.headers.get('cookie') ?? '')
      .split(';')
      .map((part) => part.trim().split('='))
      .find(([name]) => name === cookie)?.[1]
  const off = () =>
    new Response('Not found: set OPERATOR_TOKEN to turn the operator pages on.\n', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    })
  const unauthorized = () =>
    new Response('The operator token is required as a bearer token.\n', {
      status: 401,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="operator"' },
    })
  const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(body, {
      status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        // Nothing on the page runs or loads: inline styles and SVG only.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'",
        'x-frame-options': 'DENY',
        ...headers,
      },
    })

  async function mcp(request: Request, body: unknown): Promise<Response> {
    const id = request.headers.get('mcp-session-id')
    const existing = id ? sessions.get(id) : undefined
    if (existing) {
      lastUsed.set(id!, Date.now())
      return existing.handleRequest(request, { parsedBody: body })
    }
    if (id) return new Response('Unknown MCP session.\n', { status: 404 })
    // A session opened with the operator's bearer pays from the configured key; any other gets the free tools only.
    const key = config.mcp.privateKey
    const payer = key && isOperator(bearerOf(request)) ? privateKeyToAccount(key) : undefined
    // Loaded at the first session: a gateway that never serves MCP never loads the SDK.
    const [{ WebStandardStreamableHTTPServerTransport: Transport }, { mcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('./mcp.js'),
    ])
    const transport = new Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sessionId) => {
        closeIdle(Date.now())
        sessions.set(sessionId, transport)
        lastUsed.set(sessionId, Date.now())
        if (sessions.size > maxSessions) {
          const [oldest] = sessions
          sessions.delete(oldest![0])
          lastUsed.delete(oldest![0])
          void oldest![1].close()
        }
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId)
        lastUsed.delete(sessionId)
      },
    })
    const { server } = mcpServer({
      gateway: origin(request),
      // In process: the MCP session's calls go through the gateway's own hooks and payment guard.
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) =>
        handle(new Request(input, init))) as typeof globalThis.fetch,
      payer,
      maxPerCall: config.mcp.maxPerCall,
      sessionBudget: config.mcp.sessionBudget,
    })
    await server.connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

  return new Elysia({ name: 'operator' })
    .get('/metrics', async ({ request }) => {
      if (token === undefined) return off()
      if (!isOperator(bearerOf(request))) return unauthorized()
      return new Response(await metrics.render(), {
        headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
      })
    })
    .get('/dashboard', async ({ request }) => {
      if (token === undefined) return off()
      if (!isOperator(bearerOf(request)) && !same(cookieOf(request), cookieValue))
        return html(Dashboard.loginPage(false), 401)
      return html(
        Dashboard.page(await Dashboard.snapshot({ ledger: parameters.ledger, availability, metrics: metrics })),
      )
    })
    .post('/dashboard/login', async ({ request, body }) => {
      if (token === undefined) return off()
      const presented =
        typeof body === 'object' && body !== null && 'token' in body ? String(body.token) : bearerOf(request)
      if (!isOperator(presented)) return html(Dashboard.loginPage(true), 401)
      const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : ''
      return new Response(null, {
        status: 303,
        headers: {
          location: '/dashboard',
          'set-cookie': `${cookie}=${cookieValue}; Path=/dashboard; HttpOnly; SameSite=Strict${secure}`,
        },
      })
    })
    .get('/mcp', ({ request }) => mcp(request, undefined))
    .post('/mcp', ({ request, body }) => mcp(request, body))
    .delete('/mcp', ({ request }) => mcp(request, undefined))
}

export declare namespace operator {
  type Parameters = {
    /** Parsed configuration: the operator token and the MCP wallet. */
    config: Config
    /** The gateway's metrics. */
    metrics: metrics.ReturnType
    /** The payment ledger; absent: no payments to show. */
    ledger: Ledger | undefined
    /** Availability of an entry now. */
    availability: (entry: Catalog.Entry) => Availability
    /** Answers one request in process (the MCP server's transport to the gateway). */
    handle: (request: Request) => Promise<Response>
    /** The gateway's public origin for a request. */
    origin: (request: Request) => string
  }
}
