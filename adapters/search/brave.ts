import type * as Search from '../../core/Search.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { resultsOf } from './results.js'

/**
 * Brave Search's web search (`GET https://api.search.brave.com/res/v1/web/search?q=&count=` with
 * `X-Subscription-Token`), answering `{ query, web: { results: [{ title, url, description, page_age? }] } }`, with no
 * short answer; it honours no search option beyond the query. Keyed; answers cached 10 minutes.
 */
export function brave(parameters: brave.Parameters): Search.Engine {
  const { baseUrl = 'https://api.search.brave.com/res/v1', apiKey, ...options } = parameters
  const client = vendor({
    id: 'brave',
    name: 'Brave Search',
    baseUrl,
    auth: { type: 'header', name: 'X-Subscription-Token', value: apiKey, env: 'BRAVE_API_KEY' },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 1, refill: 1, intervalMs: 1_000, maxWaitMs: 3_000 },
    cache: { ttlMs: 10 * 60_000, maxEntries: 1_000 },
    ...options,
  })
  return {
    source: 'brave',
    supports: [],
    async search({ query, max }) {
      const outcome = await client.get('/web/search', { query: { q: query, count: String(max) }, label: 'search' })
      if (!outcome.ok) return outcome
      // A query with no web results answers without `web`.
      const results = fieldsOf(fieldsOf(outcome.body).web).results
      return {
        ok: true,
        results: resultsOf(Array.isArray(results) ? results : [], { snippet: 'description', published: 'page_age' }),
        answer: null,
      }
    },
    available: () => client.available(),
  }
}

export declare namespace brave {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.search.brave.com/res/v1' */
    baseUrl?: string
    /** Subscription token; without it the engine is unavailable. */
    apiKey: string | undefined
  }
}
