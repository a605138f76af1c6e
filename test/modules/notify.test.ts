import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { smtp } from '../../adapters/notify/smtp.js'
import { sign, twilio } from '../../adapters/notify/twilio.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { postgres as postgresQueue } from '../../adapters/queue/postgres.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { postgres as postgresStore } from '../../adapters/store/postgres.js'
import { silent } from '../../app/log.js'
import { workerRunner } from '../../app/workers.js'
import type * as Notify from '../../core/Notify.js'
import type { Store } from '../../core/Store.js'
import { emailManifest, smsManifest, statusManifest } from '../../modules/notify/index.js'
import * as Service from '../../modules/notify/service.js'
import { postgresFixture } from '../support/backends.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, payers, refused } from '../support/module.js'
import { relay } from '../support/smtp.js'

const families = [emailManifest, smsManifest, statusManifest]
const publicUrl = 'https://gateway.example'
const accountSid = `AC${'a'.repeat(32)}`
const authToken = 'twilio-test-auth-token'

/**
 * A local Twilio-shaped Messages API: Basic auth `AccountSid:AuthToken`, form bodies, 201 `{ sid, status: "queued" }`;
 * `+15005550001` is refused with Twilio's 21211 (invalid To), as its test credentials do, and the first message to
 * `+15005550429` with a 429.
 */
function smsApi() {
  const created: Record<string, string>[] = []
  const tries = new Map<string, number>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      if (request.method !== 'POST' || url.pathname !== `/2010-04-01/Accounts/${accountSid}/Messages.json`)
        return Response.json(
          { code: 20404, message: 'The requested resource was not found', status: 404 },
          { status: 404 },
        )
      if (request.headers.get('authorization') !== `Basic ${btoa(`${accountSid}:${authToken}`)}`)
        return Response.json({ code: 20003, message: 'Authenticate', status: 401 }, { status: 401 })
      const form = Object.fromEntries(new URLSearchParams(await request.text()))
      tries.set(form.To!, (tries.get(form.To!) ?? 0) + 1)
      if (form.To === '+15005550429' && tries.get(form.To) === 1)
        return Response.json({ code: 20429, message: 'Too Many Requests', status: 429 }, { status: 429 })
      if (form.To === '+15005550001')
        return Response.json(
          { code: 21211, message: "The 'To' number +15005550001 is not a valid phone number.", status: 400 },
          { status: 400 },
        )
      created.push(form)
      const sid = `SM${crypto.randomUUID().replaceAll('-', '')}`
      return Response.json(
        {
          sid,
          account_sid: accountSid,
          to: form.To,
          from: form.From,
          body: form.Body,
          status: 'queued',
          num_segments: '1',
          direction: 'outbound-api',
          error_code: null,
          error_message: null,
        },
        { status: 201 },
      )
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, created, sids: () => created, stop: () => server.stop(true) }
}

const smtpRelay = await relay()
const api = smsApi()
afterAll(async () => {
  api.stop()
  await smtpRelay.close()
})

const queue = memoryQueue()
const store: Store = memoryStore({ queue })
const mailer = smtp({ url: smtpRelay.url, from: 'Gateway <notify@gateway.test>', timeoutMs: 2_000 })
const texter = twilio({ baseUrl: api.url, accountSid, authToken, from: '+15005550006', timeoutMs: 2_000 })
const gateway = moduleGateway(families, { ports: { store, queue, mailer, texter, publicUrl } })

/** Posts a status callback as the SMS API does: a form to the URL it was given, signed with `token`. */
function report(callbackUrl: string, params: Record<string, string>, token = authToken) {
  return gateway.handle(
    new Request(callbackUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': sign({ url: callbackUrl, params, authToken: token }),
      },
      body: new URLSearchParams(params).toString(),
    }),
  )
}

