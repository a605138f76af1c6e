import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAddress, type Hex, toHex } from 'viem'
import { uptoChain } from '../../../adapters/chain/upto.js'
import { silent } from '../../../app/log.js'
import { reconcile } from '../../../app/payment/reconcile.js'
import { settlement } from '../../../app/payment/settlement.js'
import * as Upto from '../../../app/payment/upto.js'
import { type Signed, serialize, toTypedData } from '../../../core/Authorization.js'
import { type Event, events, outboxQueue } from '../../../core/Events.js'
import { asEvm } from '../../../core/Ledger.js'
import { toDomain } from '../../../core/PaymentTerms.js'
import type { Effect } from '../../../core/Store.js'
import { paidGateway } from '../../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
const dataDir = mkdtempSync(join(tmpdir(), 'reconcile-'))

beforeAll(async () => {
  gateway = await paidGateway({ env: { DATA_DIR: dataDir, DEVNET_PERSIST: 'true' } })
})
afterAll(async () => {
  await gateway.close()
})

/** A real authorization from a devnet account, signed for the gateway's payee. */
async function authorize(index: number, window: { validAfter?: bigint; validBefore?: bigint } = {}): Promise<Signed> {
  const account = gateway.account(index)
  const now = BigInt(Math.floor(Date.now() / 1000))
  const authorization = {
    from: account.address,
    to: getAddress(gateway.terms.payTo),
    value: 1000n,
    validAfter: window.validAfter ?? now - 600n,
    validBefore: window.validBefore ?? now + 120n,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex,
  }
  const signature = await account.signTypedData(toTypedData(authorization, toDomain(gateway.terms)))
  return { ...authorization, signature }
}

/** Records an authorization as a crashed process would have left it. */
async function leave(
  authorization: Signed,
  state: 'claimed' | 'settling',
  lease = gateway.lease.id,
  effects: Effect[] = [],
) {
  const key = { payer: authorization.from, nonce: authorization.nonce }
  await gateway.ledger.claim({
    ...key,
    amount: authorization.value,
    endpoint: 'GET /api/v1/rpc/chains',
    protocol: 'x402-v2',
    authorization: serialize(authorization),
    fingerprint: 'f',
    lease,
    claimedAt: new Date(),
  })
  for (const effect of effects) await gateway.ledger.apply(key, { type: 'effect', effect })
  if (state === 'settling') await gateway.ledger.apply(key, { type: 'settle', response: undefined })
  return key
}

const books = () => ({
  ledger: gateway.ledger,
  facilitator: gateway.facilitator,
  domain: toDomain(gateway.terms),
  logger: silent(),
  lease: gateway.lease,
})

/** Reconciles through a settlement service on `books()` with `overrides` of them, and `options` of the run. */
function reconciled(
  overrides: Partial<Parameters<typeof settlement>[0]> = {},
  options: Omit<Parameters<typeof reconcile>[0], 'settlements'> = {},
) {
  return reconcile({ settlements: settlement({ ...books(), ...overrides }), ...options })
}

/** Settles a payment left `settling` through this process's settlement service, with `overrides` of its books. */
function settleLeft(
  authorization: Signed,
  key: Awaited<ReturnType<typeof leave>>,
  overrides: Partial<Parameters<typeof settlement>[0]>,
) {
  return settlement({ ...books(), ...overrides }).settle({
    key,
    protocol: 'x402-v2',
    authorization,
    endpoint: 'GET /api/v1/rpc/chains',
    challengeId: undefined,
  })
}

