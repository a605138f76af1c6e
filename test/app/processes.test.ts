import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { erc20Abi, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { channelRelayerIndex } from '../../adapters/chain/channel.js'
import { account } from '../../adapters/chain/devnet.js'
import { boot } from '../../app/boot.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { silent } from '../../app/log.js'
import { devnetRelayerIndex } from '../../app/relayer.js'
import { terms as termsOf } from '../../app/terms.js'
import { bun, freePort, root, type Server, start, startGateways } from '../../bench/processes.js'
import { gatewayDatabases } from '../support/backends.js'
import { relayerMnemonic, servedDevnet } from '../support/chain.js'
import { offMachine, origin } from '../support/paid.js'

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
      RELAYER_MNEMONIC: await relayerMnemonic(chain.url, 2),
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

/**
 * Two gateways on one ledger, as two processes are, the first paused past its lease's ttl while the second starts: the
 * second takes the first's slot. Each runs on a clock of its own, so the pause is a jump of the first's clock, not a
 * wait. `run` sees them once the first has resumed, before it has heard that its lease is gone.
 */
async function pausedWhileAnotherStarts<result>(
  env: Record<string, string>,
  run: (gateways: [paused: boot.ReturnType, started: boot.ReturnType]) => Promise<result>,
): Promise<result> {
  const config = parse({
    ...Object.fromEntries(offMachine.map((name) => [name, 'http://127.0.0.1:9'])),
    RPC_URL: chain.url,
    NETWORK: 'eip155:84532',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'paused-')),
    ...env,
  })
  let pausedFor = 0
  const first = await boot({ config, logger: silent(), lease: { now: () => new Date(Date.now() + pausedFor) } })
  const gateways = [first]
  try {
    // 20 s past the first's last heartbeat (ttl 15 s): the second takes the first for dead, and its slot.
    const second = await boot({ config, logger: silent(), lease: { now: () => new Date(Date.now() + 20_000) } })
    gateways.push(second)
    expect([first.lease.slot, second.lease.slot]).toEqual([0, 0])
    pausedFor = 20_000
    return await run([first, second])
  } finally {
    for (const gateway of gateways) await gateway.close()
  }
}

/** `count` fresh callers, each funded for `calls` paid calls. */
async function fundedCallers(count: number, calls: number): Promise<LocalAccount[]> {
  const callers = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()))
  for (const caller of callers) await chain.devnet.fund({ address: caller.address, amount: price * BigInt(calls) })
  return callers
}

describe.each(gatewayDatabases('paused'))('a process paused past its lease on $name', ({ open }) => {
  test.each([
    { name: "the devnet's relayers (#9 for slot 0, #8 for slot 1)", ownMnemonic: false },
    { name: 'RELAYER_MNEMONIC', ownMnemonic: true },
  ])(
    'behavior: with $name it signs with the key of the slot it holds now, never with the one another process took; no call fails',
    async ({ ownMnemonic }) => {
      const { env: databaseEnv, teardown } = await open()
      const mnemonic = ownMnemonic ? await relayerMnemonic(chain.url, 2) : undefined
      const keyOf = (slot: number) =>
        (mnemonic
          ? mnemonicToAccount(mnemonic, { addressIndex: slot }).address
          : account({ index: devnetRelayerIndex(slot)! }).address
        ).toLowerCase()
      const pay = clients({ terms: termsOf(parse({ NETWORK: 'eip155:84532' })), fetch })
      const callers = await fundedCallers(8, 4)
      try {
        const env = { ...databaseEnv, ...(mnemonic ? { RELAYER_MNEMONIC: mnemonic } : {}) }
        const { served, slots } = await pausedWhileAnotherStarts(env, async (gateways) => {
          // Each caller pays 4 calls one after another, alternating between the processes; the callers run at once.
          const served = await Promise.all(
            callers.map(async (caller, index) => {
              const seen: { process: 0 | 1; status: number; from: string | undefined }[] = []
              for (let call = 0; call < 4; call++) {
                const at = ((index + call) % 2) as 0 | 1
                const header = await pay.presigned({ signer: caller, value: price })
                const response = await gateways[at].gateway.handle(
                  new Request(`${origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } }),
                )
                await response.arrayBuffer()
                const settled = response.headers.get('PAYMENT-RESPONSE')
                const transaction = settled ? (decodePaymentResponseHeader(settled).transaction as Hex) : undefined
                const from = transaction && (await chain.devnet.publicClient.getTransaction({ hash: transaction })).from
                seen.push({ process: at, status: response.status, from: from?.toLowerCase() })
              }
              return seen
            }),
          )
          return { served: served.flat(), slots: gateways.map(({ lease }) => lease.slot) }
        })
        const senders = (process: 0 | 1) => [
          ...new Set(served.filter((call) => call.process === process).map(({ from }) => from)),
        ]
        // No key signed for both processes: the paused one went on with the key of its new lease's slot.
        expect({ paused: senders(0), started: senders(1) }).toEqual({ paused: [keyOf(1)], started: [keyOf(0)] })
        expect(served.filter(({ status }) => status !== 200)).toEqual([])
        expect(slots).toEqual([1, 0])
      } finally {
        await teardown()
      }
    },
    60_000,
  )

  test("behavior: its payment-channel deposits go out from its new slot's channel relayer (#22), not from the one of the slot another process took (#21)", async () => {
    const { env, teardown } = await open()
    const [taken, own] = [channelRelayerIndex(0)!, channelRelayerIndex(1)!].map((index) => account({ index }).address)
    const sent = () =>
      Promise.all([taken!, own!].map((address) => chain.devnet.publicClient.getTransactionCount({ address })))
    const [payer] = await fundedCallers(1, 2_000)
    try {
      const before = await sent()
      const status = await pausedWhileAnotherStarts(env, async ([paused]) => {
        const signer = toClientEvmSigner(payer!, chain.devnet.publicClient as never)
        const scheme = new BatchSettlementEvmScheme(signer, { depositStrategy: () => (price * 1_000n).toString() })
        const client = new x402Client().register(paused.terms.network, scheme)
        const { network, asset } = paused.terms
        client.setSpendControls({
          allowedAssets: [{ network, asset: asset.address, maxAmountPerPayment: (price * 1_000n).toString() }],
        })
        const fetchPaused = ((input: RequestInfo | URL, init?: RequestInit) =>
          paused.gateway.handle(new Request(input, init))) as typeof fetch
        const response = await wrapFetchWithPayment(fetchPaused, client)(`${origin}/api/v1/rpc/chains`)
        await response.arrayBuffer()
        return response.status
      })
      expect(status).toBe(200)
      const after = await sent()
      expect({ taken: after[0]! - before[0]!, own: after[1]! - before[1]! }).toEqual({ taken: 0, own: 1 })
    } finally {
      await teardown()
    }
  }, 60_000)
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
