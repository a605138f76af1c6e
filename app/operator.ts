import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { type AnyElysia, Elysia } from 'elysia'
import { privateKeyToAccount } from 'viem/accounts'
import type * as Catalog from '../core/Catalog.js'
import { ValidationError } from '../core/Errors.js'
import type { Ledger } from '../core/Ledger.js'
import type { Limiter } from '../core/Limiter.js'
import type * as RateLimit from '../core/RateLimit.js'
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

/** Most MCP sessions opened with the operator's bearer kept open at once; the least recently used is closed beyond it. */
const maxOperatorSessions = 100

/** Most MCP sessions opened without the operator's bearer kept open at once; the least recently used is closed beyond it. */
const maxAnonymousSessions = 100

/** Most MCP sessions opened without the operator's bearer kept open per client; its least recently used is closed beyond it. */
const maxAnonymousSessionsPerClient = 8

/** Login tries one client may make (right or wrong): a burst of 10, then one every 90 s (10 per 15 minutes). */
export const loginLimit: RateLimit.Options = { capacity: 10, refill: 10, intervalMs: 15 * 60_000 }

/**
 * Whether a presented value is `secret`, in time that tells nothing of either: both are HMACed (with a key random
 * per matcher) to 32 bytes and the digests compared in constant time, so a wrong guess of another length costs what a
 * wrong guess of the right length does. No secret: nothing matches.
 */
export function secretMatcher(secret: string | undefined): (presented: string | undefined) => boolean {
  if (secret === undefined) return () => false
  const key = randomBytes(32)
  const digest = (value: string) => createHmac('sha256', key).update(value).digest()
  const expected = digest(secret)
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected)
}

/** An MCP session over HTTP, with who opened it. */
type Session = {
  /** The session's transport. */
  transport: WebStandardStreamableHTTPServerTransport
  /** Whether it was opened with the operator's bearer, which then every request of it must carry. */
  operator: boolean
  /** The client that opened it (`ClientAddress.key` of its source). */
  client: string
  /** When it was last used, epoch ms. */
  usedAt: number
}

/**
 * The routes operators and agents use besides the catalog: `/metrics` (Prometheus text, bearer `OPERATOR_TOKEN`),
 * `/dashboard` (bearer or login cookie; off without a token; logins throttled per client) and `/mcp` (the MCP server over
 * streamable HTTP; it pays from `MCP_PRIVATE_KEY` only for a session opened with the operator's bearer, whose every
 * request must carry it again).
 */
export function operator(parameters: operator.Parameters): AnyElysia {
  const { config, metrics, availability, handle, origin, limiter, clientOf } = parameters
  const token = config.operatorToken
  // Least recently used first: a use moves a session to the end. A client that leaves without DELETE leaves it idle.
  const sessions = new Map<string, Session>()
  function close(sessionId: string): void {
    const session = sessions.get(sessionId)
    sessions.delete(sessionId)
    void session?.transport.close()
  }
  function closeIdle(now: number): void {
    for (const [sessionId, session] of sessions) if (now - session.usedAt > sessionIdleMs) close(sessionId)
  }
  /** Closes the least recently used sessions that `belongs` selects while more than `most` of them are open. */
  function closeBeyond(most: number, belongs: (session: Session) => boolean): void {
    const selected = [...sessions].filter(([, session]) => belongs(session))
    for (const [sessionId] of selected.slice(0, Math.max(0, selected.length - most))) close(sessionId)
  }

  // The cookie holds a value derived from the token, never the token itself.
  const cookieValue = token === undefined ? undefined : createHmac('sha256', token).update('dashboard').digest('hex')
  const isOperator = secretMatcher(token)
  const isSessionCookie = secretMatcher(cookieValue)
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
      // The id alone must not spend the operator's wallet: it travels in logs and proxies the bearer never reaches.
      if (existing.operator && !isOperator(bearerOf(request))) return unauthorized()
      existing.usedAt = Date.now()
      sessions.delete(id!)
      sessions.set(id!, existing)
      return existing.transport.handleRequest(request, { parsedBody: body })
    }
    if (id) return new Response('Unknown MCP session.\n', { status: 404 })
    // A session opened with the operator's bearer pays from the configured key; any other gets the free tools only.
    const key = config.mcp.privateKey
    const byOperator = isOperator(bearerOf(request))
    const client = clientOf(request)
    const payer = key && byOperator ? privateKeyToAccount(key) : undefined
    // Loaded at the first session: a gateway that never serves MCP never loads the SDK.
    const [{ WebStandardStreamableHTTPServerTransport: Transport }, { mcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('./mcp.js'),
    ])
    const transport = new Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sessionId) => {
        const now = Date.now()
        closeIdle(now)
        sessions.set(sessionId, { transport, operator: byOperator, client, usedAt: now })
        // Each kind has its own bound: sessions anyone may open never close one opened with the operator's bearer.
        if (byOperator) closeBeyond(maxOperatorSessions, (session) => session.operator)
        else {
          closeBeyond(maxAnonymousSessionsPerClient, (session) => !session.operator && session.client === client)
          closeBeyond(maxAnonymousSessions, (session) => !session.operator)
        }
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId)
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
      if (!isOperator(bearerOf(request)) && !isSessionCookie(cookieOf(request))) return html(Dashboard.loginPage(), 401)
      return html(
        Dashboard.page(await Dashboard.snapshot({ ledger: parameters.ledger, availability, metrics: metrics })),
      )
    })
    .post('/dashboard/login', async ({ request, body }) => {
      if (token === undefined) return off()
      const field = typeof body === 'object' && body !== null && 'token' in body ? body.token : undefined
      if (field !== undefined && typeof field !== 'string')
        throw new ValidationError({ field: 'token', message: 'must be a string (in body)' })
      // Every try takes a token, the right one too: a client out of tries learns nothing of what it sends.
      const taken = await limiter.take(`operator-login ${clientOf(request)}`, loginLimit)
      if (!taken.ok) {
        const retryAfterSeconds = Math.max(1, Math.ceil((taken.retryAt - Date.now()) / 1000))
        return html(
          Dashboard.loginPage(`Too many tries from this address; try again in ${retryAfterSeconds} s.`),
          429,
          {
            'retry-after': String(retryAfterSeconds),
          },
        )
      }
      if (!isOperator(field ?? bearerOf(request)))
        return html(Dashboard.loginPage('That token is not the operator token.'), 401)
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
    /** Token buckets shared by every process: the login throttle's. */
    limiter: Limiter
    /** The client a request comes from: `ClientAddress.key` of its source address. */
    clientOf: (request: Request) => string
  }
}
