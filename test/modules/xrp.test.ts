import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { classicAddressToXAddress, decode, deriveAddress, ECDSA, hashes, verifySignature, Wallet } from 'xrpl'
import { rippled } from '../../adapters/xrp/rippled.js'
import * as Module from '../../core/Module.js'
import type * as XrpNetwork from '../../core/XrpNetwork.js'
import { manifest, xrp } from '../../modules/xrp/index.js'
import type { Deps } from '../../modules/xrp/service.js'
import { type RippledFixture, startRippled } from '../adapters/xrp/rippled-fixture.js'
import { captureOutput } from '../support/capture.js'
import { moduleGateway } from '../support/gateway.js'
import { payers } from '../support/module.js'

const sender = Wallet.generate()
const secret = sender.seed!
const alice = Wallet.generate().classicAddress
const bob = Wallet.generate(ECDSA.secp256k1).classicAddress
const carol = Wallet.generate().classicAddress

/** Every response body this file received, and every line written to the console or stdio while it ran. */
const { seen } = captureOutput()

/** The xrp family alone in the gateway, its routes built with `deps`, every paid call paid by alice. */
function gatewayOf(deps: Deps) {
  return moduleGateway(Module.define({ ...manifest, routes: () => xrp(deps) }), {
    ports: { xrp: deps.network },
    payer: payers.alice,
  })
}

/** Sends a request through the gateway and keeps the body for the secret scan. */
async function call(app: ReturnType<typeof gatewayOf>, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = method === 'GET' ? await app.get(path) : await app.post(path, body)
  const text = await response.text()
  seen.push(text)
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(text) }
}

/** A network held in memory that records the blobs it is asked to submit and accepts them all. */
function recording(
  options: { sequence?: number; balance?: bigint; openLedgerFee?: bigint; networkId?: number; queue?: number } = {},
) {
  const submitted: string[] = []
  const network: XrpNetwork.XrpNetwork = {
    accountInfo: async () => ({
      ok: true,
      sequence: options.sequence ?? 10,
      balance: options.balance ?? 1_000_000_000_000n,
      ownerCount: 0,
    }),
    fee: async () => ({
      baseFee: 10n,
      minimumFee: 10n,
      openLedgerFee: options.openLedgerFee ?? 10n,
      medianFee: 5_000n,
      currentLedger: 501,
    }),
    serverInfo: async () => ({
      validatedLedger: 500,
      baseFee: 10n,
      reserveBase: 1_000_000n,
      reserveIncrement: 200_000n,
      loadFactor: 1,
      networkId: options.networkId ?? 1,
    }),
    submit: async (blob) => {
      submitted.push(blob)
      return {
        ok: true,
        hash: hashes.hashSignedTx(blob),
        result: submitted.length - 1 === options.queue ? 'terQUEUED' : 'tesSUCCESS',
      }
    },
    available: () => ({ ok: true }),
  }
  return { network, submitted }
}

