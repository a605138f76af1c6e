import { type Static, Type } from '@sinclair/typebox'
import { ConfigError } from '../../core/Errors.js'
import { chatMeter, type Meters, parsePrices } from '../../core/Meter.js'
import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import type { ImagesLimits, Limits } from './schema.js'
import * as Service from './service.js'

export { available } from './service.js'

/**
 * The AI module (`POST /api/v1/chat/completions`, `GET /api/v1/models`, `GET /free/models`) on an OpenAI-compatible
 * upstream. Throws at boot when no model is allowed or the token ceiling is not a positive integer.
 */
export function ai(deps: ai.Deps) {
  Service.assertLimits(deps)
  return Routes.chat(deps)
}

export declare namespace ai {
  /** The upstream, the allowed models and the max_tokens ceiling. */
  type Deps = Service.Deps
}

/**
 * The decentralized-inference module (`/decentralized/v1/*`: chat completions, embeddings, image generation,
 * models) on a second, separately configured OpenAI-compatible upstream.
 */
export function decentralized(deps: decentralized.Deps) {
  Service.assertLimits(deps)
  return Routes.decentralized(deps)
}

export declare namespace decentralized {
  /** The upstream, the allowed models and the max_tokens ceiling. */
  type Deps = Service.InferenceDeps
}

/** The ai family's environment: what callers may do on the chat upstream for the fixed price of a call. */
const chatEnv = Type.Object({
  CHAT_ALLOWED_MODELS: Type.Optional(
    Type.String({
      defaultText: 'none (required with `CHAT_UPSTREAM_URL`)',
      description: 'comma-separated model ids callers may use; any other is a 400 before payment',
    }),
  ),
  CHAT_MAX_TOKENS: Type.Integer({
    minimum: 1,
    default: 1024,
    description: 'ceiling of `max_tokens` per call (the price is fixed per call); also sent when a caller gives none',
  }),
  CHAT_UPTO_PRICES: Type.Optional(
    Type.String({
      defaultText: 'none (fixed price only)',
      description:
        "token prices per model, `model=inPerMTok:outPerMTok, ...` in atomic USDC per million tokens: these models are also offered with x402 `upto`, charged by the upstream's `usage`",
    }),
  ),
})

/** The decentralized family's environment: what callers may do on its upstream for the fixed price of a call. */
const decentralizedEnv = Type.Object({
  DECENTRALIZED_ALLOWED_MODELS: Type.Optional(
    Type.String({
      defaultText: 'none (required with `DECENTRALIZED_UPSTREAM_URL`)',
      description: 'comma-separated model ids callers may use',
    }),
  ),
  DECENTRALIZED_MAX_TOKENS: Type.Integer({
    minimum: 1,
    default: 1024,
    description: 'ceiling of `max_tokens` per decentralized chat completion',
  }),
  DECENTRALIZED_UPTO_PRICES: Type.Optional(
    Type.String({
      defaultText: 'none (fixed price only)',
      description:
        'token prices per model of decentralized chat completions, as `CHAT_UPTO_PRICES`: offered with x402 `upto` too',
    }),
  ),
  DECENTRALIZED_IMAGE_MODEL: Type.Optional(
    Type.String({
      defaultText: 'none: image generations must name `model`',
      description:
        "the allowed model an image generation without `model` draws with (the original gateway's clients send none); one of `DECENTRALIZED_ALLOWED_MODELS`",
    }),
  ),
})

/**
 * The allowed models of a comma-separated list; throws at boot when there is none, since the upstream's port exists
 * only when `<prefix>_UPSTREAM_URL` is set.
 */
function modelsOf(list: string | undefined, prefix: 'CHAT' | 'DECENTRALIZED'): string[] {
  const models = (list ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '')
  if (models.length === 0)
    throw new ConfigError(
      `${prefix}_ALLOWED_MODELS is required with ${prefix}_UPSTREAM_URL: the comma-separated model ids callers may use for the fixed price.`,
    )
  return models
}

/** The limits of the chat upstream, read from the ai family's environment. */
function chatLimits(env: Static<typeof chatEnv>): Limits {
  return { models: modelsOf(env.CHAT_ALLOWED_MODELS, 'CHAT'), maxTokens: env.CHAT_MAX_TOKENS }
}

/**
 * The limits of the decentralized upstream, read from the decentralized family's environment; throws at boot when
 * the image model is not an allowed one.
 */
function decentralizedLimits(env: Static<typeof decentralizedEnv>): Limits & ImagesLimits {
  const models = modelsOf(env.DECENTRALIZED_ALLOWED_MODELS, 'DECENTRALIZED')
  const imageModel = env.DECENTRALIZED_IMAGE_MODEL?.trim() || undefined
  if (imageModel !== undefined && !models.includes(imageModel))
    throw new ConfigError(
      `DECENTRALIZED_IMAGE_MODEL must be one of DECENTRALIZED_ALLOWED_MODELS (${models.join(', ')}); got ${imageModel}.`,
    )
  return { models, maxTokens: env.DECENTRALIZED_MAX_TOKENS, imageModel }
}

/**
 * Chat completions and models (`/api/v1/chat/*`, `/api/v1/models`, and `/free/models`, the model list's free mirror)
 * on an OpenAI-compatible upstream.
 */
export const manifest = Module.define({
  name: 'ai',
  paths: ['/api/v1/chat/', '/api/v1/models', '/free/models'],
  needs: ['chat'],
  env: chatEnv,
  routes: ({ ports, env }) => ai({ upstream: ports.chat, ...chatLimits(env) }),
  ready: ({ ports }) => Module.reasonOf(ports.chat.available()),
  meters: (env): Meters => {
    const { models, maxTokens } = chatLimits(env)
    const prices = parsePrices(env.CHAT_UPTO_PRICES, models, 'CHAT_UPTO_PRICES')
    return prices.size === 0 ? {} : { 'POST /api/v1/chat/completions': chatMeter({ prices, maxTokens }) }
  },
})

/** Decentralized inference (`/decentralized/v1/*`) on a second OpenAI-compatible upstream. */
export const decentralizedManifest = Module.define({
  name: 'decentralized',
  paths: ['/decentralized/v1/'],
  needs: ['decentralized'],
  env: decentralizedEnv,
  routes: ({ ports, env }) => decentralized({ upstream: ports.decentralized, ...decentralizedLimits(env) }),
  ready: ({ ports }) => Module.reasonOf(ports.decentralized.available()),
  meters: (env): Meters => {
    const { models, maxTokens } = decentralizedLimits(env)
    const prices = parsePrices(env.DECENTRALIZED_UPTO_PRICES, models, 'DECENTRALIZED_UPTO_PRICES')
    return prices.size === 0 ? {} : { 'POST /decentralized/v1/chat/completions': chatMeter({ prices, maxTokens }) }
  },
})
