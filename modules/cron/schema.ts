import { type Static, Type } from '@sinclair/typebox'

/** Actions a run performs here. */
export const actions = ['batch.execute', 'payroll.execute', 'webhook.trigger'] as const

/**
 * The original gateway's other actions, which it stored and never ran; none is run here on a schedule (each is a paid
 * call of its own, or needs a key or signature only the caller holds), so each is a 400 that says so.
 */
export const originalActions = [
  'swap.execute',
  'bridge.execute',
  'notify.email',
  'notify.sms',
  'xmtp.send',
  'analytics.snapshot',
  'invoice.remind',
] as const

/** What a run does besides its signed callback. */
export const Action = Type.Union(
  actions.map((action) => Type.Literal(action)),
  {
    description:
      "`webhook.trigger` (the run alone), or `batch.execute` / `payroll.execute` (the run carries the unsigned batch transaction built afresh from `payload` at each run). The original gateway's other actions (swap.execute, bridge.execute, notify.email, notify.sms, xmtp.send, analytics.snapshot, invoice.remind) are refused with a 400: none is run on a schedule here.",
  },
)

/** Body of `POST /api/v1/cron/create`. */
export const CreateBody = Type.Object(
  {
    action: Action,
    schedule: Type.String({
      maxLength: 128,
      description: '5-field cron expression (minute hour day month weekday), UTC; at most once an hour.',
    }),
    payload: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'For batch/payroll: `{ token: "USDC" | "ETH" | <symbol>, recipients, amounts }` read as batch/execute reads them: `recipients` addresses with `amounts` RAW base-unit integer strings (the spec\'s, "2500000000" is 2,500 USDC), or `recipients` `{ address, amount }` objects with HUMAN decimal amounts ("2500" is 2,500 USDC) and no `amounts`; stored, and sent with each run, in the first form. For webhook.trigger: any JSON sent along.',
    }),
    callback_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'Receives a signed `cron.triggered` webhook per run. Without it (as the original gateway takes it), each run is your `cron.triggered` event, delivered to your webhooks that subscribe to it (webhook/register), and its result is shown by cron/list (`lastOutput`).',
      }),
    ),
    maxRuns: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'Runs before the job completes. @default 100 (the runs the price includes)',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Any JSON object of yours, shown back by cron/list.' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/cron/create`. */
export type CreateBody = Static<typeof CreateBody>

/** Query of `GET /api/v1/cron/list`. */
export const ListQuery = Type.Object({
  status: Type.Optional(
    Type.Union(
      ['active', 'completed', 'cancelled', 'scheduled', 'paused'].map((status) => Type.Literal(status)),
      {
        description:
          'Only jobs in this state: `active` (runs to come), `completed`, `cancelled`; `scheduled` is `active`; `paused` matches none (no job pauses here).',
      },
    ),
  ),
  action: Type.Optional(Action),
})
/** Query of `GET /api/v1/cron/list`. */
export type ListQuery = Static<typeof ListQuery>

/** Body of `POST /api/v1/cron/cancel`. */
export const CancelBody = Type.Object(
  { jobId: Type.String({ pattern: '^cron_[0-9a-f]{32}$', description: 'A job id from cron/create.' }) },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/cron/cancel`. */
export type CancelBody = Static<typeof CancelBody>
