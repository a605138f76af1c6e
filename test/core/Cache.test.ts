import { describe, expect, test } from 'bun:test'
import * as Cache from '../../core/Cache.js'

function clocked(parameters: { ttlMs: number; maxEntries?: number }) {
  const clock = { now: 1_000 }
  return { clock, cache: Cache.create<string>({ ...parameters, now: () => clock.now }) }
}

describe('create', () => {
  test('default: a value is served until its time to live has passed', () => {
    const { clock, cache } = clocked({ ttlMs: 100 })
    expect(cache.get('a')).toBeUndefined()
    cache.set('a', 'one')
    clock.now = 1_099
    expect(cache.get('a')).toBe('one')
    clock.now = 1_100
    expect(cache.get('a')).toBeUndefined()
  })

  test('behavior: setting again restarts the time to live', () => {
    const { clock, cache } = clocked({ ttlMs: 100 })
    cache.set('a', 'one')
    clock.now = 1_050
    cache.set('a', 'two')
    clock.now = 1_140
    expect(cache.get('a')).toBe('two')
  })

  test('behavior: when full, the entry set longest ago makes room', () => {
    const { cache } = clocked({ ttlMs: 100, maxEntries: 2 })
    cache.set('a', 'one')
    cache.set('b', 'two')
    cache.set('a', 'one again')
    cache.set('c', 'three')
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['one again', undefined, 'three'])
  })

  test('behavior: delete forgets a key', () => {
    const { cache } = clocked({ ttlMs: 100 })
    cache.set('a', 'one')
    cache.delete('a')
    expect(cache.get('a')).toBeUndefined()
  })
})

describe('shared', () => {
  test('default: one read serves its time to live, then the next call reads again', async () => {
    let now = 0
    let reads = 0
    const take = Cache.shared({ read: async () => ++reads, ttlMs: 1_000, now: () => now })
    expect(await take()).toEqual({ value: 1, takenAt: 0, cached: false })
    now = 999
    expect(await take()).toEqual({ value: 1, takenAt: 0, cached: true })
    now = 1_000
    expect(await take()).toEqual({ value: 2, takenAt: 1_000, cached: false })
  })

  test('behavior: concurrent calls share one read', async () => {
    let reads = 0
    const take = Cache.shared({ read: async () => ++reads, ttlMs: 1_000, now: () => 0 })
    const answers = await Promise.all([take(), take(), take()])
    expect(reads).toBe(1)
    expect(answers.map((answer) => answer.value)).toEqual([1, 1, 1])
  })

  test('error: a read that throws is not kept', async () => {
    let fail = true
    const take = Cache.shared({
      read: async () => {
        if (fail) throw new Error('down')
        return 'up'
      },
      ttlMs: 1_000,
      now: () => 0,
    })
    await expect(take()).rejects.toThrow('down')
    fail = false
    expect((await take()).value).toBe('up')
  })
})
