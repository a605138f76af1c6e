import type * as Search from '../../core/Search.js'
import { fieldsOf, Unreadable, vendor } from '../vendor/vendor.js'
import { resultsOf } from './results.js'

/**
 * Tavily's search API (`POST https://api.tavily.com/search` with `Authorization: Bearer tvly-...` and `{ query,
 * max_results, search_depth }`), answering `{ query, results: [{ title, url, content, score, published_date? }],
 * response_time }`. Keyed: unavailable until `apiKey` is set. Answers are not cached (a search is a POST).
 */
export function tavily(parameters: tavily.Parameters): Search.Engine {
  const { baseUrl = 'https://api.tavily.com', apiKey, ...options } = parameters
  const client = vendor({
    id: 'tavily',
    name: 'Tavily',
    baseUrl,
    auth: { type: 'bearer', token: apiKey, env: 'TAVILY_API_KEY' },
    timeoutMs: 20_000,
    retries: 1,
    rateLimit: { capacity: 10, refill: 10, intervalMs: 1_000, maxWaitMs: 2_000 },
    ...options,
  })
  return {
    source: 'tavily',
    async search({ query, max }) {
      const outcome = await client.post(
        '/search',
        { query, max_results: max, search_depth: 'basic' },
        { idempotent: true, label: 'search' },
      )
      if (!outcome.ok) return outcome
      const read = client.read(() => {
        const results = fieldsOf(outcome.body).results
        if (!Array.isArray(results)) throw new Unreadable('Tavily answered no results')
        return resultsOf(results, { snippet: 'content', published: 'published_date', score: 'score' })
      })
      return 'ok' in read ? read : { ok: true, results: read }
    },
    available: () => client.available(),
  }
}

export declare namespace tavily {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.tavily.com' */
    baseUrl?: string
    /** Tavily key (`tvly-...`); without it the engine is unavailable. */
    apiKey: string | undefined
  }
}