describe('reconcile', () => {
  test('behavior: a payment reconciliation confirms while its process still waits for the receipt is settled once, with no error', async () => {
    const authorization = await authorize(7)
    const key = await leave(authorization, 'settling')
    const logged: string[] = []
    const logger = { log: (_level: string, event: string) => void logged.push(event) }
    const settled = await settleLeft(authorization, key, {
      logger,
      // The transfer is mined; before this process records it, reconciliation finds it on chain and confirms it.
      facilitator: {
        ...gateway.facilitator,
        settle: async (parameters) => {
          const outcome = await gateway.facilitator.settle(parameters)
          expect((await reconciled()).settled).toBeGreaterThanOrEqual(1)
          return outcome
        },
      },
    })
    expect(settled.ok).toBe(true)
    expect(await gateway.ledger.get(key)).toMatchObject({
      state: 'settled',
      transaction: (settled as { transaction: string }).transaction,
    })
    expect(logged).not.toContain('settlement_record_failed')
    expect(logged).toContain('payment_settled')
  })

  test('behavior: a settlement its sender takes for pending (a fault after sending) that reconciliation confirmed first is settled, with no error', async () => {
    const authorization = await authorize(2)
    const key = await leave(authorization, 'settling')
    const logged: { level: string; event: string }[] = []
    const logger = { log: (level: string, event: string) => void logged.push({ level, event }) }
    const settled = await settleLeft(authorization, key, {
      logger,
      facilitator: {
        ...gateway.facilitator,
        // The transfer is mined and confirmed by reconciliation; then this process's connection fails.
        settle: async (parameters) => {
          await gateway.facilitator.settle(parameters)
          expect((await reconciled()).settled).toBeGreaterThanOrEqual(1)
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
        },
      },
    })
    expect(settled).toMatchObject({ ok: false, reason: 'settlement_pending' })
    expect(await gateway.ledger.get(key)).toMatchObject({ state: 'settled' })
    expect(logged.filter(({ level }) => level === 'error')).toEqual([])
  })

  test('behavior: a settlement still unconfirmed when its caller stops waiting is answered with the hash the relayer signed', async () => {
    const authorization = await authorize(3)
    const key = await leave(authorization, 'settling')
    const hash = `0x${'ab'.repeat(32)}` as Hex
    const settled = await settleLeft(authorization, key, {
      timeoutMs: 50,
      facilitator: {
        ...gateway.facilitator,
        // Signed, and the node has not taken it yet.
        settle: (parameters) => {
          parameters.onSigned?.(hash)
          return new Promise(() => {})
        },
      },
    })
    expect(settled).toMatchObject({ ok: false, reason: 'settlement_pending', submitted: hash })
    // Signed is not sent: the ledger holds no hash, so reconciliation leaves it to a retry.
    expect((await gateway.ledger.get(key))?.transaction).toBeUndefined()
  })

  test('behavior: an upto settlement left settling is failed once its permit expired unused, confirmed by its mined transaction', async () => {
    const owner = gateway.account(4)
    const chain = uptoChain({
      client: gateway.devnet.publicClient,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
      relayer: gateway.account(5),
    })
    const now = BigInt(Math.floor(Date.now() / 1000))
    /** An upto permit as a crashed process left it: claimed, then `settling`, maybe with a transaction recorded. */
    async function left(deadline: bigint, transaction?: Hex) {
      const permit = {
        owner: owner.address,
        token: gateway.terms.asset.address,
        max: 500n,
        nonce: BigInt(toHex(crypto.getRandomValues(new Uint8Array(16)))),
        deadline,
        to: getAddress(gateway.terms.payTo),
        facilitator: chain.facilitator,
        validAfter: 0n,
        signature: `0x${'11'.repeat(65)}` as Hex,
      }
      const key = { payer: owner.address, nonce: Upto.nonceOf(permit) }
      await gateway.ledger.claim({
        ...key,
        amount: 42n,
        endpoint: 'POST /api/v1/chat/completions',
        protocol: 'x402-v2',
        authorization: Upto.serialize(permit),
        fingerprint: 'f',
        lease: 'a-dead-process',
        claimedAt: new Date(),
      })
      await gateway.ledger.apply(key, { type: 'settle', response: undefined })
      if (transaction) await gateway.ledger.apply(key, { type: 'submitted', transaction })
      return key
    }
    const expired = await left(now - 60n)
    const live = await left(now + 600n)
    // A transaction that really succeeded on the devnet: what a crash after mining leaves behind.
    const mined = await gateway.devnet.fund({ address: owner.address, amount: 1n })
    const confirmed = await left(now + 600n, mined)
    const result = await reconciled({}, { upto: chain })
    expect(result).toMatchObject({ failed: 1, settled: 1 })
    expect((await gateway.ledger.get(expired))?.state).toBe('failed')
    expect((await gateway.ledger.get(live))?.state).toBe('settling')
    expect(await gateway.ledger.get(confirmed)).toMatchObject({ state: 'settled', transaction: mined })
    // Without the upto contracts nothing is decided: they stay as they are.
    const untouched = await left(now - 60n)
    await reconciled()
    expect((await gateway.ledger.get(untouched))?.state).toBe('settling')
  })

  test('behavior: a settlement that reached the chain before the crash is recorded as settled', async () => {
    const authorization = await authorize(1)
    const key = await leave(authorization, 'settling')
    // The transaction went out, then the process died before the ledger heard of it.
    const settled = await gateway.facilitator.settle({ authorization, domain: toDomain(gateway.terms) })
    expect(settled.ok).toBe(true)
    const result = await reconciled({ events: events({ queue: gateway.queue }) })
    expect(result.settled).toBeGreaterThanOrEqual(1)
    const entry = await gateway.ledger.get(key)
    expect(entry?.state).toBe('settled')
    const transaction = (settled as { transaction: Hex }).transaction
    expect(entry?.transaction).toBe(transaction)
    // The payer's payment.settled, committed with the confirmation in the embedded store's outbox.
    const event = await gateway.queue.get<Event>(outboxQueue, `payment.settled:${key.payer}:${key.nonce}`)
    expect(event?.payload).toMatchObject({
      type: 'payment.settled',
      owner: key.payer,
      data: {
        payer: key.payer,
        amountRaw: '1000',
        transaction,
        resource: 'GET /api/v1/rpc/chains',
        network: gateway.terms.network,
      },
    })
  })

  test('behavior: a settlement whose hash the ledger recorded (submitted) is reconciled by that hash', async () => {
    const authorization = await authorize(7)
    const key = await leave(authorization, 'settling')
    const settled = await gateway.facilitator.settle({ authorization, domain: toDomain(gateway.terms) })
    const transaction = (settled as { transaction: Hex }).transaction
    // The process heard the hash (onSubmitted) and recorded it, then died before the confirmation.
    await gateway.ledger.apply(key, { type: 'submitted', transaction })
    const asked: Parameters<typeof gateway.facilitator.status>[0][] = []
    const facilitator = {
      ...gateway.facilitator,
      status: (parameters: Parameters<typeof gateway.facilitator.status>[0]) => {
        asked.push(parameters)
        return gateway.facilitator.status(parameters)
      },
    }
    await reconciled({ facilitator })
    expect(asked.find((parameters) => parameters.nonce === key.nonce)?.transaction).toBe(transaction)
    expect(await gateway.ledger.get(key)).toMatchObject({ state: 'settled', transaction })
  })

  test('behavior: an unsettled authorization that is still valid stays settling; the claim of a dead process is released at once', async () => {
    const pending = await leave(await authorize(2), 'settling')
    const stale = await leave(await authorize(3), 'claimed', 'a-lease-no-process-holds')
    const fresh = await leave(await authorize(4), 'claimed')
    await reconciled()
    expect((await gateway.ledger.get(pending))?.state).toBe('settling')
    expect((await gateway.ledger.get(stale))?.state).toBe('released')
    expect((await gateway.ledger.get(fresh))?.state).toBe('claimed')
  })

  test('behavior: a settlement that never left its process (no hash recorded) is not sent by reconciliation; a retry of its call sends it', async () => {
    const authorization = await authorize(5)
    // Its process died between the handler and the send: its answer never left the gateway either.
    const key = await leave(authorization, 'settling', 'a-lease-no-process-holds')
    const sent: unknown[] = []
    const facilitator = {
      ...gateway.facilitator,
      settle: (parameters: Parameters<typeof gateway.facilitator.settle>[0]) => {
        sent.push(parameters.authorization.nonce)
        return gateway.facilitator.settle(parameters)
      },
    }
    const result = await reconciled({ facilitator })
    expect(result.unsent).toBeGreaterThanOrEqual(1)
    expect(sent).not.toContain(key.nonce)
    expect(await gateway.ledger.get(key)).toMatchObject({ state: 'settling', transaction: undefined })
    expect((await gateway.facilitator.status({ ...key, domain: toDomain(gateway.terms) })).state).not.toBe('settled')
    // The payer comes back with the same payment: that retry sends it (what the guard does for a retry).
    const settled = await settlement({ ...books(), facilitator }).finish(asEvm((await gateway.ledger.get(key))!))
    expect(settled?.ok).toBe(true)
    expect(await gateway.ledger.get(key)).toMatchObject({ state: 'settled' })
  })

  test('behavior: a settlement that never left its process and expired unretried is failed, and the records its call wrote are taken back', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000))
    const authorization = await authorize(6, { validAfter: now - 600n, validBefore: now + 2n })
    const id = `record-of-${authorization.nonce}`
    await gateway.store.insert({
      collection: 'reconcile-test',
      id,
      value: { paid: true },
      owners: [authorization.from],
      createdAt: new Date(),
    })
    // The call wrote a record, journaled with its payment; then its process died between the handler and the send.
    const key = await leave(authorization, 'settling', 'a-lease-no-process-holds', [
      { type: 'insert', collection: 'reconcile-test', id },
    ])
    const whileValid = await reconciled({ store: gateway.store })
    expect(whileValid.unsent).toBeGreaterThanOrEqual(1)
    expect(await gateway.store.get('reconcile-test', id)).toBeDefined()
    const result = await reconciled({ store: gateway.store }, { now: new Date(Number(now + 3n) * 1000) })
    expect(result.failed).toBeGreaterThanOrEqual(1)
    expect(await gateway.ledger.get(key)).toMatchObject({ state: 'failed' })
    expect(await gateway.store.get('reconcile-test', id)).toBeUndefined()
    expect((await gateway.facilitator.status({ ...key, domain: toDomain(gateway.terms) })).state).not.toBe('settled')
  })

  test('behavior: a restart on the same embedded store reconciles at boot', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000))
    const expired = await leave(await authorize(5, { validAfter: now - 600n, validBefore: now - 1n }), 'settling')
    // Claimed by this process, which then stops: its lease goes with it.
    const stale = await leave(await authorize(6), 'claimed')
    await gateway.close()

    gateway = await paidGateway({ env: { DATA_DIR: dataDir, DEVNET_PERSIST: 'true' } })
    const failed = await gateway.ledger.get(expired)
    expect(failed?.state).toBe('failed')
    expect(failed?.reason).toContain('expired')
    expect((await gateway.ledger.get(stale))?.state).toBe('released')
  })
})
