import { type Address, getAddress } from 'viem'
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import type { Outcome } from '../../core/Module.js'
import * as Notify from '../../core/Notify.js'
import * as Queue from '../../core/Queue.js'
import * as RateLimit from '../../core/RateLimit.js'
import * as Sms from '../../core/Sms.js'
import { isRefusal, type Store } from '../../core/Store.js'
import { type EmailBody, originalIdPattern, type SmsBody } from './schema.js'

/** Collection of the messages, each owned by its sender. */
export const messages = 'notify-messages'

/** Collection of the per-payer token buckets, one per channel and payer. */
export const limits = 'notify-limits'

/** Queue of a channel's hand-offs that the paid call could not finish (every message is in it, as a safety net). */
export function handoffQueue(channel: Notify.Channel): string {
  return `notify-handoff-${channel}`
}

/** A stored message. */
type Stored = Notify.Message & { /** When it was accepted for sending (ISO 8601). */ createdAt: string }

/** When and how often a hand-off is tried again. */
export type Policy = {
  /** Hand-offs before a message is `failed`. */
  maxAttempts: number
  /** First delay before a deferred hand-off is tried again, in ms; doubled per attempt, with full jitter. */
  retryBaseMs: number
  /** Longest delay before a deferred hand-off is tried again, in ms. */
  retryMaxMs: number
  /** How long after a paid call its queue item becomes due: longer than the call's own hand-off may take, in ms. */
  graceMs: number
}

/** What the service of one channel needs. */
export type Deps = {
  /** Messages and per-payer buckets. */
  store: Store
  /** Hands one message to the channel's provider. */
  send: (
    message: { id: string } & Pick<Notify.Message, 'to' | 'subject' | 'body' | 'cc' | 'bcc' | 'replyTo'>,
  ) => Promise<Notify.Handoff>
  /** Each payer's bucket of calls on this channel. */
  limit: RateLimit.Options
  /** Retries of deferred hand-offs. */
  policy: Policy
  /** Current time. @default () => new Date() */
  now?: () => Date
}

/** Sends an email now: the relay's answer decides the status (`sent` on 250, `bounced` on 5xx, `queued` if deferred). */
export async function email(deps: Deps, input: EmailBody & { caller: Address }) {
  const listOf = (copies: string | string[] | undefined) => (typeof copies === 'string' ? [copies] : copies)
  const { id, message } = await accept(deps, {
    caller: input.caller,
    message: {
      channel: 'email',
      to: input.to,
      subject: input.subject ?? '(no subject)',
      body: input.body,
      cc: listOf(input.cc),
      bcc: listOf(input.bcc),
      replyTo: input.replyTo,
      metadata: input.metadata,
    },
  })
  return {
    id,
    status: message.status,
    type: 'email' as const,
    to: message.to,
    subject: message.subject,
    createdAt: message.createdAt,
    ...(message.error ? { error: message.error } : {}),
  }
}

/** Sends an SMS now: the API's answer decides the status; a signed delivery receipt may later make it `delivered`. */
export async function sms(deps: Deps, input: SmsBody & { caller: Address }) {
  const { segments, encoding } = Sms.segmentsOf(input.body)
  const { id, message } = await accept(deps, {
    caller: input.caller,
    message: { channel: 'sms', to: input.to, body: input.body, segments, encoding, metadata: input.metadata },
  })
  return {
    id,
    status: message.status,
    type: 'sms' as const,
    to: message.to,
    createdAt: message.createdAt,
    segments,
    encoding,
    ...(message.error ? { error: message.error } : {}),
  }
}

/**
 * Takes a token of the payer's bucket (a 429 otherwise: the handler fails, so the payment is released), records the
 * message `queued` together with its queue item, and hands it to the provider within the provider's time limit.
 * Credentials the provider refuses are a 503 (nothing charged, the record taken back with the payment); a deferred
 * hand-off is left `queued` for the worker.
 */
async function accept(
  deps: Deps,
  input: { caller: Address; message: Omit<Notify.Message, 'status' | 'deferrals' | 'history'> },
) {
  const now = (deps.now ?? (() => new Date()))()
  await take(deps, { channel: input.message.channel, caller: input.caller, now })
  const id = `ntf_${crypto.randomUUID().replaceAll('-', '')}`
  const value: Stored = {
    ...input.message,
    status: 'queued',
    deferrals: 0,
    history: [{ status: 'queued', at: now.toISOString() }],
    createdAt: now.toISOString(),
  }
  await deps.store.insert(
    { collection: messages, id, owners: [getAddress(input.caller)], value, createdAt: now },
    {
      enqueue: [
        {
          queue: handoffQueue(value.channel),
          id,
          payload: { id },
          dueAt: new Date(now.getTime() + deps.policy.graceMs),
        },
      ],
    },
  )
  const handoff = await deps.send({ id, ...value })
  if (!handoff.ok && handoff.kind === 'refused')
    throw new UpstreamUnavailableError(
      `The ${value.channel} provider refused the gateway's credentials: ${handoff.reason}`,
    )
  const message = await apply(deps, id, eventOf(handoff, value.channel))
  return { id, message: message ?? value }
}

