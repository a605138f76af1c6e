import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { account, mnemonic } from '../../adapters/chain/devnet.js'
import { freePort, run } from '../support/processes.js'

// A server that holds a port the way Elysia does by default (SO_REUSEPORT), in this process: the gateway started
// below is a second process and must not join it.
let holder: ReturnType<typeof Bun.serve>

beforeAll(() => {
  holder = Bun.serve({ hostname: '127.0.0.1', port: freePort(), reusePort: true, fetch: () => new Response('first') })
})

afterAll(() => {
  holder.stop(true)
})

const dataDir = () => mkdtempSync(join(tmpdir(), 'main-'))

describe('main', () => {
  test('error: a port in use stops the start with one line and exit code 1', async () => {
    const { exitCode, stdout, stderr } = await run({
      script: 'app/main.ts',
      env: { PORT: String(holder.port), DEVNET_RPC_PORT: '0', DATA_DIR: dataDir() },
    })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      `Port ${holder.port} on 127.0.0.1 is in use (by another gateway or devnet?): stop that process or set PORT to a free port.\n`,
    )
    expect(await (await fetch(`http://127.0.0.1:${holder.port}/`)).text()).toBe('first')
  })

  test('error: the devnet JSON-RPC port in use stops the start with one line and exit code 1', async () => {
    const { exitCode, stderr } = await run({
      script: 'app/main.ts',
      env: { PORT: String(freePort()), DEVNET_RPC_PORT: String(holder.port), DATA_DIR: dataDir() },
    })
    expect(exitCode).toBe(1)
    expect(stderr).toBe(
      `Port ${holder.port} on 127.0.0.1 is in use (by another gateway or devnet?): stop that process or set DEVNET_RPC_PORT to a free port (0 turns the devnet's JSON-RPC off), or RPC_URL=http://127.0.0.1:${holder.port} to use the devnet there.\n`,
    )
  })

  test("error: a family's configuration that cannot run (an AI upstream without allowed models) stops the start with its message, no stack", async () => {
    const { exitCode, stderr } = await run({
      script: 'app/main.ts',
      env: {
        PORT: String(freePort()),
        DEVNET_RPC_PORT: '0',
        DATA_DIR: dataDir(),
        CHAT_UPSTREAM_URL: 'http://127.0.0.1:9/v1',
      },
    })
    expect(exitCode).toBe(1)
    expect(stderr.split('\n')[0]).toBe(
      'CHAT_ALLOWED_MODELS is required with CHAT_UPSTREAM_URL: the comma-separated model ids callers may use for the fixed price.',
    )
    expect(stderr).not.toContain('    at ')
  })

  test("error: a chain at RPC_URL that is not NETWORK's stops the start with one line and exit code 1", async () => {
    const node = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) =>
        Response.json({ jsonrpc: '2.0', id: ((await request.json()) as { id: number }).id, result: '0x1' }),
    })
    const port = node.port
    const { exitCode, stderr } = await run({
      script: 'app/main.ts',
      env: { PORT: String(freePort()), RPC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir() },
    })
    node.stop(true)
    expect(exitCode).toBe(1)
    expect(stderr).toBe(
      `NETWORK is eip155:84532, but the chain at RPC_URL (127.0.0.1:${port}) has chain id 1: set NETWORK=eip155:1 or point RPC_URL at a node of eip155:84532.\n`,
    )
  })

  test('error: the devnet\'s own mnemonic as RELAYER_MNEMONIC stops the start with one line and exit code 1, before the walkthrough\'s "nonce too low"', async () => {
    const { exitCode, stdout, stderr } = await run({
      script: 'app/main.ts',
      env: { PORT: String(freePort()), DEVNET_RPC_PORT: '0', DATA_DIR: dataDir(), RELAYER_MNEMONIC: mnemonic },
    })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      `RELAYER_MNEMONIC's key for lease slot 0 (m/44'/60'/0'/0/0), ${account({ index: 0 }).address}, is the devnet's default payee (test account #0), which sends transactions of its own: their nonces would collide ("nonce too low"); set RELAYER_MNEMONIC to a mnemonic of the relayers' own (a new one; fund its keys with ETH for gas).\n`,
    )
  })
})
