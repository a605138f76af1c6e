import { afterAll, beforeAll } from 'bun:test'

/**
 * Collects, for the test file that calls it, every line written to the console or to stdout and stderr while its
 * tests run (the output still goes through); secret scans read `seen`, and may push response bodies into it too.
 */
export function captureOutput(): { seen: string[] } {
  const seen: string[] = []
  const restore: (() => void)[] = []
  beforeAll(() => {
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const original = console[method]
      console[method] = (...args: unknown[]) => {
        seen.push(args.map(String).join(' '))
        original(...args)
      }
      restore.push(() => {
        console[method] = original
      })
    }
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream)
      stream.write = ((chunk: unknown, ...rest: unknown[]) => {
        seen.push(String(chunk))
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest)
      }) as typeof stream.write
      restore.push(() => {
        stream.write = original
      })
    }
  })
  afterAll(() => {
    for (const undo of restore) undo()
  })
  return { seen }
}
