import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http'
import { erc20Abi, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { sqlite } from '../../adapters/ledger/sqlite.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { terms as termsOf } from '../../app/terms.js'
import { freePort, type Server, start } from '../../bench/processes.js'
import { type Hold, servedDevnet } from '../support/chain.js'

// The gateway runs as a process of its own and is killed with SIGKILL at each point of a paid call; the chain
// runs in this process, behind an HTTP server that can hold any JSON-RPC method. After each restart the same
// request with the same payment must be served, and charged exactly once.

const price = 1000n
let chain: Awaited<ReturnType<typeof servedDevnet>>
let gateway: Server
let env: Record<string, string>
const port = freePort()
const dataDir = mkdtempSync(join(tmpdir(), 'crash-'))
const figures = { calls: 0, served: 0, retriedAndServed: 0, charged: 0n, mismatches: 0 }
const outputs: string[] = []

const startGateway = () => start({ name: 'gateway', script: 'app/main.ts', port, env, inherit: false, readyPath: '/' })

beforeAll(async () => {
  chain = await servedDevnet()
  env = {
    RPC_URL: chain.url,
    NETWORK: 'eip155:84532',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    SETTLEMENT_TIMEOUT_MS: '5000',
    LOG_LEVEL: 'debug',
  }
  gateway = await startGateway()
})

afterAll(async () => {
  outputs.push(gateway.output())
  await gateway.stop()
  await chain.close()
  process.stdout.write(
    `crash figures: ${figures.calls} calls, ${figures.served} served, ${figures.retriedAndServed} retried and served, ` +
      `${figures.charged / price} charged on chain, ${figures.mismatches} mismatches\n`,
  )
})

const terms = () => termsOf(parse(env))
const balance = (address: `0x${string}`) =>
  chain.devnet.publicClient.readContract({
    address: terms().asset.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })

async function fundedPayer(): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey())
  await chain.devnet.fund({ address: payer.address, amount: 10_000n })
  return payer
}

/**
 * Sends a paid request, kills the gateway once the chain sees `hold`, lets the held call go (to the node when
 * `forward`), restarts the gateway and waits for the reconciliation it runs at start.
 */
async function crash(parameters: { hold: Hold; forward: boolean; request: Request }) {
  const { hold, forward, request } = parameters
  figures.calls++
  const inflight = fetch(request).then(
    (response) => response.status,
    () => 'connection lost',
  )
  await hold.reached
  gateway.process.kill('SIGKILL')
  await gateway.process.exited
  hold.release(forward)
  expect(await inflight).toBe('connection lost')
  outputs.push(gateway.output())
  gateway = await startGateway()
  await reconciled()
}

/** Sends a paid request, kills the gateway once the chain sees `hold`, lets the held call go, restarts, retries. */
async function crashAndRetry(parameters: {
  hold: Hold
  forward: boolean
  request: () => Request
  payer: LocalAccount
}) {
  const { hold, forward, request, payer } = parameters
  await crash({ hold, forward, request: request() })
  // A transaction that never reached the node was lost with its answer: nobody but the retry may send it.
  if (!forward) expect(await balance(payer.address)).toBe(10_000n)

  const retried = await fetch(request())
  const text = await retried.text()
  expect({ status: retried.status, body: text.slice(0, 300) }).toMatchObject({ status: 200 })
  figures.served++
  figures.retriedAndServed++
  const charged = 10_000n - (await balance(payer.address))
  figures.charged += charged
  if (charged !== price) figures.mismatches++
  expect(charged).toBe(price)
  return { response: retried, text }
}

const presigned = (payer: LocalAccount, validBefore?: bigint) =>
  clients({ terms: terms(), fetch }).presigned({ signer: payer, value: price, ...(validBefore ? { validBefore } : {}) })

/** Waits for the reconciliation a gateway runs at start (it logs `ledger_reconciled` when it found anything). */
async function reconciled() {
  for (let waited = 0; !gateway.output().includes('ledger_reconciled'); waited += 50) {
    if (waited > 10_000) throw new Error('The restarted gateway did not reconcile within 10 s.')
    await Bun.sleep(50)
  }
}

/** Whether a gateway's output tells of a reconciliation that failed a payment. */
function failedIn(output: string): boolean {
  return output.split('\n').some((line) => line.includes('"event":"ledger_reconciled"') && /"failed":[1-9]/.test(line))
}

/** The ledger entry of a payment, read from the embedded ledger the gateway process writes. */
async function entryOf(payer: LocalAccount, nonce: `0x${string}`) {
  const ledger = sqlite({ path: join(dataDir, 'ledger.sqlite') })
  try {
    return await ledger.get({ payer: payer.address, nonce })
  } finally {
    await ledger.close()
  }
}

