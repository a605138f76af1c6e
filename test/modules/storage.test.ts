import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { embedded, objectsCollection } from '../../adapters/storage/embedded.js'
import { addQuery, kubo } from '../../adapters/storage/kubo.js'
import { pinata } from '../../adapters/storage/pinata.js'
import { pinningService } from '../../adapters/storage/pinningService.js'
import { memory } from '../../adapters/store/memory.js'
import * as ContentId from '../../core/ContentId.js'
import type { Providers } from '../../core/Storage.js'
import type { Store } from '../../core/Store.js'
import { manifest } from '../../modules/storage/index.js'
import { pinIdOf } from '../../modules/storage/service.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

// Storage in the real gateway with the stub facilitator; the embedded blockstore on a memory store; Kubo, Pinata and
// a Pinning Service API as local servers speaking their documented shapes. The Kubo stand-in imports what it is sent
// with the parameters it is asked for, as Kubo does; told to lie, it answers the CID of the bytes wrapped in JSON.

const kuboState = {
  pinned: new Set<string>(),
  lie: false,
  down: false,
  removed: [] as string[],
  queries: [] as URLSearchParams[],
}
const kuboServer = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    if (kuboState.down) return new Response('Service Unavailable', { status: 503 })
    if (request.method !== 'POST') return new Response('405', { status: 405 })
    if (url.pathname === '/api/v0/add') {
      kuboState.queries.push(url.searchParams)
      const file = (await request.formData()).get('file') as File
      const bytes = new Uint8Array(await file.arrayBuffer())
      const chunker = url.searchParams.get('chunker')
      if (chunker !== `size-${ContentId.profile.chunkSize}` || url.searchParams.get('raw-leaves') !== 'true')
        return Response.json(
          { Message: 'stand-in only imports with the unixfs-v1-2025 parameters', Code: 0 },
          { status: 400 },
        )
      const wrapped = new TextEncoder().encode(JSON.stringify({ data: new TextDecoder().decode(bytes) }))
      const { cid } = await ContentId.compute(kuboState.lie ? wrapped : bytes)
      kuboState.pinned.add(cid)
      return Response.json({ Name: file.name, Hash: cid, Size: String(bytes.length) })
    }
    const arg = url.searchParams.get('arg') ?? ''
    if (url.pathname === '/api/v0/pin/ls') {
      if (!kuboState.pinned.has(arg))
        return Response.json({ Message: `path '${arg}' is not pinned`, Code: 0, Type: 'error' }, { status: 500 })
      return Response.json({ Keys: { [arg]: { Type: 'recursive' } } })
    }
    if (url.pathname === '/api/v0/pin/rm') {
      kuboState.removed.push(arg)
      kuboState.pinned.delete(arg)
      return Response.json({ Pins: [arg] })
    }
    return new Response('404 page not found', { status: 404 })
  },
})

const pinataState = { files: new Map<string, string>(), auth: [] as string[] }
const pinataServer = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    pinataState.auth.push(request.headers.get('authorization') ?? '')
    if (request.method === 'POST' && url.pathname === '/v3/files') {
      const form = await request.formData()
      const file = form.get('file') as File
      if (form.get('network') !== 'public') return Response.json({ error: 'network' }, { status: 400 })
      const { cid } = await ContentId.compute(new Uint8Array(await file.arrayBuffer()))
      const id = crypto.randomUUID()
      pinataState.files.set(id, cid)
      return Response.json({ data: { id, name: file.name, cid, size: file.size, network: 'public' } })
    }
    const file = url.pathname.match(/^\/v3\/files\/public\/([^/]+)$/)
    if (file && request.method === 'GET') {
      const cid = pinataState.files.get(file[1]!)
      if (!cid) return Response.json({ error: 'Not Found' }, { status: 404 })
      return Response.json({ data: { id: file[1], cid } })
    }
    return Response.json({ error: 'Not Found' }, { status: 404 })
  },
})

const serviceState = { pins: new Map<string, { cid: string; status: string }>() }
const serviceServer = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const url = new URL(request.url)
    if (request.headers.get('authorization') !== 'Bearer service-token')
      return Response.json({ error: { reason: 'UNAUTHORIZED' } }, { status: 401 })
    const pinStatus = (requestid: string) => {
      const pin = serviceState.pins.get(requestid)!
      return { requestid, status: pin.status, created: new Date(0).toISOString(), pin: { cid: pin.cid }, delegates: [] }
    }
    if (request.method === 'POST' && url.pathname === '/pins') {
      const { cid } = (await request.json()) as { cid: string }
      const requestid = crypto.randomUUID()
      serviceState.pins.set(requestid, { cid, status: 'queued' })
      return Response.json(pinStatus(requestid), { status: 202 })
    }
    const one = url.pathname.match(/^\/pins\/([^/]+)$/)
    if (one && serviceState.pins.has(one[1]!)) return Response.json(pinStatus(one[1]!))
    return Response.json({ error: { reason: 'NOT_FOUND' } }, { status: 404 })
  },
})

