/**
 * A start-up failure the operator can fix (a busy port, an unreachable database, a chain that is not the one the
 * configuration or the records name). `main.ts` and `devnet.ts` print its message as one line and exit with 1.
 */
export class StartError extends Error {
  override readonly name = 'StartError'
  /** Stable snake_case code, safe to match on. */
  readonly code: StartError.Code

  constructor(parameters: StartError.Parameters) {
    super(parameters.message, parameters.cause === undefined ? undefined : { cause: parameters.cause })
    this.code = parameters.code
  }
}

export declare namespace StartError {
  /** Stable codes of start-up failures; codes never change once published. */
  type Code =
    | 'port_in_use'
    | 'database_unreachable'
    | 'redis_unreachable'
    | 'chain_unreachable'
    | 'chain_mismatch'
    | 'devnet_contracts_missing'
    | 'records_of_other_chain'
    | 'devnet_in_use'
    | 'devnet_journal_invalid'
    | 'relayer_not_own'
  type Parameters = {
    /** Stable code. */
    code: Code
    /** One line saying what is wrong and what to do; never contains a secret. */
    message: string
    /** The underlying error. */
    cause?: unknown
  }
}

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
