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
