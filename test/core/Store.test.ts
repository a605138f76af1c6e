import { expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import { genesisHash, walk } from '../../core/Store.js'

test('walk: every entry of a chain in order, across pages', async () => {
  const store = memory()
  for (let index = 0; index < 7; index++)
    await store.append('walked', () => ({ value: { index }, hash: genesisHash, createdAt: new Date() }))
  const seen: number[] = []
  for await (const entry of walk<{ index: number }>(store, 'walked', 3)) seen.push(entry.value.index)
  expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6])
  const none: unknown[] = []
  for await (const entry of walk(store, 'empty', 3)) none.push(entry)
  expect(none).toEqual([])
})