describe('notify/email', () => {
  test('default: the relay answers 250, the message arrives as sent, and the call is charged', async () => {
    const before = gateway.settled.length
    const to = `ada-${crypto.randomUUID()}@example.com`
    const sent = await ok(
      await gateway.post('/api/v1/notify/email', { to, subject: 'Invoice 42', body: 'Paid, thank you.' }, payers.alice),
    )
    expect(sent).toEqual({
      id: expect.stringMatching(/^ntf_[0-9a-f]{32}$/),
      status: 'sent',
      type: 'email',
      to,
      subject: 'Invoice 42',
      createdAt: expect.any(String),
    })
    expect(gateway.settled.length).toBe(before + 1)
    const mail = smtpRelay.received.find((candidate) => candidate.text?.includes('Paid, thank you.'))!
    expect(mail.subject).toBe('Invoice 42')
    expect(mail.from?.value).toEqual([{ address: 'notify@gateway.test', name: 'Gateway' }])
    expect((mail.to as { value: { address: string }[] }).value.map((entry) => entry.address)).toEqual([to])
    expect(mail.text?.trim()).toBe('Paid, thank you.')
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${sent.id}`, payers.alice))
    expect(status).toMatchObject({ id: sent.id, status: 'sent', channel: 'email', to })
    expect(status.history.map((entry: { status: string }) => entry.status)).toEqual(['queued', 'sent'])
    const stored = await store.get<Notify.Message>(Service.messages, sent.id)
    expect(stored?.value.body).toBeUndefined()
    expect(stored?.value.providerId).toBe(mail.messageId!)
  })

  test('behavior: a 550 to the recipient is a bounce, with the relay’s words; the call was performed and charged', async () => {
    const before = gateway.settled.length
    const count = smtpRelay.received.length
    const answer = await ok(
      await gateway.post('/api/v1/notify/email', { to: 'nobody@bounce.test', body: 'hello' }, payers.alice),
    )
    expect(answer.status).toBe('bounced')
    expect(answer.error).toBe('550 5.1.1 No such user here')
    expect(smtpRelay.received.length).toBe(count)
    expect(gateway.settled.length).toBe(before + 1)
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.status).toBe('bounced')
  })

  test('behavior: a 451 leaves it queued; the hand-off worker retries it and the relay accepts it', async () => {
    const to = `grace-${crypto.randomUUID()}@busy.test`
    const answer = await ok(await gateway.post('/api/v1/notify/email', { to, body: 'later' }, payers.alice))
    expect(answer).toMatchObject({ status: 'queued', error: expect.stringContaining('451') })
    // The item is due once the call's own hand-off could no longer be running: run the workers past it.
    const future = workerRunner({
      queue,
      workers: gateway.workers,
      logger: silent(),
      now: () => new Date(Date.now() + 3_600_000),
    })
    await future.drain()
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.status).toBe('sent')
    expect(status.history.map((entry: { status: string }) => entry.status)).toEqual(['queued', 'sent'])
    expect(smtpRelay.received.some((mail) => mail.text?.includes('later'))).toBe(true)
  })

  test('behavior: a relay that keeps deferring makes it failed after the last attempt', async () => {
    const to = `grace-${crypto.randomUUID()}@down.test`
    const answer = await ok(await gateway.post('/api/v1/notify/email', { to, body: 'never' }, payers.alice))
    expect(answer.status).toBe('queued')
    let hours = 0
    const future = workerRunner({
      queue,
      workers: gateway.workers,
      logger: silent(),
      now: () => new Date(Date.now() + hours * 3_600_000),
    })
    for (hours = 1; hours <= 8; hours++) await future.drain()
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.status).toBe('failed')
    expect(status.error).toStartWith('gave up after 6 attempts: 421')
    expect((await queue.get(Service.handoffQueue('email'), answer.id))?.state).toBe('failed')
  })

  test('error: a malformed address or a missing body is a 400 before payment', async () => {
    const before = gateway.settled.length
    for (const body of [
      { to: 'not-an-address', body: 'x' },
      { to: 'a@b.test\r\nBcc: c@d.test', body: 'x' },
      { to: 'Ada <ada@example.com>', body: 'x' },
      { to: 'ada@example.com' },
      { to: 'ada@example.com', body: 'x', cc: 'b@example.com\r\nBcc: c@d.test' },
      { to: 'ada@example.com', body: 'x', replyTo: ['b@example.com'] },
      { to: 'ada@example.com', body: 'x', sender: 'b@example.com' },
    ]) {
      const problem = await refused(await gateway.post('/api/v1/notify/email', body, payers.alice), 400)
      expect(problem.code).toBe('validation_failed')
    }
    expect(gateway.settled.length).toBe(before)
  })
})

describe('from the original gateway (issue 34)', () => {
  test('behavior: cc, bcc and replyTo reach the relay; metadata stays here; answers carry type, to, subject, createdAt', async () => {
    const to = `ada-${crypto.randomUUID()}@example.com`
    const sent = await ok(
      await gateway.post(
        '/api/v1/notify/email',
        {
          to,
          subject: 'Payroll run',
          body: 'Run 7 is out.',
          cc: 'boss@example.com',
          bcc: ['audit@example.com'],
          replyTo: 'ops@example.com',
          metadata: { run: 7, secretNote: 'kept-here-only' },
        },
        payers.alice,
      ),
    )
    expect(sent).toMatchObject({ status: 'sent', type: 'email', to, subject: 'Payroll run' })
    expect(Date.parse(sent.createdAt)).not.toBeNaN()
    const index = smtpRelay.received.findIndex((candidate) => candidate.text?.includes('Run 7 is out.'))
    const mail = smtpRelay.received[index]!
    expect((mail.cc as { value: { address: string }[] }).value.map((entry) => entry.address)).toEqual([
      'boss@example.com',
    ])
    expect((mail.replyTo as { value: { address: string }[] }).value.map((entry) => entry.address)).toEqual([
      'ops@example.com',
    ])
    expect(mail.bcc).toBeUndefined()
    expect([...smtpRelay.envelopes[index]!].sort()).toEqual([to, 'audit@example.com', 'boss@example.com'].sort())
    expect(JSON.stringify(mail.headers ? [...mail.headers] : [])).not.toContain('kept-here-only')
    expect(mail.text).not.toContain('kept-here-only')
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${sent.id}`, payers.alice))
    expect(status).toMatchObject({
      id: sent.id,
      type: 'email',
      to,
      subject: 'Payroll run',
      status: 'sent',
      createdAt: sent.createdAt,
      deliveredAt: expect.any(String),
      metadata: { run: 7, secretNote: 'kept-here-only' },
    })
  })

  test('behavior: sms takes metadata and answers type and to; deliveredAt waits for the receipt', async () => {
    const sent = await ok(
      await gateway.post('/api/v1/notify/sms', { to: '+14155550142', body: 'hi', metadata: { k: 1 } }, payers.alice),
    )
    expect(sent).toMatchObject({ type: 'sms', to: '+14155550142', createdAt: expect.any(String) })
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${sent.id}`, payers.alice))
    expect(status).toMatchObject({ type: 'sms', metadata: { k: 1 }, deliveredAt: null })
  })

  test("error: the original gateway's id format is a 400 saying where ids come from, before payment", async () => {
    const before = gateway.settled.length
    const problem = await refused(
      await gateway.get('/api/v1/notify/status?id=ntf_1712345678901_a1b2c3', payers.alice),
      400,
    )
    expect(problem).toMatchObject({ code: 'validation_failed', field: 'id' })
    expect(problem.detail).toContain('original gateway')
    expect(gateway.settled.length).toBe(before)
  })
})

describe('notify/sms', () => {
  test('default: the API accepts it (sent, never delivered at hand-off) with its segments and a callback URL', async () => {
    const before = gateway.settled.length
    const answer = await ok(
      await gateway.post('/api/v1/notify/sms', { to: '+14155550100', body: 'Your code is 123456' }, payers.alice),
    )
    expect(answer).toEqual({
      id: expect.stringMatching(/^ntf_[0-9a-f]{32}$/),
      status: 'sent',
      type: 'sms',
      to: '+14155550100',
      createdAt: expect.any(String),
      segments: 1,
      encoding: 'GSM-7',
    })
    expect(gateway.settled.length).toBe(before + 1)
    const form = api.created.at(-1)!
    expect(form).toEqual({
      To: '+14155550100',
      From: '+15005550006',
      Body: 'Your code is 123456',
      StatusCallback: `${publicUrl}/api/v1/notify/callback/twilio?id=${answer.id}`,
    })
  })

  test('behavior: UCS-2 text counts 67-unit segments', async () => {
    const answer = await ok(
      await gateway.post('/api/v1/notify/sms', { to: '+447700900123', body: 'Привет '.repeat(12) }, payers.alice),
    )
    expect(answer).toMatchObject({ status: 'sent', segments: 2, encoding: 'UCS-2' })
  })

  test('behavior: signed callbacks move it to delivered; late reports change nothing', async () => {
    const answer = await ok(await gateway.post('/api/v1/notify/sms', { to: '+14155550101', body: 'hi' }, payers.alice))
    const stored = await store.get<Notify.Message>(Service.messages, answer.id)
    const callbackUrl = api.created.at(-1)!.StatusCallback!
    const params = (status: string) => ({
      MessageSid: stored!.value.providerId!,
      MessageStatus: status,
      AccountSid: accountSid,
      To: '+14155550101',
      From: '+15005550006',
      ApiVersion: '2010-04-01',
    })
    expect(await ok(await report(callbackUrl, params('sent')))).toEqual({ id: answer.id, status: 'sent' })
    expect(await ok(await report(callbackUrl, params('delivered')))).toEqual({ id: answer.id, status: 'delivered' })
    expect(await ok(await report(callbackUrl, params('sent')))).toEqual({ id: answer.id, status: 'delivered' })
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.history.map((entry: { status: string }) => entry.status)).toEqual(['queued', 'sent', 'delivered'])
  })

  test('behavior: undelivered is a bounce with the carrier’s error code', async () => {
    const answer = await ok(await gateway.post('/api/v1/notify/sms', { to: '+14155550102', body: 'hi' }, payers.alice))
    const stored = await store.get<Notify.Message>(Service.messages, answer.id)
    const callbackUrl = api.created.at(-1)!.StatusCallback!
    await ok(
      await report(callbackUrl, {
        MessageSid: stored!.value.providerId!,
        MessageStatus: 'undelivered',
        ErrorCode: '30003',
      }),
    )
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status).toMatchObject({ status: 'bounced', error: expect.stringContaining('30003') })
  })

  test('security: a callback with a bad signature, another URL or another message is refused', async () => {
    const answer = await ok(await gateway.post('/api/v1/notify/sms', { to: '+14155550103', body: 'hi' }, payers.alice))
    const stored = await store.get<Notify.Message>(Service.messages, answer.id)
    const callbackUrl = api.created.at(-1)!.StatusCallback!
    const delivered = { MessageSid: stored!.value.providerId!, MessageStatus: 'delivered' }
    const forged = await refused(await report(callbackUrl, delivered, 'not-the-token'), 403)
    expect(forged.code).toBe('forbidden')
    const unsigned = await gateway.handle(
      new Request(callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(delivered).toString(),
      }),
    )
    expect(unsigned.status).toBe(403)
    // Signed for another message's URL, replayed on this one.
    const other = `${publicUrl}/api/v1/notify/callback/twilio?id=ntf_${'0'.repeat(32)}`
    const replayed = await gateway.handle(
      new Request(callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': sign({ url: other, params: delivered, authToken }),
        },
        body: new URLSearchParams(delivered).toString(),
      }),
    )
    expect(replayed.status).toBe(403)
    await refused(await report(callbackUrl, { ...delivered, MessageSid: `SM${'f'.repeat(32)}` }), 409)
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.status).toBe('sent')
  })

  test('behavior: the API’s 400 (21211) makes it failed, with the API’s code', async () => {
    const answer = await ok(await gateway.post('/api/v1/notify/sms', { to: '+15005550001', body: 'hi' }, payers.alice))
    expect(answer).toMatchObject({ status: 'failed', error: expect.stringContaining('21211') })
  })

  test('behavior: a 429 from the API leaves it queued; the hand-off worker sends it', async () => {
    const answer = await ok(
      await gateway.post('/api/v1/notify/sms', { to: '+15005550429', body: 'retry' }, payers.alice),
    )
    expect(answer.status).toBe('queued')
    expect(answer.error).toContain('20429')
    const future = workerRunner({
      queue,
      workers: gateway.workers,
      logger: silent(),
      now: () => new Date(Date.now() + 3_600_000),
    })
    await future.drain()
    const status = await ok(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.alice))
    expect(status.status).toBe('sent')
    expect(api.created.at(-1)).toMatchObject({ To: '+15005550429', Body: 'retry' })
  })

  test('error: a malformed phone number is a 400 before payment', async () => {
    const before = gateway.settled.length
    const sent = api.created.length
    for (const to of ['4155550100', '+0415555010', '+1 415 555 0100', '+1234567890123456', '+1']) {
      const problem = await refused(await gateway.post('/api/v1/notify/sms', { to, body: 'x' }, payers.alice), 400)
      expect(problem.code).toBe('validation_failed')
    }
    await refused(
      await gateway.post('/api/v1/notify/sms', { to: '+14155550100', body: 'x'.repeat(1_601) }, payers.alice),
      400,
    )
    expect(gateway.settled.length).toBe(before)
    expect(api.created.length).toBe(sent)
  })
})

describe('notify/status', () => {
  test("security: someone else's message and an unknown id are 404s", async () => {
    const answer = await ok(await gateway.post('/api/v1/notify/sms', { to: '+14155550104', body: 'hi' }, payers.alice))
    await refused(await gateway.get(`/api/v1/notify/status?id=${answer.id}`, payers.bob), 404)
    await refused(await gateway.get(`/api/v1/notify/status?id=ntf_${'1'.repeat(32)}`, payers.alice), 404)
    await refused(await gateway.get('/api/v1/notify/status?id=nope', payers.alice), 400)
  })
})

describe('per-payer rate limit', () => {
  test('error: past the limit a 429 before settlement, nothing sent or charged; other payers go on', async () => {
    const limitedQueue = memoryQueue()
    const limited = moduleGateway(families, {
      ports: { store: memoryStore({ queue: limitedQueue }), queue: limitedQueue, mailer, texter, publicUrl },
      env: { NOTIFY_SMS_PER_PAYER_PER_HOUR: '2' },
    })
    for (const _ of [1, 2])
      await ok(await limited.post('/api/v1/notify/sms', { to: '+14155550105', body: 'hi' }, payers.carol))
    const settled = limited.settled.length
    const sent = api.created.length
    const response = await limited.post('/api/v1/notify/sms', { to: '+14155550105', body: 'hi' }, payers.carol)
    const retryAfter = Number(response.headers.get('retry-after'))
    const problem = await refused(response, 429)
    expect(problem.code).toBe('rate_limited')
    // Two an hour: the next token is half an hour away.
    expect(retryAfter).toBeGreaterThan(1_700)
    expect(problem.retryAfterSeconds).toBe(retryAfter)
    expect(limited.settled.length).toBe(settled)
    expect(api.created.length).toBe(sent)
    await ok(await limited.post('/api/v1/notify/sms', { to: '+14155550105', body: 'hi' }, payers.bob))
    // Email has its own bucket.
    await ok(await limited.post('/api/v1/notify/email', { to: 'ada@example.com', body: 'hi' }, payers.carol))
  })
})

describe('unconfigured providers', () => {
  test('error: without a relay, email is a 503 before payment while SMS works', async () => {
    const bareQueue = memoryQueue()
    const bare = moduleGateway(families, {
      ports: { store: memoryStore({ queue: bareQueue }), queue: bareQueue, texter, publicUrl },
    })
    const unpaid = await refused(await bare.post('/api/v1/notify/email', { to: 'ada@example.com', body: 'x' }), 503)
    expect(unpaid.detail).toContain('NOTIFY_SMTP_URL')
    await refused(await bare.post('/api/v1/notify/email', { to: 'ada@example.com', body: 'x' }, payers.alice), 503)
    expect(bare.settled.length).toBe(0)
    await ok(await bare.post('/api/v1/notify/sms', { to: '+14155550106', body: 'x' }, payers.alice))
  })

  test('error: credentials the SMS API refuses are a 503; nothing is charged or kept', async () => {
    const wrongQueue = memoryQueue()
    const wrongStore = memoryStore({ queue: wrongQueue })
    const wrong = moduleGateway(families, {
      ports: {
        store: wrongStore,
        queue: wrongQueue,
        mailer,
        publicUrl,
        texter: twilio({ baseUrl: api.url, accountSid, authToken: 'wrong', from: '+15005550006', timeoutMs: 2_000 }),
      },
    })
    const problem = await refused(
      await wrong.post('/api/v1/notify/sms', { to: '+14155550107', body: 'x' }, payers.alice),
      503,
    )
    expect(problem.detail).toContain('20003')
    expect(JSON.stringify(problem)).not.toContain('wrong')
    expect(wrong.settled.length).toBe(0)
    expect(await wrongStore.list(Service.messages, { owner: payers.alice })).toEqual([])
  })
})

const databaseUrl = process.env.DATABASE_URL
/** A schema of its own on DATABASE_URL, with a PostgreSQL store and queue per `open`. */
const notifyFixture = (url: string) =>
  postgresFixture(url, 'notify', (sql) => ({ store: postgresStore({ sql }), queue: postgresQueue({ sql }) }))

/** Two gateways, each with its own connection pool, sharing one database. */
const gatewaysOn = (fixture: Awaited<ReturnType<typeof notifyFixture>>) =>
  [fixture.open(), fixture.open()].map(({ store, queue }) => ({
    store,
    queue,
    gateway: moduleGateway(families, {
      ports: { store, queue, mailer, texter, publicUrl },
      env: { NOTIFY_EMAIL_PER_PAYER_PER_HOUR: '3' },
    }),
  }))

// Bun runs the body of a skipped describe while collecting: the database is reached only in beforeAll.
describe.skipIf(!databaseUrl)('two gateways on one PostgreSQL', () => {
  let fixture: Awaited<ReturnType<typeof notifyFixture>> | undefined
  let instances: ReturnType<typeof gatewaysOn> = []
  beforeAll(async () => {
    fixture = await notifyFixture(databaseUrl!)
    instances = gatewaysOn(fixture)
  })
  afterAll(() => fixture?.teardown())

  test('behavior: the message and its queue item commit together; the per-payer bucket is shared', async () => {
    const [one, two] = instances as [(typeof instances)[0], (typeof instances)[0]]
    const sent = await ok(
      await one.gateway.post('/api/v1/notify/email', { to: 'pg@example.com', body: 'from one' }, payers.carol),
    )
    expect(sent.status).toBe('sent')
    expect((await two.queue.get(Service.handoffQueue('email'), sent.id))?.state).toBe('pending')
    expect(await ok(await two.gateway.get(`/api/v1/notify/status?id=${sent.id}`, payers.carol))).toMatchObject({
      status: 'sent',
    })
    await ok(await two.gateway.post('/api/v1/notify/email', { to: 'pg@example.com', body: 'two' }, payers.carol))
    await ok(await one.gateway.post('/api/v1/notify/email', { to: 'pg@example.com', body: 'three' }, payers.carol))
    const before = one.gateway.settled.length + two.gateway.settled.length
    await refused(
      await two.gateway.post('/api/v1/notify/email', { to: 'pg@example.com', body: 'four' }, payers.carol),
      429,
    )
    await refused(
      await one.gateway.post('/api/v1/notify/email', { to: 'pg@example.com', body: 'four' }, payers.carol),
      429,
    )
    expect(one.gateway.settled.length + two.gateway.settled.length).toBe(before)
    // The safety-net item of a message already handed off is done, whichever process claims it.
    const future = workerRunner({
      queue: two.queue,
      workers: two.gateway.workers,
      logger: silent(),
      now: () => new Date(Date.now() + 3_600_000),
    })
    await future.drain()
    expect((await one.queue.get(Service.handoffQueue('email'), sent.id))?.state).toBe('done')
    expect(smtpRelay.received.filter((mail) => mail.text?.includes('from one'))).toHaveLength(1)
  })
})