/** Takes one token of the payer's bucket on `channel`, atomically across processes; a 429 when it is empty. */
async function take(deps: Deps, input: { channel: Notify.Channel; caller: Address; now: Date }) {
  const { limit } = deps
  const owner = getAddress(input.caller)
  const id = `${input.channel}:${owner}`
  const now = input.now.getTime()
  // The first call of a payer creates a full bucket; another process creating it first is as good.
  await deps.store.insert({
    collection: limits,
    id,
    owners: [owner],
    value: RateLimit.initial(limit, now),
    createdAt: input.now,
  })
  const taken = await deps.store.update<RateLimit.State>(limits, id, (current) => {
    const result = RateLimit.take(current.value, { ...limit, now })
    return result.ok ? result.state : { refused: true, reason: String(result.retryAt) }
  })
  if (!taken.ok && isRefusal(taken)) {
    const retryAfterSeconds = Math.max(1, Math.ceil((Number(taken.reason) - now) / 1000))
    throw new RateLimitedError({ retryAfterSeconds, what: `notify/${input.channel} by this payer` })
  }
}

/** The event a hand-off's outcome is. */
function eventOf(handoff: Notify.Handoff, channel: Notify.Channel): Notify.Event {
  if (handoff.ok) return { type: 'accepted', providerId: handoff.providerId, response: handoff.response }
  if (handoff.kind === 'bounced') return { type: 'bounced', reason: handoff.reason }
  if (handoff.kind === 'failed') return { type: channel === 'email' ? 'bounced' : 'failed', reason: handoff.reason }
  return { type: 'deferred', reason: handoff.reason }
}

/** Applies `event` to a message when it still applies; the message as it now is, or `undefined` when there is none. */
async function apply(deps: Pick<Deps, 'store' | 'now'>, id: string, event: Notify.Event) {
  const now = (deps.now ?? (() => new Date()))()
  const result = await deps.store.update<Stored>(messages, id, (current) =>
    Notify.applies(current.value.status, event.type)
      ? { ...current.value, ...Notify.transition(current.value, event, now) }
      : { refused: true, reason: current.value.status },
  )
  if (result.ok) return result.record.value
  return (await deps.store.get<Stored>(messages, id))?.value
}

/**
 * Refuses an id in the original gateway's format (`ntf_<ms>_<random>`) with a 400 that says where ids come from here;
 * anything else is left to the schema.
 */
export function assertOwnId(id: unknown): void {
  if (typeof id === 'string' && new RegExp(originalIdPattern).test(id))
    throw new ValidationError({
      field: 'id',
      message:
        'is an id of the original gateway, which this gateway never issued: ids here are `ntf_` and 32 hex digits, as notify/email and notify/sms of this gateway answer',
    })
}

/** The sender's message, or a 404 (someone else's is a 404 too). */
export async function status(deps: Pick<Deps, 'store'>, input: { id: string; caller: Address }) {
  const record = await deps.store.get<Stored>(messages, input.id)
  if (!record?.owners.includes(getAddress(input.caller))) throw new NotFoundError(`No message ${input.id}.`)
  const { channel, to, subject, metadata = {}, status, error, history, createdAt } = record.value
  const handedOver = history.find((entry) => entry.status === (channel === 'email' ? 'sent' : 'delivered'))
  return {
    id: record.id,
    status,
    channel,
    type: channel,
    to,
    ...(subject === undefined ? {} : { subject }),
    metadata,
    createdAt,
    deliveredAt: handedOver?.at ?? null,
    ...(error ? { error } : {}),
    history,
  }
}

/**
 * A provider's status callback on message `id`: a 403 unless its signature verifies, a 404 for an unknown message, a
 * 409 when it names another provider message; otherwise the report moves the status where it still applies (a late
 * or repeated report changes nothing).
 */
export async function callback(
  deps: Pick<Deps, 'store' | 'now'> & { report: Notify.Texter['report'] },
  input: { id: string; url: string; params: Record<string, string>; signature: string | undefined },
) {
  const report = deps.report({ url: input.url, params: input.params, signature: input.signature })
  if (!report) throw new ForbiddenError('The status callback is not signed by the SMS API.')
  const record = await deps.store.get<Stored>(messages, input.id)
  if (!record) throw new NotFoundError(`No message ${input.id}.`)
  if (record.value.providerId !== undefined && record.value.providerId !== report.providerId)
    throw new ConflictError(`Message ${input.id} is not ${report.providerId} at the SMS API.`)
  const message = report.event ? await apply(deps, input.id, report.event) : record.value
  return { id: input.id, status: message?.status ?? record.value.status }
}

/**
 * Worker of the hand-off queue: a message still `queued` is handed to its provider again; a deferral is tried again
 * with backoff until `maxAttempts`, then the message is `failed`. Anything else (already handed off, or taken back
 * with an unpaid call) is done.
 */
export async function handOff(deps: Deps, item: Queue.Claim): Promise<Outcome> {
  const { id } = item.payload as { id: string }
  const record = await deps.store.get<Stored>(messages, id)
  if (record?.value.status !== 'queued') return { done: true }
  const value = record.value
  const handoff = await deps.send({ id, ...value })
  const event = eventOf(handoff, value.channel)
  const attempts = value.deferrals + 1
  if (event.type !== 'deferred') {
    await apply(deps, id, event)
    return { done: true }
  }
  if (attempts >= deps.policy.maxAttempts) {
    await apply(deps, id, { type: 'failed', reason: `gave up after ${attempts} attempts: ${event.reason}` })
    return { failed: event.reason }
  }
  await apply(deps, id, event)
  const now = (deps.now ?? (() => new Date()))().getTime()
  const delay = Queue.backoff(attempts, { baseMs: deps.policy.retryBaseMs, maxMs: deps.policy.retryMaxMs })
  return { retryAt: new Date(now + delay), error: event.reason }
}
