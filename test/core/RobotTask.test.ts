import { describe, expect, test } from 'bun:test'
import { InvalidTransitionError } from '../../core/Errors.js'
import * as RobotTask from '../../core/RobotTask.js'

const now = new Date('2030-01-01T00:00:00Z')
const hash = `0x${'ab'.repeat(32)}` as const

/** The event of each type, with the fields it needs. */
const eventOf = (type: RobotTask.Event['type'], action: 'release' | 'cancel' = 'release'): RobotTask.Event => {
  switch (type) {
    case 'deposited':
      return { type, timeoutSeconds: 60 }
    case 'completed':
      return { type, result: { ok: true } }
    case 'failed':
      return { type, reason: 'jammed' }
    case 'settled':
      return { type, settlement: { action, transaction: hash } }
    default:
      return { type }
  }
}

/** Where each legal (state, event) pair leads; every pair not listed must be refused. */
const legal: Record<string, RobotTask.Status> = {
  'awaiting_deposit deposited': 'dispatched',
  'awaiting_deposit canceled': 'canceled',
  'dispatched accepted': 'accepted',
  'dispatched started': 'in_progress',
  'accepted started': 'in_progress',
  ...Object.fromEntries(
    (['dispatched', 'accepted', 'in_progress'] as const).flatMap((status) => [
      [`${status} completed`, 'completed'],
      [`${status} failed`, 'failed'],
      [`${status} timed_out`, 'timed_out'],
    ]),
  ),
  'completed settled': 'completed',
  'failed settled': 'failed',
  'timed_out settled': 'timed_out',
}

const stateOf = (status: RobotTask.Status): RobotTask.State => ({
  status,
  history: [{ status, at: now.toISOString() }],
})

describe('transition: every state × every event', () => {
  for (const status of RobotTask.statuses)
    for (const type of RobotTask.eventTypes) {
      const key = `${status} ${type}`
      const action = RobotTask.settlementOf(status) ?? 'release'
      if (legal[key] !== undefined)
        test(`${key} → ${legal[key]}`, () => {
          const next = RobotTask.transition(stateOf(status), eventOf(type, action), now)
          expect(next.status).toBe(legal[key]!)
          if (type === 'settled') expect(next.settlement).toEqual({ action, transaction: hash, at: now.toISOString() })
          else expect(next.history.at(-1)).toEqual({ status: legal[key]!, at: now.toISOString() })
        })
      else
        test(`${key} is refused (409)`, () => {
          expect(() => RobotTask.transition(stateOf(status), eventOf(type, action), now)).toThrow(
            InvalidTransitionError,
          )
        })
    }
})

describe('settlement', () => {
  test('a completed task is released, a failed or timed-out one cancelled, never the other way', () => {
    expect(() => RobotTask.transition(stateOf('completed'), eventOf('settled', 'cancel'), now)).toThrow(
      InvalidTransitionError,
    )
    expect(() => RobotTask.transition(stateOf('timed_out'), eventOf('settled', 'release'), now)).toThrow(
      InvalidTransitionError,
    )
  })

  test('settled once', () => {
    const once = RobotTask.transition(stateOf('completed'), eventOf('settled'), now)
    expect(RobotTask.awaitsSettlement(once)).toBe(false)
    expect(() => RobotTask.transition(once, eventOf('settled'), now)).toThrow(InvalidTransitionError)
  })

  test('the deadline is set at dispatch and decides overdue', () => {
    const task = RobotTask.transition(stateOf('awaiting_deposit'), eventOf('deposited'), now)
    expect(task.deadline).toBe('2030-01-01T00:01:00.000Z')
    expect(RobotTask.isOverdue(task, new Date('2030-01-01T00:00:59Z'))).toBe(false)
    expect(RobotTask.isOverdue(task, new Date('2030-01-01T00:01:00Z'))).toBe(true)
    expect(RobotTask.isOverdue({ ...task, status: 'completed' }, new Date('2031-01-01T00:00:00Z'))).toBe(false)
  })
})

test('phaseOf: the interface vocabulary for every state', () => {
  expect(Object.fromEntries(RobotTask.statuses.map((status) => [status, RobotTask.phaseOf(status)]))).toEqual({
    awaiting_deposit: 'pending',
    dispatched: 'pending',
    accepted: 'pending',
    in_progress: 'in-progress',
    completed: 'complete',
    failed: 'complete',
    timed_out: 'complete',
    canceled: 'complete',
  })
})

describe('registrationTransition', () => {
  const robot: RobotTask.Registration & { id: string; name: string } = {
    id: 'rbt_1',
    name: 'WarehouseBot-01',
    status: 'active',
    availability: 'busy',
    updatedAt: '2029-01-01T00:00:00.000Z',
  }

  test('default: an update keeps the registration and stamps the change, the profile passing through', () => {
    expect(RobotTask.registrationTransition(robot, { type: 'updated' }, now)).toEqual({
      ...robot,
      updatedAt: now.toISOString(),
    })
  })

  test('behavior: deregistering takes the robot offline, for good', () => {
    const gone = RobotTask.registrationTransition(robot, { type: 'deregistered' }, now)
    expect(gone).toEqual({ ...robot, status: 'deregistered', availability: 'offline', updatedAt: now.toISOString() })
    for (const type of ['updated', 'deregistered'] as const)
      expect(() => RobotTask.registrationTransition(gone, { type }, now)).toThrow(InvalidTransitionError)
  })
})
