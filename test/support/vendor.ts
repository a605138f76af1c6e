/** A request the stand-in vendor received. */
export type Seen = {
  /** HTTP method. */
  method: string
  /** The whole URL, query included. */
  url: URL
  /** Request headers. */
  headers: Headers
  /** Body text ('' for none). */
  body: string
}

/**
 * A stand-in vendor on 127.0.0.1: answers `{ path, n }` (the path and how many requests it has seen) to every request,
 * or what `answer` returns; records every request. The clock and sleep of {@link clocked} let tests drive time.
 */
export function vendorServer() {
  const seen: Seen[] = []
  const state = {
    /** Answers instead of the default when set. */
    answer: undefined as ((request: Seen) => Response | Promise<Response>) | undefined,
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const recorded: Seen = {
        method: request.method,
        url: new URL(request.url),
        headers: request.headers,
        body: await request.text(),
      }
      seen.push(recorded)
      return (await state.answer?.(recorded)) ?? Response.json({ path: recorded.url.pathname, n: seen.length })
    },
  })
  return {
    /** Base URL, `http://127.0.0.1:<port>/api`. */
    url: `http://127.0.0.1:${server.port}/api`,
    /** Every request, in order. */
    seen,
    /** Mutable behavior. */
    state,
    /** The last request. */
    last: () => seen.at(-1)!,
    /** Forgets requests and overrides. */
    reset() {
      seen.length = 0
      state.answer = undefined
    },
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/** A clock tests move by hand, and a `sleep` that moves it instead of waiting; `slept` lists every pause asked for, in ms. */
export function clocked(start = 1_000_000) {
  const clock = { now: start }
  const slept: number[] = []
  return {
    clock,
    slept,
    now: () => clock.now,
    sleep: async (ms: number) => {
      slept.push(ms)
      clock.now += ms
    },
  }
}
