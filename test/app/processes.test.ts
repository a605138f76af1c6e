import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { erc20Abi, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { mnemonic } from '../../adapters/chain/devnet.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { terms as termsOf } from '../../app/terms.js'
import { bun, freePort, root, type Server, start, startGateways } from '../../bench/processes.js'
import { gatewayDatabases } from '../support/backends.js'
import { servedDevnet } from '../support/chain.js'

// Several gateway processes on one database and one chain, configured as the README says: each signs its
// settlements with its own relayer key (RELAYER_MNEMONIC, one key per lease slot), so none loses a call.

const price = 1000n
const calls = 600
const payers = 20
let chain: Awaited<ReturnType<typeof servedDevnet>>

beforeAll(async () => {
  chain = await servedDevnet()
})
afterAll(async () => {
  await chain.close()
})

describe.each(gatewayDatabases('processes'))('two gateway processes on $name', ({ open }) => {
  test(`behavior: ${calls} paid calls over two processes sharing one relayer mnemonic: none lost, each charged once`, async () => {
    const { env: databaseEnv, teardown } = await open()
    // Both processes share one database: the SQLite variant shares one DATA_DIR.
    const env = {
      RPC_URL: chain.url,
      NETWORK: 'eip155:84532',
      RELAYER_MNEMONIC: mnemonic,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'two-')),
      ...databaseEnv,
    }
    const gateways: Server[] = []
    try {
      gateways.push(...(await startGateways({ names: ['first', 'second'], env, readyPath: '/' })))
      const terms = termsOf(parse(env))
      const pay = clients({ terms, fetch })
      const accounts: LocalAccount[] = Array.from({ length: payers }, () => privateKeyToAccount(generatePrivateKey()))
      for (const account of accounts)
        await chain.devnet.fund({ address: account.address, amount: price * BigInt(calls / payers) })

      // Each payer sends its calls one after another, alternating between the processes; the payers run at once.
      const statuses = await Promise.all(
        accounts.map(async (payer, index) => {
          const seen: number[] = []
          for (let call = 0; call < calls / payers; call++) {
            const gateway = gateways[(index + call) % 2]!
            const header = await pay.presigned({ signer: payer, value: price })
            const response = await fetch(`${gateway.origin}/api/v1/rpc/chains`, {
              headers: { 'PAYMENT-SIGNATURE': header },
            })
            await response.arrayBuffer()
            seen.push(response.status)
          }
          return seen
        }),
      )
      const all = statuses.flat()
      expect(all.filter((status) => status !== 200)).toEqual([])
      expect(all.length).toBe(calls)
      for (const account of accounts)
        expect(
          await chain.devnet.publicClient.readContract({
            address: terms.asset.address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [account.address],
          }),
        ).toBe(0n)
    } finally {
      for (const gateway of gateways) await gateway.stop()
      await teardown()
    }
  }, 120_000)
})

describe('one relayer key', () => {
  test('error: a second process with the same RELAYER_PRIVATE_KEY on the same database refuses to start, in one line', async () => {
    const env = {
      RPC_URL: chain.url,
      NETWORK: 'eip155:84532',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'one-key-')),
      RELAYER_PRIVATE_KEY: chain.devnet.accounts[9]!.privateKey,
    }
    const first = await start({
      name: 'first',
      script: 'app/main.ts',
      port: freePort(),
      env,
      inherit: false,
      readyPath: '/',
    })
    try {
      const second = Bun.spawn([bun, 'app/main.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', ...env, PORT: String(freePort()) },
        stdout: 'ignore',
        stderr: 'pipe',
      })
      expect(await second.exited).toBe(1)
      const stderr = (await new Response(second.stderr as ReadableStream).text()).trim()
      expect(stderr.split('\n')[0]).toContain('RELAYER_MNEMONIC')
      expect(stderr).not.toContain('    at ')
    } finally {
      await first.stop()
    }
  })
})
