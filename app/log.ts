/** Log levels in order of severity. */
const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const

/** A structured logger writing one JSON line per event. Never pass request bodies to it. */
export type Logger = {
  /** Writes an event at the given level. */
  log: (level: keyof typeof levels, event: string, fields?: Record<string, unknown>) => void
}

/** A logger that writes JSON lines to stdout at or above `level`. */
export function stdout(level: keyof typeof levels): Logger {
  return {
    log(eventLevel, event, fields = {}) {
      if (levels[eventLevel] < levels[level]) return
      process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: eventLevel, event, ...fields })}\n`)
    },
  }
}

/** A logger that drops everything (tests). */
export function silent(): Logger {
  return { log() {} }
}