describe("xrp: batch, the original gateway's form (sender signs)", () => {
  test('default: sender and recipients [{ address, amount, tag }] in human XRP answer one unsigned Payment each, in sequence; nothing is submitted', async () => {
    const { network, submitted } = recording({ sequence: 41 })
    const app = gatewayOf({ network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      sender: sender.classicAddress,
      recipients: [
        { address: alice, amount: '2500', tag: 7 },
        { address: bob, amount: 0.25, memo: 'bonus' },
      ],
      memo: 'payroll',
    })
    expect(status).toBe(200)
    expect(submitted).toEqual([])
    const memo = (text: string) => ({
      Memo: {
        MemoType: Buffer.from('text/plain').toString('hex').toUpperCase(),
        MemoData: Buffer.from(text).toString('hex').toUpperCase(),
      },
    })
    // "2500" is 2,500 XRP: 2,500,000,000 drops in the transaction.
    expect(body.transactions).toEqual([
      {
        TransactionType: 'Payment',
        Account: sender.classicAddress,
        Destination: alice,
        DestinationTag: 7,
        Amount: '2500000000',
        Fee: '10',
        Sequence: 41,
        LastLedgerSequence: 560,
        Flags: 0,
        Memos: [memo('payroll')],
      },
      {
        TransactionType: 'Payment',
        Account: sender.classicAddress,
        Destination: bob,
        Amount: '250000',
        Fee: '10',
        Sequence: 42,
        LastLedgerSequence: 560,
        Flags: 0,
        Memos: [memo('bonus')],
      },
    ])
    expect(body).toMatchObject({
      success: true,
      chain: 'xrp',
      chainId: 15,
      network: 'testnet',
      status: 'unsigned',
      sender: sender.classicAddress,
      recipientCount: 2,
      totalAmount: '2500.25',
      totalAmountDrops: '2500250000',
      summary: {
        totalPayments: '2500.25',
        totalPaymentsDrops: '2500250000',
        spraayFee: '0',
        spraayFeePercent: '0%',
        networkFees: '0.00002',
        totalCost: '2500.25002',
        baseFeePerTx: '0.00001',
        transactionCount: 2,
        lastLedgerSequence: 560,
      },
    })
    expect(Object.keys(body.instructions)).toEqual(['step1', 'step2', 'step3', 'note'])
  })

  test('behavior: each unsigned Payment, signed by the sender, verifies', async () => {
    const { network } = recording({ sequence: 5 })
    const app = gatewayOf({ network })
    const { body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      sender: sender.classicAddress,
      recipients: [{ address: alice, amount: '1' }],
    })
    const { tx_blob } = sender.sign(body.transactions[0])
    expect(verifySignature(tx_blob, sender.publicKey)).toBe(true)
    expect((decode(tx_blob) as Record<string, unknown>).Amount).toBe('1000000')
  })

  test('error: a balance that does not cover the batch and the reserve is a 409 before anything is built', async () => {
    const app = gatewayOf({ network: recording({ balance: 2_500_000_000n }).network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      sender: sender.classicAddress,
      recipients: [{ address: alice, amount: '2500' }],
    })
    expect(status).toBe(409)
    expect(body.reason).toBe('insufficient_balance')
  })

  test.each([
    [{ recipients: [{ address: 'ALICE', amount: '2500.0000001' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: 'ALICE', amount: '0' }] }, 'recipients.0.amount'],
    [{ recipients: [{ address: 'ALICE', amount: '1', tag: -1 }] }, 'recipients.0'],
    [{ recipients: [{ address: 'SENDER', amount: '1' }] }, 'recipients.0.address'],
    [{ recipients: ['ALICE'], amounts: ['1'] }, 'amounts'],
    [{ recipients: ['ALICE'] }, 'recipients.0'],
    [{ senderSecret: 'SECRET', recipients: [{ address: 'ALICE', amount: '1' }] }, 'senderSecret'],
  ])('error: sender with %p is a 400 naming %s, before any payment', async (input, field) => {
    const app = gatewayOf({ network: recording().network })
    const body = JSON.parse(
      JSON.stringify({ sender: sender.classicAddress, ...input })
        .replace('ALICE', alice)
        .replace('"SENDER"', JSON.stringify(sender.classicAddress))
        .replace('SECRET', secret),
    )
    const response = await app.handle(
      new Request('http://gateway.test/api/v1/xrp/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    )
    const text = await response.text()
    seen.push(text)
    expect(response.status).toBe(400)
    expect(JSON.parse(text).field).toBe(field)
  })

  test('behavior: an X-address recipient keeps its tag; a different tag beside it is a 400', async () => {
    const app = gatewayOf({ network: recording().network })
    const tagged = classicAddressToXAddress(alice, 99, true)
    const ok = await call(app, 'POST', '/api/v1/xrp/batch', {
      sender: sender.classicAddress,
      recipients: [{ address: tagged, amount: '1' }],
    })
    expect(ok.body.transactions[0]).toMatchObject({ Destination: alice, DestinationTag: 99 })
    const refused = await call(app, 'POST', '/api/v1/xrp/batch', {
      sender: sender.classicAddress,
      recipients: [{ address: tagged, amount: '1', tag: 3 }],
    })
    expect(refused.status).toBe(400)
    expect(refused.body.field).toBe('recipients.0.tag')
  })

  test('error: neither sender nor senderSecret is a 400 naming sender', async () => {
    const app = gatewayOf({ network: recording().network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      recipients: [{ address: alice, amount: '1' }],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('sender')
  })
})

describe('xrp: batch, the signed transactions (offline)', () => {
  test('default: one Payment per recipient, consecutive sequences, exact drops, signed by the sender', async () => {
    const { network, submitted } = recording({ sequence: 41 })
    const app = gatewayOf({ network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob, carol],
      amounts: ['1', '0.000001', '99999.999999'],
    })
    expect(status).toBe(200)
    expect(submitted).toHaveLength(3)
    const decoded = submitted.map((blob) => decode(blob) as Record<string, any>)
    expect(decoded.map(({ TransactionType }) => TransactionType)).toEqual(['Payment', 'Payment', 'Payment'])
    expect(decoded.map(({ Account }) => Account)).toEqual([
      sender.classicAddress,
      sender.classicAddress,
      sender.classicAddress,
    ])
    expect(decoded.map(({ Destination }) => Destination)).toEqual([alice, bob, carol])
    expect(decoded.map(({ Amount }) => Amount)).toEqual(['1000000', '1', '99999999999'])
    expect(decoded.map(({ Sequence }) => Sequence)).toEqual([41, 42, 43])
    expect(decoded.map(({ Fee }) => Fee)).toEqual(['10', '10', '10'])
    expect(decoded.map(({ LastLedgerSequence }) => LastLedgerSequence)).toEqual([520, 520, 520])
    expect(
      decoded.every((transaction) => transaction.NetworkID === undefined && transaction.DestinationTag === undefined),
    ).toBe(true)
    for (const [index, blob] of submitted.entries()) {
      expect(verifySignature(blob, sender.publicKey)).toBe(true)
      expect(deriveAddress(decoded[index]!.SigningPubKey)).toBe(sender.classicAddress)
    }
    expect(verifySignature(submitted[0]!, Wallet.generate().publicKey)).toBe(false)

    const hashList = submitted.map((blob) => hashes.hashSignedTx(blob))
    expect(body).toEqual({
      hash: hashList[2],
      hashes: hashList,
      status: 'submitted',
      sender: sender.classicAddress,
      recipientCount: 3,
      totalAmount: '100001',
      fee: '0.00003',
      lastLedgerSequence: 520,
      payments: [
        { recipient: alice, amount: '1', hash: hashList[0], sequence: 41, result: 'tesSUCCESS' },
        { recipient: bob, amount: '0.000001', hash: hashList[1], sequence: 42, result: 'tesSUCCESS' },
        { recipient: carol, amount: '99999.999999', hash: hashList[2], sequence: 43, result: 'tesSUCCESS' },
      ],
      note: 'Every payment was accepted by the server; each is final once in a validated ledger, and can no longer be included after ledger 520.',
    })
  })

  test('behavior: an X-address pays its classic address with its tag as the DestinationTag', async () => {
    const { network, submitted } = recording()
    const tagged = classicAddressToXAddress(alice, 12345, false)
    const { status, body } = await call(gatewayOf({ network }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [tagged],
      amounts: ['2.5'],
    })
    expect(status).toBe(200)
    const transaction = decode(submitted[0]!) as Record<string, unknown>
    expect(transaction.Destination).toBe(alice)
    expect(transaction.DestinationTag).toBe(12345)
    expect(body.payments[0].recipient).toBe(tagged)
  })

  test('behavior: a secp256k1 family seed signs too', async () => {
    const family = Wallet.generate(ECDSA.secp256k1)
    const { network, submitted } = recording()
    const { status, body } = await call(gatewayOf({ network }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: family.seed,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(200)
    expect(body.sender).toBe(family.classicAddress)
    expect(verifySignature(submitted[0]!, family.publicKey)).toBe(true)
  })

  test('behavior: a network with an id above 1024 gets NetworkID in every transaction', async () => {
    const { network, submitted } = recording({ networkId: 21_338 })
    await call(gatewayOf({ network }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob],
      amounts: ['1', '1'],
    })
    expect(submitted.map((blob) => (decode(blob) as Record<string, unknown>).NetworkID)).toEqual([21_338, 21_338])
  })

  test('behavior: the fee follows the open ledger, at most the ceiling', async () => {
    const busy = recording({ openLedgerFee: 5_000n })
    await call(gatewayOf({ network: busy.network }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect((decode(busy.submitted[0]!) as Record<string, unknown>).Fee).toBe('5000')

    const surging = recording({ openLedgerFee: 9_000_000n })
    await call(gatewayOf({ network: surging.network, maxFeePerTransaction: 1_000n }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect((decode(surging.submitted[0]!) as Record<string, unknown>).Fee).toBe('1000')
  })

  test('behavior: a payment queued for a later ledger makes the batch queued', async () => {
    const { network } = recording({ queue: 1 })
    const { status, body } = await call(gatewayOf({ network }), 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob],
      amounts: ['1', '1'],
    })
    expect(status).toBe(200)
    expect(body.status).toBe('queued')
    expect(body.payments.map(({ result }: { result: string }) => result)).toEqual(['tesSUCCESS', 'terQUEUED'])
  })
})

describe('xrp: batch, input', () => {
  const { network, submitted } = recording()
  const app = gatewayOf({ network })

  test.each([
    ['a checksum that does not match', `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`],
    ['too short', secret.slice(0, 12)],
    ['an account address', alice],
    ['a Stellar secret', 'SB6PEGIORHZKGQ6WNTFLKBOTLWKUDQ6QJJJHU3665GFFXGZIOJARLK6Q'],
    ['not base58', `s${'0'.repeat(28)}`],
  ])('error: a secret that is %s is a 400 that does not repeat it', async (_, bad) => {
    const { status, contentType, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: bad,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(400)
    expect(contentType).toBe('application/problem+json')
    expect(body.code).toBe('validation_failed')
    expect(body.field).toBe('senderSecret')
    expect(JSON.stringify(body)).not.toContain(bad)
    expect(JSON.stringify(body)).not.toContain(bad.slice(0, 10))
  })

  test('error: recipients and amounts of different lengths', async () => {
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice],
      amounts: ['1', '2'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('amounts')
    expect(body.detail).toBe('amounts: has 2 entries for 1 recipients; recipients and amounts are parallel arrays')
  })

  test('error: more than 100 recipients', async () => {
    const recipients = Array.from({ length: 101 }, () => alice)
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients,
      amounts: recipients.map(() => '1'),
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients')
  })

  test.each([['0'], ['-1'], ['1.0000001'], ['1e3'], ['abc'], [''], ['100000000000.000001'], [1]])(
    'error: the amount %p is a 400 naming its index',
    async (amount) => {
      const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
        senderSecret: secret,
        recipients: [alice, bob],
        amounts: ['1', amount],
      })
      expect(status).toBe(400)
      expect(body.field).toBe('amounts.1')
    },
  )

  test.each([
    ['a mistyped address', `${alice.slice(0, -1)}${alice.endsWith('a') ? 'b' : 'a'}`],
    ['a secret seed', Wallet.generate().seed!],
    ['a Stellar account', 'GAKUCBUYTWAT4AUNPTXM3KU7YBZ6G3JETT62R3M73B63XMPMSHBZPYUY'],
  ])('error: a recipient that is %s is a 400 that does not repeat it', async (_, bad) => {
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bad],
      amounts: ['1', '1'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients.1')
    expect(JSON.stringify(body)).not.toContain(bad)
  })

  test('error: paying the sender itself is a 400 (the ledger would refuse it halfway through the batch)', async () => {
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, sender.classicAddress],
      amounts: ['1', '1'],
    })
    expect(status).toBe(400)
    expect(body.field).toBe('recipients.1')
  })

  test('behavior: nothing was submitted for refused input', () => {
    expect(submitted).toEqual([])
  })
})

describe('xrp: batch, submitted to rippled', () => {
  let server: RippledFixture
  let app: ReturnType<typeof gatewayOf>

  beforeAll(() => {
    server = startRippled()
    server.fund(sender.classicAddress, '1000', 5)
    server.fund(alice, '10')
    server.fund(bob, '10')
    app = gatewayOf({ network: rippled({ url: server.url, retries: 0 }) })
  })

  afterAll(() => server.stop())

  test('default: every recipient is paid exactly and the sender pays amounts plus one fee per payment', async () => {
    const before = server.accounts.get(sender.classicAddress)!.balance
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob, carol],
      amounts: ['1.5', '0.000001', '2'],
    })
    expect(status).toBe(200)
    expect(body.status).toBe('submitted')
    expect(body.hashes).toEqual(server.applied.slice(-3).map((transaction) => transaction.hash))
    expect(body.hash).toBe(body.hashes[2])
    expect(server.accounts.get(alice)!.balance).toBe(11_500_000n)
    expect(server.accounts.get(bob)!.balance).toBe(10_000_001n)
    // A payment of at least the reserve creates the account.
    expect(server.accounts.get(carol)!.balance).toBe(2_000_000n)
    expect(before - server.accounts.get(sender.classicAddress)!.balance).toBe(3_500_001n + 30n)
    expect(server.accounts.get(sender.classicAddress)!.sequence).toBe(8)
  })

  test('error: a batch the balance cannot cover above the reserve is a 409 before anything is sent', async () => {
    const received = server.received.length
    const balance = server.accounts.get(sender.classicAddress)!.balance
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob],
      amounts: ['500', '499'],
    })
    expect(status).toBe(409)
    expect(body.reason).toBe('insufficient_balance')
    expect(body.reserve).toBe('1')
    expect(
      server.received
        .slice(received)
        .map((text) => JSON.parse(text).method)
        .sort(),
    ).toEqual(['account_info', 'fee', 'server_info'])
    expect(server.accounts.get(sender.classicAddress)!.balance).toBe(balance)
  })

  test('error: a payment the ledger refuses stops the batch: 502 with what was sent and what was not', async () => {
    const newcomer = Wallet.generate().classicAddress
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, newcomer, bob],
      amounts: ['1', '0.5', '1'],
    })
    expect(status).toBe(502)
    expect(body.code).toBe('upstream_failed')
    expect(body.reason).toBe('tecNO_DST_INSUF_XRP')
    expect(body.failedIndex).toBe(1)
    expect(body.payments.map(({ result }: { result: string }) => result)).toEqual([
      'tesSUCCESS',
      'tecNO_DST_INSUF_XRP',
      'not_submitted',
    ])
    expect(body.detail).toBe(
      'The XRP Ledger refused payment 1 (recipients.1): tecNO_DST_INSUF_XRP (Destination does not exist. Too little XRP sent to create it.). Payments 0 to 0 were submitted and are final once validated (see details.payments); the rest were not submitted.',
    )
    expect(server.accounts.has(newcomer)).toBe(false)
  })

  test('error: a sequence number taken meanwhile is a 502 with tefPAST_SEQ, and nothing is sent', async () => {
    const network = rippled({ url: server.url, retries: 0 })
    const racing = gatewayOf({
      network: {
        ...network,
        // Another transaction from the same account lands between the read and the submission.
        accountInfo: async (address) => {
          const account = await network.accountInfo(address)
          server.accounts.get(address)!.sequence += 1
          return account
        },
      },
    })
    const before = server.accounts.get(alice)!.balance
    const { status, body } = await call(racing, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob],
      amounts: ['1', '1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('tefPAST_SEQ')
    expect(body.detail).toEndWith('Nothing was sent.')
    expect(body.payments.map(({ result }: { result: string }) => result)).toEqual(['tefPAST_SEQ', 'not_submitted'])
    expect(server.accounts.get(alice)!.balance).toBe(before)
  })

  test('error: a sender that was never funded is a 502 with actNotFound', async () => {
    const stranger = Wallet.generate()
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/batch', {
      senderSecret: stranger.seed,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('actNotFound')
    expect(body.detail).toBe(
      `The sender account ${stranger.classicAddress} does not exist on the XRP Ledger; fund it first.`,
    )
    expect(JSON.stringify(body)).not.toContain(stranger.seed!)
  })

  test('error: rippled failing during a submission is a 502 that marks that payment unknown', async () => {
    const network = rippled({ url: server.url, retries: 0 })
    let submits = 0
    const failing = gatewayOf({
      network: {
        ...network,
        submit: (blob) => {
          if (++submits === 2) server.faults.push('http_error')
          return network.submit(blob)
        },
      },
    })
    const { status, body } = await call(failing, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice, bob, alice],
      amounts: ['1', '1', '1'],
    })
    expect(status).toBe(502)
    expect(body.reason).toBe('network_error')
    expect(body.payments.map(({ result }: { result: string }) => result)).toEqual([
      'tesSUCCESS',
      'unknown',
      'not_submitted',
    ])
    expect(body.detail).toStartWith(
      `The XRP Ledger failed while payment 1 (${body.payments[1].hash}) was being submitted: rippled answered submit with HTTP 503.`,
    )
  })

  test('error: a busy server is a 502 network_error', async () => {
    server.faults.push('too_busy')
    const { status, body } = await call(app, 'GET', '/api/v1/xrp/info')
    expect(status).toBe(502)
    expect(body.reason).toBe('network_error')
    expect(body.detail).toBe('The XRP Ledger failed: rippled cannot serve server_info now (tooBusy).')
  })

  test('error: rippled unreachable is a 502 that names no URL', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response() })
    const url = `http://127.0.0.1:${closed.port}/`
    closed.stop(true)
    const down = gatewayOf({ network: rippled({ url }) })
    const { status, body } = await call(down, 'POST', '/api/v1/xrp/batch', {
      senderSecret: secret,
      recipients: [alice],
      amounts: ['1'],
    })
    expect(status).toBe(502)
    expect(body.detail).toBe('The XRP Ledger failed: rippled could not be reached.')
  })

  test('default: info is the base fee and reserves of the last validated ledger', async () => {
    const { status, body } = await call(app, 'GET', '/api/v1/xrp/info')
    expect(status).toBe(200)
    expect(body).toEqual({
      baseFee: '0.00001',
      reserveBase: '1',
      reserveInc: '0.2',
      unit: 'XRP',
      drops: { baseFee: '10', reserveBase: '1000000', reserveInc: '200000' },
      loadFactor: 1,
      ledger: server.validatedLedger,
      networkId: 1,
      success: true,
      chain: 'xrp',
      chainId: 15,
      name: 'XRP Ledger',
      network: 'testnet',
      nativeAsset: 'XRP',
      decimals: 6,
      explorer: 'https://testnet.xrpl.org',
      spraay: {
        feePercent: '0%',
        feeAddress: null,
        maxRecipients: 100,
        minAmount: 0.000001,
        batchMethod: 'sequential-payments',
        batchNote:
          'One Payment per recipient at consecutive sequence numbers; this gateway is paid per call and adds no fee.',
      },
      walletSupport: ['Xaman (XUMM)', 'GemWallet', 'Crossmark', 'Ledger (via Xaman)'],
      features: { destinationTags: true, memos: true, nativeBatch: false, atomicBatch: false },
    })
  })

  test('default: estimate is the open ledger fee per payment', async () => {
    server.openLedgerFee = 12n
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/estimate', { recipientCount: 4 })
    server.openLedgerFee = 10n
    expect(status).toBe(200)
    expect(body).toEqual({
      estimatedFee: '0.000048',
      estimatedFeeDrops: '48',
      feePerTransactionDrops: '12',
      baseFeeDrops: '10',
      transactions: 4,
      ledger: server.validatedLedger + 1,
      unit: 'XRP',
      success: true,
      chain: 'xrp',
      chainId: 15,
      estimate: {
        recipientCount: 4,
        spraayFee: '0',
        spraayFeePercent: '0%',
        networkFees: '0.000048',
        transactionCount: 4,
        estimatedTimeSeconds: 16,
      },
    })
  })

  test('security: rippled never received the seed or the private key, only signed blobs', () => {
    const received = server.received.join('\n')
    expect(received.length).toBeGreaterThan(0)
    expect(received).not.toContain(secret)
    expect(received.toUpperCase()).not.toContain(sender.privateKey.toUpperCase())
    expect(received.toUpperCase()).not.toContain(sender.privateKey.slice(2).toUpperCase())
  })
})

