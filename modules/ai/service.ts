import type * as Chat from '../../core/Chat.js'
import { ConfigError } from '../../core/Errors.js'
import * as Upstream from '../../core/Upstream.js'
import {
  type ChatBody,
  chatFields,
  type EmbeddingsBody,
  embeddingsFields,
  type ImagesBody,
  type ImagesLimits,
  imagesFields,
  type Limits,
} from './schema.js'

/** What the chat module needs: an OpenAI-compatible upstream and the operator's limits. */
export type Deps = Limits & {
  /** Answers the completions and lists the models. */
  upstream: Chat.ChatUpstream
}

/** What the decentralized-inference module needs: the same, from an upstream that also embeds and draws. */
export type InferenceDeps = Limits &
  ImagesLimits & {
    /** Answers the completions, embeddings and images, and lists the models. */
    upstream: Chat.InferenceUpstream
  }

/** Refuses limits that would make every call fail or let calls cost more than their fixed price. */
export function assertLimits(limits: Limits): void {
  if (limits.models.length === 0) throw new ConfigError('At least one model must be allowed.')
  if (!Number.isInteger(limits.maxTokens) || limits.maxTokens < 1)
    throw new ConfigError('The max_tokens ceiling must be a positive integer.')
}

/** Whether the upstream takes calls now; checked before payment so that nobody pays for a call that cannot run. */
export function available(deps: Pick<Deps, 'upstream'>): Upstream.Availability {
  return deps.upstream.available()
}

/**
 * Forwards a chat completion. A request without a token limit gets the ceiling, so no call costs more than its
 * price allows; top-level fields outside the API's standard ones are dropped (see the schema); everything else goes
 * as the caller sent it. Resolves with the whole completion, or, for `stream: true`, once the upstream's first event
 * has arrived.
 */
export async function complete(deps: Deps, input: ChatBody): Promise<Chat.Answer> {
  const limited =
    input.max_tokens === undefined && input.max_completion_tokens === undefined ? { max_tokens: deps.maxTokens } : {}
  const outcome = await deps.upstream.complete({ ...standard(input, chatFields), ...limited })
  if (!outcome.ok) throw Upstream.toError(outcome)
  return outcome.answer
}

/** The upstream's models that the operator allows. */
async function allowedModels(deps: Deps): Promise<Chat.Model[]> {
  const outcome = await deps.upstream.models()
  if (!outcome.ok) throw Upstream.toError(outcome)
  const allowed = new Set(deps.models)
  return outcome.models.filter((model) => allowed.has(model.id))
}

/** `GET /api/v1/models`: the allowed models the upstream serves and their count (`total` too, the original's name). */
export async function models(deps: Deps): Promise<{ models: Chat.Model[]; count: number; total: number }> {
  const models = await allowedModels(deps)
  return { models, count: models.length, total: models.length }
}

/** `GET /decentralized/v1/models`: the same list in the API's own shape, for clients of that API. */
export async function modelList(deps: Deps): Promise<{ object: 'list'; data: Chat.Model[] }> {
  return { object: 'list', data: await allowedModels(deps) }
}

/** Computes embeddings (standard fields only); the upstream's answer is relayed as it is. */
export async function embed(deps: InferenceDeps, input: EmbeddingsBody): Promise<Chat.List> {
  const outcome = await deps.upstream.embed(standard(input, embeddingsFields))
  if (!outcome.ok) throw Upstream.toError(outcome)
  return outcome.body
}

/**
 * Generates one image (standard fields only) with the model named, or the operator's image model when none is (the
 * schema requires one otherwise); the upstream's answer is relayed with `model` saying which drew.
 */
export async function generateImages(deps: InferenceDeps, input: ImagesBody): Promise<Chat.List> {
  const model = (input.model ?? deps.imageModel)!
  const outcome = await deps.upstream.generateImages({ ...standard(input, imagesFields), model })
  if (!outcome.ok) throw Upstream.toError(outcome)
  return { ...outcome.body, model }
}

/** The request with only its top-level `fields`: what the upstream receives. */
function standard<body extends object>(input: body, fields: readonly string[]): body {
  return Object.fromEntries(Object.entries(input).filter(([name]) => fields.includes(name))) as body
}
