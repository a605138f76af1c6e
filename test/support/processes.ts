import { join } from 'node:path'

/** Root of the repository, where scripts are resolved. */
const root = join(import.meta.dir, '../..')

export { freePort } from '../../bench/processes.js'

/** Runs a script of the repository with Bun to its end; resolves with its exit code and output. */
export async function run(parameters: {
  /** Script path relative to the repository root. */
  script: string
  /** Arguments after the script. */
  args?: string[]
  /** The whole environment of the process (PATH and HOME are added). */
  env?: Record<string, string>
}): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, join(root, parameters.script), ...(parameters.args ?? [])], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...parameters.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { exitCode, stdout, stderr }
}

/** Starts a long-running script of the repository and resolves once its stdout matched `ready`. */
export async function start(parameters: {
  /** Script path relative to the repository root. */
  script: string
  /** The whole environment of the process (PATH and HOME are added). */
  env?: Record<string, string>
  /** Printed on stdout once it serves. */
  ready: RegExp
}): Promise<{ stdout: string; match: RegExpMatchArray; stop: (signal?: NodeJS.Signals) => Promise<number> }> {
  const child = Bun.spawn([process.execPath, join(root, parameters.script)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...parameters.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    child.kill(signal)
    return child.exited
  }
  const stderr = new Response(child.stderr).text()
  const decoder = new TextDecoder()
  let stdout = ''
  const reader = child.stdout.getReader()
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    stdout += decoder.decode(chunk.value, { stream: true })
    const match = stdout.match(parameters.ready)
    if (match) {
      reader.releaseLock()
      return { stdout, match, stop }
    }
  }
  await child.exited
  throw new Error(`${parameters.script} exited with ${child.exitCode} before it was ready:\n${stdout}\n${await stderr}`)
}
