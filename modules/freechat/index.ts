import { type Static, Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import type { Limits } from './schema.js'
import * as Service from './service.js'

/** Free chat's environment: which models are free, and how much a free call and a client may ask. */
const env = Type.Object({
  FREE_CHAT_MODELS: Type.Optional(
    Type.String({
      defaultText: 'none: free chat unavailable',
      description:
        'the free models, comma-separated, each `alias=upstream-model-id` (e.g. `llama-3.3-70b=meta-llama/llama-3.3-70b-instruct:free`) or a bare upstream id; the first is the default. Pick small, cheap models: every free call is paid by the operator on `CHAT_UPSTREAM_URL`',
    }),
  ),
  FREE_CHAT_MAX_TOKENS: Type.Integer({
    minimum: 1,
    maximum: 4_096,
    default: 256,
    description: 'ceiling of `max_tokens` of a free call; also sent when a caller gives none',
  }),
  FREE_CHAT_MAX_MESSAGES: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 16,
    description: 'most messages in a free conversation',
  }),
  FREE_CHAT_MAX_CHARACTERS: Type.Integer({
    minimum: 1,
    maximum: 200_000,
    default: 4_000,
    description: 'most characters of all messages of a free conversation together (text only)',
  }),
  FREE_CHAT_PER_DAY: Type.Integer({
    minimum: 0,
    default: 50,
    description:
      'calls a day each client (by source address) may make to `/free/chat` and `/free/chat/models` together, refilled evenly, in bursts of `FREE_CHAT_BURST`; beyond it a 429 with `Retry-After`; `0`: no per-client limit',
  }),
  FREE_CHAT_BURST: Type.Integer({
    minimum: 1,
    default: 5,
    description: 'most free chat calls a client may make at once before `FREE_CHAT_PER_DAY` paces it',
  }),
  FREE_CHAT_DAILY_BUDGET: Type.Integer({
    minimum: 0,
    default: 1_000,
    description:
      'free chat completions a day all clients together may have from one gateway process, refilled evenly; beyond it a 429 with `Retry-After` for everyone, so that many addresses cannot drain the upstream; `0`: no budget',
  }),
})

/** Free chat's limits, read from its environment. */
function limitsOf(parsed: Static<typeof env>): Limits {
  return {
    models: Service.modelsOf(parsed.FREE_CHAT_MODELS),
    maxTokens: parsed.FREE_CHAT_MAX_TOKENS,
    maxMessages: parsed.FREE_CHAT_MAX_MESSAGES,
    maxCharacters: parsed.FREE_CHAT_MAX_CHARACTERS,
  }
}

/**
 * Free chat (`POST /free/chat`, `GET /free/chat/models`): the original gateway's free open-weight chat, on the chat
 * upstream paid chat completions use, bounded so that it cannot drain it: only the operator's free models, a short
 * answer, a small conversation, a per-client daily limit and a daily budget for everyone. Unavailable (503) until a
 * chat upstream and a free model are configured.
 */
export const manifest = Module.define({
  name: 'free-chat',
  paths: ['/free/chat'],
  needs: ['chat'],
  env,
  rateLimit: (parsed) =>
    parsed.FREE_CHAT_PER_DAY === 0
      ? undefined
      : { capacity: parsed.FREE_CHAT_BURST, refill: parsed.FREE_CHAT_PER_DAY, intervalMs: 86_400_000 },
  routes: ({ ports, env: parsed }) =>
    routes({
      upstream: ports.chat,
      ...limitsOf(parsed),
      budget: Service.budget({ perDay: parsed.FREE_CHAT_DAILY_BUDGET, now: Date.now }),
    }),
  ready: ({ ports, env: parsed }) => Service.readiness({ upstream: ports.chat, models: limitsOf(parsed).models }),
})
