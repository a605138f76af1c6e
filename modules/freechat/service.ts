import type * as Chat from '../../core/Chat.js'
import { ConfigError, RateLimitedError, ValidationError } from '../../core/Errors.js'
import * as RateLimit from '../../core/RateLimit.js'
import * as Upstream from '../../core/Upstream.js'
import { type ChatBody, defaultTemperature, type FreeModel, type Limits } from './schema.js'

/** What free chat needs: the chat upstream, the operator's limits and the budget every client draws on. */
export type Deps = Limits & {
  /** The chat upstream paid chat completions use. */
  upstream: Chat.ChatUpstream
  /** Free calls of every client together, in this process. */
  budget: Budget
}

/** What free answers say of their price and source (the original gateway's `tier`, `cost` and `source`). */
const free = { tier: 'free', cost: '$0.00', source: 'chat-upstream' } as const

/** The free models of `FREE_CHAT_MODELS`: `alias=upstream-id` or a bare upstream id, comma-separated. */
export function modelsOf(list: string | undefined): FreeModel[] {
  return (list ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const [alias, upstream] = item.includes('=') ? item.split('=', 2).map((part) => part.trim()) : [item, item]
      if (!alias || !upstream)
        throw new ConfigError(`FREE_CHAT_MODELS: "${item}" is neither an upstream model id nor alias=upstream-id.`)
      return { alias, upstream }
    })
}

/** The calls every client together may make, refilled evenly over a day; taken one per call. */
export type Budget = {
  /** Takes one call of the budget, or answers in how many whole seconds (at least 1) the next will be there. */
  take: () => { ok: true } | { ok: false; retryAfterSeconds: number }
}

/** A budget of `perDay` calls a day in this process, in bursts of as many; `0` is no budget. */
export function budget(parameters: { perDay: number; now: () => number }): Budget {
  const { perDay, now } = parameters
  if (perDay === 0) return { take: () => ({ ok: true }) }
  const options = { capacity: perDay, refill: perDay, intervalMs: 86_400_000 }
  let state = RateLimit.initial(options, now())
  return {
    take() {
      const at = now()
      const taken = RateLimit.take(state, { ...options, now: at })
      state = taken.state
      return taken.ok
        ? { ok: true }
        : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((taken.retryAt - at) / 1000)) }
    },
  }
}

/** Why free chat cannot take calls now: no free model configured, or the upstream refusing calls. */
export function readiness(deps: Pick<Deps, 'upstream' | 'models'>): string | undefined {
  if (deps.models.length === 0)
    return 'no free model is configured (FREE_CHAT_MODELS); the paid POST /api/v1/chat/completions is not limited so.'
  const availability = deps.upstream.available()
  return availability.ok ? undefined : availability.reason
}

/**
 * `POST /free/chat`: one short completion of a free model. The conversation's size is checked and a call of the
 * budget taken before the upstream is asked; only the model, the messages' roles and texts, the token limit (the
 * operator's ceiling by default), the temperature and `stream` are forwarded. A whole completion comes back in the
 * original gateway's shape; a stream as the upstream's events.
 */
export async function complete(deps: Deps, input: ChatBody): Promise<Chat.Answer> {
  const model = modelNamed(deps, input.model)
  const characters = input.messages.reduce((sum, message) => sum + message.content.length, 0)
  if (characters > deps.maxCharacters)
    throw new ValidationError({
      field: 'messages',
      message: `holds ${characters} characters; free chat takes at most ${deps.maxCharacters} in all`,
    })
  const taken = deps.budget.take()
  if (!taken.ok)
    throw new RateLimitedError({
      retryAfterSeconds: taken.retryAfterSeconds,
      what: 'free chat from all clients together (its daily budget on this gateway)',
    })
  const outcome = await deps.upstream.complete({
    model: model.upstream,
    messages: input.messages.map(({ role, content }) => ({ role, content })),
    max_tokens: input.max_tokens ?? deps.maxTokens,
    temperature: input.temperature ?? defaultTemperature,
    ...(input.stream === true ? { stream: true } : {}),
  })
  const { answer } = Upstream.toValue(outcome)
  if (answer.type === 'stream') return answer
  const { completion } = answer
  return {
    type: 'completion',
    completion: {
      id: typeof completion.id === 'string' ? completion.id : null,
      object: 'chat.completion',
      created: completion.created ?? null,
      model: model.alias,
      upstream_model: model.upstream,
      ...free,
      choices: completion.choices,
      usage: completion.usage ?? null,
    },
  }
}

/**
 * `GET /free/chat/models`: the free models the upstream lists (a configured one it does not list is left out), each
 * with its alias, upstream id, and the upstream's own description (or name) and context length where it gives them.
 */
export async function models(deps: Pick<Deps, 'upstream' | 'models'>) {
  const listed = new Map(Upstream.toValue(await deps.upstream.models()).models.map((model) => [model.id, model]))
  const offered = deps.models.flatMap(({ alias, upstream }) => {
    const model = listed.get(upstream)
    if (!model) return []
    const description = typeof model.description === 'string' ? model.description : model.name
    return [
      {
        id: alias,
        upstream,
        description: typeof description === 'string' ? description : null,
        context_length: typeof model.context_length === 'number' ? model.context_length : null,
      },
    ]
  })
  return {
    ...free,
    models: offered,
    count: offered.length,
    note: 'Free: no payment, a short answer, a per-client daily limit. Paid POST /api/v1/chat/completions for the rest.',
  }
}

/** The free model `name` is (its alias or upstream id), or the first when none is named. */
function modelNamed(deps: Pick<Deps, 'models'>, name: string | undefined): FreeModel {
  const model =
    name === undefined ? deps.models[0] : deps.models.find(({ alias, upstream }) => name === alias || name === upstream)
  if (!model)
    throw new ValidationError({
      field: 'model',
      message: `is not a free model here; give one of ${deps.models.map(({ alias }) => alias).join(', ') || 'none'}`,
    })
  return model
}
