import { describe, expect, test } from 'bun:test'
import { freePort, run } from '../support/processes.js'

describe('demo', () => {
  test('error: with no gateway running it says to start one, in one line, and exits with 1', async () => {
    const gateway = `http://127.0.0.1:${freePort()}`
    const { exitCode, stdout, stderr } = await run({ script: 'app/demo.ts', env: { GATEWAY_URL: gateway } })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(`No gateway answers at ${gateway}: start one with \`npm start\` (or set GATEWAY_URL).\n`)
  })

  test('behavior: without GATEWAY_URL it calls the gateway `npm start` serves at PORT', async () => {
    const port = String(freePort())
    const { exitCode, stderr } = await run({ script: 'app/demo.ts', env: { PORT: port } })
    expect(exitCode).toBe(1)
    expect(stderr).toStartWith(`No gateway answers at http://127.0.0.1:${port}: `)
  })
})
