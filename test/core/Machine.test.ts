import { describe, expect, test } from 'bun:test'
import type { Address, Hex } from 'viem'
import * as Errors from '../../core/Errors.js'
import * as Core from '../../core/index.js'
import * as Machine from '../../core/Machine.js'

const alice: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const token = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 } as const
const now = new Date('2030-01-01T00:00:00.000Z')
const at = now.toISOString()

type Files = typeof Core

/** The names of a file's state machines: `transition`, and `<what>Transition` where a file holds more than one. */
type MachinesOf<file> = {
  [name in keyof file]: name extends 'transition' | `${string}Transition`
    ? file[name] extends (...parameters: never[]) => unknown
      ? name
      : never
    : never
}[keyof file]

/**
 * Every state machine of core as `File.name`. A machine is enrolled by being exported from a core file, which
 * core/index.ts exports (test/app/core-index.test.ts holds it to every file), not by a list written here.
 */
type Name = { [file in keyof Files]: `${file & string}.${MachinesOf<Files[file]> & string}` }[keyof Files]

/** The function a name stands for. */
type MachineOf<name extends Name> = name extends `${infer file extends keyof Files}.${infer exported}`
  ? Files[file][exported & keyof Files[file]]
  : never

/** Whether `machine` has the one shape, `Machine.Transition`: (state, event, context?) => state, its event tagged. */
type HasTheShape<machine> = machine extends (
  state: infer state,
  event: infer event extends Machine.Event,
  ...context: infer context
) => unknown
  ? machine extends Machine.Transition<state, event, context extends [infer first, ...unknown[]] ? first : never>
    ? Parameters<machine> extends [unknown, unknown, ...unknown[]]
      ? true
      : false
    : false
  : false

/** An event a machine refuses in a state it can be in, and the error it refuses with. */
type Refused = {
  /** Applies the refused event. */
  run: () => unknown
  /** The machine's own error, where it has a more precise one. @default Errors.InvalidTransitionError */
  error?: new (
    ...parameters: never[]
  ) => Error
}

/**
 * One refused event of every machine of core. The type checker asks for an entry for every machine, and turns the
 * entry of a machine that has not the one shape into a string naming it, which no entry satisfies.
 */
