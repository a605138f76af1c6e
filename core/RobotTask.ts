import { InvalidTransitionError } from './Errors.js'

/**
 * A robot task (`/api/v1/robots/*`): the work a requester pays a robot for, with the price held in our escrow
 * contract until the work is proven. The registration of the robot that takes it has a machine of its own here too
 * ({@link registrationTransition}).
 *
 * Lifecycle:
 *
 * ```
 * awaiting_deposit --deposited--> dispatched --accepted--> accepted --started--> in_progress
 *        |                             \________________________\__________________\--completed--> completed
 *        |                              \________________________\__________________\--failed----> failed
 *        |                               \________________________\__________________\--timed_out-> timed_out
 *        \--canceled--> canceled   (no deposit arrived in time: nothing to refund)
 * ```
 *
 * `completed`, `failed`, `timed_out` and `canceled` are final. The money follows with one `settled` event on a final
 * state that holds a deposit: a completed task's escrow is released to the operator, a failed or timed-out task's is
 * cancelled (refunded to the requester). Settled once; a canceled task never held a deposit.
 */

/** Every state of a task. */
export const statuses = [
  'awaiting_deposit',
  'dispatched',
  'accepted',
  'in_progress',
  'completed',
  'failed',
  'timed_out',
  'canceled',
] as const

/** A state of a task. */
export type Status = (typeof statuses)[number]

/** The states after which nothing about the work changes. */
export const finalStatuses: readonly Status[] = ['completed', 'failed', 'timed_out', 'canceled']

/** What the escrow does for a final state: release to the operator, cancel back to the requester, or nothing. */
export function settlementOf(status: Status): 'release' | 'cancel' | undefined {
  if (status === 'completed') return 'release'
  if (status === 'failed' || status === 'timed_out') return 'cancel'
  return undefined
}

/** The escrow transaction that settled a task. */
export type Settlement = {
  /** `release` paid the operator; `cancel` refunded the requester. */
  action: 'release' | 'cancel'
  /** Hash of the transaction. */
  transaction: `0x${string}`
  /** When it was recorded, ISO 8601. */
  at: string
}

/** The part of a task the machine reads and writes; the rest of a stored task passes through untouched. */
export type State = {
  /** Current state. */
  status: Status
  /** When the robot must have finished, ISO 8601; set when the task is dispatched. */
  deadline?: string | undefined
  /** The robot's result (JSON), on `completed`. */
  result?: unknown
  /** Why the robot failed, on `failed`. */
  failure?: string | undefined
  /** The escrow transaction, once settled. */
  settlement?: Settlement | undefined
  /** Every state entered, with when, oldest first. */
  history: readonly { status: Status; at: string }[]
}

/** What can happen to a task. */
export type Event =
  | {
      /** The deposit was read back from the escrow contract with the task's terms. */ type: 'deposited'
      /** Seconds the robot has from now. */
      timeoutSeconds: number
    }
  | { /** The operator accepted the task. */ type: 'accepted' }
  | { /** The operator started the work. */ type: 'started' }
  | {
      /** The operator reported the work done. */ type: 'completed'
      /** The result, as the operator reported it. */
      result: unknown
    }
  | {
      /** The operator reported the work failed. */ type: 'failed'
      /** Why. */
      reason: string
    }
  | { /** The deadline passed before the work was reported done. */ type: 'timed_out' }
  | { /** No deposit arrived before the deposit window closed. */ type: 'canceled' }
  | {
      /** The escrow transaction of the final state landed. */ type: 'settled'
      /** Which and its hash. */
      settlement: Omit<Settlement, 'at'>
    }

/** Every event type, for exhaustive tests. */
export const eventTypes = [
  'deposited',
  'accepted',
  'started',
  'completed',
  'failed',
  'timed_out',
  'canceled',
  'settled',
] as const satisfies readonly Event['type'][]

/** Which states each event applies to (`settled` also needs a final state with a deposit and no settlement yet). */
const from: { readonly [type in Event['type']]: readonly Status[] } = {
  deposited: ['awaiting_deposit'],
  accepted: ['dispatched'],
  started: ['dispatched', 'accepted'],
  completed: ['dispatched', 'accepted', 'in_progress'],
  failed: ['dispatched', 'accepted', 'in_progress'],
  timed_out: ['dispatched', 'accepted', 'in_progress'],
  canceled: ['awaiting_deposit'],
  settled: ['completed', 'failed', 'timed_out'],
}

