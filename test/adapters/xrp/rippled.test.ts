import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decode, ECDSA, encode, type Payment, Wallet } from 'xrpl'
import { rippled } from '../../../adapters/xrp/rippled.js'
import { type RippledFixture, startRippled } from './rippled-fixture.js'

let server: RippledFixture
let network: ReturnType<typeof rippled>
const sender = Wallet.generate()
const receiver = Wallet.generate(ECDSA.secp256k1)

beforeAll(() => {
  server = startRippled()
  server.fund(sender.classicAddress, '100', 7)
  server.fund(receiver.classicAddress, '20')
  network = rippled({ url: server.url, retries: 0 })
})

afterAll(() => server.stop())

/** A signed payment of `drops` from the sender. */
function payment(overrides: Partial<Payment> = {}, wallet = sender) {
  const account = server.accounts.get(sender.classicAddress)!
  return wallet.sign({
    TransactionType: 'Payment',
    Account: sender.classicAddress,
    Destination: receiver.classicAddress,
    Amount: '1500000',
    Fee: '10',
    Sequence: account.sequence,
    LastLedgerSequence: server.validatedLedger + 20,
    Flags: 0,
    ...overrides,
  })
}

describe('rippled: accountInfo', () => {
  test('default: sequence, balance in drops and owner count of the open ledger', async () => {
    expect(await network.accountInfo(sender.classicAddress)).toEqual({
      ok: true,
      sequence: 7,
      balance: 100_000_000n,
      ownerCount: 0,
    })
    expect(JSON.parse(server.received.at(-1)!)).toEqual({
      method: 'account_info',
      params: [{ account: sender.classicAddress, ledger_index: 'current' }],
    })
  })

  test('behavior: an account that was never funded is actNotFound', async () => {
    expect(await network.accountInfo(Wallet.generate().classicAddress)).toEqual({ ok: false, reason: 'actNotFound' })
  })
})

describe('rippled: fee', () => {
  test('default: the drops of the fee command', async () => {
    server.openLedgerFee = 12n
    expect(await network.fee()).toEqual({
      baseFee: 10n,
      minimumFee: 10n,
      openLedgerFee: 12n,
      medianFee: 5000n,
      currentLedger: server.validatedLedger + 1,
    })
    server.openLedgerFee = 10n
  })
})

describe('rippled: serverInfo', () => {
  test('default: the validated ledger, with its XRP figures turned into exact drops', async () => {
    expect(await network.serverInfo()).toEqual({
      validatedLedger: server.validatedLedger,
      baseFee: 10n,
      reserveBase: 1_000_000n,
      reserveIncrement: 200_000n,
      loadFactor: 1,
      networkId: 1,
    })
  })
})

describe('rippled: submit', () => {
  test('default: a valid payment is applied: tesSUCCESS and its hash', async () => {
    const signed = payment()
    expect(await network.submit(signed.tx_blob)).toEqual({ ok: true, hash: signed.hash, result: 'tesSUCCESS' })
    expect(server.accounts.get(receiver.classicAddress)!.balance).toBe(21_500_000n)
    expect(JSON.parse(server.received.at(-1)!)).toEqual({
      method: 'submit',
      params: [{ tx_blob: signed.tx_blob, fail_hard: true }],
    })
  })

  test('error: a sequence already used is tefPAST_SEQ', async () => {
    const result = await network.submit(payment({ Sequence: 7 }).tx_blob)
    expect(result).toEqual({ ok: false, reason: 'tefPAST_SEQ', message: 'This sequence number has already passed.' })
  })

  test('error: more than the balance above the reserve is tecUNFUNDED_PAYMENT', async () => {
    const result = await network.submit(payment({ Amount: '99000000' }).tx_blob)
    expect(result).toEqual({ ok: false, reason: 'tecUNFUNDED_PAYMENT', message: 'Insufficient XRP balance to send.' })
  })

  test("error: a signature by a key that is not the account's is tefBAD_AUTH_MASTER", async () => {
    const result = await network.submit(payment({}, Wallet.generate()).tx_blob)
    expect(result).toEqual({
      ok: false,
      reason: 'tefBAD_AUTH_MASTER',
      message: 'Auth for unclaimed account needs correct master key.',
    })
  })

  test('error: a blob whose signature does not verify is an invalid transaction', async () => {
    const signed = payment()
    const decoded = decode(signed.tx_blob) as unknown as Payment & { TxnSignature: string }
    const flipped = decoded.TxnSignature[10] === '0' ? '1' : '0'
    const tampered = encode({
      ...decoded,
      TxnSignature: decoded.TxnSignature.slice(0, 10) + flipped + decoded.TxnSignature.slice(11),
    })
    expect(tampered).not.toBe(signed.tx_blob)
    const result = await network.submit(tampered)
    expect(result).toEqual({
      ok: false,
      reason: 'invalidTransaction',
      message: 'fails local checks: Invalid signature.',
    })
  })

  test('behavior: a queued transaction is accepted as terQUEUED', async () => {
    server.openLedgerFee = 20n
    const signed = payment({ Fee: '10' })
    expect(await network.submit(signed.tx_blob)).toEqual({ ok: true, hash: signed.hash, result: 'terQUEUED' })
    server.openLedgerFee = 10n
  })
})

describe('rippled: faults', () => {
  test('error: an HTTP error is a failure', async () => {
    server.faults.push('http_error')
    expect(await network.fee()).toEqual({
      ok: false,
      reason: 'failed',
      status: 503,
      message: 'rippled answered fee with HTTP 503.',
    })
  })

  test('error: a busy server is a failure, whatever the command', async () => {
    server.faults.push('too_busy')
    expect(await network.submit(payment().tx_blob)).toMatchObject({
      ok: false,
      message: 'rippled cannot serve submit now (tooBusy).',
    })
  })

  test('error: a body that is not JSON is a failure', async () => {
    server.faults.push('not_json')
    expect(await network.serverInfo()).toMatchObject({
      ok: false,
      reason: 'failed',
      message: 'rippled answered server_info with a body that is not JSON.',
    })
  })

  test('error: an unreachable server is a failure without the URL', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}/provider-key`
    closed.stop(true)
    expect(await rippled({ url, retries: 0 }).fee()).toEqual({
      ok: false,
      reason: 'failed',
      status: undefined,
      message: 'rippled could not be reached.',
    })
  })

  test('error: a server slower than timeoutMs is a timeout', async () => {
    const slow = Bun.serve({ port: 0, fetch: () => Bun.sleep(2_000).then(() => new Response('{}')) })
    expect(await rippled({ url: `http://127.0.0.1:${slow.port}`, timeoutMs: 50, retries: 0 }).fee()).toMatchObject({
      ok: false,
      reason: 'timeout',
      message: 'rippled did not answer fee within 50 ms.',
    })
    slow.stop(true)
  })
})
