/** Log levels in order of severity. */
const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const

/** A structured logger writing one JSON line per event. Never pass request bodies to it. */
export type Logger = {
  /** Writes an event at the given level. */
  log: (level: keyof typeof levels, event: string, fields?: Record<string, unknown>) => void
}

/**
 * A logger that writes JSON lines to stdout (or to `write`) at or above `level`. Every URL in a field is cut down
 * to its scheme and host: a node or upstream URL may carry a key in its user info, path or query.
 */
export function stdout(
  level: keyof typeof levels,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  return {
    log(eventLevel, event, fields = {}) {
      if (levels[eventLevel] < levels[level]) return
      write(`${JSON.stringify(redact({ time: new Date().toISOString(), level: eventLevel, event, ...fields }))}\n`)
    },
  }
}

/** A logger that drops everything (tests). */
export function silent(): Logger {
  return { log() {} }
}

/** Most stack frames logged per error. */
const maxFrames = 8

/** How deep a cause chain is followed. */
const maxCauses = 8

/**
 * What a log may say about an error: the class names along its cause chain and where it was thrown. Never its
 * message: a library's message may quote the URL it called, the request it sent (a caller's body) or a secret.
 */
export function describeError(error: unknown): { names: string[]; frames: string[] } {
  const names: string[] = []
  let current = error
  for (let depth = 0; depth < maxCauses && current !== undefined && current !== null; depth++) {
    names.push(
      current instanceof Error ? (current.name !== 'Error' ? current.name : current.constructor.name) : typeof current,
    )
    current = current instanceof Error ? current.cause : undefined
  }
  const stack = error instanceof Error ? (error.stack ?? '') : ''
  const frames = stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, maxFrames)
    .map((line) => line.trim())
  return { names, frames }
}

/** `scheme://[user info@]host[:port][path][?query][#fragment]`, for schemes a node or upstream is reached by. */
const url = /\b((?:https?|wss?|postgres(?:ql)?):\/\/)(?:[^\s/?#@"]*@)?([^\s/?#"]+)[^\s"]*/gi

/** `value` with every URL in its strings reduced to scheme and host. */
function redact(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(url, (whole, scheme: string, host: string) =>
      whole === `${scheme}${host}` ? whole : `${scheme}${host}/…`,
    )
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, redact(field)]))
  return value
}
