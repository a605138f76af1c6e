import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embedded } from '../adapters/storage/embedded.js'
import { sqlite } from '../adapters/store/sqlite.js'
import * as Service from '../modules/storage/service.js'

// The storage row of `bun run bench`: `storage/pin`'s work (the CID and DAG computed from the bytes, every block
// written to the embedded blockstore on the SQLite store `npm start` uses) in MiB/s, against writing the same bytes to
// a file in the same directory, in the same round. Run alone: `bun bench/storage.ts`.

/** Size of one pinned object, in bytes: eight 1 MiB chunks, so every pin builds a dag-pb root over raw leaves. */
const objectBytes = 8 * 1_048_576

/** Objects pinned per round. */
const objectsPerRound = 8

/** Pin throughput over `rounds` rounds, each with fresh random objects on a fresh store. */
export async function row(rounds: number) {
  const figures: number[] = []
  const baselines: number[] = []
  for (let round = 0; round < rounds; round++) {
    const directory = mkdtempSync(join(tmpdir(), 'bench-storage-'))
    const store = sqlite({ path: join(directory, 'store.sqlite') })
    const deps: Service.Deps = {
      store,
      embedded: (on) => embedded({ store: on }),
      remote: {},
      defaultProvider: 'embedded',
      limits: {
        maxObjectBytes: objectBytes,
        maxReadBytes: objectBytes,
        maxPinsPerPayer: 1_000,
        maxBytesPerPayer: 1_000 * objectBytes,
      },
      now: Date.now,
    }
    // The request bodies, as a caller sends them (base64), made before the clock starts.
    const bodies = Array.from({ length: objectsPerRound }, () => Buffer.from(random(objectBytes)).toString('base64'))
    const payer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    let started = performance.now()
    for (const data of bodies) await Service.pin(deps, payer, { data, encoding: 'base64' })
    figures.push(mib(objectsPerRound * objectBytes) / ((performance.now() - started) / 1000))
    started = performance.now()
    bodies.forEach((data, index) => {
      writeFileSync(join(directory, `file-${index}`), Buffer.from(data, 'base64'))
    })
    baselines.push(mib(objectsPerRound * objectBytes) / ((performance.now() - started) / 1000))
    await store.close()
    rmSync(directory, { recursive: true, force: true })
  }
  return {
    figure: `storage/pin throughput: CID + DAG of ${mib(objectBytes)} MiB objects into the embedded blockstore (SQLite)`,
    baseline: 'the same base64 bodies decoded and written to plain files, same directory',
    unit: 'MiB/s',
    figures,
    baselines,
    target: { relation: '>=' as const, ratio: 0.1 },
  }
}

function mib(bytes: number): number {
  return bytes / 1_048_576
}

/** `size` random bytes (no chunk repeats, so no block is shared). */
function random(size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  for (let offset = 0; offset < size; offset += 65_536) crypto.getRandomValues(bytes.subarray(offset, offset + 65_536))
  return bytes
}

if (import.meta.main) console.log(await row(3))
