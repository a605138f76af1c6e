import { describe, expect, test } from 'bun:test'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as Notify from '../../core/Notify.js'

const at = new Date('2026-01-01T00:00:00Z')
const later = new Date('2026-01-01T00:01:00Z')

const queued: Notify.Message = {
  channel: 'sms',
  to: '+14155550100',
  body: 'hi',
  status: 'queued',
  deferrals: 0,
  history: [{ status: 'queued', at: at.toISOString() }],
}

describe('transition', () => {
  test('default: accepted makes it sent, keeps the provider id and drops the body', () => {
    const sent = Notify.transition(queued, { type: 'accepted', providerId: 'SM1', response: 'queued' }, later)
    expect(sent).toMatchObject({ status: 'sent', providerId: 'SM1', response: 'queued', body: undefined })
    expect(sent.history).toEqual([...queued.history, { status: 'sent', at: later.toISOString() }])
  })

  test('behavior: a repeated accepted report keeps the first provider answer and history', () => {
    const sent = Notify.transition(queued, { type: 'accepted', providerId: 'SM1', response: 'queued' }, later)
    const again = Notify.transition(sent, { type: 'accepted', providerId: 'SM1', response: 'sent' }, later)
    expect(again).toEqual(sent)
  })

  test('behavior: delivered only from a report, after sent (or before its write landed)', () => {
    const sent = Notify.transition(queued, { type: 'accepted', providerId: 'SM1', response: 'queued' }, at)
    expect(Notify.transition(sent, { type: 'delivered' }, later).status).toBe('delivered')
    expect(Notify.transition(queued, { type: 'delivered' }, later).status).toBe('delivered')
  })

  test('behavior: a deferral counts and stays queued; bounced and failed keep the reason', () => {
    const deferred = Notify.transition(queued, { type: 'deferred', reason: '421 busy' }, later)
    expect(deferred).toMatchObject({ status: 'queued', deferrals: 1, error: '421 busy', body: 'hi' })
    expect(deferred.history).toEqual(queued.history)
    expect(Notify.transition(deferred, { type: 'bounced', reason: '550 no such user' }, later)).toMatchObject({
      status: 'bounced',
      error: '550 no such user',
      body: undefined,
    })
    expect(Notify.transition(queued, { type: 'failed', reason: '21211' }, later).status).toBe('failed')
  })

  test.each(['delivered', 'bounced', 'failed'] as const)('error: a %s message takes no further report', (status) => {
    const final = { ...queued, status }
    for (const event of [
      { type: 'accepted', providerId: 'SM1', response: 'sent' },
      { type: 'delivered' },
      { type: 'bounced', reason: 'x' },
      { type: 'failed', reason: 'x' },
      { type: 'deferred', reason: 'x' },
    ] as const) {
      expect(Notify.applies(status, event.type)).toBe(false)
      expect(() => Notify.transition(final, event, later)).toThrow(InvalidTransitionError)
    }
  })

  test('error: a sent message is not deferred', () => {
    const sent = { ...queued, status: 'sent' as const }
    expect(() => Notify.transition(sent, { type: 'deferred', reason: 'x' }, later)).toThrow(InvalidTransitionError)
  })
})
