import { afterAll, describe, expect, test } from 'bun:test'
import { arxiv } from '../../../adapters/research/arxiv.js'
import { atomOf } from '../../support/research.js'
import { clocked } from '../../support/vendor.js'

// arXiv asks for one request every 3 s. The kit queues callers for their turn, in arrival order, within a bound;
// past it a caller is refused (a 503 before payment at the gateway), never sent early.

const sent: { at: number; query: string }[] = []
let time = clocked(0)
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    sent.push({ at: time.now(), query: new URL(request.url).search })
    return new Response(atomOf([{ id: '1706.03762v7', title: 'Attention Is All You Need' }]), {
      headers: { 'content-type': 'application/atom+xml' },
    })
  },
})
afterAll(() => server.stop(true))

describe('arxiv', () => {
  test('behavior: five callers at once: four are served 3 s apart, in turn; the fifth would wait past 10 s and is refused', async () => {
    time = clocked(0)
    // A sleep that only records: each caller's wait is computed when it queued, so the waits show the schedule.
    const waits: number[] = []
    const source = arxiv({
      baseUrl: `http://127.0.0.1:${server.port}/api`,
      userAgent: 'test',
      now: time.now,
      sleep: async (ms) => {
        waits.push(ms)
      },
    })
    const outcomes = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((word) => source.search({ query: word, max: 1 })))
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, true, false])
    expect(waits).toEqual([3_000, 6_000, 9_000])
    expect(sent).toHaveLength(4)
    expect(outcomes[4]).toMatchObject({ ok: false, reason: 'unavailable' })
    expect((outcomes[4] as { message: string }).message).toContain('takes 1 calls per 3000 ms')
    // While the queue is full the source says so, which the gateway asks before taking a payment.
    expect(source.available().ok).toBe(false)
    time.clock.now = 3_000
    expect(source.available().ok).toBe(true)
  })

  test('behavior: the Atom feed is read into the normalized paper shape', async () => {
    const source = arxiv({ baseUrl: `http://127.0.0.1:${server.port}/api`, userAgent: 'test', intervalMs: 1 })
    const outcome = await source.byIds(['1706.03762'])
    expect(outcome).toMatchObject({
      ok: true,
      total: 1,
      papers: [
        {
          source: 'arxiv',
          title: 'Attention Is All You Need',
          authors: [
            { name: 'Ashish Vaswani', orcid: null },
            { name: 'Noam Shazeer', orcid: null },
          ],
          venue: 'arXiv',
          year: 2017,
          ids: { arxiv: '1706.03762v7', category: 'cs.CL' },
        },
      ],
    })
  })
})
