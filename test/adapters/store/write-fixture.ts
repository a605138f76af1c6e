// A second process for the sqlite store test: opens the file, answers `ready`, waits until the test closes its
// stdin (the start signal), then alternates `count` increments of one record's counter with `count` appends to
// one chain, and exits.
import { sqlite } from '../../../adapters/store/sqlite.js'
import { appendTo, increment } from './writes.js'

const [path, collection, id, chain, count] = process.argv.slice(2) as [string, string, string, string, string]
const store = sqlite({ path })

process.stdout.write('ready\n')
await Bun.stdin.text()

for (let index = 0; index < Number(count); index++) {
  const result = await store.update(collection, id, increment)
  if (!result.ok) throw new Error(`The increment failed: ${JSON.stringify(result)}`)
  await store.append(chain, appendTo({ from: 'fixture', index }))
}
await store.close()
