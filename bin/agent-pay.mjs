#!/usr/bin/env node
// The `agent-pay` command: runs app/cli.ts with the Bun this package depends on (or one on PATH).
import { spawnSync } from 'node:child_process'
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(realpathSync(fileURLToPath(import.meta.url))), '..')
const local = join(root, 'node_modules', '.bin', 'bun')
const bun = process.versions.bun ? process.execPath : existsSync(local) ? local : 'bun'
const result = spawnSync(bun, [join(root, 'app', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' })
if (result.error) {
  process.stderr.write(`agent-pay needs Bun: ${result.error.message}\n`)
  process.exit(1)
}
process.exit(result.status ?? 1)
