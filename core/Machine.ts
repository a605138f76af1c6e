/**
 * The one shape of every state machine of the project (payment ledger, escrow, invoice, circuit breaker, and every
 * machine to come): states and events are tagged unions, and one pure function takes the current state, one event
 * and a context (the current time, or the machine's options with it) to the next state. Its body is an exhaustive
 * `switch` on `event.type`. An event that does not apply throws `InvalidTransitionError` (code `conflict`), the one
 * error of every machine; a machine may refuse a well-formed event for a reason of its own with a more precise error
 * (the breaker's `BreakerOpenError`). Pure, so a store may retry it inside an atomic update.
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
