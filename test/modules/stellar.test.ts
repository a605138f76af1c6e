import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  encodeMuxedAccount,
  encodeMuxedAccountToAddress,
  Keypair,
  StrKey,
  type Transaction,
  TransactionBuilder,
} from '@stellar/stellar-sdk/base'
import { bytesToHex } from 'viem'
import { horizon } from '../../adapters/stellar/horizon.js'
import * as Module from '../../core/Module.js'
import type * as StellarNetwork from '../../core/StellarNetwork.js'
import { manifest, stellar } from '../../modules/stellar/index.js'
import type { Deps } from '../../modules/stellar/service.js'
import { type HorizonFixture, startHorizon } from '../adapters/stellar/horizon-fixture.js'
import { captureOutput } from '../support/capture.js'
import { moduleGateway } from '../support/gateway.js'
import { payers } from '../support/module.js'

const passphrase = 'Test SDF Network ; September 2015'
const now = new Date('2030-01-01T00:00:00Z')
const source = Keypair.random()
const secret = source.secret()
const alice = Keypair.random().publicKey()
const bob = Keypair.random().publicKey()
const carol = Keypair.random().publicKey()

/** Every response body this file received, and every line written to the console or stdio while it ran. */
const { seen } = captureOutput()

/** The stellar family alone in the gateway, its routes built with `deps`, every paid call paid by alice. */
function gatewayOf(deps: Deps) {
  return moduleGateway(Module.define({ ...manifest, routes: () => stellar(deps) }), {
    ports: { stellar: deps.network },
    payer: payers.alice,
  })
}

/** Sends a request through the gateway and keeps the body for the secret scan. */
async function call(app: ReturnType<typeof gatewayOf>, path: string, body: unknown) {
  const response = await app.post(path, body)
  const text = await response.text()
  seen.push(text)
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(text) }
}

/** A network held in memory that records what it is asked to submit and answers success. */
function recording(options: { sequence?: bigint; baseFee?: bigint; p90?: bigint } = {}) {
  const submitted: string[] = []
  const network: StellarNetwork.StellarNetwork = {
    networkPassphrase: passphrase,
    loadAccount: async () => ({ ok: true, sequence: options.sequence ?? 1_000n }),
    feeStats: async () => {
      const base = options.baseFee ?? 100n
      const p90 = options.p90 ?? base
      return { ledger: 77, baseFee: base, charged: { min: base, mode: base, p50: base, p90, p99: p90, max: p90 } }
    },
    submit: async (envelope) => {
      submitted.push(envelope)
      const transaction = TransactionBuilder.fromXDR(envelope, passphrase)
      return {
        ok: true,
        status: 'success',
        hash: bytesToHex(transaction.hash()).slice(2),
        ledger: 78,
        feeCharged: 100n,
      }
    },
    available: () => ({ ok: true }),
  }
  return { network, submitted }
}

function decode(envelope: string): Transaction {
  return TransactionBuilder.fromXDR(envelope, passphrase) as Transaction
}

