import { afterAll, describe, expect, test } from 'bun:test'
import { blocksCollection, embedded } from '../../../adapters/storage/embedded.js'
import { memory } from '../../../adapters/store/memory.js'
import { postgres } from '../../../adapters/store/postgres.js'
import { sqlite } from '../../../adapters/store/sqlite.js'
import * as ContentId from '../../../core/ContentId.js'
import type { Store } from '../../../core/Store.js'
import { type Fixture, postgresFixture, sqliteFixture } from '../../support/backends.js'

// One contract over every store the embedded blockstore can stand on: memory, the embedded SQLite file, and
// PostgreSQL where DATABASE_URL is set.

const url = process.env.DATABASE_URL
const fixtures: { name: string; fixture: () => Promise<Fixture<Store>> }[] = [
  {
    name: 'memory',
    fixture: async () => {
      // Every instance on one memory store shares its data, as every connection to one database does.
      const store = memory()
      return { open: () => store, teardown: async () => {} }
    },
  },
  { name: 'sqlite', fixture: async () => sqliteFixture('blockstore', (path) => sqlite({ path })) },
  ...(url ? [{ name: 'postgres', fixture: () => postgresFixture(url, 'blockstore', (sql) => postgres({ sql })) }] : []),
]

const opened: Fixture<Store>[] = []
afterAll(async () => {
  for (const fixture of opened) await fixture.teardown()
})

/** Three chunks and a bit, with a repeated chunk, so one block is shared. */
function content(): Uint8Array {
  const bytes = new Uint8Array(3 * ContentId.profile.chunkSize + 7)
  for (let index = 0; index < bytes.length; index++) bytes[index] = (index % ContentId.profile.chunkSize) % 251
  return bytes
}

describe.each(fixtures)('embedded blockstore on $name', ({ fixture }) => {
  test('behavior: pins, reads back byte for byte from another instance, and reports pinned', async () => {
    const database = await fixture()
    opened.push(database)
    const bytes = content()
    const dag = await ContentId.compute(bytes)
    const writer = embedded({ store: database.open() })
    const pinned = await writer.pin({ ...dag, bytes, name: 'x', contentType: undefined })
    expect(pinned).toMatchObject({ ok: true, cid: dag.cid, status: 'pinned' })
    // Pinning again finds every block there already.
    expect((await writer.pin({ ...dag, bytes, name: 'x', contentType: undefined })).ok).toBe(true)
    const reader = embedded({ store: database.open() })
    const read = await reader.read({ cid: dag.cid, maxBytes: bytes.length })
    expect(read.ok && Buffer.from(read.bytes).equals(Buffer.from(bytes))).toBe(true)
    expect(await reader.status({ cid: dag.cid, ref: undefined })).toEqual({ ok: true, status: 'pinned' })
    expect(await reader.status({ cid: (await ContentId.compute(new Uint8Array([1]))).cid, ref: undefined })).toEqual({
      ok: true,
      status: 'failed',
    })
  })

  test('error: a read past the limit, a missing or altered block', async () => {
    const database = await fixture()
    opened.push(database)
    const store = database.open()
    const blockstore = embedded({ store })
    const bytes = content()
    const dag = await ContentId.compute(bytes)
    await blockstore.pin({ ...dag, bytes, name: 'x', contentType: undefined })
    expect(await blockstore.read({ cid: dag.cid, maxBytes: 10 })).toMatchObject({ ok: false, reason: 'too_large' })
    await store.update(blocksCollection, dag.leaves[1]!, () => Buffer.from('other bytes').toString('base64'))
    const altered = await blockstore.read({ cid: dag.cid, maxBytes: bytes.length })
    expect(altered).toMatchObject({ ok: false, reason: 'failed' })
    expect(!altered.ok && altered.message).toContain('corrupt')
    await store.remove(blocksCollection, dag.leaves[1]!)
    expect(!(await blockstore.read({ cid: dag.cid, maxBytes: bytes.length })).ok).toBe(true)
  })

  test('error: a root block that does not hash to the CID is not stored', async () => {
    const database = await fixture()
    opened.push(database)
    const blockstore = embedded({ store: database.open() })
    const dag = await ContentId.compute(new TextEncoder().encode('real'))
    const forged = { ...dag, blocks: [{ cid: dag.cid, bytes: new TextEncoder().encode('fake') }] }
    const refused = await blockstore.pin({
      ...forged,
      bytes: new TextEncoder().encode('fake'),
      name: 'x',
      contentType: undefined,
    })
    expect(refused.ok).toBe(false)
    expect(await blockstore.status({ cid: dag.cid, ref: undefined })).toEqual({ ok: true, status: 'failed' })
  })
})