afterAll(() => {
  for (const server of [kuboServer, pinataServer, serviceServer]) server.stop(true)
})

let store: Store
beforeEach(() => {
  kuboState.lie = false
  kuboState.down = false
})

/** The storage family on a fresh memory store with every provider, and `env` for its limits. */
function api(env: Record<string, string> = {}) {
  store = memory()
  const origin = (server: { port: number | undefined }) => `http://127.0.0.1:${server.port}`
  const storage: Providers = {
    embedded: (journaled) => embedded({ store: journaled }),
    remote: {
      kubo: kubo({ url: origin(kuboServer), retries: 0 }),
      pinata: pinata({
        uploadUrl: `${origin(pinataServer)}/v3`,
        apiUrl: `${origin(pinataServer)}/v3`,
        jwt: 'pinata-jwt',
        retries: 0,
      }),
      'pinning-service': pinningService({ url: origin(serviceServer), token: 'service-token', retries: 0 }),
    },
  }
  return moduleGateway(manifest, { ports: { store, storage }, env, payer: payers.alice })
}

const hello = 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e'

/** Bytes that fill several 1 MiB chunks and differ from chunk to chunk. */
function multiChunk(size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  for (let index = 0; index < size; index++) bytes[index] = (index * 31 + (index >> 20)) % 251
  return bytes
}

