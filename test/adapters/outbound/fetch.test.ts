import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type TLSSocket } from 'node:tls'
import { outbound } from '../../../adapters/outbound/fetch.js'
import * as Outbound from '../../../core/Outbound.js'
import { certificate, privateKey } from '../../support/tls.js'

// Every server here listens on loopback; "public" names resolve, through the injected resolver, to 127.0.0.1, which
// the allow-list lets through as the stand-in of a public address. 127.0.0.2 (not allowed) stands in for a private one.

/** Requests each stand-in received. */
const hits = { public: 0, private: 0 }

/** What the public stand-in saw of the last request to /echo. */
type Echo = {
  host: string | null
  method: string
  body: string
  authorization: string | null
  contentType: string | null
}

let publicServer: ReturnType<typeof Bun.serve>
let privateServer: ReturnType<typeof Bun.serve>
let secureServer: ReturnType<typeof Bun.serve>

/** Origin of the public stand-in under the name `name`. */
const at = (name: string, path: string) => `http://${name}:${publicServer.port}${path}`

beforeAll(() => {
  publicServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 10,
    async fetch(request) {
      hits.public++
      const url = new URL(request.url)
      const to = url.searchParams.get('to')
      switch (url.pathname) {
        case '/echo': {
          const echo: Echo = {
            host: request.headers.get('host'),
            method: request.method,
            body: await request.text(),
            authorization: request.headers.get('authorization'),
            contentType: request.headers.get('content-type'),
          }
          return Response.json(echo)
        }
        case '/redirect':
          return new Response(null, {
            status: Number(url.searchParams.get('status') ?? 302),
            headers: { location: to ?? '/echo' },
          })
        case '/loop':
          return new Response(null, { status: 302, headers: { location: '/loop' } })
        case '/chain': {
          const left = Number(url.searchParams.get('left'))
          return left === 0
            ? new Response('end of chain')
            : new Response(null, { status: 301, headers: { location: `chain?left=${left - 1}` } })
        }
        case '/bytes':
          return new Response(new Uint8Array(Number(url.searchParams.get('n'))))
        case '/stream': {
          const chunks = Number(url.searchParams.get('chunks'))
          let sent = 0
          const body = new ReadableStream<Uint8Array>({
            pull(controller) {
              if (sent++ === chunks) controller.close()
              else controller.enqueue(new Uint8Array(1024))
            },
          })
          return new Response(body)
        }
        case '/slow':
          await Bun.sleep(3_000)
          return new Response('too late')
        case '/slow-body': {
          const body = new ReadableStream<Uint8Array>({
            async pull(controller) {
              controller.enqueue(new TextEncoder().encode('.'))
              await Bun.sleep(100)
            },
          })
          return new Response(body)
        }
        default:
          return new Response('not found', { status: 404 })
      }
    },
  })
  privateServer = Bun.serve({
    hostname: '127.0.0.2',
    port: 0,
    fetch() {
      hits.private++
      return new Response('private')
    },
  })
  secureServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { cert: certificate, key: privateKey },
    fetch: (request) => Response.json({ host: request.headers.get('host') }),
  })
})

afterAll(() => {
  publicServer.stop(true)
  privateServer.stop(true)
  secureServer.stop(true)
})

/** A resolver from a table; a name not in it does not resolve. */
function resolver(table: Record<string, readonly string[]>) {
  const asked: string[] = []
  const resolve = async (hostname: string) => {
    asked.push(hostname)
    const answer = table[hostname]
    if (answer === undefined) throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return answer
  }
  return { resolve, asked }
}

/** Names the tests use: public-looking ones on the public stand-in, one internal, one listed by the operator. */
const names = {
  'public.example.test': ['127.0.0.1'],
  'hooks.example.test': ['127.0.0.1'],
  'other.example.test': ['127.0.0.1'],
  'internal.example.test': ['10.0.0.7'],
  'mixed.example.test': ['127.0.0.1', '10.0.0.7'],
  'metadata.example.test': ['169.254.169.254'],
  'private.example.test': ['127.0.0.2'],
  'listed.example.test': ['127.0.0.2'],
}

