import type { Entry, Ledger, Move } from '../../core/Ledger.js'

/**
 * Group commit of a ledger's moves: the `apply` calls made in one turn of the event loop, or while the previous
 * group is being written, go to the ledger together as one `applyAll`, one transaction, instead of one transaction
 * each. A settlement batch's `submitted` and `confirmed` moves, and the calls finishing together, share a commit.
 * Each caller still gets its own move's outcome, and only once it is durable; a refused move fails alone, a fault of
 * the database fails its group. The other methods are the ledger's own.
 */
export function grouped(ledger: Ledger): Ledger {
  type Waiting = Move & { resolve: (entry: Entry) => void; reject: (error: unknown) => void }
  let waiting: Waiting[] = []
  let writing = false
  let scheduled = false

  const schedule = () => {
    if (scheduled || writing || waiting.length === 0) return
    scheduled = true
    setImmediate(write)
  }

  async function write() {
    scheduled = false
    writing = true
    const group = waiting
    waiting = []
    try {
      const moved = await ledger.applyAll(group)
      group.forEach((one, index) => {
        const result = moved[index]!
        if (result.ok) one.resolve(result.entry)
        else one.reject(result.error)
      })
    } catch (error) {
      for (const one of group) one.reject(error)
    } finally {
      writing = false
      schedule()
    }
  }

  return {
    ...ledger,
    apply: (key, event, also) =>
      new Promise((resolve, reject) => {
        waiting.push({ key, event, also, resolve, reject })
        schedule()
      }),
  }
}