describe('stellar: batch, the signed envelope (offline)', () => {
  test('default: one transaction with one native payment per recipient, exact amounts, signed by the source', async () => {
    const { network, submitted } = recording({ sequence: 4_242n })
    const app = gatewayOf({ network, now: () => now })
    const muxed = encodeMuxedAccountToAddress(encodeMuxedAccount(carol, '7'))
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, bob, muxed],
      amounts: ['1', '0.0000001', '922337203685.4775807'],
    })
    expect(status).toBe(200)
    expect(submitted).toHaveLength(1)
    const transaction = decode(submitted[0]!)

    expect(transaction.source).toBe(source.publicKey())
    expect(transaction.sequence).toBe('4243')
    expect(transaction.fee).toBe('300')
    expect(transaction.timeBounds).toEqual({ minTime: '0', maxTime: String(now.getTime() / 1000 + 60) })
    expect(transaction.operations.map((operation) => operation.type)).toEqual(['payment', 'payment', 'payment'])
    expect(transaction.operations.map((operation) => (operation as { destination: string }).destination)).toEqual([
      alice,
      bob,
      muxed,
    ])
    expect(transaction.operations.map((operation) => (operation as { amount: string }).amount)).toEqual([
      '1.0000000',
      '0.0000001',
      '922337203685.4775807',
    ])
    expect(
      transaction.operations.every((operation) =>
        (operation as { asset: { isNative: () => boolean } }).asset.isNative(),
      ),
    ).toBe(true)

    expect(transaction.signatures).toHaveLength(1)
    const hash = transaction.hash()
    expect(Keypair.fromPublicKey(source.publicKey()).verify(hash, transaction.signatures[0]!.signature)).toBe(true)
    expect(Keypair.random().verify(hash, transaction.signatures[0]!.signature)).toBe(false)

    expect(body).toEqual({
      hash: bytesToHex(hash).slice(2),
      status: 'success',
      ledger: 78,
      source: source.publicKey(),
      recipientCount: 3,
      totalAmount: '922337203686.4775808',
      maxFee: '0.00003',
      feeCharged: '0.00001',
    })
  })

  test('behavior: 100 recipients fit in one transaction', async () => {
    const { network, submitted } = recording()
    const app = gatewayOf({ network })
    const recipients = Array.from({ length: 100 }, () => Keypair.random().publicKey())
    const { status } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients,
      amounts: recipients.map(() => '0.5'),
    })
    expect(status).toBe(200)
    const transaction = decode(submitted[0]!)
    expect(transaction.operations).toHaveLength(100)
    expect(transaction.fee).toBe('10000')
  })

  test('behavior: the fee bid is the 90th percentile of recent fees, at least the base fee, at most the ceiling', async () => {
    const surge = recording({ baseFee: 100n, p90: 2_500n })
    await call(gatewayOf({ network: surge.network }), '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, bob],
      amounts: ['1', '1'],
    })
    expect(decode(surge.submitted[0]!).fee).toBe('5000')

    const capped = recording({ baseFee: 100n, p90: 5_000_000n })
    await call(gatewayOf({ network: capped.network, maxFeePerOperation: 1_000n }), '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(decode(capped.submitted[0]!).fee).toBe('1000')
  })
})

