import * as ContentId from '../../core/ContentId.js'
import type { Blockstore } from '../../core/Storage.js'
import type { Store } from '../../core/Store.js'

/** Collection of the blocks: id the block's CID, value its bytes in base64. */
export const blocksCollection = 'storage_blocks'

/** Collection of the pinned objects: id the root CID, value its size and leaves. */
export const objectsCollection = 'storage_objects'

/** One object's record: enough to read its bytes back in order. */
type ObjectValue = {
  /** Size of the content, in bytes. */
  size: number
  /** Leaf CIDs in content order. */
  leaves: string[]
}

/**
 * The gateway's own content-addressed blockstore on the store port (the embedded SQLite file under DATA_DIR by
 * default, PostgreSQL when configured, so every gateway process sees the same blocks). Blocks are keyed by their CID
 * and shared between pins; reads check every block's hash against its CID before handing any byte back. A block first
 * written by a call that is then not paid is taken back with that call's writes: a pin of the same block by another
 * payer at that very moment finds it missing, which `status` reports (`failed`) and `get` refuses, never hides.
 */
export function embedded(parameters: embedded.Parameters): Blockstore {
  const { store } = parameters
  return {
    name: 'embedded',
    async pin(content) {
      const root = content.blocks.find((block) => block.cid === content.cid)
      // A root block that does not hash to the CID is not the content the CID names.
      if (!root || !(await ContentId.matches(content.cid, root.bytes)))
        return { ok: false, reason: 'failed', status: undefined, message: 'The root block does not match its CID.' }
      for (const block of content.blocks)
        await store.insert({
          collection: blocksCollection,
          id: block.cid,
          owners: [],
          value: Buffer.from(block.bytes).toString('base64'),
          createdAt: new Date(),
        })
      await store.insert<ObjectValue>({
        collection: objectsCollection,
        id: content.cid,
        owners: [],
        value: { size: content.bytes.length, leaves: [...content.leaves] },
        createdAt: new Date(),
      })
      return { ok: true, cid: content.cid, ref: undefined, status: 'pinned' }
    },
    async status({ cid }) {
      const object = await store.get<ObjectValue>(objectsCollection, cid)
      const root = object && (await store.get<string>(blocksCollection, cid))
      return { ok: true, status: object && root ? 'pinned' : 'failed' }
    },
    async read({ cid, maxBytes }) {
      const object = await store.get<ObjectValue>(objectsCollection, cid)
      if (!object) return { ok: false, reason: 'failed', status: 404, message: `The blockstore holds no ${cid}.` }
      if (object.value.size > maxBytes)
        return {
          ok: false,
          reason: 'too_large',
          status: undefined,
          message: `The content is ${object.value.size} bytes; reads are limited to ${maxBytes}.`,
        }
      const parts: Uint8Array[] = []
      for (const leaf of object.value.leaves) {
        const block = await store.get<string>(blocksCollection, leaf)
        const bytes = block && new Uint8Array(Buffer.from(block.value, 'base64'))
        if (!bytes || !(await ContentId.matches(leaf, bytes)))
          return {
            ok: false,
            reason: 'failed',
            status: undefined,
            message: `Block ${leaf} of ${cid} is ${bytes ? 'corrupt' : 'missing'}.`,
          }
        parts.push(bytes)
      }
      return { ok: true, bytes: new Uint8Array(Buffer.concat(parts)) }
    },
    available: () => ({ ok: true }),
  }
}

export declare namespace embedded {
  type Parameters = {
    /** The store the blocks live in. */
    store: Store
  }
}
