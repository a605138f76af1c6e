import { type Static, Type } from '@sinclair/typebox'

/** One model offered for free: the name callers use, and the upstream's model id it stands for. */
export type FreeModel = {
  /** What callers name it, e.g. `llama-3.3-70b`; the upstream id itself when no alias is set. */
  alias: string
  /** The chat upstream's model id, e.g. `meta-llama/llama-3.3-70b-instruct:free`. */
  upstream: string
}

/** What the operator allows a free call to ask of its chat upstream. */
export type Limits = {
  /** The free models, the first the default; none leaves free chat unavailable. */
  models: readonly FreeModel[]
  /** Largest `max_tokens` a caller may ask for; also sent when a caller gives none. */
  maxTokens: number
  /** Most messages in one conversation. */
  maxMessages: number
  /** Most characters of all messages' content together. */
  maxCharacters: number
}

/** Sampling temperature sent when a caller gives none (the original gateway's). */
export const defaultTemperature = 0.7

/** Body of `POST /free/chat`, built at boot from the operator's limits; fields beyond these are not forwarded. */
export function ChatBody(limits: Limits) {
  const names = [...new Set(limits.models.flatMap(({ alias, upstream }) => [alias, upstream]))]
  const list = limits.models.map(({ alias }) => alias).join(', ') || 'none configured'
  return Type.Object(
    {
      model: Type.Optional(
        names.length === 0
          ? Type.String({ maxLength: 256, description: `A free model: ${list}.` })
          : Type.Union(
              names.map((name) => Type.Literal(name)),
              { description: `A free model: ${list} (or its upstream id). Default: the first.` },
            ),
      ),
      messages: Type.Array(
        Type.Object(
          {
            role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
            content: Type.String({ maxLength: limits.maxCharacters, description: 'Text only.' }),
          },
          { additionalProperties: true, description: 'One message; only `role` and `content` are forwarded.' },
        ),
        {
          minItems: 1,
          maxItems: limits.maxMessages,
          description: `The conversation: at most ${limits.maxMessages} messages of ${limits.maxCharacters} characters in all.`,
        },
      ),
      max_tokens: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: limits.maxTokens,
          description: `Most tokens to generate, at most ${limits.maxTokens} (also the default).`,
        }),
      ),
      temperature: Type.Optional(
        Type.Number({ minimum: 0, maximum: 2, description: `Sampling temperature. Default: ${defaultTemperature}.` }),
      ),
      stream: Type.Optional(
        Type.Boolean({ description: 'Answer as server-sent events (`data: {...}` chunks, then `data: [DONE]`).' }),
      ),
    },
    { additionalProperties: true },
  )
}
/** Body of `POST /free/chat` (the model union is built at boot, so its static type is a plain string). */
export type ChatBody = Omit<Static<ReturnType<typeof ChatBody>>, 'model'> & { model?: string }