describe("stellar: batch, the original gateway's form (sender signs)", () => {
  test('default: sender and recipients [{ address, amount }] in human XLM answer the unsigned transaction; nothing is submitted', async () => {
    const { network, submitted } = recording({ sequence: 4_242n })
    const app = gatewayOf({ network, now: () => now })
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sender: source.publicKey(),
      recipients: [
        { address: alice, amount: '2500' },
        { address: bob, amount: 0.25 },
      ],
      memo: 'payroll-march-2026',
    })
    expect(status).toBe(200)
    expect(submitted).toEqual([])
    const transaction = decode(body.transaction.unsignedXDR)
    expect(transaction.signatures).toHaveLength(0)
    expect(transaction.source).toBe(source.publicKey())
    expect(transaction.sequence).toBe('4243')
    expect(transaction.fee).toBe('200')
    expect(transaction.timeBounds).toEqual({ minTime: '0', maxTime: String(now.getTime() / 1000 + 300) })
    expect(transaction.memo.type).toBe('text')
    expect(Buffer.from(transaction.memo.value as Buffer).toString()).toBe('payroll-march-2026')
    expect(transaction.operations.map((operation) => (operation as { destination: string }).destination)).toEqual([
      alice,
      bob,
    ])
    // "2500" is 2,500 XLM: 25,000,000,000 stroops in the envelope.
    expect(transaction.operations.map((operation) => (operation as { amount: string }).amount)).toEqual([
      '2500.0000000',
      '0.2500000',
    ])
    expect(body).toEqual({
      success: true,
      chain: 'stellar',
      chainId: 14,
      network: 'testnet',
      status: 'unsigned',
      hash: bytesToHex(transaction.hash()).slice(2),
      source: source.publicKey(),
      recipientCount: 2,
      totalAmount: '2500.25',
      totalAmountStroops: '25002500000',
      maxFee: '0.00002',
      batch: {
        recipientCount: 2,
        totalAmount: '2500.25',
        fee: '0',
        feePercent: '0%',
        totalWithFee: '2500.25',
        feeAddress: null,
      },
      transaction: {
        unsignedXDR: body.transaction.unsignedXDR,
        sourceAccount: source.publicKey(),
        sequenceNumber: '4243',
        operationCount: 2,
        networkFee: '200 stroops',
        networkPassphrase: passphrase,
        timeout: '300 seconds',
        validUntil: new Date(now.getTime() + 300_000).toISOString(),
        memo: 'payroll-march-2026',
      },
      instructions: {
        step1: 'Sign the unsignedXDR with the secret key of the sender account',
        step2: `Submit the signed transaction to the Stellar network before ${new Date(now.getTime() + 300_000).toISOString()}`,
      },
      note: 'This gateway is paid per call (x402 or MPP): the transaction carries no fee operation, so fee is 0.',
    })
  })

  test('behavior: signed by the sender, the unsigned transaction is what Horizon takes', async () => {
    const { network } = recording({ sequence: 9n })
    const app = gatewayOf({ network, now: () => now })
    const { body } = await call(app, '/api/v1/stellar/batch', {
      sender: source.publicKey(),
      recipients: [{ address: alice, amount: '1' }],
    })
    const transaction = decode(body.transaction.unsignedXDR)
    transaction.sign(source)
    expect(bytesToHex(transaction.hash()).slice(2)).toBe(body.hash)
    expect(
      Keypair.fromPublicKey(source.publicKey()).verify(transaction.hash(), transaction.signatures[0]!.signature),
    ).toBe(true)
    expect(transaction.memo.type).toBe('none')
  })

  test('behavior: a memo over 28 bytes becomes a hash memo of its first 32 bytes, as the original writes it', async () => {
    const { network } = recording()
    const app = gatewayOf({ network, now: () => now })
    const memo = 'a memo that is longer than twenty-eight bytes, cut at 32'
    const { body } = await call(app, '/api/v1/stellar/batch', {
      sender: source.publicKey(),
      recipients: [{ address: alice, amount: '1' }],
      memo,
    })
    const transaction = decode(body.transaction.unsignedXDR)
    expect(transaction.memo.type).toBe('hash')
    expect(Buffer.from(transaction.memo.value as Buffer).toString()).toBe(memo.slice(0, 32))
  })

  test.each([
    [{ recipients: [{ address: alice, amount: '2500.00000001' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: alice, amount: '0' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: alice, amount: '-1' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: alice, amount: '1e3' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: 'GBAD', amount: '1' }] }, 'recipients.0'],
    [{ recipients: [alice], amounts: ['1'] }, 'amounts'],
    [{ recipients: [alice] }, 'recipients.0'],
    [{ sourceSecret: secret, recipients: [{ address: alice, amount: '1' }] }, 'sourceSecret'],
    [{ recipients: [{ address: alice, amount: '1', tag: 1 }] }, 'recipients.0'],
  ])('error: sender with %p is a 400 naming %s, before any payment', async (input, field) => {
    const { network } = recording()
    const app = gatewayOf({ network })
    const response = await app.handle(
      new Request('http://gateway.test/api/v1/stellar/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sender: source.publicKey(), ...input }),
      }),
    )
    const text = await response.text()
    seen.push(text)
    expect(response.status).toBe(400)
    expect(JSON.parse(text).field).toBe(field)
  })

  test('error: neither sender nor sourceSecret is a 400 naming sender', async () => {
    const app = gatewayOf({ network: recording().network })
    const { status, body } = await call(app, '/api/v1/stellar/batch', { recipients: [{ address: alice, amount: '1' }] })
    expect(status).toBe(400)
    expect(body.field).toBe('sender')
  })

  test('behavior: sourceSecret with recipients objects is refused, naming the recipient', async () => {
    const app = gatewayOf({ network: recording().network })
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [{ address: alice, amount: '1' }],
      amounts: ['1'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients.0')
  })

  test('behavior: a memo goes into the signed form too', async () => {
    const { network, submitted } = recording()
    const app = gatewayOf({ network, now: () => now })
    const { status } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
      memo: 'invoice 42',
    })
    expect(status).toBe(200)
    expect(Buffer.from(decode(submitted[0]!).memo.value as Buffer).toString()).toBe('invoice 42')
  })
})