describe('POST /api/v1/storage/pin', () => {
  test('default: the CID of the bytes themselves, kept in the embedded blockstore; 0.01 USDC settled', async () => {
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/storage/pin', { data: 'hello world', contentType: 'text/plain' }))
    expect(body).toMatchObject({
      cid: hello,
      status: 'pinned',
      provider: 'embedded',
      size: 11,
      contentType: 'text/plain',
      profile: 'unixfs-v1-2025',
      providers: ['embedded'],
    })
    expect(body.id).toBe(pinIdOf(payers.alice, hello))
    expect(gateway.settled).toHaveLength(1)
    expect(gateway.settled[0]!.value).toBe(10_000n)
    expect(await store.get(objectsCollection, hello)).toBeDefined()
  })

  test('behavior: multi-chunk base64 content gets its dag-pb root CID and reads back byte for byte', async () => {
    const bytes = multiChunk(2 * 1_048_576 + 12_345)
    const gateway = api({
      BODY_LIMIT_BYTES: String(4 * 1_048_576),
      STORAGE_MAX_OBJECT_BYTES: String(3 * 1_048_576),
      STORAGE_MAX_READ_BYTES: String(3 * 1_048_576),
    })
    const data = Buffer.from(bytes).toString('base64')
    const pinned = await ok(await gateway.post('/api/v1/storage/pin', { data, encoding: 'base64' }))
    const dag = await ContentId.compute(bytes)
    expect(pinned.cid).toBe(dag.cid)
    expect(pinned.cid.startsWith('bafybei')).toBe(true)
    expect(dag.leaves).toHaveLength(3)
    const read = await ok(await gateway.get(`/api/v1/storage/get?cid=${pinned.cid}`))
    expect(read).toMatchObject({
      cid: dag.cid,
      status: 'pinned',
      verified: true,
      encoding: 'base64',
      size: bytes.length,
    })
    expect(read.data).toBe(data)
  })

  test('behavior: Kubo is asked to import with our profile and answers our CID; its pin state is its own', async () => {
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/storage/pin', { data: 'pinned at kubo', provider: 'kubo' }))
    const query = Object.fromEntries(kuboState.queries.at(-1)!)
    expect(query).toEqual(addQuery)
    expect(query).toMatchObject({ 'cid-version': '1', 'raw-leaves': 'true', chunker: 'size-1048576', pin: 'true' })
    expect(body).toMatchObject({ status: 'pinned', provider: 'kubo', providers: ['embedded', 'kubo'] })
    const status = await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))
    expect(status.providers).toEqual([
      { provider: 'embedded', status: 'pinned' },
      { provider: 'kubo', status: 'pinned' },
    ])
    // Kubo drops the pin: the state says so, read from Kubo.
    kuboState.pinned.delete(body.cid)
    expect((await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))).status).toBe('failed')
  })

  test('error: a provider answering another CID is refused, unpinned there, and nothing is charged or kept', async () => {
    const gateway = api()
    kuboState.lie = true
    const problem = await refused(
      await gateway.post('/api/v1/storage/pin', { data: 'the caller’s bytes', provider: 'kubo' }),
      502,
    )
    const { cid } = await ContentId.compute(new TextEncoder().encode('the caller’s bytes'))
    expect(problem.code).toBe('upstream_failed')
    expect(problem.detail).toContain(cid)
    expect(kuboState.removed.at(-1)).not.toBe(cid)
    expect(kuboState.pinned.has(kuboState.removed.at(-1)!)).toBe(false)
    expect(gateway.settled).toHaveLength(0)
    // The blocks written before the refusal were taken back with the unpaid call.
    expect(await store.get(objectsCollection, cid)).toBeUndefined()
    await refused(await gateway.get(`/api/v1/storage/status?id=${pinIdOf(payers.alice, cid)}`), 404)
  })

  test('error: Kubo down: a pin to it fails and keeps nothing; its pin state cannot be read and is not charged', async () => {
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/storage/pin', { data: 'before the outage', provider: 'kubo' }))
    kuboState.down = true
    const failed = await refused(
      await gateway.post('/api/v1/storage/pin', { data: 'during it', provider: 'kubo' }),
      502,
    )
    expect(failed.code).toBe('upstream_failed')
    const { cid } = await ContentId.compute(new TextEncoder().encode('during it'))
    expect(await store.get(objectsCollection, cid)).toBeUndefined()
    expect((await gateway.get(`/api/v1/storage/status?id=${body.id}`)).status).toBeGreaterThanOrEqual(502)
    expect(gateway.settled).toHaveLength(1)
  })

  test('behavior: Pinata uploads with the JWT; a file Pinata no longer has is failed', async () => {
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/storage/pin', { data: 'to pinata', provider: 'pinata' }))
    expect(body).toMatchObject({ status: 'pinned', provider: 'pinata' })
    expect(pinataState.auth.at(-1)).toBe('Bearer pinata-jwt')
    expect((await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))).status).toBe('pinned')
    pinataState.files.clear()
    expect((await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))).status).toBe('failed')
  })

  test('behavior: a pinning service pins by CID; its queued, pinning and pinned states are passed on as it reports them', async () => {
    const gateway = api()
    const body = await ok(await gateway.post('/api/v1/storage/pin', { data: 'by cid', provider: 'pinning-service' }))
    expect(body.status).toBe('queued')
    const [requestid, pin] = [...serviceState.pins].at(-1)!
    expect(pin.cid).toBe(body.cid)
    for (const state of ['pinning', 'pinned', 'failed']) {
      serviceState.pins.set(requestid, { ...pin, status: state })
      expect((await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))).status).toBe(state)
    }
  })

  test('error: bad input is a 400 naming the field, before any payment', async () => {
    const gateway = api({ STORAGE_MAX_OBJECT_BYTES: '8' })
    const unpaid = (body: unknown) =>
      gateway.fetch('/api/v1/storage/pin', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const cases: [unknown, string][] = [
      [{ data: 'hi', provider: 'dropbox' }, 'provider'],
      [{ data: 'not*base64', encoding: 'base64' }, 'data'],
      [{ data: 'nine bytes' }, 'data'],
      [{ data: 'hi', contentType: 'not a type' }, 'contentType'],
      [{}, 'data'],
      [{ data: null }, 'data'],
      [{ data: { a: 1 }, encoding: 'base64' }, 'data'],
    ]
    for (const [body, field] of cases) {
      const problem = await refused(await unpaid(body), 400)
      expect(JSON.stringify(problem)).toContain(field)
    }
    await refused(await gateway.fetch('/api/v1/storage/get?cid=nope'), 400)
    await refused(await gateway.fetch('/api/v1/storage/status?id=42'), 400)
    expect(gateway.settled).toHaveLength(0)
  })

  test('error: past the per-payer limits a new pin is refused and not charged; pinning a held CID again is not new', async () => {
    const gateway = api({ STORAGE_MAX_PINS_PER_PAYER: '2', STORAGE_MAX_BYTES_PER_PAYER: '100' })
    await ok(await gateway.post('/api/v1/storage/pin', { data: 'one' }))
    await ok(await gateway.post('/api/v1/storage/pin', { data: 'two' }))
    expect((await refused(await gateway.post('/api/v1/storage/pin', { data: 'three' }), 409)).detail).toContain(
      '2 pins',
    )
    await ok(await gateway.post('/api/v1/storage/pin', { data: 'one', provider: 'kubo' }))
    const big = await refused(await gateway.post('/api/v1/storage/pin', { data: 'x'.repeat(101) }, payers.bob), 409)
    expect(big.detail).toContain('100')
    expect(gateway.settled).toHaveLength(3)
  })
})

