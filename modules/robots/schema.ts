import { type Static, Type } from '@sinclair/typebox'
import * as SignedRequest from '../../core/SignedRequest.js'
import * as Units from '../../core/Units.js'

const address = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description })

const robotId = Type.String({ pattern: '^rbt_[0-9a-f]{24}$', description: 'Robot id from robots/register.' })
const taskId = Type.String({ pattern: '^tsk_[0-9a-f]{24}$', description: 'Task id from robots/task.' })
const capability = Type.String({
  pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$',
  description: 'A task type the robot performs, lowercase: `delivery`, `inspection.thermal`.',
})
const amount = Type.String({ pattern: '^[1-9][0-9]{0,30}$', description: 'Atomic units of the token, e.g. "2500000".' })

/**
 * What every request signed by a robot operator carries besides its own fields. A request without `signature` is
 * answered with the EIP-712 typed data to sign (and the `nonce` and `expiry` to send with it), and does nothing else.
 */
const signed = {
  operator: Type.Optional(
    address(
      "The robot operator's address, which signs the request. For register the original gateway's payment_address names it too.",
    ),
  ),
  ...SignedRequest.fields({ signer: 'operator', primaryType: 'RobotRequest', docs: 'docs/families/robots-sctp.md' }),
}

/** The original gateway's robot status, which is our availability: online is available. */
const originalStatus = Type.Union([Type.Literal('online'), Type.Literal('busy'), Type.Literal('offline')], {
  description: "The original gateway's robot status: online (our availability `available`), busy or offline.",
})

/** The original gateway's price of any task, human decimal of the token. */
const pricePerTask = Units.decimalSchema({
  description:
    'Price of every task type, as the original gateway takes it: a HUMAN decimal of the token, e.g. "0.05" is 0.05 USDC (50000 atomic units), at most the token\'s decimals. Not with pricing. @default "0.05"',
})

/** The original gateway's connection: how tasks reach the robot. */
const connection = Type.Object(
  {
    type: Type.Optional(
      Type.Union([Type.Literal('webhook'), Type.Literal('xmtp'), Type.Literal('wifi'), Type.Literal('websocket')], {
        description: 'How tasks reach the robot; this gateway delivers by webhook only. @default webhook',
      }),
    ),
    webhookUrl: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, description: 'Where tasks are delivered: our `endpoint`.' }),
    ),
  },
  { additionalProperties: false, description: "The original gateway's connection; its webhookUrl is our endpoint." },
)