describe('stellar: batch, input', () => {
  const { network, submitted } = recording()
  const app = gatewayOf({ network })

  test.each([
    ['a checksum that does not match', `${secret.slice(0, 55)}${secret[55] === 'A' ? 'B' : 'A'}`],
    ['too short', secret.slice(0, 20)],
    ['an account address', alice],
    ['lowercase', secret.toLowerCase()],
    ['an XRP seed', 'snoPBrXtMeMyMHUVTgbuqAfg1SUTb'],
  ])('error: a secret that is %s is a 400 that does not repeat it', async (_, bad) => {
    const { status, contentType, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: bad,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(400)
    expect(contentType).toBe('application/problem+json')
    expect(body.code).toBe('validation_failed')
    expect(body.field).toBe('sourceSecret')
    expect(JSON.stringify(body)).not.toContain(bad)
    expect(JSON.stringify(body)).not.toContain(bad.slice(0, 12))
  })

  test('error: recipients and amounts of different lengths', async () => {
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, bob],
      amounts: ['1'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('amounts')
    expect(body.detail).toBe('amounts: has 1 entries for 2 recipients; recipients and amounts are parallel arrays')
  })

  test('error: more than 100 recipients', async () => {
    const recipients = Array.from({ length: 101 }, () => alice)
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients,
      amounts: recipients.map(() => '1'),
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients')
  })

  test('error: no recipients', async () => {
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [],
      amounts: [],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients')
  })

  test.each([['0'], ['0.0000000'], ['-1'], ['1.00000001'], ['1e3'], ['abc'], [''], ['922337203685.4775808'], [1]])(
    'error: the amount %p is a 400 naming its index',
    async (amount) => {
      const { status, body } = await call(app, '/api/v1/stellar/batch', {
        sourceSecret: secret,
        recipients: [alice, bob],
        amounts: ['1', amount],
      })
      expect(status).toBe(400)
      expect(body.field).toBe('amounts.1')
    },
  )

  test.each([
    ['a mistyped account', `${alice.slice(0, 55)}${alice[55] === 'A' ? 'B' : 'A'}`],
    ['a secret seed', Keypair.random().secret()],
    ['an EVM address', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'],
  ])('error: a recipient that is %s is a 400 that does not repeat it', async (_, bad) => {
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, bad],
      amounts: ['1', '1'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients.1')
    expect(JSON.stringify(body)).not.toContain(bad)
  })

  test('behavior: nothing was submitted for refused input', () => {
    expect(submitted).toEqual([])
  })
})

describe('stellar: batch, submitted to Horizon', () => {
  let server: HorizonFixture
  let app: ReturnType<typeof gatewayOf>

  beforeAll(() => {
    server = startHorizon()
    server.fund(source.publicKey(), '1000', 12_884_901_888n)
    server.fund(alice, '10')
    server.fund(bob, '10')
    app = gatewayOf({ network: horizon({ url: server.url, networkPassphrase: server.networkPassphrase, retries: 0 }) })
  })

  afterAll(() => server.stop())

  test('default: every recipient is paid exactly, in one ledger, and the fee charged is the base fee per operation', async () => {
    const before = server.accounts.get(source.publicKey())!.balance
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, bob, alice],
      amounts: ['1.5', '0.0000001', '2'],
    })
    expect(status).toBe(200)
    expect(body.status).toBe('success')
    expect(body.ledger).toBe(server.ledger)
    expect(body.feeCharged).toBe('0.00003')
    expect(body.hash).toBe(bytesToHex(decode(server.applied.at(-1)!).hash()).slice(2))
    expect(server.accounts.get(alice)!.balance).toBe(135_000_000n)
    expect(server.accounts.get(bob)!.balance).toBe(100_000_001n)
    expect(before - server.accounts.get(source.publicKey())!.balance).toBe(35_000_001n + 300n)
    expect(server.accounts.get(source.publicKey())!.sequence).toBe(12_884_901_889n)
  })

  test('error: a sequence number taken meanwhile is a 502 with tx_bad_seq, and nothing moves', async () => {
    const network = horizon({ url: server.url, networkPassphrase: server.networkPassphrase, retries: 0 })
    const racing = gatewayOf({
      network: {
        ...network,
        // Another transaction from the same account lands between the read and the submission.
        loadAccount: async (address) => {
          const account = await network.loadAccount(address)
          server.accounts.get(address)!.sequence += 1n
          return account
        },
      },
    })
    const before = server.accounts.get(alice)!.balance
    const { status, body } = await call(racing, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.code).toBe('upstream_failed')
    expect(body.reason).toBe('tx_bad_seq')
    expect(body.network).toBe('stellar')
    expect(server.accounts.get(alice)!.balance).toBe(before)
  })

  test('error: a recipient that does not exist fails the whole transaction: 502 naming the operation', async () => {
    const before = server.accounts.get(alice)!.balance
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice, carol],
      amounts: ['1', '1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('tx_failed')
    expect(body.operations).toEqual(['op_success', 'op_no_destination'])
    expect(body.failed).toEqual([{ index: 1, recipient: carol, code: 'op_no_destination' }])
    expect(body.detail).toBe(
      'The Stellar network refused the transaction: tx_failed (recipients.1: op_no_destination). Nothing was paid.',
    )
    expect(server.accounts.get(alice)!.balance).toBe(before)
  })

  test('error: more than the balance is op_underfunded', async () => {
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['5000'],
    })
    expect(status).toBe(502)
    expect(body.failed).toEqual([{ index: 0, recipient: alice, code: 'op_underfunded' }])
  })

  test('error: a source account that was never funded is a 502 with not_found', async () => {
    const stranger = Keypair.random()
    const { status, body } = await call(app, '/api/v1/stellar/batch', {
      sourceSecret: stranger.secret(),
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('not_found')
    expect(body.detail).toBe(
      `The source account ${stranger.publicKey()} does not exist on the Stellar network; fund it first.`,
    )
    expect(JSON.stringify(body)).not.toContain(stranger.secret())
  })

  test('behavior: Horizon timing out on the submission answers pending, with the hash and until when it may land', async () => {
    const network = horizon({ url: server.url, networkPassphrase: server.networkPassphrase, retries: 0 })
    const pending = gatewayOf({
      network: {
        ...network,
        submit: (envelope) => {
          server.faults.push('timeout')
          return network.submit(envelope)
        },
      },
      now: () => now,
    })
    const { status, body } = await call(pending, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(200)
    expect(body.status).toBe('pending')
    expect(body.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(body.validUntil).toBe('2030-01-01T00:01:00.000Z')
  })

  test('error: Horizon failing after the envelope was handed over is a 502 that gives the hash to look up', async () => {
    const network = horizon({ url: server.url, networkPassphrase: server.networkPassphrase, retries: 0 })
    const failing = gatewayOf({
      network: {
        ...network,
        submit: (envelope) => {
          server.faults.push('server_error')
          return network.submit(envelope)
        },
      },
      now: () => now,
    })
    const { status, body } = await call(failing, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('network_error')
    expect(body.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(body.detail).toBe(
      `The Stellar network failed: Horizon answered HTTP 500 (server_error). The transaction ${body.hash} may still be included until 2030-01-01T00:01:00.000Z; look it up before sending again.`,
    )
  })

  test('error: Horizon failing is a 502 network_error that names no URL', async () => {
    server.faults.push('server_error')
    const { status, body } = await call(app, '/api/v1/stellar/estimate', { recipientCount: 2 })
    expect(status).toBe(502)
    expect(body.reason).toBe('network_error')
    expect(body.detail).toBe('The Stellar network failed: Horizon answered HTTP 500 (server_error).')
  })

  test('error: Horizon unreachable is a 502', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}`
    closed.stop(true)
    const down = gatewayOf({ network: horizon({ url, networkPassphrase: passphrase }) })
    const { status, body } = await call(down, '/api/v1/stellar/batch', {
      sourceSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.detail).toBe('The Stellar network failed: Horizon could not be reached.')
    expect(body.detail).not.toContain(url)
  })

  test('security: Horizon never received the secret, only a signed envelope', () => {
    const received = server.received.join('\n')
    expect(received.length).toBeGreaterThan(0)
    expect(received).not.toContain(secret)
    expect(received).not.toContain(bytesToHex(StrKey.decodeEd25519SecretSeed(secret)).slice(2))
    expect(received).not.toContain(Buffer.from(StrKey.decodeEd25519SecretSeed(secret)).toString('base64'))
  })
})

describe('stellar: estimate', () => {
  test('default: the bid for N operations from the fee stats, in XLM and stroops', async () => {
    const app = gatewayOf({ network: recording({ baseFee: 100n }).network })
    const { status, body } = await call(app, '/api/v1/stellar/estimate', { recipientCount: 3 })
    expect(status).toBe(200)
    expect(body).toEqual({
      estimatedFee: '0.00003',
      estimatedFeeStroops: '300',
      feePerOperationStroops: '100',
      baseFeeStroops: '100',
      minimumFee: '0.00003',
      operations: 3,
      ledger: 77,
      unit: 'XLM',
      success: true,
      chain: 'stellar',
      recipientCount: 3,
      maxRecipientsPerTx: 100,
      networkFee: '300 stroops (0.00003 XLM)',
      spraayFee: '0',
      spraayFeePercent: '0%',
      estimatedFinality: '~5 seconds',
      note: 'estimatedFee is the bid a batch of this size carries, in XLM; the network charges at most that, and minimumFee when ledgers are not full. This gateway is paid per call, so it adds no percentage fee (spraayFee 0).',
    })
  })

  test("behavior: the original gateway's recipients form counts them and sums their human XLM", async () => {
    const app = gatewayOf({ network: recording({ baseFee: 100n }).network })
    const { status, body } = await call(app, '/api/v1/stellar/estimate', {
      recipients: [
        { address: alice, amount: '2500' },
        { address: bob, amount: 0.5 },
      ],
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      success: true,
      chain: 'stellar',
      recipientCount: 2,
      operations: 2,
      totalAmount: '2500.5',
      totalAmountStroops: '25005000000',
      totalWithFee: '2500.5',
      spraayFee: '0',
      networkFee: '200 stroops (0.00002 XLM)',
      estimatedFinality: '~5 seconds',
    })
  })

  test("behavior: the original gateway's simple form, recipientCount with totalAmount", async () => {
    const app = gatewayOf({ network: recording({ baseFee: 100n }).network })
    const { status, body } = await call(app, '/api/v1/stellar/estimate', { recipientCount: 5, totalAmount: '500.00' })
    expect(status).toBe(200)
    expect(body).toMatchObject({ recipientCount: 5, totalAmount: '500', totalAmountStroops: '5000000000' })
  })

  test.each([
    [{ recipients: [{ address: alice, amount: '1.00000001' }] }, 'recipients.0.amount'],
    [{ recipientCount: 2, totalAmount: '2500.00000001' }, 'totalAmount'],
    [{ recipientCount: 1, recipients: [{ address: alice, amount: '1' }] }, 'recipientCount'],
    [{ recipients: [{ address: alice, amount: '1' }], totalAmount: '1' }, 'totalAmount'],
    [{}, 'recipientCount'],
  ])('error: %p is a 400 naming %s, before any payment', async (input, field) => {
    const app = gatewayOf({ network: recording().network })
    const response = await app.handle(
      new Request('http://gateway.test/api/v1/stellar/estimate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      }),
    )
    expect(response.status).toBe(400)
    expect((await response.json()).field).toBe(field)
  })

  test('behavior: under surge pricing the bid follows the 90th percentile', async () => {
    const app = gatewayOf({ network: recording({ baseFee: 100n, p90: 1_234n }).network })
    const { body } = await call(app, '/api/v1/stellar/estimate', { recipientCount: 100 })
    expect(body.estimatedFeeStroops).toBe('123400')
    expect(body.estimatedFee).toBe('0.01234')
    expect(body.minimumFee).toBe('0.001')
  })

  test.each([[0], [101], [1.5], ['3'], [-1]])('error: recipientCount %p is a 400', async (recipientCount) => {
    const app = gatewayOf({ network: recording().network })
    const { status, body } = await call(app, '/api/v1/stellar/estimate', { recipientCount })
    expect(status).toBe(400)
    expect(body.field).toBe('recipientCount')
  })
})

describe('stellar: secrets', () => {
  test('security: no response, error or log line of this file holds the secret or any 8 characters of it', () => {
    const everything = seen.join('\n')
    expect(everything.length).toBeGreaterThan(0)
    for (let start = 0; start + 8 <= secret.length; start++)
      expect(everything).not.toContain(secret.slice(start, start + 8))
  })
})
