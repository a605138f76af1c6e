import { type Static, Type } from '@sinclair/typebox'

const address = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description })

const robotId = Type.String({ pattern: '^rbt_[0-9a-f]{24}$', description: 'Robot id from robots/register.' })
const taskId = Type.String({ pattern: '^tsk_[0-9a-f]{24}$', description: 'Task id from robots/task.' })
const capability = Type.String({
  pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$',
  description: 'A task type the robot performs, lowercase: `delivery`, `inspection.thermal`.',
})
const amount = Type.String({ pattern: '^[1-9][0-9]{0,30}$', description: 'Atomic units of the token, e.g. "2500000".' })

/** What every request signed by a robot operator carries besides its own fields. */
const signed = {
  operator: address("The robot operator's address, which signed the request."),
  nonce: Type.String({
    pattern: '^[0-9]{1,77}$',
    description: 'A uint256 the operator never used before with this gateway; a used one is refused (409).',
  }),
  expiry: Type.Integer({
    minimum: 0,
    description: 'Unix time in seconds after which the signature is refused; at most an hour ahead.',
  }),
  signature: Type.String({
    pattern: '^0x[0-9a-fA-F]{130}$',
    description: "The operator's EIP-712 signature of `RobotRequest` (see the README).",
  }),
}

const location = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 120, description: 'Where, for people: "Hamburg port, berth 4".' }),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country.' })),
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  },
  { additionalProperties: false },
)

const availability = Type.Union([Type.Literal('available'), Type.Literal('busy'), Type.Literal('offline')], {
  description: 'Whether the robot takes tasks now; only `available` robots are dispatched to.',
})

const profile = {
  name: Type.String({ minLength: 1, maxLength: 120, description: 'Display name.' }),
  capabilities: Type.Array(capability, { minItems: 1, maxItems: 32, description: 'Task types the robot performs.' }),
  pricing: Type.Record(Type.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$' }), amount, {
    description: 'Price per task type (each a capability), atomic units of `token`.',
  }),
  token: Type.String({ minLength: 1, maxLength: 16, description: 'Symbol of the token tasks are paid in, e.g. USDC.' }),
  location,
  availability,
  endpoint: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'The URL tasks are delivered to as signed webhooks (Standard Webhooks), checked by the outbound guard.',
  }),
  maxTaskSeconds: Type.Integer({
    minimum: 60,
    maximum: 7 * 86_400,
    description: 'Longest a task may run once dispatched before it times out and is refunded.',
  }),
}

/** Body of `POST /api/v1/robots/register`. */
export const RegisterBody = Type.Object(
  { ...signed, ...profile, maxTaskSeconds: Type.Optional(profile.maxTaskSeconds) },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/register`. */
export type RegisterBody = Static<typeof RegisterBody>

/** Body of `PATCH /api/v1/robots/update`. */
export const UpdateBody = Type.Object(
  {
    ...signed,
    robotId,
    name: Type.Optional(profile.name),
    capabilities: Type.Optional(profile.capabilities),
    pricing: Type.Optional(profile.pricing),
    location: Type.Optional(profile.location),
    availability: Type.Optional(profile.availability),
    endpoint: Type.Optional(profile.endpoint),
    maxTaskSeconds: Type.Optional(profile.maxTaskSeconds),
  },
  { additionalProperties: false },
)
/** Body of `PATCH /api/v1/robots/update`. */
export type UpdateBody = Static<typeof UpdateBody>

/** Body of `POST /api/v1/robots/deregister`. */
export const DeregisterBody = Type.Object({ ...signed, robotId }, { additionalProperties: false })
/** Body of `POST /api/v1/robots/deregister`. */
export type DeregisterBody = Static<typeof DeregisterBody>

/** Body of `POST /api/v1/robots/complete`. */
export const CompleteBody = Type.Object(
  {
    ...signed,
    taskId,
    status: Type.Optional(
      Type.Union(
        [Type.Literal('accepted'), Type.Literal('in_progress'), Type.Literal('completed'), Type.Literal('failed')],
        {
          description:
            'What the robot reports: `completed` (default) releases the escrow to the operator, `failed` refunds the requester; `accepted` and `in_progress` report progress.',
        },
      ),
    ),
    result: Type.Optional(Type.Unknown({ description: 'The result of the work (JSON, at most 16 KiB).' })),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why the task failed.' })),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/complete`. */
export type CompleteBody = Static<typeof CompleteBody>

/** Query of `GET /api/v1/robots/list`. */
export const ListQuery = Type.Object(
  {
    capability: Type.Optional(capability),
    location: Type.Optional(
      Type.String({ minLength: 1, maxLength: 120, description: 'Country code, or text the location label contains.' }),
    ),
    availability: Type.Optional(availability),
    maxPrice: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,31}$',
        description: 'Most a task may cost, atomic units (of `capability` when given, else of any task type).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
)
/** Query of `GET /api/v1/robots/list`. */
export type ListQuery = Static<typeof ListQuery>

/** Query of `GET /api/v1/robots/profile`. */
export const ProfileQuery = Type.Object({ id: robotId }, { additionalProperties: false })
/** Query of `GET /api/v1/robots/profile`. */
export type ProfileQuery = Static<typeof ProfileQuery>

/** Body of `POST /api/v1/robots/task`. */
export const TaskBody = Type.Object(
  {
    robotId,
    taskType: capability,
    input: Type.Optional(Type.Unknown({ description: 'What the robot needs to do the work (JSON, at most 16 KiB).' })),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 7 * 86_400,
        description: "Seconds the robot has once dispatched; at most the robot's maxTaskSeconds (its default).",
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/task`. */
export type TaskBody = Static<typeof TaskBody>

/** Query of `GET /api/v1/robots/status`. */
export const StatusQuery = Type.Object({ id: taskId }, { additionalProperties: false })
/** Query of `GET /api/v1/robots/status`. */
export type StatusQuery = Static<typeof StatusQuery>
