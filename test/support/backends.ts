import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgresJs from 'postgres'

/**
 * Redis for the suites that use it: `REDIS_URL`, or on CI (`CI=true`, where Redis listens on 127.0.0.1:6379) that
 * address; `undefined` elsewhere, and those cases are skipped.
 */
export const redisUrl = process.env.REDIS_URL ?? (process.env.CI === 'true' ? 'redis://127.0.0.1:6379' : undefined)

/** A database that a contract suite opens adapter instances on; every `open` of one fixture shares its data. */
export type Fixture<port> = {
  /** A new adapter instance (with its own connection where there is one) on this database. */
  open: () => port
  /** Removes what the fixture created. */
  teardown: () => Promise<void>
}

/** A SQLite file of its own in a new temporary folder, under a folder that the adapter must create. */
export function sqliteFixture<port>(name: string, open: (path: string) => port): Fixture<port> & { path: string } {
  const folder = mkdtempSync(join(tmpdir(), `${name}-`))
  const path = join(folder, 'nested', `${name}.db`)
  return { path, open: () => open(path), teardown: async () => rmSync(folder, { recursive: true, force: true }) }
}

/** A PostgreSQL schema of its own per run, so runs never see each other's rows and nothing global is truncated. */
export async function postgresFixture<port>(
  url: string,
  name: string,
  open: (sql: postgresJs.Sql) => port,
): Promise<Fixture<port> & { schema: string }> {
  const schema = `${name}_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgresJs(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE SCHEMA ${schema}`)
  const clients: postgresJs.Sql[] = []
  return {
    schema,
    open: () => {
      // The suites check behavior, not durability on power loss: not waiting for the WAL flush halves their time.
      const sql = postgresJs(url, {
        max: 10,
        onnotice: () => {},
        connection: { search_path: schema, synchronous_commit: 'off' },
      })
      clients.push(sql)
      return open(sql)
    },
    teardown: async () => {
      await Promise.all(clients.map((sql) => sql.end()))
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    },
  }
}

/**
 * The databases a gateway under test can keep its ledger and store in, as environment variables: the embedded
 * SQLite (in the gateway's own DATA_DIR), and PostgreSQL in a schema of its own (named in DATABASE_URL's
 * `search_path`) where `DATABASE_URL` is set. `open` creates the database; `teardown` removes it.
 */
export function gatewayDatabases(name: string): {
  name: string
  open: () => Promise<{ env: Record<string, string>; teardown: () => Promise<void> }>
}[] {
  const url = process.env.DATABASE_URL
  const sqlite = { name: 'embedded SQLite', open: async () => ({ env: {}, teardown: async () => {} }) }
  if (!url) return [sqlite]
  const postgres = {
    name: 'PostgreSQL',
    async open() {
      const schema = `${name}_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
      const admin = postgresJs(url, { max: 1, onnotice: () => {} })
      await admin.unsafe(`CREATE SCHEMA ${schema}`)
      return {
        env: { DATABASE_URL: `${url}${url.includes('?') ? '&' : '?'}search_path=${schema}` },
        teardown: async () => {
          await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
          await admin.end()
        },
      }
    },
  }
  return [sqlite, postgres]
}
