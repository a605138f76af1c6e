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
  // Under the write lock, so a column check and its `ALTER TABLE` see no other process's migration in between.
  client
    .transaction(() => {
      for (const step of migration) {
        if (typeof step === 'string') client.exec(step)
        else addColumn(client, step)
      }
    })
    .immediate()
  return client
}

export declare namespace open {
  type Parameters = {
    /** File path, or `:memory:` for a private in-memory database. */
    path: string
    /** How long a write waits for another process's lock, in ms. @default 5_000 */
    busyTimeout?: number
    /** Idempotent steps that create the tables and indexes and bring an older file up to date, in order. */
    migration: readonly Step[]
  }

  /** An idempotent statement, or a column that a table of an earlier version lacks. */
  type Step = string | Column

  /** A column to add to `table` unless it has it: SQLite's `ADD COLUMN` has no `IF NOT EXISTS`. */
  type Column = {
    /** Table name. */
    table: string
    /** Column name. */
    column: string
    /** Type and constraints, as in `ALTER TABLE ... ADD COLUMN <column> <definition>`; NOT NULL needs a default. */
    definition: string
  }
}

/** Adds `step.column` to `step.table` unless the table has it; run under the write lock by {@link open}. */
function addColumn(client: Database, step: open.Column): void {
  const columns = client.query(`PRAGMA table_info("${step.table}")`).all() as { name: string }[]
  if (columns.some(({ name }) => name === step.column)) return
  client.exec(`ALTER TABLE "${step.table}" ADD COLUMN "${step.column}" ${step.definition}`)
}
