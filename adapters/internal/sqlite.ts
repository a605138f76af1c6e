import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Opens an embedded SQLite database the way every adapter here needs it: WAL so several processes share the file,
 * a busy timeout so they wait for each other's write lock, and the migration run under that lock.
 */
export function open(parameters: open.Parameters): Database {
  const { path, busyTimeout = 5_000, migration } = parameters
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const client = new Database(path, { create: true })
  // The timeout comes first so that the pragmas and the migration below wait for a process that holds the lock.
  client.exec(`PRAGMA busy_timeout = ${Math.floor(busyTimeout)}`)
  client.exec('PRAGMA journal_mode = WAL')
  // With WAL, NORMAL loses no committed transaction when the process crashes, only the last ones on power loss,
  // and it saves an fsync per write.
  client.exec('PRAGMA synchronous = NORMAL')
  client.transaction(() => {
    for (const statement of migration) client.exec(statement)
  }).immediate()
  return client
}

export declare namespace open {
  type Parameters = {
    /** File path, or `:memory:` for a private in-memory database. */
    path: string
    /** How long a write waits for another process's lock, in ms. @default 5_000 */
    busyTimeout?: number
    /** Idempotent statements that create the tables and indexes. */
    migration: readonly string[]
  }
}
