import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress } from 'viem'
import { account } from '../../adapters/chain/devnet.js'
import { paidGateway } from '../support/paid.js'
import { run } from '../support/processes.js'

// Devnet account #3 pays: funded with USDC at genesis, and no relayer of a single process.
const payer = account({ index: 3 })
let gateway: Awaited<ReturnType<typeof paidGateway>>
let servers: ReturnType<typeof Bun.serve>[] = []
let env: Record<string, string>
let receipts: string

beforeAll(async () => {
  gateway = await paidGateway()
  const http = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => gateway.gateway.handle(request) })
  const rpc = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => gateway.devnet.handleJsonRpc(request) })
  servers = [http, rpc]
  receipts = join(mkdtempSync(join(tmpdir(), 'agent-pay-')), 'receipts.jsonl')
  env = {
    GATEWAY_URL: `http://127.0.0.1:${http.port}`,
    DEVNET_RPC_URL: `http://127.0.0.1:${rpc.port}`,
    AGENT_PAY_PRIVATE_KEY: payer.privateKey,
    AGENT_PAY_RECEIPTS: receipts,
  }
})
afterAll(async () => {
  for (const server of servers) server.stop(true)
  await gateway?.close()
})

/** Each test runs the CLI as a process (Bun starts and loads the clients), more than the default 5 s on a busy machine. */
const timeoutMs = 30_000

const agentPay = (args: string[], extra: Record<string, string> = {}) =>
  run({ script: 'app/cli.ts', args, env: { ...env, ...extra } })

describe('agent-pay', () => {
  test(
    'behavior: call pays with x402, prints the answer and the receipt, and costs exactly the price',
    async () => {
      const before = await gateway.balance(payer.address)
      const { exitCode, stdout } = await agentPay(['call', 'GET', '/api/v1/rpc/chains'])
      expect(exitCode).toBe(0)
      expect(stdout).toStartWith('HTTP 200\n{"chains":[{"key":"devnet","name":"devnet"')
      const receipt = JSON.parse(stdout.split('receipt: ')[1]!) as { transaction: `0x${string}`; amount: string }
      expect(receipt).toMatchObject({ protocol: 'x402', amount: '0.001000', payer: payer.address, status: 200 })
      expect((await gateway.devnet.publicClient.getTransactionReceipt({ hash: receipt.transaction })).status).toBe(
        'success',
      )
      expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    },
    timeoutMs,
  )

  test(
    'behavior: call --mpp pays with the mppx client, with a body',
    async () => {
      const before = await gateway.balance(payer.address)
      const { exitCode, stdout } = await agentPay([
        'call',
        'POST',
        '/api/v1/rpc/call',
        '--data',
        '{"chain":"devnet","method":"eth_chainId","params":[]}',
        '--mpp',
      ])
      expect(exitCode).toBe(0)
      expect(stdout).toContain('"result":"0x14a34"')
      expect(stdout).toContain('"protocol":"mpp"')
      expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    },
    timeoutMs,
  )

  test(
    'behavior: receipts lists what call kept',
    async () => {
      const { stdout } = await agentPay(['receipts'])
      expect(readFileSync(receipts, 'utf8').trim().split('\n')).toHaveLength(2)
      expect(stdout).toEndWith('2 receipts, $0.002000 in all.\n')
    },
    timeoutMs,
  )

  test(
    'error: a call above AGENT_PAY_MAX is refused before signing and costs nothing',
    async () => {
      const before = await gateway.balance(payer.address)
      const { exitCode, stderr } = await agentPay(['call', 'GET', '/api/v1/rpc/chains'], { AGENT_PAY_MAX: '0.0005' })
      expect(exitCode).toBe(1)
      expect(stderr).toContain('asks $0.001000, above AGENT_PAY_MAX ($0.000500)')
      expect(await gateway.balance(payer.address)).toBe(before)
    },
    timeoutMs,
  )

  test(
    'error: call without a key says which variable to set',
    async () => {
      const { exitCode, stderr } = await agentPay(['call', 'GET', '/api/v1/rpc/chains'], { AGENT_PAY_PRIVATE_KEY: '' })
      expect(exitCode).toBe(2)
      expect(stderr).toBe('Set AGENT_PAY_PRIVATE_KEY to the key that pays (0x + 64 hex digits).\n')
    },
    timeoutMs,
  )

  test(
    'behavior: price and discover read the manifest',
    async () => {
      const [priced, unavailable, discovered] = await Promise.all([
        agentPay(['price', '/api/v1/rpc/chains']),
        agentPay(['price', '/api/v1/chat/completions']),
        agentPay(['discover', env.GATEWAY_URL!]),
      ])
      expect(priced.stdout).toBe('GET /api/v1/rpc/chains  $0.001000  available\n')
      expect(unavailable.stdout).toStartWith('POST /api/v1/chat/completions  $')
      expect(unavailable.stdout).toContain('unavailable (upstream_unavailable)')
      expect(discovered.stdout).toContain('network eip155:84532')
      expect(discovered.stdout).toMatch(/GET \/api\/v1\/rpc\/chains +\$0\.001000/)
    },
    timeoutMs,
  )

  test(
    'behavior: fund mints devnet USDC',
    async () => {
      const recipient = getAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')
      const { exitCode, stdout } = await agentPay(['fund', recipient, '2.5'])
      expect(exitCode).toBe(0)
      expect(stdout).toMatch(
        new RegExp(`^Minted 2.5 devnet USDC to ${recipient} in 0x[0-9a-f]{64}; balance 2.500000 USDC.\\n$`),
      )
      expect(await gateway.balance(recipient)).toBe(2_500_000n)
    },
    timeoutMs,
  )

  test(
    'behavior: the bin shim runs the CLI through a symlink, as node_modules/.bin does',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-pay-bin-'))
      const { symlinkSync } = await import('node:fs')
      symlinkSync(join(import.meta.dir, '../../bin/agent-pay.mjs'), join(dir, 'agent-pay'))
      const child = Bun.spawn(['node', join(dir, 'agent-pay'), 'price', '/api/v1/rpc/chains'], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GATEWAY_URL: env.GATEWAY_URL! },
        stdout: 'pipe',
      })
      expect(await new Response(child.stdout).text()).toBe('GET /api/v1/rpc/chains  $0.001000  available\n')
      expect(await child.exited).toBe(0)
    },
    timeoutMs,
  )
})
