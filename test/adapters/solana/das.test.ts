import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { das } from '../../../adapters/solana/das.js'
import { clocked } from '../../support/vendor.js'
import { dasAsset, dasStandIn, usdc, wsol } from './stand-ins.js'

const key = 'helius-test-key-0123456789'
const server = dasStandIn({ key })
const owner = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY'
const first = dasAsset('F9Lw3ki3hJ7PF9HQXsBzoY8GyE6sPoEZZdXJBsTTD2rk', owner, 'Mad Lad #8420')
const second = dasAsset('JEGruwYE13mhX2wi2MGrPmeLiVyZtbBptmVy9vG3pXRC', owner, 'Mad Lad #8421')
server.assets.set(first.id, first)
server.assets.set(second.id, second)
afterAll(() => server.stop())
beforeEach(() => {
  server.faults.length = 0
  server.received.length = 0
})

/** The adapter on the stand-in, with a clock whose sleeps are recorded, not waited. */
function index(options: Partial<das.Parameters> = {}) {
  const time = clocked()
  return { time, index: das({ url: server.url, key, now: time.now, sleep: time.sleep, ...options }) }
}

/** Display options that ask for NFTs only, without the owner's SOL. */
const hidden = { showFungible: false, showNativeBalance: false }

describe('das: assetsByOwner', () => {
  test('default: one page of DAS assets, the key in the api-key query parameter', async () => {
    const { index: assets } = index()
    expect(await assets.assetsByOwner({ owner, page: 1, limit: 1, ...hidden })).toEqual({
      ok: true,
      total: 1,
      page: 1,
      limit: 1,
      items: [first],
      nativeBalance: undefined,
    })
    expect(await assets.assetsByOwner({ owner, page: 2, limit: 1, ...hidden })).toMatchObject({
      page: 2,
      items: [second],
    })
    const sent = server.received[0]!
    expect(sent.route).toBe('POST /')
    expect(sent.url.searchParams.get('api-key')).toBe(key)
    expect(JSON.parse(sent.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'getAssetsByOwner',
      params: {
        ownerAddress: owner,
        page: 1,
        limit: 1,
        displayOptions: { showFungible: false, showNativeBalance: false },
      },
    })
  })

  test("behavior: display options reach the provider, and the owner's SOL comes back as nativeBalance", async () => {
    const { index: assets } = index()
    server.lamportsOf.set(owner, 2_500_000_000)
    const page = await assets.assetsByOwner({ owner, page: 1, limit: 10, showFungible: true, showNativeBalance: true })
    expect(page).toMatchObject({ ok: true, nativeBalance: { lamports: 2_500_000_000 } })
    expect(JSON.parse(server.received[0]!.body).params.displayOptions).toEqual({
      showFungible: true,
      showNativeBalance: true,
    })
    server.lamportsOf.delete(owner)
  })

  test('behavior: an owner with nothing is an empty page', async () => {
    const { index: assets } = index()
    expect(await assets.assetsByOwner({ owner: wsol, page: 1, limit: 100, ...hidden })).toEqual({
      ok: true,
      total: 0,
      page: 1,
      limit: 100,
      items: [],
      nativeBalance: undefined,
    })
  })

  test('behavior: an HTTP 429 with Retry-After is retried after the pause asked for', async () => {
    const { index: assets, time } = index()
    server.faults.push({ status: 429, retryAfter: 3 })
    expect(await assets.assetsByOwner({ owner, page: 1, limit: 10, ...hidden })).toMatchObject({ ok: true, total: 2 })
    expect(time.slept).toEqual([3_000])
  })

  test('error: a rate limit that lasts is rate_limited, with the JSON-RPC error as the message', async () => {
    const { index: assets } = index({ retries: 0 })
    server.faults.push({ status: 429, retryAfter: 1 })
    expect(await assets.assetsByOwner({ owner, page: 1, limit: 10, ...hidden })).toEqual({
      ok: false,
      reason: 'rate_limited',
      status: 429,
      message: 'rate limited',
    })
  })

  test('error: invalid params are rejected; the key never appears in a failure', async () => {
    const { index: assets } = index()
    expect(await assets.assetsByOwner({ owner, page: 1, limit: 5_000, ...hidden })).toEqual({
      ok: false,
      reason: 'rejected',
      status: 200,
      message: 'Invalid params: limit must be between 1 and 1000 (JSON-RPC -32602)',
    })
    const { index: wrongKey } = index({ key: 'wrong-key-0123456789', retries: 0 })
    const failure = await wrongKey.assetsByOwner({ owner, page: 1, limit: 1, ...hidden })
    expect(failure).toEqual({ ok: false, reason: 'failed', status: 401, message: 'invalid api key provided' })
    expect(JSON.stringify(failure)).not.toContain('wrong-key')
  })
})

describe('das: asset', () => {
  test('default: the DAS asset object as the provider answers it', async () => {
    const { index: assets } = index()
    expect(await assets.asset(first.id)).toEqual({ ok: true, asset: first })
  })

  test("behavior: an id the index does not know is the port's not_found", async () => {
    const { index: assets } = index()
    expect(await assets.asset(usdc)).toEqual({
      ok: false,
      reason: 'not_found',
      message: 'Database Error: RecordNotFound Error: Asset Not Found',
    })
    expect(assets.available()).toEqual({ ok: true })
  })

  test('error: a provider that fails answers a failure after its retries', async () => {
    const { index: assets, time } = index({ retries: 1 })
    server.faults.push({ status: 500 }, { status: 500 })
    expect(await assets.asset(first.id)).toEqual({
      ok: false,
      reason: 'failed',
      status: 500,
      message: 'upstream connect error',
    })
    expect(time.slept).toEqual([250])
  })
})
