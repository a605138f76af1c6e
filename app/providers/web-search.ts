import { Type } from '@sinclair/typebox'
import { brave } from '../../adapters/search/brave.js'
import { exa } from '../../adapters/search/exa.js'
import { tavily } from '../../adapters/search/tavily.js'
import { define } from './shared.js'

/** The search API SEARCH_ENGINE names (Tavily by default, Brave Search or Exa), once its key is set; none before. */
export const webSearch = define({
  port: 'webSearch',
  description: 'a web search API (TAVILY_API_KEY, BRAVE_API_KEY or EXA_API_KEY)',
  env: Type.Object({
    SEARCH_ENGINE: Type.Union([Type.Literal('tavily'), Type.Literal('brave'), Type.Literal('exa')], {
      default: 'tavily',
      description: 'search API behind `/api/v1/search/web` and `/api/v1/search/qna`: `tavily`, `brave` or `exa`',
    }),
    TAVILY_URL: Type.String({ minLength: 1, default: 'https://api.tavily.com', description: 'Tavily API' }),
    TAVILY_API_KEY: Type.Optional(Type.String({ minLength: 1, secret: true, description: 'Tavily key (`tvly-...`)' })),
    BRAVE_SEARCH_URL: Type.String({
      minLength: 1,
      default: 'https://api.search.brave.com/res/v1',
      description: 'Brave Search API',
    }),
    BRAVE_API_KEY: Type.Optional(
      Type.String({ minLength: 1, secret: true, description: 'Brave Search subscription token' }),
    ),
    EXA_URL: Type.String({ minLength: 1, default: 'https://api.exa.ai', description: 'Exa API' }),
    EXA_API_KEY: Type.Optional(Type.String({ minLength: 1, secret: true, description: 'Exa key' })),
  }),
  build: ({ env }) => {
    if (env.SEARCH_ENGINE === 'brave')
      return env.BRAVE_API_KEY ? brave({ baseUrl: env.BRAVE_SEARCH_URL, apiKey: env.BRAVE_API_KEY }) : undefined
    if (env.SEARCH_ENGINE === 'exa')
      return env.EXA_API_KEY ? exa({ baseUrl: env.EXA_URL, apiKey: env.EXA_API_KEY }) : undefined
    return env.TAVILY_API_KEY ? tavily({ baseUrl: env.TAVILY_URL, apiKey: env.TAVILY_API_KEY }) : undefined
  },
})
