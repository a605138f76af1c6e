type Schedule = (callback: () => void) => void

// Node, Bun and Deno have setImmediate; a browser has none, and a zero-delay timer runs no earlier than it would.
const schedule: Schedule =
  (globalThis as { setImmediate?: Schedule }).setImmediate ?? ((callback) => void setTimeout(callback, 0))

/** Runs `callback` in the event loop's next turn, after this turn's I/O: what one turn asks is answered together. */
export function nextTurn(callback: () => void): void {
  schedule(callback)
}