/** The original gateway's descriptive fields of a robot, stored and answered. */
const extras = {
  description: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'What the robot is, for people.' }),
  ),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 32, description: 'Labels.' }),
  ),
  metadata: Type.Optional(
    Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { description: 'Free-form JSON, at most 16 KiB.' }),
  ),
  chain: Type.Optional(
    Type.String({ maxLength: 32, description: 'Chain tasks are paid on: base (the settlement chain). @default base' }),
  ),
  currency: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 16,
      description: "The original gateway's name of `token`. Not with token.",
    }),
  ),
  price_per_task: Type.Optional(pricePerTask),
  connection: Type.Optional(connection),
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
  pricing: Type.Record(
    Type.String({ pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$' }),
    amount,
    Units.amountOptions({
      unit: 'raw',
      description: 'Price per task type (each a capability), RAW atomic units of `token`.',
    }),
  ),
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

/** Body of `POST /api/v1/robots/register`: ours (camelCase) or the original gateway's (snake_case) names. */
export const RegisterBody = Type.Object(
  {
    ...signed,
    payment_address: Type.Optional(
      address('Where task payments go, as the original gateway names it: the operator, who signs. Not with operator.'),
    ),
    ...profile,
    ...extras,
    pricing: Type.Optional(profile.pricing),
    token: Type.Optional({ ...profile.token, description: `${profile.token.description} @default USDC` }),
    location: Type.Optional(profile.location),
    availability: Type.Optional({
      ...profile.availability,
      description: 'Whether the robot takes tasks now. @default available',
    }),
    endpoint: Type.Optional({
      ...profile.endpoint,
      description: `${profile.endpoint.description} Or connection.webhookUrl.`,
    }),
    maxTaskSeconds: Type.Optional(profile.maxTaskSeconds),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/register`. */
export type RegisterBody = Static<typeof RegisterBody>

/** Body of `PATCH /api/v1/robots/update`. */
export const UpdateBody = Type.Object(
  {
    ...signed,
    payment_address: Type.Optional(address("The original gateway's name of the operator. Not with operator.")),
    robotId: Type.Optional(robotId),
    robot_id: Type.Optional({ ...robotId, description: "The original gateway's name of robotId. Not with robotId." }),
    name: Type.Optional(profile.name),
    capabilities: Type.Optional(profile.capabilities),
    pricing: Type.Optional(profile.pricing),
    token: Type.Optional(profile.token),
    location: Type.Optional(profile.location),
    availability: Type.Optional(profile.availability),
    status: Type.Optional(originalStatus),
    endpoint: Type.Optional(profile.endpoint),
    maxTaskSeconds: Type.Optional(profile.maxTaskSeconds),
    ...extras,
  },
  { additionalProperties: false },
)
/** Body of `PATCH /api/v1/robots/update`. */
export type UpdateBody = Static<typeof UpdateBody>

/** Body of `POST /api/v1/robots/deregister`. */
export const DeregisterBody = Type.Object(
  {
    ...signed,
    robotId: Type.Optional(robotId),
    robot_id: Type.Optional({ ...robotId, description: "The original gateway's name of robotId. Not with robotId." }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/deregister`. */
export type DeregisterBody = Static<typeof DeregisterBody>

/** Body of `POST /api/v1/robots/complete`. */
export const CompleteBody = Type.Object(
  {
    ...signed,
    taskId: Type.Optional(taskId),
    task_id: Type.Optional({ ...taskId, description: "The original gateway's name of taskId. Not with taskId." }),
    status: Type.Optional(
      Type.Union(
        ['accepted', 'in_progress', 'completed', 'failed', 'COMPLETED', 'FAILED'].map((status) => Type.Literal(status)),
        {
          description:
            "What the robot reports: `completed` (default; the original gateway's COMPLETED) releases the escrow to the operator, `failed` (FAILED) refunds the requester; `accepted` and `in_progress` report progress.",
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
    status: Type.Optional(originalStatus),
    chain: Type.Optional(
      Type.String({ maxLength: 32, description: 'Chain tasks are paid on; every robot here is on base.' }),
    ),
    max_price: Type.Optional(
      Type.String({
        maxLength: 40,
        ...Units.amountOptions({
          unit: 'human',
          description:
            'Most a task may cost, as the original gateway reads it: a HUMAN decimal of the robot\'s token, e.g. "0.05" is 0.05 USDC. Not with maxPrice.',
        }),
      }),
    ),
    maxPrice: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,31}$',
        ...Units.amountOptions({
          unit: 'raw',
          description:
            'Most a task may cost, RAW atomic units of the token, e.g. "50000" is 0.05 USDC (of `capability` when given, else of any task type). Not with max_price.',
        }),
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
)
/** Query of `GET /api/v1/robots/list`. */
export type ListQuery = Static<typeof ListQuery>

/** Query of `GET /api/v1/robots/profile`. */
export const ProfileQuery = Type.Object(
  {
    robot_id: Type.Optional({ ...robotId, description: 'The robot, as the original gateway names it. Not with id.' }),
    id: Type.Optional(robotId),
  },
  { additionalProperties: false },
)
/** Query of `GET /api/v1/robots/profile`. */
export type ProfileQuery = Static<typeof ProfileQuery>

/** Body of `POST /api/v1/robots/task`: ours (camelCase) or the original gateway's (snake_case) names, one of each pair. */
export const TaskBody = Type.Object(
  {
    robot_id: Type.Optional({
      ...robotId,
      description: 'The robot, as the original gateway names it. Not with robotId.',
    }),
    robotId: Type.Optional(robotId),
    task: Type.Optional({
      ...capability,
      description: "The task type, the original gateway's name. Not with taskType.",
    }),
    taskType: Type.Optional(capability),
    parameters: Type.Optional(
      Type.Unknown({ description: "What the robot needs, the original gateway's name. Not with input." }),
    ),
    input: Type.Optional(Type.Unknown({ description: 'What the robot needs to do the work (JSON, at most 16 KiB).' })),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 7 * 86_400,
        description: 'timeoutSeconds as the original gateway names it. Not with timeoutSeconds.',
      }),
    ),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 7 * 86_400,
        description: "Seconds the robot has once dispatched; at most the robot's maxTaskSeconds (its default).",
      }),
    ),
    callback_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "Where the task's end is POSTed (`robot.task.completed`, once its escrow is settled or it is canceled), as the original gateway does: a Standard Webhooks delivery signed with the secret this call answers once, retried as webhooks are. Checked by the outbound guard before payment. Without it the end is the requester's `robot.task.completed` event, to their webhooks.",
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/robots/task`. */
export type TaskBody = Static<typeof TaskBody>

/** Query of `GET /api/v1/robots/status`. */
export const StatusQuery = Type.Object(
  {
    task_id: Type.Optional({ ...taskId, description: 'The task, as the original gateway names it. Not with id.' }),
    id: Type.Optional(taskId),
  },
  { additionalProperties: false },
)
/** Query of `GET /api/v1/robots/status`. */
export type StatusQuery = Static<typeof StatusQuery>
