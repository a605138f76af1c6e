import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk/base'
import { bytesToHex } from 'viem'
import { horizon, publicUrls } from '../../../adapters/stellar/horizon.js'
import { type HorizonFixture, startHorizon } from './horizon-fixture.js'

let server: HorizonFixture
let network: ReturnType<typeof horizon>
const source = Keypair.random()
const funded = Keypair.random()

beforeAll(() => {
  server = startHorizon()
  server.fund(source.publicKey(), '1000', 100n)
  server.fund(funded.publicKey(), '5')
  network = horizon({ url: `${server.url}/`, networkPassphrase: server.networkPassphrase, retries: 0 })
})

afterAll(() => server.stop())

/** A signed envelope paying `amounts` XLM from the source, with `sequence` the transaction's own sequence number. */
function envelope(parameters: {
  sequence: bigint
  payments: { to: string; amount: string }[]
  fee?: string
  signer?: Keypair
}) {
  const builder = new TransactionBuilder(new Account(source.publicKey(), (parameters.sequence - 1n).toString()), {
    fee: parameters.fee ?? '100',
    networkPassphrase: server.networkPassphrase,
    timebounds: { minTime: 0, maxTime: Math.floor(Date.now() / 1000) + 60 },
  })
  for (const { to, amount } of parameters.payments)
    builder.addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount }))
  const transaction = builder.build()
  transaction.sign(parameters.signer ?? source)
  return { xdr: transaction.toEnvelope().toXDR('base64'), hash: bytesToHex(transaction.hash()).slice(2) }
}

describe('horizon: loadAccount', () => {
  test('default: reads the sequence number as a bigint', async () => {
    expect(await network.loadAccount(source.publicKey())).toEqual({
      ok: true,
      sequence: server.accounts.get(source.publicKey())!.sequence,
    })
  })

  test('behavior: an account that was never funded is not_found', async () => {
    expect(await network.loadAccount(Keypair.random().publicKey())).toEqual({ ok: false, reason: 'not_found' })
  })
})

describe('horizon: feeStats', () => {
  test('default: the base fee and the charged percentiles, in stroops', async () => {
    server.p90 = 250n
    expect(await network.feeStats()).toEqual({
      ledger: server.ledger,
      baseFee: 100n,
      charged: { min: 100n, mode: 100n, p50: 100n, p90: 250n, p99: 250n, max: 250n },
    })
    server.p90 = 100n
  })
})

describe('horizon: submit', () => {
  test('default: a valid transaction is applied; hash, ledger and fee charged come back', async () => {
    const sequence = server.accounts.get(source.publicKey())!.sequence + 1n
    const before = server.accounts.get(funded.publicKey())!.balance
    const { xdr, hash } = envelope({
      sequence,
      payments: [
        { to: funded.publicKey(), amount: '1.2345678' },
        { to: funded.publicKey(), amount: '0.0000001' },
      ],
    })
    const result = await network.submit(xdr)
    expect(result).toEqual({ ok: true, status: 'success', hash, ledger: server.ledger, feeCharged: 200n })
    expect(server.accounts.get(funded.publicKey())!.balance - before).toBe(12_345_679n)
    // Sent as Horizon's form body: `tx=<base64 envelope>`.
    expect(new URLSearchParams(server.received.at(-1)!).get('tx')).toBe(xdr)
  })

  test('error: a sequence number that is not the next one is tx_bad_seq', async () => {
    const sequence = server.accounts.get(source.publicKey())!.sequence + 5n
    const result = await network.submit(envelope({ sequence, payments: [{ to: funded.publicKey(), amount: '1' }] }).xdr)
    expect(result).toEqual({ ok: false, reason: 'tx_bad_seq', operations: [] })
  })

  test('error: a payment to an account that does not exist is tx_failed with one code per operation', async () => {
    const sequence = server.accounts.get(source.publicKey())!.sequence + 1n
    const result = await network.submit(
      envelope({
        sequence,
        payments: [
          { to: funded.publicKey(), amount: '1' },
          { to: Keypair.random().publicKey(), amount: '1' },
        ],
      }).xdr,
    )
    expect(result).toEqual({ ok: false, reason: 'tx_failed', operations: ['op_success', 'op_no_destination'] })
  })

  test('error: a fee below the base fee is tx_insufficient_fee', async () => {
    const sequence = server.accounts.get(source.publicKey())!.sequence + 1n
    const result = await network.submit(
      envelope({ sequence, fee: '99', payments: [{ to: funded.publicKey(), amount: '1' }] }).xdr,
    )
    expect(result).toEqual({ ok: false, reason: 'tx_insufficient_fee', operations: [] })
  })

  test('error: a signature by another key is tx_bad_auth', async () => {
    const sequence = server.accounts.get(source.publicKey())!.sequence + 1n
    const result = await network.submit(
      envelope({ sequence, signer: funded, payments: [{ to: funded.publicKey(), amount: '1' }] }).xdr,
    )
    expect(result).toEqual({ ok: false, reason: 'tx_bad_auth', operations: [] })
  })

  test('error: an envelope Horizon cannot decode is transaction_malformed', async () => {
    expect(await network.submit('AAAA')).toEqual({ ok: false, reason: 'transaction_malformed', operations: [] })
  })

  test('behavior: Horizon timing out (504) is pending, not a failure', async () => {
    server.faults.push('timeout')
    expect(await network.submit('AAAA')).toEqual({ ok: true, status: 'pending' })
  })
})