/**
 * The next state of a task, in the shape of every state machine (`Machine.Transition`). Pure, so a store may run it
 * again after a lost race. Throws {@link InvalidTransitionError} (409) when the event does not apply: completion of
 * a task not yet funded or already final, a second settlement, a settlement that is not the final state's.
 */
export function transition<task extends State>(task: task, event: Event, now: Date): task {
  const at = now.toISOString()
  if (!from[event.type].includes(task.status))
    throw new InvalidTransitionError(`A task that is ${task.status} cannot take '${event.type}'.`, {
      details: { taskStatus: task.status, event: event.type },
    })
  const enter = (status: Status, fields: Partial<State> = {}): task => ({
    ...task,
    ...fields,
    status,
    history: [...task.history, { status, at }],
  })
  switch (event.type) {
    case 'deposited':
      return enter('dispatched', { deadline: new Date(now.getTime() + event.timeoutSeconds * 1000).toISOString() })
    case 'accepted':
      return enter('accepted')
    case 'started':
      return enter('in_progress')
    case 'completed':
      return enter('completed', { result: event.result })
    case 'failed':
      return enter('failed', { failure: event.reason })
    case 'timed_out':
      return enter('timed_out')
    case 'canceled':
      return enter('canceled')
    case 'settled': {
      const expected = settlementOf(task.status)
      if (task.settlement !== undefined || event.settlement.action !== expected)
        throw new InvalidTransitionError(
          task.settlement !== undefined
            ? `The task's escrow is already settled (${task.settlement.action} ${task.settlement.transaction}).`
            : `A ${task.status} task's escrow is settled by ${expected}, not ${event.settlement.action}.`,
          { details: { taskStatus: task.status, event: event.type } },
        )
      return { ...task, settlement: { ...event.settlement, at } }
    }
  }
}

/** Whether the task's deadline has passed at `now` while the robot still holds the work. */
export function isOverdue(task: State, now: Date): boolean {
  return (
    (task.status === 'dispatched' || task.status === 'accepted' || task.status === 'in_progress') &&
    task.deadline !== undefined &&
    now.getTime() >= new Date(task.deadline).getTime()
  )
}

/** Whether the task's final state still waits for its escrow transaction. */
export function awaitsSettlement(task: State): boolean {
  return settlementOf(task.status) !== undefined && task.settlement === undefined
}

/**
 * The interface's robot-task status vocabulary (`pending`, `in-progress`, `complete`) for a state: waiting for the
 * deposit or the robot is `pending`, working is `in-progress`, any final state is `complete`.
 */
export function phaseOf(status: Status): 'pending' | 'in-progress' | 'complete' {
  if (finalStatuses.includes(status)) return 'complete'
  return status === 'in_progress' ? 'in-progress' : 'pending'
}

/**
 * What the registration machine reads and writes of a robot's record; the rest (its profile) passes through untouched.
 * `status` is the registration's one state; `availability` is what the operator says of the robot, which the original
 * gateway answers as its `status`.
 */
export type Registration = {
  /** `active` (takes tasks, its profile may change) or `deregistered` by its operator, for good. */
  status: 'active' | 'deregistered'
  /** Whether it takes tasks now, as its operator says: `available`, `busy` or `offline`. */
  availability: 'available' | 'busy' | 'offline'
  /** When the record last changed, ISO 8601. */
  updatedAt: string
}

/** What its operator does to a registered robot. */
export type RegistrationEvent =
  | { /** Its profile changed (the record given already holds the new fields). */ type: 'updated' }
  | {
      /** It is taken off the network: it takes no more tasks; tasks dispatched run to their end. */ type: 'deregistered'
    }

/**
 * The next state of a robot's registration (`Machine.Transition`). Pure, so a store may run it again after a lost
 * race. An active robot may be updated, or deregistered (which takes it `offline`); a deregistered one takes nothing:
 * {@link InvalidTransitionError}.
 */
export function registrationTransition<robot extends Registration>(
  robot: robot,
  event: RegistrationEvent,
  now: Date,
): robot {
  if (robot.status === 'deregistered')
    throw new InvalidTransitionError(`A deregistered robot cannot be ${event.type}.`, {
      details: { reason: 'deregistered' },
    })
  const updatedAt = now.toISOString()
  switch (event.type) {
    case 'updated':
      return { ...robot, updatedAt }
    case 'deregistered':
      return { ...robot, status: 'deregistered', availability: 'offline', updatedAt }
  }
}
