import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** Every environment variable the gateway reads, with its default. The README documents the same list. */
const Environment = Type.Object({
  PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 3402, description: 'TCP port of the HTTP server.' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface the HTTP server binds to.' }),
  PUBLIC_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', description: 'Absolute base URL in discovery documents.' }),
  ),
  BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 1024 * 1024,
    description: 'Largest accepted request body.',
  }),
  NETWORK: Type.String({
    pattern: '^eip155:[0-9]+$',
    default: 'eip155:84532',
    description: 'CAIP-2 id of the settlement network.',
  }),
  PAY_TO: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'Address that receives payments.' })),
  LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], {
    default: 'info',
    description: 'Least severe level written to the log.',
  }),
})

/** The parsed configuration, handed to the composition root. */
export type Config = {
  /** TCP port. @default 3402 */
  port: number
  /** Bind address. @default '127.0.0.1' */
  host: string
  /** Absolute base URL for discovery; when absent, each request's own origin is used. */
  publicUrl: string | undefined
  /** Largest accepted request body in bytes. @default 1048576 */
  bodyLimitBytes: number
  /** CAIP-2 settlement network. @default 'eip155:84532' (the embedded devnet) */
  network: `eip155:${number}`
  /** Address that receives payments, when configured. */
  payTo: `0x${string}` | undefined
  /** Least severe log level. @default 'info' */
  logLevel: 'debug' | 'info' | 'warn' | 'error'
}

/** Raised at boot when the environment cannot be parsed; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

/** Documentation of every variable (name, default, description), for the README and `--help`. */
export const variables = Object.entries(Environment.properties).map(([name, schema]) => ({
  name,
  default: 'default' in schema ? String(schema.default) : undefined,
  description: String(schema.description),
}))

/** Parses the environment once at boot; fails fast with a message naming each bad variable. */
export function parse(env: Record<string, string | undefined>): Config {
  const raw = Object.fromEntries(
    Object.keys(Environment.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  )
  const value = Value.Convert(Environment, Value.Default(Environment, raw))
  const errors = [...Value.Errors(Environment, value)]
  if (errors.length > 0) {
    const lines = errors.map((error) => {
      const name = error.path.replace(/^\//, '')
      return `  ${name}=${JSON.stringify(raw[name] ?? '')}: ${error.message}`
    })
    throw new ConfigError(`Invalid configuration:\n${[...new Set(lines)].join('\n')}`)
  }
  const parsed = value as Static<typeof Environment>
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    bodyLimitBytes: parsed.BODY_LIMIT_BYTES,
    network: parsed.NETWORK as `eip155:${number}`,
    payTo: parsed.PAY_TO as `0x${string}` | undefined,
    logLevel: parsed.LOG_LEVEL,
  }
}
