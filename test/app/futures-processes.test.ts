import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import postgresJs from 'postgres'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  http,
  type LocalAccount,
  type PublicClient,
  parseEther,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { account, mnemonic } from '../../adapters/chain/devnet.js'
import { futuresOperatorIndex } from '../../adapters/chain/futures.js'
import { postgres as postgresStore } from '../../adapters/store/postgres.js'
import { clients } from '../../app/clients.js'
import { fundedPayers } from '../../bench/payers.js'
import { type Server, startDevnet, startGateways } from '../../bench/processes.js'
import * as AuditChain from '../../core/AuditChain.js'
import * as Futures from '../../core/Futures.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { journalOf } from '../../modules/futures/service.js'
import { gatewayDatabases } from '../support/backends.js'
import { relayerMnemonic } from '../support/chain.js'
import { openaiStub } from '../support/openai.js'

// HEAVY: one futures account spent by 50 concurrent `execute` calls over two gateway processes (app/main.ts) on one
// PostgreSQL database, the devnet in a process of its own, each call paid with its own x402 authorization by the same
// payer, the compute upstream a local OpenAI-compatible stand-in. The credit covers 20 jobs: exactly 20 run and are
// paid; the others are refused before they run, and their calls are never settled.

const postgres = gatewayDatabases('futures_processes').find((database) => database.name === 'PostgreSQL')
const servers: Server[] = []
const stub = openaiStub()
let rpcUrl: string
let databaseUrl: string
let gateways: Server[]
let terms: PaymentTerms
let client: PublicClient
let teardown: (() => Promise<void>) | undefined

beforeAll(async () => {
  if (!postgres) return
  const dataDir = mkdtempSync(join(tmpdir(), 'futures-processes-'))
  const devnet = await startDevnet({ dataDir: join(dataDir, 'devnet'), persist: false })
  servers.push(devnet)
  rpcUrl = devnet.rpcUrl
  const database = await postgres.open()
  teardown = database.teardown
  databaseUrl = database.env.DATABASE_URL!
  const env = {
    RPC_URL: rpcUrl,
    RELAYER_MNEMONIC: await relayerMnemonic(rpcUrl),
    LOG_LEVEL: 'warn',
    ...database.env,
    COMPUTE_MODELS: JSON.stringify({
      'large-model': { kind: 'text', upstream: 'openai', upstreamModel: 'large-model', price: '0.10' },
    }),
    COMPUTE_UPSTREAM_URL: stub.url,
  }
  gateways = await startGateways({ names: ['first', 'second'], env, dataDir })
  servers.push(...gateways)
  terms = (await (await fetch(`${gateways[0]!.origin}/.well-known/x402.json`)).json()) as PaymentTerms
  client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) }) as PublicClient
}, 90_000)

afterAll(async () => {
  for (const server of servers.reverse()) await server.stop()
  await teardown?.()
  stub.stop()
})

const usdc = (address: `0x${string}`) =>
  client.readContract({ address: terms.asset.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

/** Gives `payer` ether for gas from mnemonic account #5, which no gateway process signs with, then sends USDC. */
async function depositOnChain(payer: LocalAccount, amount: bigint) {
  const chain = defineChain({
    id: Number(terms.network.split(':')[1]),
    name: 'Devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const transport = http(rpcUrl, { retryCount: 0 })
  const funder = createWalletClient({ account: mnemonicToAccount(mnemonic, { addressIndex: 5 }), chain, transport })
  await client.waitForTransactionReceipt({
    hash: await funder.sendTransaction({ to: payer.address, value: parseEther('0.1') }),
  })
  const wallet = createWalletClient({ account: payer, chain, transport })
  const hash = await wallet.writeContract({
    address: terms.asset.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [account({ index: futuresOperatorIndex }).address, amount],
  })
  expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
  return hash
}

describe.skipIf(!postgres)('one futures account, two gateway processes on one PostgreSQL', () => {
  test('behavior: 50 concurrent executes paid by one payer: exactly the 20 the credit covers run and are paid', async () => {
    const [payer] = await fundedPayers({ rpcUrl, terms, count: 1, usdc: '10' })
    const pay = clients({ terms, fetch })
    const paid = async (gateway: Server, path: string, body: unknown, value: bigint) =>
      fetch(`${gateway.origin}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'PAYMENT-SIGNATURE': await pay.presigned({ signer: payer!, value }),
        },
        body: JSON.stringify(body),
      })
    const offered = async (path: string, body: unknown) => {
      const response = await fetch(`${gateways[0]!.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(402)
      const required = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
      return BigInt(required.accepts.find((accept) => accept.scheme === 'exact')!.amount)
    }

    // 2.05 USDC of credit, below the first tier: twenty jobs at 0.10 fit, the twenty-first does not.
    const credit = 2_050_000n
    const cost = 100_000n
    const transaction = await depositOnChain(payer!, credit)
    const deposited = await paid(
      gateways[1]!,
      '/api/v1/compute-futures/deposit',
      { transaction },
      await offered('/api/v1/compute-futures/deposit', { transaction }),
    )
    expect(deposited.status).toBe(200)
    const { id } = (await deposited.json()) as { id: string }

    const job = { kind: 'text', model: 'large-model', prompt: 'hi' }
    const price = await offered('/api/v1/compute-futures/execute', { job })
    const before = await usdc(payer!.address)
    stub.reset()
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const response = await paid(gateways[index % 2]!, '/api/v1/compute-futures/execute', { job }, price)
        return { status: response.status, body: (await response.json()) as { code?: string; cost?: string } }
      }),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200).length).toBe(20)
    expect(statuses.filter((status) => status === 409).length).toBe(30)
    expect(answers.filter((answer) => answer.status === 200).every((answer) => answer.body.cost === '0.100000')).toBe(
      true,
    )
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.code === 'conflict')).toBe(
      true,
    )
    // Each job ran once upstream; a refused one never ran.
    expect(stub.received.length).toBe(20)
    // The payer paid exactly the served calls on chain, not one refused call.
    expect(await usdc(payer!.address)).toBe(before - 20n * price)

    // The journal: deposit, then a reservation and a charge per job; never below zero, double entry after every
    // movement, every link of the hash chain intact.
    const sql = postgresJs(databaseUrl, { max: 2, onnotice: () => {} })
    try {
      const entries = await postgresStore({ sql }).entries<{
        kind: Futures.Kind
        balances: Futures.SerializedBalances
      }>(journalOf(id))
      expect(entries.length).toBe(41)
      expect(entries.filter((entry) => entry.value.kind === 'charge').length).toBe(20)
      expect(entries.filter((entry) => entry.value.kind === 'reserve').length).toBe(20)
      expect(AuditChain.verify(entries)).toMatchObject({ valid: true, length: 41 })
      for (const entry of entries) {
        const balances = Futures.deserialize(entry.value.balances)
        expect(balances.available >= 0n && balances.reserved >= 0n && balances.refunding >= 0n).toBe(true)
        const accounts = Futures.accountsOf(balances)
        expect(accounts.usdc).toBe(accounts.available + accounts.reserved + accounts.refunding + accounts.revenue)
      }
      expect(Futures.deserialize(entries.at(-1)!.value.balances)).toMatchObject({
        available: credit - 20n * cost,
        reserved: 0n,
        spent: 20n * cost,
        jobs: 20,
      })
    } finally {
      await sql.end()
    }
  }, 60_000)
})