describe('xrp: estimate', () => {
  test("behavior: the original gateway's sender and recipients: the sum in human XRP, the fees and whether the balance covers them", async () => {
    const app = gatewayOf({ network: recording({ balance: 2_600_000_000n }).network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/estimate', {
      sender: sender.classicAddress,
      recipients: [
        { address: alice, amount: '2500' },
        { address: bob, amount: 0.5 },
      ],
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({
      success: true,
      chain: 'xrp',
      chainId: 15,
      estimate: {
        recipientCount: 2,
        totalPayments: '2500.5',
        totalPaymentsDrops: '2500500000',
        spraayFee: '0',
        spraayFeePercent: '0%',
        networkFees: '0.00002',
        totalCost: '2500.50002',
        transactionCount: 2,
        estimatedTimeSeconds: 8,
      },
      sender: { address: sender.classicAddress, balance: '2600', sufficient: true },
    })
  })

  test('behavior: a balance below the sum plus the reserve is sufficient: false', async () => {
    const app = gatewayOf({ network: recording({ balance: 2_500_500_000n }).network })
    const { body } = await call(app, 'POST', '/api/v1/xrp/estimate', {
      sender: sender.classicAddress,
      recipients: [{ address: alice, amount: '2500' }],
    })
    expect(body.sender).toEqual({ address: sender.classicAddress, balance: '2500.5', sufficient: false })
  })

  test.each([
    [{ sender: 'rBAD', recipients: [{ address: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY', amount: '1' }] }, 'sender'],
    [{ recipients: [{ address: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY', amount: '1' }] }, 'sender'],
    [
      { sender: 'SENDER', recipients: [{ address: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY', amount: '2500.0000001' }] },
      'recipients.0.amount',
    ],
    [
      {
        recipientCount: 1,
        sender: 'SENDER',
        recipients: [{ address: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY', amount: '1' }],
      },
      'recipientCount',
    ],
    [{}, 'recipientCount'],
  ])('error: %p is a 400 naming %s, before any payment', async (input, field) => {
    const app = gatewayOf({ network: recording().network })
    const body = JSON.parse(JSON.stringify(input).replace('SENDER', sender.classicAddress))
    const response = await app.handle(
      new Request('http://gateway.test/api/v1/xrp/estimate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    )
    expect(response.status).toBe(400)
    expect((await response.json()).field).toBe(field)
  })

  test.each([[0], [101], [1.5], ['3'], [-1]])('error: recipientCount %p is a 400', async (recipientCount) => {
    const app = gatewayOf({ network: recording().network })
    const { status, body } = await call(app, 'POST', '/api/v1/xrp/estimate', { recipientCount })
    expect(status).toBe(400)
    expect(body.field).toBe('recipientCount')
  })
})

describe('xrp: secrets', () => {
  test('security: no response, error or log line of this file holds the seed or any 8 characters of it', () => {
    const everything = seen.join('\n')
    expect(everything.length).toBeGreaterThan(0)
    for (let start = 0; start + 8 <= secret.length; start++)
      expect(everything).not.toContain(secret.slice(start, start + 8))
    expect(everything.toUpperCase()).not.toContain(sender.privateKey.slice(2).toUpperCase())
  })
})