describe('from the original gateway (issue 34)', () => {
  test('behavior: data as any JSON value, provider ipfs, metadata; answers ipfsUri, gateway and pinnedAt', async () => {
    const gateway = api()
    const data = { invoice: 42, lines: [1, 2] }
    const body = await ok(
      await gateway.post('/api/v1/storage/pin', { data, provider: 'ipfs', metadata: { name: 'inv-42' } }),
    )
    const { cid } = await ContentId.compute(new TextEncoder().encode(JSON.stringify(data)))
    expect(body).toMatchObject({
      cid,
      status: 'pinned',
      provider: 'embedded',
      contentType: 'application/json',
      ipfsUri: `ipfs://${cid}`,
      // The embedded blockstore alone publishes nothing to the IPFS network: no public gateway serves it.
      gateway: null,
    })
    expect(Date.parse(body.pinnedAt)).not.toBeNaN()
    const read = await ok(await gateway.get(`/api/v1/storage/get?cid=${cid}`))
    expect(JSON.parse(read.data)).toEqual(data)
    expect(read).toMatchObject({ provider: 'embedded', pinnedAt: body.pinnedAt, contentType: 'application/json' })
    const status = await ok(await gateway.get(`/api/v1/storage/status?id=${body.id}`))
    expect(status).toMatchObject({ pinnedAt: body.pinnedAt, ipfsUri: `ipfs://${cid}`, metadata: { name: 'inv-42' } })
    const published = await ok(await gateway.post('/api/v1/storage/pin', { data: 'on the network', provider: 'kubo' }))
    expect(published.gateway).toBe(`https://ipfs.io/ipfs/${published.cid}`)
  })

  test('error: provider arweave is a 503 before payment that says why', async () => {
    const gateway = api()
    const response = await gateway.fetch('/api/v1/storage/pin', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: 'x', provider: 'arweave' }),
    })
    const problem = await refused(response, 503)
    expect(problem).toMatchObject({ code: 'upstream_unavailable' })
    expect(problem.detail).toContain('Arweave')
    expect(gateway.settled).toHaveLength(0)
  })
})

describe('GET /api/v1/storage/get and /status', () => {
  test('security: no payment is a 402; another payer’s pin is a 404 to both', async () => {
    const gateway = api()
    const pinned = await ok(await gateway.post('/api/v1/storage/pin', { data: 'alice only' }))
    expect((await gateway.fetch(`/api/v1/storage/get?cid=${pinned.cid}`)).status).toBe(402)
    await refused(await gateway.get(`/api/v1/storage/get?cid=${pinned.cid}`, payers.bob), 404)
    await refused(await gateway.get(`/api/v1/storage/status?id=${pinned.id}`, payers.bob), 404)
    const read = await ok(await gateway.get(`/api/v1/storage/get?cid=${pinned.cid}`))
    expect(read).toMatchObject({ data: 'alice only', encoding: 'utf8', verified: true })
  })

  test('error: a block altered in the store is caught by its hash; nothing is answered or charged', async () => {
    const gateway = api()
    const pinned = await ok(await gateway.post('/api/v1/storage/pin', { data: 'tamper with me' }))
    await store.update(
      'storage_blocks',
      pinned.cid,
      () => Buffer.from('tampered with').toString('base64') as unknown as never,
    )
    const problem = await refused(await gateway.get(`/api/v1/storage/get?cid=${pinned.cid}`), 502)
    expect(problem.detail).toContain('corrupt')
    expect(gateway.settled).toHaveLength(1)
  })

  test('behavior: a CIDv0 names the same content as its CIDv1', async () => {
    const gateway = api()
    await ok(await gateway.post('/api/v1/storage/pin', { data: 'hello world' }))
    const read = await ok(await gateway.get(`/api/v1/storage/get?cid=${hello}`))
    expect(read.data).toBe('hello world')
  })
})
