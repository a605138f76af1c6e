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
