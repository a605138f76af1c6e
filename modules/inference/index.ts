import { Type } from '@sinclair/typebox'
import * as ContractSource from '../../core/ContractSource.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import { outputs } from './schema.js'
import type { Deps } from './service.js'

/** Base mainnet's chain id, the one chain `INFERENCE_BLOCKSCOUT_URL` indexes. */
const baseChainId = EvmChain.find('base')!.chainId

/** The inference module, mounted by the gateway. */
export function inference(deps: Deps) {
  return routes(deps)
}

/** The inference family's environment: the model asked, and Base's explorer linked to callers. */
const env = Type.Object({
  INFERENCE_MODEL: Type.Optional(
    Type.String({
      minLength: 1,
      defaultText: 'none (the inference endpoints answer 503)',
      description:
        'model id of the chat upstream (`CHAT_UPSTREAM_URL`) that the inference endpoints ask; it must support `response_format` `json_schema`',
    }),
  ),
  INFERENCE_BLOCKSCOUT_URL: ContractSource.blockscoutUrlVariable,
})

/**
 * AI analysis (`/api/v1/inference/*`): facts read from the settlement chain first (code, balances, history, decoded
 * transactions, verified source), then a structured answer from the chat upstream, validated, with the facts.
 */
export const manifest = Module.define({
  name: 'inference',
  paths: ['/api/v1/inference/'],
  needs: ['chat', 'settlementChain', 'onchain', 'history'],
  uses: ['contractSources'],
  env,
  outputs,
  routes: ({ ports, env }) =>
    inference({
      endpoint: ports.settlementChain,
      history: ports.history,
      tokens: ports.onchain.tokens,
      sources: ports.contractSources ?? [],
      chat: ports.chat,
      // Checked by `ready` before any call is taken.
      model: env.INFERENCE_MODEL ?? '',
      // The Blockscout explorer is Base's: a devnet or another chain has no configured explorer to link.
      explorerUrl: ports.onchain.chainId === baseChainId ? env.INFERENCE_BLOCKSCOUT_URL : undefined,
    }),
  ready: ({ ports, env }) =>
    env.INFERENCE_MODEL === undefined
      ? 'INFERENCE_MODEL is not set: no model is named for the analysis.'
      : (Module.reasonOf(ports.chat.available()) ?? Module.reasonOf(ports.history.available())),
})