/** The operator's allow-list of these tests: the public stand-in's address, and one host name. */
const allow = (() => {
  const parsed = Outbound.parseAllowList('127.0.0.1, listed.example.test')
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.list
})()

const guard = outbound({ allow, resolve: resolver(names).resolve, timeoutMs: 1_000, maxBytes: 4096, ca: certificate })

/** The body of an answer as text, failing the test if there is no answer. */
function text(outcome: Outbound.Fetched | Outbound.Refusal): string {
  if (!outcome.ok) throw new Error(`${outcome.reason}: ${outcome.message}`)
  return new TextDecoder().decode(outcome.body)
}

describe('outbound', () => {
  test('default: a public name goes through, to its checked address, with its own Host header', async () => {
    const answer = await guard.fetch(at('public.example.test', '/echo'))
    expect(answer).toMatchObject({ ok: true, status: 200, url: at('public.example.test', '/echo') })
    expect(JSON.parse(text(answer))).toMatchObject({ host: `public.example.test:${publicServer.port}`, method: 'GET' })
    expect(answer.ok && answer.headers['content-type']).toStartWith('application/json')
  })

  test('default: check resolves and checks without sending anything', async () => {
    const before = hits.public
    expect(await guard.check(at('public.example.test', '/echo'))).toEqual({
      ok: true,
      url: at('public.example.test', '/echo'),
      addresses: ['127.0.0.1'],
    })
    expect(await guard.check('http://internal.example.test/')).toMatchObject({
      ok: false,
      reason: 'private_address',
      range: 'private',
    })
    expect(hits.public).toBe(before)
  })

  test('behavior: a host the operator listed goes through whatever it resolves to', async () => {
    const before = hits.private
    expect(text(await guard.fetch(`http://listed.example.test:${privateServer.port}/`))).toBe('private')
    expect(hits.private).toBe(before + 1)
    expect(await guard.fetch(`http://private.example.test:${privateServer.port}/`)).toMatchObject({
      reason: 'private_address',
    })
    expect(hits.private).toBe(before + 1)
  })

  test('behavior: with the system resolver, localhost is refused unless the operator lists it', async () => {
    const url = `http://localhost:${publicServer.port}/echo`
    expect(await outbound().fetch(url)).toMatchObject({ ok: false, reason: 'private_address', range: 'loopback' })
    const listed = outbound({ allow: { hosts: ['localhost'], networks: [] } })
    expect(JSON.parse(text(await listed.fetch(url)))).toMatchObject({ host: `localhost:${publicServer.port}` })
  })

  test.each([
    ['http://127.0.0.1:PORT/echo', 'loopback'],
    ['http://10.0.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::1]:PORT/echo', 'loopback'],
    ['http://[::ffff:127.0.0.1]:PORT/echo', 'loopback'],
    ['http://2130706433:PORT/echo', 'loopback'],
    ['http://0x7f.1:PORT/echo', 'loopback'],
    ['http://[fd00:ec2::254]/', 'metadata'],
  ] as const)('security: %p is refused (%s) before any connection', async (template, range) => {
    const strict = outbound({ resolve: resolver(names).resolve })
    const before = { ...hits }
    const refusal = await strict.fetch(template.replace('PORT', String(publicServer.port)))
    expect(refusal).toMatchObject({ ok: false, reason: 'private_address', range })
    expect(hits).toEqual(before)
  })

  test('security: a name resolving to a private or metadata address is refused; every address is checked', async () => {
    expect(await guard.fetch('http://internal.example.test/')).toMatchObject({
      reason: 'private_address',
      range: 'private',
    })
    expect(await guard.fetch('http://metadata.example.test/')).toMatchObject({
      reason: 'private_address',
      range: 'metadata',
    })
    const before = hits.public
    expect(await guard.fetch(at('mixed.example.test', '/echo'))).toMatchObject({
      reason: 'private_address',
      range: 'private',
    })
    expect(hits.public).toBe(before)
  })

  test('security: a public URL that redirects to a private address is refused at that hop', async () => {
    const before = hits.private
    const direct = `http://127.0.0.2:${privateServer.port}/`
    for (const to of [
      direct,
      `http://private.example.test:${privateServer.port}/`,
      'http://[::ffff:10.0.0.1]/',
      'http://169.254.169.254/',
    ]) {
      const refusal = await guard.fetch(at('public.example.test', `/redirect?to=${encodeURIComponent(to)}`))
      expect(refusal).toMatchObject({ ok: false, reason: 'private_address' })
    }
    expect(hits.private).toBe(before)
  })

  test('security: a redirect to another scheme or a bad port is refused', async () => {
    expect(await guard.fetch(at('public.example.test', '/redirect?to=file:///etc/passwd'))).toMatchObject({
      reason: 'scheme_not_allowed',
    })
    expect(await guard.fetch(at('public.example.test', '/redirect?to=http://public.example.test:25/'))).toMatchObject({
      reason: 'port_not_allowed',
    })
  })

  test('security: a rebinding resolver cannot move the connection: it goes to the address checked', async () => {
    let calls = 0
    const rebinding = outbound({
      allow,
      // First answer: the allowed stand-in of a public address; every later answer: a private one.
      resolve: async () => (calls++ === 0 ? ['127.0.0.1'] : ['127.0.0.2']),
    })
    const before = { ...hits }
    // The name exists for the injected resolver only: reaching the server at all proves that fetch connected to the
    // checked address rather than looking the name up again.
    const answer = await rebinding.fetch(`http://rebind.example.test:${publicServer.port}/echo`)
    expect(JSON.parse(text(answer))).toMatchObject({ host: `rebind.example.test:${publicServer.port}` })
    expect(calls).toBe(1)
    expect(hits).toEqual({ public: before.public + 1, private: before.private })
    // The next request resolves again, gets the private answer, and is refused.
    expect(await rebinding.fetch(`http://rebind.example.test:${publicServer.port}/echo`)).toMatchObject({
      reason: 'private_address',
    })
    expect(hits.private).toBe(before.private)
  })

  test('behavior: redirects are followed, re-checked, up to 3; a 4th and a loop are refused', async () => {
    expect(text(await guard.fetch(at('public.example.test', '/chain?left=3')))).toBe('end of chain')
    expect(await guard.fetch(at('public.example.test', '/chain?left=4'))).toMatchObject({
      reason: 'too_many_redirects',
    })
    const before = hits.public
    expect(await guard.fetch(at('public.example.test', '/loop'))).toMatchObject({ reason: 'too_many_redirects' })
    expect(hits.public).toBe(before + 4)
  })

  test('behavior: 307 sends the body again; 303 turns into a GET without it; another origin gets no credentials', async () => {
    const init = {
      method: 'POST',
      body: '{"event":1}',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
    }
    const kept = JSON.parse(text(await guard.fetch(at('public.example.test', '/redirect?status=307'), init)))
    expect(kept).toEqual({
      host: `public.example.test:${publicServer.port}`,
      method: 'POST',
      body: '{"event":1}',
      authorization: 'Bearer t',
      contentType: 'application/json',
    })
    const dropped = JSON.parse(text(await guard.fetch(at('public.example.test', '/redirect?status=303'), init)))
    expect(dropped).toMatchObject({ method: 'GET', body: '', contentType: null, authorization: 'Bearer t' })
    const elsewhere = encodeURIComponent(at('hooks.example.test', '/echo'))
    const crossed = JSON.parse(
      text(await guard.fetch(at('public.example.test', `/redirect?status=307&to=${elsewhere}`), init)),
    )
    expect(crossed).toMatchObject({
      host: `hooks.example.test:${publicServer.port}`,
      method: 'POST',
      authorization: null,
    })
  })

  test('behavior: a body up to the limit is read; past it, declared or streamed, it is too_large', async () => {
    const exact = await guard.fetch(at('public.example.test', '/bytes?n=4096'))
    expect(exact.ok && exact.body.byteLength).toBe(4096)
    expect(await guard.fetch(at('public.example.test', '/bytes?n=4097'))).toMatchObject({ reason: 'too_large' })
    expect(await guard.fetch(at('public.example.test', '/stream?chunks=64'))).toMatchObject({ reason: 'too_large' })
    expect(await guard.fetch(at('public.example.test', '/bytes?n=100'), { maxBytes: 99 })).toMatchObject({
      reason: 'too_large',
    })
  })

  test('behavior: a slow answer, a slow body and a slow resolver are cut at the time limit', async () => {
    const started = Date.now()
    const quick = { timeoutMs: 200 }
    expect(await guard.fetch(at('public.example.test', '/slow'), quick)).toMatchObject({ reason: 'timeout' })
    expect(await guard.fetch(at('public.example.test', '/slow-body'), quick)).toMatchObject({ reason: 'timeout' })
    const stuck = outbound({ resolve: () => new Promise(() => {}), timeoutMs: 200 })
    expect(await stuck.fetch('http://stuck.example.test/')).toMatchObject({ reason: 'timeout' })
    expect(await stuck.check('http://stuck.example.test/')).toMatchObject({ reason: 'timeout' })
    expect(Date.now() - started).toBeLessThan(2_500)
  })

  test('behavior: https is pinned too: the certificate is checked against the host name, sent as SNI', async () => {
    const url = `https://hooks.example.test:${secureServer.port}/`
    expect(JSON.parse(text(await guard.fetch(url)))).toEqual({ host: `hooks.example.test:${secureServer.port}` })
    // Same address, a name the certificate does not carry: refused, also after a good connection to that address.
    const other = await guard.fetch(`https://other.example.test:${secureServer.port}/`)
    expect(other).toMatchObject({ ok: false, reason: 'failed' })
    expect(!other.ok && other.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
  })

  test('behavior: the TLS server name is the host name, never the address', async () => {
    const serverNames: (string | false | null)[] = []
    const server = createServer({ cert: certificate, key: privateKey }, (socket) => {
      serverNames.push((socket as TLSSocket).servername)
      socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n'))
    })
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
    try {
      const port = (server.address() as { port: number }).port
      expect(await guard.fetch(`https://hooks.example.test:${port}/`)).toMatchObject({ ok: true, status: 204 })
      expect(serverNames).toEqual(['hooks.example.test'])
    } finally {
      server.close()
    }
  })

  test('behavior: a checked address that refuses the connection is skipped for the next checked one', async () => {
    const loopback = Outbound.parseAllowList('127.0.0.0/29')
    if (!loopback.ok) throw new Error(loopback.message)
    // Nothing listens on 127.0.0.3: the connection is refused, nothing was sent, and 127.0.0.1 is tried next.
    const twoAddresses = outbound({ allow: loopback.list, resolve: async () => ['127.0.0.3', '127.0.0.1'] })
    expect(
      JSON.parse(text(await twoAddresses.fetch(`http://two.example.test:${publicServer.port}/echo`))),
    ).toMatchObject({
      host: `two.example.test:${publicServer.port}`,
    })
  })

  test('error: unresolvable names, closed ports and bad URLs come back as data', async () => {
    expect(await guard.fetch('http://nowhere.example.test/')).toMatchObject({ ok: false, reason: 'unresolvable' })
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const port = closed.port
    closed.stop(true)
    const refused = await guard.fetch(`http://public.example.test:${port}/a/secret/path`)
    expect(refused).toMatchObject({ ok: false, reason: 'failed' })
    expect(!refused.ok && refused.message).not.toContain('secret')
    expect(await guard.fetch('not a url')).toMatchObject({ reason: 'invalid_url' })
    expect(await guard.fetch('gopher://public.example.test/')).toMatchObject({ reason: 'scheme_not_allowed' })
    expect(await guard.fetch('http://user:pw@public.example.test/')).toMatchObject({
      reason: 'credentials_not_allowed',
    })
  })

  test('security: no message shows more than 64 characters of a caller URL', async () => {
    const long = `http://${'a'.repeat(60)}.internal.example.test/${'p'.repeat(100)}`
    for (const url of [long, `${long}?q=1`, `ftp://${'b'.repeat(100)}`]) {
      const refusal = await guard.fetch(url)
      expect(refusal.ok).toBe(false)
      if (!refusal.ok) expect(refusal.message).not.toMatch(/[abp]{65}/)
    }
  })
})