const refused: {
  [name in Name]: HasTheShape<MachineOf<name>> extends true ? Refused : `${name} is not a Machine.Transition`
} = {
  'Breaker.transition': {
    run: () =>
      Core.Breaker.transition(
        { status: 'open', until: now.getTime() + 1_000 },
        { type: 'attempt' },
        { threshold: 3, coolDownMs: 1_000, now: now.getTime() },
      ),
    error: Errors.BreakerOpenError,
  },
  'Channel.transition': {
    run: () => {
      const onChain = { balance: 10n, totalClaimed: 0n, refundNonce: 0n, withdrawRequestedAt: 0 }
      const config = {
        payer: alice,
        payerAuthorizer: alice,
        receiver: bob,
        receiverAuthorizer: bob,
        token: token.address,
        withdrawDelay: 900,
        salt: `0x${'00'.repeat(32)}` as Hex,
      }
      const state = Core.Channel.from({ channelId: `0x${'ab'.repeat(32)}`, config, onChain })
      return Core.Channel.transition(state, { type: 'finish', ceiling: 1n }, now)
    },
  },
  'Compute.transition': {
    run: () => Core.Compute.transition({ state: 'succeeded', output: 'done' }, { type: 'start' }),
  },
  'Cron.transition': {
    run: () =>
      Core.Cron.transition(
        { maxRuns: 3, runs: 1, state: 'cancelled', nextRun: null, lastRunAt: at },
        { type: 'cancelled' },
        now,
      ),
  },
  'Escrow.transition': {
    run: () =>
      Core.Escrow.transition(
        Core.Escrow.from({
          id: `0x${'ab'.repeat(32)}`,
          chainId: 1,
          contract: bob,
          depositor: alice,
          beneficiary: bob,
          token,
          amount: 1n,
          createdAt: now,
        }),
        { type: 'released' },
        now,
      ),
  },
  'Futures.depositTransition': {
    run: () =>
      Core.Futures.depositTransition(
        { account: 'a', amount: '1', claimedAt: at, state: 'credited', sequence: 1 },
        { type: 'credited', sequence: 2 },
        now,
      ),
  },
  'Futures.transition': {
    run: () =>
      Core.Futures.transition(
        { account: 'a', to: alice, createdAt: at, state: 'holding' },
        { type: 'settled', sequence: undefined },
      ),
  },
  'Invoice.transition': {
    run: () =>
      Core.Invoice.transition(
        Core.Invoice.from({
          id: 'inv',
          creator: alice,
          token,
          amount: 1n,
          chainId: 1,
          createdAt: now,
          createdAtBlock: 1n,
        }),
        { type: 'expire' },
        now,
      ),
  },
  'Ledger.transition': {
    run: () =>
      Core.Ledger.transition(
        {
          payer: alice,
          nonce: `0x${'00'.repeat(32)}` as Hex,
          state: 'released',
          amount: 1n,
          endpoint: 'GET /x',
          protocol: 'x402-v2',
          transaction: undefined,
          reason: 'handler failed',
          authorization: '{}',
          fingerprint: 'f',
          idempotencyKey: undefined,
          lease: undefined,
          response: undefined,
          effects: [],
          claimedAt: now,
          updatedAt: now,
        },
        { type: 'settle', response: undefined },
        now,
      ),
  },
  'Notify.transition': {
    run: () =>
      Core.Notify.transition(
        { channel: 'sms', to: '+14155550100', status: 'delivered', deferrals: 0, history: [] },
        { type: 'failed', reason: 'late' },
        now,
      ),
  },
  'RobotTask.registrationTransition': {
    run: () =>
      Core.RobotTask.registrationTransition(
        { status: 'deregistered', availability: 'offline', updatedAt: at },
        { type: 'updated' },
        now,
      ),
  },
  'RobotTask.transition': {
    run: () => Core.RobotTask.transition({ status: 'completed', history: [] }, { type: 'started' }, now),
  },
  'SupplyChain.transition': {
    run: () =>
      Core.SupplyChain.transition(
        { status: 'rejected', history: [] },
        { type: 'paid', transaction: `0x${'cd'.repeat(32)}`, paidAt: now },
        now,
      ),
  },
  'Webhooks.deliveryTransition': {
    run: () =>
      Core.Webhooks.deliveryTransition(
        {
          endpoint: { collection: 'webhooks', id: 'wh' },
          eventId: 'evt',
          type: 'test.ping',
          status: 'delivered',
          attempts: [{ at, code: 204 }],
        },
        { type: 'attempted', attempt: { at, code: 204 }, last: true },
      ),
  },
  'Webhooks.endpointTransition': {
    run: () =>
      Core.Webhooks.endpointTransition(
        { url: 'https://example.com/hook', secret: 'whsec_x', status: 'cancelled' },
        { type: 'cancelled' },
      ),
  },
}

/** The machines core exports at run time, found the way the type above finds them. */
const exported = Object.entries(Core).flatMap(([file, values]) =>
  Object.entries(values as Record<string, unknown>)
    .filter(([name, value]) => typeof value === 'function' && /^(transition|[a-z]\w*Transition)$/.test(name))
    .map(([name]) => `${file}.${name}`),
)

describe('Machine.Transition', () => {
  test('behavior: every machine core exports has a refused event here, and no other', () => {
    expect(exported.sort()).toEqual(Object.keys(refused).sort())
  })

  test.each(Object.keys(refused) as Name[])('error: %s refuses with its one error', (name) => {
    const { run, error: type = Errors.InvalidTransitionError } = refused[name] as Refused
    let error: unknown
    try {
      run()
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(type)
    if (type === Errors.InvalidTransitionError)
      expect(error).toMatchObject({ code: 'conflict', name: 'InvalidTransitionError' })
  })
})

describe('refusing', () => {
  const refuse = () => {
    throw new Errors.InvalidTransitionError('Not now.', { details: { reason: 'busy' } })
  }

  test('default: the next state of a transition that applies', () => {
    expect(Machine.refusing(() => 'next')).toBe('next')
  })

  test('behavior: a refused event is the store’s refusal, its reason the error’s, else its message', () => {
    expect(Machine.refusing(refuse)).toEqual({ refused: true, reason: 'busy' })
    expect(
      Machine.refusing(() => {
        throw new Errors.InvalidTransitionError('A delivered delivery takes no more attempts.')
      }),
    ).toEqual({ refused: true, reason: 'A delivered delivery takes no more attempts.' })
  })

  test('error: any other error is a fault, thrown on', () => {
    expect(() =>
      Machine.refusing(() => {
        throw new TypeError('bug')
      }),
    ).toThrow(TypeError)
  })
})
