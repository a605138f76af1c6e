import { Database } from 'bun:sqlite'
import { expect } from 'bun:test'
import { getTableConfig as getPgTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as getSqliteTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import type postgresJs from 'postgres'

/**
 * Checks that the SQLite file at `path` holds `tables` as their drizzle schema describes them: every column (name,
 * type, null, primary key) in order, and every index, unique and partial as declared.
 */
export function expectSqliteSchema(path: string, tables: readonly SQLiteTable[]): void {
  const database = new Database(path, { readonly: true })
  type Column = { name: string; type: string; notnull: number; pk: number }
  try {
    for (const table of tables) {
      const config = getSqliteTableConfig(table)
      const columns = database.query(`PRAGMA table_info(${config.name})`).all() as Column[]
      const key = keyOf(config)
      expect(
        columns.map(({ name, type, notnull, pk }) => ({
          name,
          type: type.toLowerCase(),
          notNull: notnull === 1,
          pk: pk > 0,
        })),
      ).toEqual(
        config.columns.map((column) => ({
          name: column.name,
          type: column.getSQLType(),
          notNull: column.notNull || key.includes(column.name),
          pk: key.includes(column.name),
        })),
      )
      const indexes = database.query(`PRAGMA index_list(${config.name})`).all() as {
        name: string
        unique: number
        partial: number
      }[]
      for (const index of config.indexes)
        expect(indexes.find(({ name }) => name === index.config.name)).toMatchObject({
          unique: index.config.unique ? 1 : 0,
          partial: index.config.where ? 1 : 0,
        })
    }
  } finally {
    database.close()
  }
}

/**
 * Checks that the Postgres `schema` holds `tables` as their drizzle schema describes them: every column (name, type,
 * null) in order, every index, unique and partial as declared, and the index of every unique column.
 */
export async function expectPgSchema(sql: postgresJs.Sql, schema: string, tables: readonly PgTable[]): Promise<void> {
  for (const table of tables) {
    const config = getPgTableConfig(table)
    const columns = await sql<{ name: string; type: string; notNull: boolean }[]>`
      SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS "notNull"
      FROM pg_attribute WHERE attrelid = ${config.name}::regclass AND attnum > 0 AND NOT attisdropped
      ORDER BY attnum`
    const indexes = await sql<{ name: string; definition: string }[]>`
      SELECT indexname AS name, indexdef AS definition FROM pg_indexes
      WHERE tablename = ${config.name} AND schemaname = ${schema}`
    const key = keyOf(config)
    expect(columns.map((column) => ({ ...column }))).toEqual(
      config.columns.map((column) => ({
        name: column.name,
        type: column.getSQLType().replaceAll(', ', ','),
        notNull: column.notNull || key.includes(column.name),
      })),
    )
    for (const index of config.indexes) {
      const found = indexes.find(({ name }) => name === index.config.name)
      expect(found).toBeDefined()
      expect(found!.definition.startsWith('CREATE UNIQUE INDEX')).toBe(index.config.unique)
      expect(found!.definition.includes(' WHERE ')).toBe(index.config.where !== undefined)
    }
    for (const column of config.columns.filter((column) => column.isUnique))
      expect(indexes.map(({ name }) => name)).toContain(column.uniqueName!)
  }
}

/** The primary key's columns: a composite key, or the columns marked primary. */
function keyOf(config: {
  primaryKeys: { columns: { name: string }[] }[]
  columns: { name: string; primary: boolean }[]
}): string[] {
  return (
    config.primaryKeys[0]?.columns.map((column) => column.name) ??
    config.columns.filter((column) => column.primary).map((column) => column.name)
  )
}
