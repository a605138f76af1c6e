import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import * as Service from './service.js'

export { available } from './service.js'

/**
 * The AI module (`POST /api/v1/chat/completions`, `GET /api/v1/models`) on an OpenAI-compatible upstream. Throws
 * at boot when no model is allowed or the token ceiling is not a positive integer.
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

/** Chat completions and models (`/api/v1/chat/*`, `/api/v1/models`) on an OpenAI-compatible upstream. */
export const manifest = Module.define({
  name: 'ai',
  paths: ['/api/v1/chat/', '/api/v1/models'],
  needs: ['chat'],
  routes: ({ ports }) => ai(ports.chat),
  ready: ({ ports }) => Module.reasonOf(ports.chat.upstream.available()),
})

/** Decentralized inference (`/decentralized/v1/*`) on a second OpenAI-compatible upstream. */
export const decentralizedManifest = Module.define({
  name: 'decentralized',
  paths: ['/decentralized/v1/'],
  needs: ['decentralized'],
  routes: ({ ports }) => decentralized(ports.decentralized),
  ready: ({ ports }) => Module.reasonOf(ports.decentralized.upstream.available()),
})
