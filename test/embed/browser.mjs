// The checks in a browser page, one after the other: `results` resolves to how each went.
import { checks } from './checks.mjs'

globalThis.results = (async () => {
  const results = []
  for (const [name, run] of checks) {
    try {
      await run()
      results.push({ name, ok: true })
    } catch (error) {
      results.push({ name, ok: false, error: String(error?.stack ?? error) })
    }
  }
  return results
})()
