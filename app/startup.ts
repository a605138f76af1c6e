import { StartError } from '../core/Errors.js'

export { StartError }

/**
 * Runs `start` (which binds `port`) and turns "address in use" into a {@link StartError} naming the variable that
 * sets the port. Servers must bind with `reusePort: false`: with SO_REUSEPORT (Elysia's default) a second process
 * silently shares the port and the kernel splits connections between the two.
 */
export function bind<result>(parameters: bind.Parameters<result>): result {
  const { port, hostname, variable, start, hint = `set ${variable} to a free port` } = parameters
  try {
    return start()
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error
    throw new StartError({
      code: 'port_in_use',
      message: `Port ${port} on ${hostname} is in use (by another gateway or devnet?): stop that process or ${hint}.`,
      cause: error,
    })
  }
}

export declare namespace bind {
  type Parameters<result> = {
    /** TCP port `start` binds. */
    port: number
    /** Interface `start` binds. */
    hostname: string
    /** Environment variable that sets the port, named in the message. */
    variable: string
    /** Binds the port; must not set `reusePort`. */
    start: () => result
    /** What to do instead, ending the message. @default 'set <variable> to a free port' */
    hint?: string
  }
}

/**
 * Fails with a {@link StartError} when `port` cannot be bound now: checked before the slow part of a start (the
 * devnet's replay, the database), so a second process stops at once instead of after it.
 */
export function assertPortFree(parameters: Omit<bind.Parameters<void>, 'start'>): void {
  const { port, hostname } = parameters
  bind({
    ...parameters,
    start: () => Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null) }).stop(true),
  })
}

/** Writes a {@link StartError} as one line on stderr and exits with 1; rethrows anything else (a fault). */
export function exitOnStartError(error: unknown): never {
  if (!(error instanceof StartError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}

/** Host and port of a URL that may carry credentials or a key, for messages; never the rest of it. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an unparsable URL'
  }
}

/** Why a connection failed, on one line: the system error code when there is one (viem and postgres messages span several lines). */
export function oneLine(error: unknown): string {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const { code } = cause as { code?: unknown }
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  }
  const { shortMessage, message } = error as { shortMessage?: string; message?: string }
  return (shortMessage ?? message ?? String(error)).split('\n')[0]!.replace(/\.$/, '')
}