describe('horizon: faults', () => {
  test('error: a server error is a failure, naming the status and never the URL', async () => {
    server.faults.push('server_error')
    expect(await network.feeStats()).toEqual({
      ok: false,
      reason: 'failed',
      status: 500,
      message: 'Horizon answered HTTP 500 (server_error).',
    })
  })

  test('error: a rate limit is a failure', async () => {
    server.faults.push('rate_limited')
    expect(await network.loadAccount(source.publicKey())).toEqual({
      ok: false,
      reason: 'rate_limited',
      status: 429,
      message: 'Horizon answered HTTP 429 (rate_limit_exceeded).',
    })
  })

  test('error: a body that is not JSON is a failure', async () => {
    server.faults.push('not_json')
    expect(await network.submit('AAAA')).toMatchObject({
      ok: false,
      message: 'Horizon answered HTTP 502 with a body that is not JSON.',
    })
  })

  test('error: an unreachable server is a failure without the URL', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}/secret-key-in-path`
    closed.stop(true)
    const failure = await horizon({ url, networkPassphrase: server.networkPassphrase, retries: 0 }).feeStats()
    expect(failure).toEqual({
      ok: false,
      reason: 'failed',
      status: undefined,
      message: 'Horizon could not be reached.',
    })
  })

  test('error: a server slower than timeoutMs is a timeout', async () => {
    const slow = Bun.serve({ port: 0, fetch: () => Bun.sleep(2_000).then(() => new Response('{}')) })
    const failure = await horizon({
      url: `http://127.0.0.1:${slow.port}`,
      networkPassphrase: server.networkPassphrase,
      timeoutMs: 50,
      retries: 0,
    }).feeStats()
    slow.stop(true)
    expect(failure).toMatchObject({ ok: false, reason: 'timeout', message: 'Horizon did not answer within 50 ms.' })
  })
})

describe('horizon: defaults', () => {
  test("default: without url, SDF's public server of the network (constructed here, never called)", () => {
    expect(publicUrls['Test SDF Network ; September 2015']).toBe('https://horizon-testnet.stellar.org')
    expect(publicUrls['Public Global Stellar Network ; September 2015']).toBe('https://horizon.stellar.org')
    expect(horizon({ networkPassphrase: 'Test SDF Network ; September 2015' }).available()).toEqual({ ok: true })
  })

  test('error: a network with no known public server needs its url', () => {
    expect(() => horizon({ networkPassphrase: 'Standalone Network ; February 2017' })).toThrow('pass `url`')
  })
})