describe('a gateway process under faults: kill -9 mid-call, a slow node', () => {
  test('behavior: killed after the claim, mid-handler: the restart frees the claim and the retry is served once', async () => {
    const payer = await fundedPayer()
    const header = await presigned(payer)
    const request = () =>
      new Request(`${gateway.origin}/api/v1/rpc/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
        body: JSON.stringify({ chain: 'devnet', method: 'eth_getBalance', params: [payer.address, 'latest'] }),
      })
    const { text } = await crashAndRetry({
      hold: chain.hold('eth_getBalance', 'before'),
      forward: true,
      request,
      payer,
    })
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', result: expect.stringMatching(/^0x/) })
  })

  test('behavior: killed while sending the settlement, which never reached the node: the retry sends it again, charged once', async () => {
    const payer = await fundedPayer()
    const header = await presigned(payer)
    const request = () =>
      new Request(`${gateway.origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    await crashAndRetry({ hold: chain.hold('eth_sendRawTransaction', 'before'), forward: false, request, payer })
  })

  test('behavior: killed between the handler and the send, never retried: the restart does not send it, and once its authorization expires it is failed, nothing charged', async () => {
    const payer = await fundedPayer()
    const validBefore = BigInt(Math.floor(Date.now() / 1000)) + 12n
    const header = await presigned(payer, validBefore)
    const { nonce } = decodePaymentSignatureHeader(header).payload.authorization as { nonce: `0x${string}` }
    await crash({
      hold: chain.hold('eth_sendRawTransaction', 'before'),
      forward: false,
      request: new Request(`${gateway.origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } }),
    })
    expect(await balance(payer.address)).toBe(10_000n)
    expect(await entryOf(payer, nonce)).toMatchObject({ state: 'settling', transaction: undefined })

    // Past its validity (and the chain's clock past it too), the next reconciliation fails it: the restart's, or the
    // minutely one of the process before it when a minute began in between (then the restart finds nothing to do).
    await Bun.sleep(Math.max(0, Number(validBefore) * 1000 - Date.now()) + 1_000)
    const before = gateway.output()
    outputs.push(before)
    await gateway.stop()
    gateway = await startGateway()
    if (!failedIn(before)) await reconciled()
    expect(failedIn(before) || failedIn(gateway.output())).toBe(true)
    expect(await entryOf(payer, nonce)).toMatchObject({ state: 'failed' })
    expect(await balance(payer.address)).toBe(10_000n)
  }, 40_000)

  test('behavior: killed while sending the settlement, which the node then mined: the retry finds it on chain, charged once', async () => {
    const payer = await fundedPayer()
    const header = await presigned(payer)
    const request = () =>
      new Request(`${gateway.origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    await crashAndRetry({ hold: chain.hold('eth_sendRawTransaction', 'before'), forward: true, request, payer })
  })

  test('behavior: killed after the settlement was mined, before the answer: the retry gets the answer, charged once', async () => {
    const payer = await fundedPayer()
    const header = await presigned(payer)
    const request = () =>
      new Request(`${gateway.origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    await crashAndRetry({ hold: chain.hold('eth_getTransactionReceipt', 'before'), forward: true, request, payer })
  })

  test('behavior: a node that answers eth_sendRawTransaction 7 s late, under 20 concurrent calls: each is told settlement_pending, each retry is served, each charged once', async () => {
    const payers = await Promise.all(Array.from({ length: 20 }, () => fundedPayer()))
    const headers = await Promise.all(payers.map((payer) => presigned(payer)))
    const request = (header: string) =>
      new Request(`${gateway.origin}/api/v1/rpc/chains`, { headers: { 'PAYMENT-SIGNATURE': header } })
    chain.delay('eth_sendRawTransaction', 7_000)
    let first: Response[]
    try {
      first = await Promise.all(headers.map((header) => fetch(request(header))))
    } finally {
      chain.delay('eth_sendRawTransaction', 0)
    }
    figures.calls += first.length
    const signed = new Set<string>()
    for (const response of first) {
      expect(response.status).toBe(503)
      const problem = (await response.json()) as { code: string; transaction?: string }
      expect(problem.code).toBe('settlement_pending')
      expect(response.headers.get('retry-after')).toBeTruthy()
      // A payment the relayer signed names its hash while the node sits on it (in the header and the problem); one
      // still queued behind that transaction was signed by nobody yet, and names none.
      const { transaction } = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
      if (transaction === '') expect(problem.transaction).toBeUndefined()
      else {
        expect(transaction).toMatch(/^0x[0-9a-f]{64}$/)
        expect(problem.transaction).toBe(transaction)
        signed.add(transaction)
      }
    }
    // The transaction the node sat on carried at least the first calls' authorizations.
    expect(signed.size).toBeGreaterThan(0)
    // The node's answers arrive; then every caller retries with the same header.
    await Bun.sleep(2_500)
    const retried = await Promise.all(headers.map((header) => fetch(request(header))))
    for (const [index, response] of retried.entries()) {
      expect(response.status).toBe(200)
      figures.served++
      figures.retriedAndServed++
      const charged = 10_000n - (await balance(payers[index]!.address))
      figures.charged += charged
      if (charged !== price) figures.mismatches++
      expect(charged).toBe(price)
    }
  }, 30_000)

  test('behavior: after the crashes nothing is stuck: no claim and no settlement is left undecided', async () => {
    const ledger = sqlite({ path: join(dataDir, 'ledger.sqlite') })
    try {
      expect(await ledger.list({ state: 'claimed' })).toEqual([])
      expect(await ledger.list({ state: 'settling' })).toEqual([])
      const settled = await ledger.list({ state: 'settled' })
      expect(settled.length).toBe(figures.served)
      for (const entry of settled) expect(entry.response).toBeDefined()
    } finally {
      await ledger.close()
    }
  })

  test('security: no log line holds the node URL (it may carry a key) or a payment header', async () => {
    const logs = [...outputs, gateway.output()].join('\n')
    expect(logs).toContain('gateway_listening')
    expect(logs).not.toContain('node-api-key-never-logged')
    expect(logs).not.toContain('PAYMENT-SIGNATURE')
  })
})
