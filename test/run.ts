// `npm test`: the whole suite in two `bun test` processes side by side, each with its share of the files, since one
// process keeps about one of the machine's cores busy and CI allows ten minutes for everything. With arguments
// (`npm test -- test/app/mount.test.ts`, `-t pattern`) it is one `bun test` with them, as before. Each shard's output
// is printed whole once both end, then the totals of both in bun's own words (the lines CI reads).

import process from 'node:process'

/** About how many seconds a file takes in a full run of both shards on two cores, for the files far slower than the rest. */
const slow: Readonly<Record<string, number>> = {
  'test/app/events-processes.test.ts': 52,
  'test/app/fuzz.test.ts': 42,
  'test/app/processes.test.ts': 41,
  'test/app/prepayment.test.ts': 41,
  'test/app/crash.test.ts': 38,
  'test/app/limits-processes.test.ts': 34,
  'test/adapters/ledger/ledger.test.ts': 20,
  'test/app/main.test.ts': 20,
  'test/adapters/chain/journal.test.ts': 18,
  'test/app/cli.test.ts': 12,
  'test/clients/mcp.test.ts': 11,
}

/** What any other file takes, in seconds: the suite's rest divided by its files. */
const typical = 1.1

const bun = process.execPath
const timeout = ['--timeout', '20000']
const args = process.argv.slice(2)

if (args.length > 0) {
  const child = Bun.spawn([bun, 'test', ...timeout, ...args], { stdio: ['inherit', 'inherit', 'inherit'] })
  process.exit(await child.exited)
}

const files = [...new Bun.Glob('**/*.{test,spec}.{ts,tsx,js,jsx}').scanSync({ cwd: process.cwd() })]
  .filter((file) => !/(^|\/)(node_modules|dist|\.git)\//.test(file))
  .map((file) => `./${file}`)
  .sort()
const weightOf = (file: string) => slow[file.slice(2)] ?? typical
// The longest first, each to the shard with less to do so far.
const shards: { files: string[]; seconds: number }[] = [
  { files: [], seconds: 0 },
  { files: [], seconds: 0 },
]
for (const file of [...files].sort((a, b) => weightOf(b) - weightOf(a))) {
  const lighter = shards[0]!.seconds <= shards[1]!.seconds ? shards[0]! : shards[1]!
  lighter.files.push(file)
  lighter.seconds += weightOf(file)
}

const runs = await Promise.all(
  shards.map(async (shard) => {
    const child = Bun.spawn([bun, 'test', ...timeout, ...shard.files], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    return { output: out + err, code }
  }),
)

const totals = { pass: 0, skip: 0, todo: 0, fail: 0, tests: 0, files: 0 }
let report = ''
for (const [index, run] of runs.entries()) {
  report += `\n# shard ${index + 1} of ${runs.length}\n${run.output}`
  for (const key of ['pass', 'skip', 'todo', 'fail'] as const)
    totals[key] += Number(new RegExp(`^ *(\\d+) ${key}$`, 'm').exec(run.output)?.[1] ?? 0)
  const ran = /^Ran (\d+) tests? across (\d+) files?/m.exec(run.output)
  totals.tests += Number(ran?.[1] ?? 0)
  totals.files += Number(ran?.[2] ?? 0)
}
report += `\n# both shards\n ${totals.pass} pass\n${totals.skip ? ` ${totals.skip} skip\n` : ''}${totals.todo ? ` ${totals.todo} todo\n` : ''} ${totals.fail} fail\nRan ${totals.tests} tests across ${totals.files} files.\n`
// Written whole before the exit code is set: an exit right after a large write to a pipe (CI's tee) would cut it.
await Bun.write(Bun.stdout, report)
process.exitCode = runs.some((run) => run.code !== 0) ? 1 : 0
