import { describe, expect, test } from 'bun:test'
import { memory } from '../../adapters/store/memory.js'
import * as AuditChain from '../../core/AuditChain.js'
import * as Module from '../../core/Module.js'
import type { Store } from '../../core/Store.js'
import { audit, manifest } from '../../modules/audit/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'

const { alice, bob } = payers

/** A gateway holding only the audit module, on a memory store (or a wrapper of it) and a clock the test moves. */
function setup(wrap: (store: Store) => Store = (store) => store) {
  const clock = { now: new Date('2025-06-01T12:00:00.000Z') }
  const inner = memory()
  const family = Module.define({
    ...manifest,
    routes: ({ ports }) => audit({ store: ports.store, now: () => clock.now }),
  })
  const app = moduleGateway(family, { ports: { store: wrap(inner) } })
  const log = async (body: object, as = alice) => ok(await app.post('/api/v1/audit/log', { actor: as, ...body }, as))
  const query = async (search = '', as = alice) => ok(await app.get(`/api/v1/audit/query${search}`, as))
  return { clock, inner, app, log, query }
}

describe('POST /api/v1/audit/log', () => {
  test("default: recorded in the payer's chain, linked to the genesis hash", async () => {
    const { log, inner } = setup()
    const recorded = await log({ action: 'invoice.cancel', resource: 'invoice:42', details: { reason: 'duplicate' } })
    expect(recorded).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      action: 'invoice.cancel',
      actor: alice,
      payer: alice,
      resource: 'invoice:42',
      recorded: true,
      sequence: 1,
      hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      recordedAt: '2025-06-01T12:00:00.000Z',
    })
    const [entry] = await inner.entries(`audit:${alice}`)
    expect(entry).toMatchObject({ sequence: 1, previousHash: `0x${'0'.repeat(64)}`, hash: recorded.hash })
    expect(entry!.value).toEqual({
      id: recorded.id,
      action: 'invoice.cancel',
      actor: alice,
      payer: alice,
      resource: 'invoice:42',
      details: { reason: 'duplicate' },
    })
    expect(AuditChain.hash(entry!)).toBe(recorded.hash)
  })

  test('behavior: each entry hashes the one before', async () => {
    const { log, inner } = setup()
    const first = await log({ action: 'a', resource: 'r' })
    const second = await log({ action: 'b', resource: 'r' })
    expect(second.sequence).toBe(2)
    expect((await inner.entries(`audit:${alice}`))[1]!.previousHash).toBe(first.hash)
  })

  test('behavior: the actor compares case-insensitively and is stored checksummed', async () => {
    const { app, inner } = setup()
    await ok(await app.post('/api/v1/audit/log', { action: 'a', actor: alice.toLowerCase(), resource: 'r' }, alice))
    expect((await inner.entries<{ actor: string }>(`audit:${alice}`))[0]!.value.actor).toBe(alice)
  })

  test('behavior: details of exactly 8 KiB are accepted', async () => {
    const { log } = setup()
    const details = { text: 'x'.repeat(8192 - '{"text":""}'.length) }
    expect(new TextEncoder().encode(JSON.stringify(details)).length).toBe(8192)
    expect((await log({ action: 'a', resource: 'r', details })).recorded).toBe(true)
  })

  test('error: details over 8 KiB are 400 and nothing is recorded', async () => {
    const { app, inner } = setup()
    const details = { text: 'é'.repeat(4092) }
    const problem = await refused(
      await app.post('/api/v1/audit/log', { action: 'a', actor: alice, resource: 'r', details }, alice),
      400,
    )
    expect(problem).toMatchObject({ code: 'validation_failed', field: 'details' })
    expect(await inner.entries(`audit:${alice}`)).toEqual([])
  })

  test.each([
    ['a missing action', { action: undefined }, 'action'],
    ['an empty resource', { resource: '' }, 'resource'],
    ['an empty actor', { actor: '' }, 'actor'],
    ['a txHash that is not 32 bytes of hex', { txHash: '0x1234' }, 'txHash'],
    ['details that are an array', { details: [1, 2] }, 'details'],
    ['details that are a string', { details: 'text' }, 'details'],
    ['details that are null', { details: null }, 'details'],
  ])('error: %s is 400', async (_, change, field) => {
    const { app } = setup()
    const body = { action: 'a', actor: alice, resource: 'r', ...change }
    const problem = await refused(await app.post('/api/v1/audit/log', body, alice), 400)
    expect(problem.field).toBe(field)
  })

  test('security: without a payment it is 402 and nothing is recorded', async () => {
    const { app, inner } = setup()
    expect(
      (await refused(await app.post('/api/v1/audit/log', { action: 'a', actor: alice, resource: 'r' }), 402)).code,
    ).toBe('payment_required')
    expect(await inner.entries(`audit:${alice}`)).toEqual([])
  })

  test("security: recording in someone else's name is 403 and touches no chain", async () => {
    const { app, inner } = setup()
    const problem = await refused(
      await app.post('/api/v1/audit/log', { action: 'a', actor: bob, resource: 'r' }, alice),
      403,
    )
    expect(problem).toMatchObject({ code: 'forbidden', field: 'actor' })
    expect(await inner.entries(`audit:${alice}`)).toEqual([])
    expect(await inner.entries(`audit:${bob}`)).toEqual([])
  })
})

