// The checks as node:test tests: `node run-checks.mjs`, `deno test --allow-all run-checks.mjs` and
// `bun test ./run-checks.mjs` each run them with their own node:test.
import { test } from 'node:test'
import { checks } from './checks.mjs'

for (const [name, run] of checks) test(name, run)
