/**
 * A small in-memory cache whose entries expire a fixed time after they are set. The clock is passed in, so the
 * cache does no I/O and tests control time. When full, the entry set longest ago makes room.
 */
export function create<value>(parameters: create.Parameters): Cache<value> {
  const { ttlMs, maxEntries = 100, now = Date.now } = parameters
  const entries = new Map<string, { value: value; expiresAt: number }>()
  return {
    get(key) {
      const entry = entries.get(key)
      if (!entry) return undefined
      if (now() < entry.expiresAt) return entry.value
      entries.delete(key)
      return undefined
    },
    set(key, value) {
      // Re-inserting moves the key to the end of the Map's order, which is the eviction order.
      entries.delete(key)
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, expiresAt: now() + ttlMs })
    },
    delete(key) {
      entries.delete(key)
    },
  }
}

export declare namespace create {
  type Parameters = {
    /** How long an entry is served after it is set, in ms. */
    ttlMs: number
    /** Most entries kept at once. @default 100 */
    maxEntries?: number
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** Values by key, each for a limited time. */
export type Cache<value> = {
  /** The value set under `key`, unless it has expired or was evicted. */
  get: (key: string) => value | undefined
  /** Sets `key` to `value` for the cache's time to live. */
  set: (key: string, value: value) => void
  /** Forgets `key`. */
  delete: (key: string) => void
}

/** One value read by {@link shared}, and when. */
export type Taken<value> = {
  /** The value read. */
  value: value
  /** When it was read, epoch ms. */
  takenAt: number
  /** Whether an earlier call read it (served from memory). */
  cached: boolean
}

/**
 * Calls `read` at most once per `ttlMs`: calls within it get the same value (`cached: true`), and concurrent calls
 * that find none share one read. A read that throws is not kept.
 */
export function shared<value>(parameters: shared.Parameters<value>): () => Promise<Taken<value>> {
  const { read, ttlMs, now } = parameters
  let kept: { value: value; takenAt: number } | undefined
  let inFlight: Promise<{ value: value; takenAt: number }> | undefined
  return async () => {
    if (kept && now() - kept.takenAt < ttlMs) return { ...kept, cached: true }
    inFlight ??= read()
      .then((value) => {
        kept = { value, takenAt: now() }
        return kept
      })
      .finally(() => {
        inFlight = undefined
      })
    return { ...(await inFlight), cached: false }
  }
}

export declare namespace shared {
  type Parameters<value> = {
    /** Reads the value afresh. */
    read: () => Promise<value>
    /** How long one read is served again, in ms. */
    ttlMs: number
    /** Current time, epoch ms. */
    now: () => number
  }
}
