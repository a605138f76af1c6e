import { InvalidTransitionError } from './Errors.js'
import type { Refusal } from './Store.js'

/**
 * The one shape of every state machine of the project (payment ledger, escrow, invoice, circuit breaker, and every
 * machine to come): states and events are tagged unions, and one pure function takes the current state, one event
 * and a context (the current time, or the machine's options with it) to the next state. Its body is an exhaustive
 * `switch` on `event.type`. An event that does not apply throws `InvalidTransitionError` (code `conflict`), the one
 * error of every machine; a machine may refuse a well-formed event for a reason of its own with a more precise error
 * (the breaker's `BreakerOpenError`). Pure, so a store may retry it inside an atomic update. A core file's export named
 * `transition` (or `<what>Transition` where the file holds more than one machine) is a machine: the type checker holds
 * every one to this shape and asks for one refused event of each (test/core/Machine.test.ts), with no list to keep.
 */

/** An event of a state machine: one member of a tagged union. */
export type Event = {
  /** What happened. */
  type: string
}

/** The next state after `event`; throws `InvalidTransitionError` when the event does not apply to `state`. */
export type Transition<state, event extends Event, context = Date> = (
  state: state,
  event: event,
  context: context,
) => state

/**
 * Runs `next` (a transition) as the change of a store's atomic update: an {@link InvalidTransitionError} becomes the
 * update's refusal, its reason the error's `details.reason` or else its message, and the record stays as it was.
 * Any other error is a fault and is thrown on.
 */
export function refusing<state>(next: () => state): state | Refusal {
  try {
    return next()
  } catch (error) {
    if (!(error instanceof InvalidTransitionError)) throw error
    const reason = error.details?.reason
    return { refused: true, reason: typeof reason === 'string' ? reason : error.message }
  }
}
