import { describe, expect, test } from 'bun:test'
import { hexToString } from 'viem'
import { agentIdentityRegistry } from '../../adapters/chain/agents.js'
import { account, devnet } from '../../adapters/chain/devnet.js'
import { run } from '../support/processes.js'

describe('agent', () => {
  // Two processes of the command, each sending a transaction: longer than the default 5 s on a busy machine.
  test('default: registers an agent owned by the devnet account, with a data: file or a given URI', async () => {
    const chain = await devnet({ accountCount: 2 })
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => chain.handleJsonRpc(request) })
    const env = { DEVNET_RPC_URL: `http://127.0.0.1:${server.port}` }
    const first = await run({ script: 'app/agent.ts', args: ['Weather bot'], env })
    const second = await run({
      script: 'app/agent.ts',
      args: ['Remote bot', 'https://example.com/agent.json'],
      env: { ...env, AGENT_OWNER_INDEX: '1' },
    })
    const read = (functionName: string, args: readonly unknown[]) =>
      chain.publicClient.readContract({
        address: chain.agentRegistry,
        abi: agentIdentityRegistry.abi,
        functionName,
        args,
      })
    const [owner0, uri0, owner1, uri1, name1] = await Promise.all([
      read('ownerOf', [0n]),
      read('tokenURI', [0n]),
      read('ownerOf', [1n]),
      read('tokenURI', [1n]),
      read('getMetadata', [1n, 'name']),
    ])
    server.stop(true)
    await chain.close()
    expect(first.exitCode).toBe(0)
    expect(first.stdout).toStartWith('Registered agent 0 (Weather bot)')
    expect(second.exitCode).toBe(0)
    expect(owner0).toBe(account({ index: 0 }).address)
    const file = JSON.parse(Buffer.from((uri0 as string).split(',')[1]!, 'base64').toString())
    expect(file.name).toBe('Weather bot')
    expect(owner1).toBe(account({ index: 1 }).address)
    expect(uri1).toBe('https://example.com/agent.json')
    expect(hexToString(name1 as `0x${string}`)).toBe('Remote bot')
  }, 30_000)

  test('error: no name is refused with the usage', async () => {
    const { exitCode, stderr } = await run({
      script: 'app/agent.ts',
      args: [],
      env: { DEVNET_RPC_URL: 'http://127.0.0.1:9' },
    })
    expect(exitCode).toBe(2)
    expect(stderr).toStartWith('Usage:')
  })
})
