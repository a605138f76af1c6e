import { type Static, Type } from '@sinclair/typebox'

/** `POST /api/v1/gpu/run`. */
export const RunBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'a model id of `GET /api/v1/gpu/models`, one of the original gateway’s shortcuts (`sdxl`, `flux-dev`, ...) or a Replicate `owner/name`, each only where the operator pinned that model',
    }),
    input: Type.Record(Type.String({ pattern: '^[a-z_][a-z0-9_]{0,63}$' }), Type.Unknown(), {
      description: "the model's input, passed to Replicate as it is",
    }),
    version: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description:
          'the Replicate version to run; it must be the one the operator pinned for the model (400 otherwise)',
      }),
    ),
    webhook: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'an http(s) URL that receives the run’s `job.completed` or `job.failed` event when it ends, signed per Standard Webhooks with the `webhook.secret` of the answer; refused before payment when the outbound guard refuses it',
      }),
    ),
  },
  { additionalProperties: false },
)
export type RunBody = Static<typeof RunBody>

/** `GET /api/v1/gpu/status/:id`. */
export const StatusParams = Type.Object({ id: Type.String({ pattern: '^job_[0-9a-f]{32}$' }) })
