import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { frankfurter } from '../../../adapters/fx/frankfurter.js'
import { vendorServer } from '../../support/vendor.js'

const server = vendorServer()
afterEach(() => server.reset())
afterAll(() => server.stop())

/** A stand-in answering in Frankfurter's documented shape. */
function answering(body: unknown, status = 200) {
  server.state.answer = () => Response.json(body, { status })
}

describe('frankfurter: latest', () => {
  test('default: the rates of the asked symbols against the base, as the decimal text of the JSON numbers', async () => {
    answering({ amount: 1, base: 'USD', date: '2026-11-20', rates: { EUR: 0.8621, JPY: 153.61 } })
    const reference = frankfurter({ url: server.url, retries: 0 })
    expect(await reference.latest('USD', ['EUR', 'JPY'])).toEqual({
      ok: true,
      base: 'USD',
      date: '2026-11-20',
      rates: { EUR: '0.8621', JPY: '153.61' },
    })
    const { url } = server.last()
    expect(url.pathname).toBe('/api/latest')
    expect(url.searchParams.get('base')).toBe('USD')
    expect(url.searchParams.get('symbols')).toBe('EUR,JPY')
    expect(reference.available()).toEqual({ ok: true })
  })

  test('behavior: one answer per query is served again within 60 s', async () => {
    answering({ amount: 1, base: 'EUR', date: '2026-11-20', rates: { USD: 1.16 } })
    const reference = frankfurter({ url: server.url, retries: 0 })
    await reference.latest('EUR', ['USD'])
    await reference.latest('EUR', ['USD'])
    expect(server.seen.length).toBe(1)
  })

  test('error: a rate that is not a positive number makes the answer unreadable', async () => {
    answering({ amount: 1, base: 'USD', date: '2026-11-20', rates: { EUR: '0.86' } })
    const outcome = await frankfurter({ url: server.url, retries: 0 }).latest('USD', ['EUR'])
    expect(outcome).toMatchObject({ ok: false, reason: 'failed' })
    expect(!outcome.ok && outcome.message).toContain('EUR')
  })

  test('error: rates against another base are refused', async () => {
    answering({ amount: 1, base: 'EUR', date: '2026-11-20', rates: { GBP: 0.87 } })
    const outcome = await frankfurter({ url: server.url, retries: 0 }).latest('USD', ['GBP'])
    expect(outcome).toMatchObject({ ok: false, reason: 'failed' })
  })

  test('error: a server that is down is a failure, never thrown, and never shows the URL', async () => {
    const outcome = await frankfurter({ url: 'http://127.0.0.1:9/v1', retries: 0 }).latest('USD', ['EUR'])
    expect(outcome.ok).toBe(false)
    expect(!outcome.ok && outcome.message).not.toContain('127.0.0.1')
  })

  test('error: an HTTP error is a failure with its status', async () => {
    answering({ message: 'not found' }, 404)
    const outcome = await frankfurter({ url: server.url, retries: 0 }).latest('XXX', ['EUR'])
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', status: 404 })
  })
})
