import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Subprocess, spawn } from 'bun'

/** Root of the repository. */
export const root = join(import.meta.dir, '..')

/** The Bun binary the project ships (`node_modules/.bin/bun`). */
export const bun = join(root, 'node_modules/.bin/bun')

/**
 * The per-client limits turned off: a benchmark is one client (every loopback address is one) sending thousands of
 * unpaid and free calls at once, which the defaults would answer 429.
 */
export const unlimited = {
  UNPAID_CONCURRENCY_PER_CLIENT: '0',
  FREE_RATE_LIMIT_PER_MINUTE: '0',
  FREE_ENDPOINT_RATE_LIMIT_PER_MINUTE: '0',
  FAILED_PAYMENT_CHECKS_PER_MINUTE: '0',
  URL_CHECKS_PER_MINUTE: '0',
} as const

/** A server the benchmark started in its own process. */
export type Server = {
  /** What it is, for messages. */
  name: string
  /** Its origin, e.g. `http://127.0.0.1:3500`. */
  origin: string
  /** The process. */
  process: Subprocess
  /** Resident set size of the process now, in bytes. */
  rss: () => number
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string
  /** Stops it (SIGTERM, then SIGKILL after 3 s). */
  stop: () => Promise<void>
}

/**
 * Starts `bun <script>` with `env` on top of this environment and waits until `readyPath` answers on `port`.
 * Its stderr is kept and shown if it never gets ready.
 */
export async function start(parameters: start.Parameters): Promise<Server> {
  const {
    name,
    script,
    flags = [],
    port,
    env = {},
    inherit = true,
    readyPath,
    ready = (response) => response.ok,
    timeoutMs = 60_000,
  } = parameters
  const base = inherit ? process.env : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }
  const child = spawn([bun, ...flags, script], {
    cwd: root,
    env: { ...base, ...env, PORT: String(port) },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let stderr = ''
  let output = ''
  const collect = async (stream: ReadableStream<Uint8Array>, isError: boolean) => {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const text = decoder.decode(chunk.value, { stream: true })
      // Bounded: a long benchmark logs a line per paid call.
      output = (output + text).slice(-1_000_000)
      if (isError) stderr = (stderr + text).slice(-4_000)
    }
  }
  void collect(child.stdout as ReadableStream<Uint8Array>, false)
  void collect(child.stderr as ReadableStream<Uint8Array>, true)
  const origin = `http://127.0.0.1:${port}`
  const server: Server = {
    name,
    origin,
    process: child,
    rss: () => rssOf(child.pid),
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const killed = setTimeout(() => child.kill('SIGKILL'), 3_000)
      await child.exited
      clearTimeout(killed)
    },
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${stderr}`)
    if (await fetch(`${origin}${readyPath}`).then(ready, () => false)) return server
    await Bun.sleep(100)
  }
  await server.stop()
  throw new Error(`${name} did not answer ${readyPath} within ${timeoutMs} ms:\n${stderr}`)
}

/**
 * The devnet (`app/devnet.ts`, as `npm run devnet` runs it) in a process of its own on a free port, its state under
 * `dataDir`, so that a gateway's CPU and memory are its own: its server and JSON-RPC URL.
 */
export async function startDevnet(parameters: startDevnet.Parameters): Promise<Server & { rpcUrl: string }> {
  const { dataDir, persist = true } = parameters
  const port = freePort()
  const server = await start({
    name: 'devnet',
    script: 'app/devnet.ts',
    port,
    inherit: false,
    env: {
      DEVNET_RPC_PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...(persist ? {} : { DEVNET_PERSIST: 'false' }),
    },
    readyPath: '/',
    ready: () => true,
  })
  return { ...server, rpcUrl: `http://127.0.0.1:${port}` }
}

export declare namespace startDevnet {
  type Parameters = {
    /** Where the devnet keeps its journal. */
    dataDir: string
    /** Whether it keeps its journal (replayed at the next start). @default true */
    persist?: boolean
  }
}

/**
 * Gateway processes (`app/main.ts`) on the same environment, one after another, each named `gateway <name>`; with
 * `dataDir`, each keeps its embedded files under its own folder of it.
 */
export async function startGateways(parameters: {
  /** One gateway per name. */
  names: readonly string[]
  /** Their environment (their own only: nothing is inherited). */
  env: Record<string, string>
  /** Parent of each one's DATA_DIR; without it, DATA_DIR comes from `env`. */
  dataDir?: string | undefined
  /** Path that answers once one is ready. @default '/free/timestamp' */
  readyPath?: string
}): Promise<Server[]> {
  const { names, env, dataDir, readyPath = '/free/timestamp' } = parameters
  const gateways: Server[] = []
  for (const name of names)
    gateways.push(
      await start({
        name: `gateway ${name}`,
        script: 'app/main.ts',
        port: freePort(),
        inherit: false,
        env: dataDir === undefined ? env : { ...env, DATA_DIR: join(dataDir, name) },
        readyPath,
      }),
    )
  return gateways
}

export declare namespace start {
  type Parameters = {
    /** What it is, for messages. */
    name: string
    /** Script path relative to the repository root. */
    script: string
    /** Bun's own flags, before the script (`--cpu-prof`). @default [] */
    flags?: string[]
    /** TCP port it listens on (passed as PORT). */
    port: number
    /** Environment on top of this process's (or of PATH and HOME alone, without `inherit`). */
    env?: Record<string, string>
    /** Whether the process gets this process's environment (a test's DATABASE_URL, say). @default true */
    inherit?: boolean
    /** Path that answers once it serves. */
    readyPath: string
    /** Whether the answer of `readyPath` means it serves. @default status 2xx */
    ready?: (response: Response) => boolean
    /** How long to wait for it, in ms. @default 60_000 */
    timeoutMs?: number
  }
}

/** Resident set size of a process, in bytes (Linux `/proc/<pid>/status`). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kilobytes = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]
  if (kilobytes === undefined) throw new Error(`No VmRSS for process ${pid}.`)
  return Number(kilobytes) * 1024
}

/** CPU time a process has used so far (user + system), in seconds (Linux `/proc/<pid>/stat`, 100 ticks a second). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}