describe('from the original gateway (issue 34)', () => {
  test("behavior: its call (label actor, txHash) is recorded in the payer's own trail and found by resource, until and actor", async () => {
    const { app, query, clock } = setup()
    const txHash = `0x${'ab'.repeat(32)}`
    const body = { action: 'payment.sent', actor: 'payroll-bot', resource: 'payroll:7', details: { n: 1 }, txHash }
    const recorded = await ok(await app.post('/api/v1/audit/log', body, alice))
    expect(recorded).toMatchObject({
      action: 'payment.sent',
      actor: 'payroll-bot',
      payer: alice,
      resource: 'payroll:7',
      txHash,
      recorded: true,
    })
    clock.now = new Date('2025-06-03T12:00:00.000Z')
    await ok(await app.post('/api/v1/audit/log', { ...body, resource: 'payroll:8', txHash: undefined }, alice))
    const found = await query('?resource=payroll:7&until=2025-06-02T00:00:00Z&actor=payroll-bot')
    expect(found.entries).toEqual([
      expect.objectContaining({ actor: 'payroll-bot', payer: alice, resource: 'payroll:7', txHash }),
    ])
    expect((await query('?until=2025-06-02T00:00:00Z')).total).toBe(1)
    expect((await query('?actor=other-bot')).total).toBe(0)
    expect((await query(`?actor=${alice}`)).total).toBe(2)
    // The label is alice's own: bob reading it sees his own trail, empty.
    expect((await query('?actor=payroll-bot', bob)).total).toBe(0)
  })

  test('behavior: limit as the original gateway reads it: 50 by default, 0 is the default, over 1000 is 1000', async () => {
    const { log, query } = setup()
    for (let index = 0; index < 60; index++) await log({ action: 'a', resource: `r${index}` })
    expect((await query()).entries).toHaveLength(50)
    expect((await query('?limit=0')).entries).toHaveLength(50)
    expect((await query('?limit=5000')).entries).toHaveLength(60)
  })
})

