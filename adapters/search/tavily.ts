import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Search from '../../core/Search.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { resultsOf } from './results.js'

/**
 * Tavily's search API (`POST https://api.tavily.com/search` with `Authorization: Bearer tvly-...` and `{ query,
 * max_results, search_depth, topic, include_domains?, exclude_domains?, include_answer: true }`), answering `{ query,
 * answer, results: [{ title, url, content, score, published_date? }], response_time }`. It honours every search option.
 * Keyed: unavailable until `apiKey` is set. Answers are not cached (a search is a POST).
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
    supports: ['depth', 'topic', 'includeDomains', 'excludeDomains'],
    async search({ query, max, depth = 'basic', topic = 'general', includeDomains, excludeDomains }) {
      const outcome = await client.post(
        '/search',
        {
          query,
          max_results: max,
          search_depth: depth,
          topic,
          include_answer: true,
          ...(includeDomains?.length ? { include_domains: includeDomains } : {}),
          ...(excludeDomains?.length ? { exclude_domains: excludeDomains } : {}),
        },
        { idempotent: true, label: 'search' },
      )
      if (!outcome.ok) return outcome
      const read = client.read(() => {
        const body = fieldsOf(outcome.body)
        if (!Array.isArray(body.results)) throw new UnreadableAnswerError('Tavily answered no results')
        return {
          results: resultsOf(body.results, { snippet: 'content', published: 'published_date', score: 'score' }),
          answer: typeof body.answer === 'string' && body.answer !== '' ? body.answer : null,
        }
      })
      return 'ok' in read ? read : { ok: true, ...read }
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
