import { sql } from 'drizzle-orm'
import { customType } from 'drizzle-orm/pg-core'
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js'
import type { Sql } from 'postgres'

/**
 * The client as drizzle should see it. drizzle's postgres-js driver overwrites the client's parsers and
 * serializers for date, time and JSON types, which would change what every other user of the caller's client
 * receives; handing it a view with its own copy of the options keeps the caller's client as it was.
 */
export function isolate(sql: Sql): Sql {
  const options = {
    ...sql.options,
    parsers: { ...sql.options.parsers },
    serializers: { ...sql.options.serializers },
  }
  return new Proxy(sql, {
    get: (target, property) => (property === 'options' ? options : Reflect.get(target, property)),
  })
}

/**
 * Runs a migration once, on first use, inside a transaction holding the advisory lock `lock`, so processes that
 * start together never create the same table twice; a failed run is tried again on the next use.
 */
export function migrateOnce(parameters: {
  db: PostgresJsDatabase
  lock: bigint
  statements: readonly string[]
}): () => Promise<void> {
  const { db, lock, statements } = parameters
  let migrated: Promise<void> | undefined
  return () => {
    migrated ??= db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`SELECT pg_advisory_xact_lock(${lock})`))
        for (const statement of statements) await tx.execute(sql.raw(statement))
      })
      .catch((error) => {
        migrated = undefined
        throw error
      })
    return migrated
  }
}

/** A PostgreSQL `json` column carried as its text: `json` keeps the text as written (key order, `\u0000`). */
export const jsonText = customType<{ data: string; driverData: string }>({ dataType: () => 'json' })

/** A PostgreSQL `jsonb` column carried as its text. */
export const jsonbText = customType<{ data: string; driverData: string }>({ dataType: () => 'jsonb' })

/**
 * The server's error behind `error`, which drizzle wraps in its own (`cause`): its SQLSTATE `code` (`23505` for a
 * unique violation, `40P01` for a deadlock) and, for a constraint, its name. `undefined` for any other error.
 */
export function serverError(error: unknown): serverError.ReturnType | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code, constraint_name } = current as Error & { code?: unknown; constraint_name?: unknown }
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
      return { code, constraint: typeof constraint_name === 'string' ? constraint_name : undefined }
  }
  return undefined
}

export declare namespace serverError {
  type ReturnType = {
    /** SQLSTATE, e.g. `23505`. */
    code: string
    /** Name of the violated constraint or index, when there is one. */
    constraint: string | undefined
  }
}