describe('GET /api/v1/audit/query', () => {
  test("default: the payer's entries, most recent first, with a verification of the whole chain", async () => {
    const { log, query, clock } = setup()
    const first = await log({ action: 'invoice.create', resource: 'invoice:1' })
    clock.now = new Date('2025-06-01T13:00:00.000Z')
    const second = await log({ action: 'invoice.cancel', resource: 'invoice:1', details: { why: 'typo' } })
    const answer = await query()
    expect(answer).toEqual({
      entries: [
        {
          id: second.id,
          sequence: 2,
          action: 'invoice.cancel',
          actor: alice,
          payer: alice,
          resource: 'invoice:1',
          details: { why: 'typo' },
          recordedAt: '2025-06-01T13:00:00.000Z',
          previousHash: first.hash,
          hash: second.hash,
        },
        {
          id: first.id,
          sequence: 1,
          action: 'invoice.create',
          actor: alice,
          payer: alice,
          resource: 'invoice:1',
          recordedAt: '2025-06-01T12:00:00.000Z',
          previousHash: `0x${'0'.repeat(64)}`,
          hash: first.hash,
        },
      ],
      total: 2,
      verification: { valid: true, length: 2, head: second.hash },
    })
  })

  test('behavior: an empty trail is valid and empty', async () => {
    const { query } = setup()
    expect(await query()).toEqual({
      entries: [],
      total: 0,
      verification: { valid: true, length: 0, head: `0x${'0'.repeat(64)}` },
    })
  })

  test('behavior: filters by action and since; the verification still covers the whole chain', async () => {
    const { log, query, clock } = setup()
    await log({ action: 'login', resource: 'session' })
    clock.now = new Date('2025-06-02T00:00:00.000Z')
    await log({ action: 'pay', resource: 'invoice:7' })
    await log({ action: 'login', resource: 'session' })
    const logins = await query('?action=login')
    expect(logins.total).toBe(2)
    expect(logins.entries.map((entry: any) => entry.sequence)).toEqual([3, 1])
    const recent = await query(`?since=${encodeURIComponent('2025-06-01T23:00:00+00:00')}`)
    expect(recent.entries.map((entry: any) => entry.sequence)).toEqual([3, 2])
    expect((await query('?since=2025-06-02&action=login')).entries.map((entry: any) => entry.sequence)).toEqual([3])
    expect(recent.verification).toMatchObject({ valid: true, length: 3 })
  })

  test('behavior: limit returns the most recent matches; total counts them all', async () => {
    const { log, query } = setup()
    for (let index = 0; index < 5; index++) await log({ action: 'tick', resource: `r:${index}` })
    const answer = await query('?limit=2')
    expect(answer.total).toBe(5)
    expect(answer.entries.map((entry: any) => entry.sequence)).toEqual([5, 4])
  })

  test('behavior: a chain longer than one page verifies across pages', async () => {
    const { log, query } = setup()
    for (let index = 0; index < 1001; index++) await log({ action: 'tick', resource: 'r' })
    const answer = await query('?limit=1')
    expect(answer.total).toBe(1001)
    expect(answer.verification).toMatchObject({ valid: true, length: 1001 })
    expect(answer.entries[0].sequence).toBe(1001)
  })

  test('security: an entry altered in storage is named by the verification', async () => {
    // A store whose copy of entry 2 of alice's chain was edited behind the gateway's back.
    const { log, query } = setup((store) => ({
      ...store,
      entries: async <value>(chain: string, parameters?: { fromSequence?: number; limit?: number }) =>
        (await store.entries<value>(chain, parameters)).map((entry) =>
          entry.sequence === 2
            ? { ...entry, value: { ...(entry.value as object), resource: 'invoice:999' } as value }
            : entry,
        ),
    }))
    for (const resource of ['invoice:1', 'invoice:2', 'invoice:3']) await log({ action: 'invoice.pay', resource })
    const answer = await query()
    expect(answer.verification).toEqual({ valid: false, brokenAt: 2, reason: 'hash_mismatch' })
    expect(answer.entries.find((entry: any) => entry.sequence === 2).resource).toBe('invoice:999')
  })

  test('security: an entry removed from storage is named by the verification', async () => {
    const { log, query } = setup((store) => ({
      ...store,
      entries: async <value>(chain: string, parameters?: { fromSequence?: number; limit?: number }) =>
        (await store.entries<value>(chain, parameters)).filter((entry) => entry.sequence !== 2),
    }))
    for (const resource of ['a', 'b', 'c']) await log({ action: 'x', resource })
    expect((await query()).verification).toEqual({ valid: false, brokenAt: 2, reason: 'sequence_gap' })
  })

  test('security: another payer sees none of the entries, and its own chain is separate', async () => {
    const { log, query } = setup()
    await log({ action: 'secret.thing', resource: 'vault' })
    const bobs = await query('', bob)
    expect(bobs).toEqual({
      entries: [],
      total: 0,
      verification: { valid: true, length: 0, head: `0x${'0'.repeat(64)}` },
    })
    await log({ action: 'own.thing', resource: 'r' }, bob)
    expect((await query('', bob)).entries.map((entry: any) => entry.action)).toEqual(['own.thing'])
    expect((await query('', alice)).entries.map((entry: any) => entry.action)).toEqual(['secret.thing'])
  })

  test("security: asking for another actor's trail is 403", async () => {
    const { log, app } = setup()
    await log({ action: 'a', resource: 'r' })
    const problem = await refused(await app.get(`/api/v1/audit/query?actor=${alice}`, bob), 403)
    expect(problem).toMatchObject({ code: 'forbidden', field: 'actor' })
    expect(JSON.stringify(problem)).not.toContain('"a"')
    expect((await ok(await app.get(`/api/v1/audit/query?actor=${alice.toLowerCase()}`, alice))).total).toBe(1)
  })

  test.each([
    ['since that is not ISO 8601', '?since=yesterday', 'since'],
    ['since with a time but no zone', '?since=2025-06-01T12:00', 'since'],
    ['since on a day that does not exist', '?since=2025-02-30', 'since'],
    ['a negative limit', '?limit=-1', 'limit'],
    ['until that is not ISO 8601', '?until=later', 'until'],
  ])('error: %s is 400', async (_, search, field) => {
    const { app } = setup()
    const problem = await refused(await app.get(`/api/v1/audit/query${search}`, alice), 400)
    expect(problem.field).toBe(field)
  })
})
