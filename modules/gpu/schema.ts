import { type Static, Type } from '@sinclair/typebox'

/** `POST /api/v1/gpu/run`. */
export const RunBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 100, description: 'a model id of `GET /api/v1/gpu/models`' }),
    input: Type.Record(Type.String({ pattern: '^[a-z_][a-z0-9_]{0,63}$' }), Type.Unknown(), {
      description: "the model's input, passed to Replicate as it is",
    }),
  },
  { additionalProperties: false },
)
export type RunBody = Static<typeof RunBody>

/** `GET /api/v1/gpu/status/:id`. */
export const StatusParams = Type.Object({ id: Type.String({ pattern: '^job_[0-9a-f]{32}$' }) })
