import { type Static, Type } from '@sinclair/typebox'

/** What a run does besides its signed callback. */
export const Action = Type.Union(
  [Type.Literal('batch.execute'), Type.Literal('payroll.execute'), Type.Literal('webhook.trigger')],
  {
    description:
      '`webhook.trigger` (the callback alone), or `batch.execute` / `payroll.execute` (the callback carries the unsigned batch transaction built afresh from `payload` at each run).',
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
        'For batch/payroll: `{ token: "USDC" | "ETH" | <symbol>, recipients: [{ address, amount }] }` (amounts in base units, as strings); for webhook.trigger: any JSON sent along.',
    }),
    callback_url: Type.String({ maxLength: 2048, description: 'Receives a signed `cron.triggered` webhook per run.' }),
    maxRuns: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Runs before the job completes.' })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/cron/create`. */
export type CreateBody = Static<typeof CreateBody>

/** Query of `GET /api/v1/cron/list`. */
export const ListQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('scheduled'), Type.Literal('completed'), Type.Literal('cancelled')], {
      description: 'Only jobs in this state.',
    }),
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
