import { describe, expect, test } from 'bun:test'
import type { PublicClient } from 'viem'
import { getEnsAddress, getEnsName, toCoinType } from 'viem/ens'
import { account, devnet } from '../../adapters/chain/devnet.js'
import { run } from '../support/processes.js'

describe('name', () => {
  // Two processes of the command, each sending a handful of transactions: longer than the default 5 s on a busy machine.
  test('default: registers <label>.eth and, for a devnet account, its primary name', async () => {
    const chain = await devnet({ accountCount: 2 })
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => chain.handleJsonRpc(request) })
    const owner = account({ index: 1 }).address
    const stranger = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const env = { DEVNET_RPC_URL: `http://127.0.0.1:${server.port}` }
    const first = await run({ script: 'app/name.ts', args: ['Alice', owner], env })
    const second = await run({ script: 'app/name.ts', args: ['carol.base', stranger], env })
    const client = chain.publicClient as PublicClient
    const at = { universalResolverAddress: chain.names.universalResolver }
    const [forward, reverse, basename] = await Promise.all([
      getEnsAddress(client, { name: 'alice.eth', ...at }),
      getEnsName(client, { address: owner, ...at }),
      getEnsAddress(client, { name: 'carol.base.eth', coinType: toCoinType(8453), ...at }),
    ])
    server.stop(true)
    await chain.close()
    expect(first.exitCode).toBe(0)
    expect(first.stdout).toContain('Set the primary name of devnet account #1 to alice.eth')
    expect(second.exitCode).toBe(0)
    expect(second.stdout).not.toContain('primary name')
    expect(forward).toBe(owner)
    expect(reverse).toBe('alice.eth')
    expect(basename?.toLowerCase()).toBe(stranger.toLowerCase())
  }, 30_000)

  test('error: a label that is not a valid name is refused with the usage', async () => {
    const { exitCode, stderr } = await run({
      script: 'app/name.ts',
      args: ['al ice', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
      env: { DEVNET_RPC_URL: 'http://127.0.0.1:9' },
    })
    expect(exitCode).toBe(2)
    expect(stderr).toStartWith('Usage: npm run name')
  })
})
