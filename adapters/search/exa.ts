import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Search from '../../core/Search.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { resultsOf } from './results.js'

/**
 * Exa's search (`POST https://api.exa.ai/search` with `x-api-key` and `{ query, numResults, type: "auto", contents: {
 * text: { maxCharacters } }, includeDomains?, excludeDomains? }`), answering `{ requestId, results: [{ id, url, title,
 * publishedDate, author, text }] }`, with no short answer. It honours the domain lists, not depth nor topic. Keyed:
 * unavailable until `apiKey` is set.
 */
export function exa(parameters: exa.Parameters): Search.Engine {
  const { baseUrl = 'https://api.exa.ai', apiKey, ...options } = parameters
  const client = vendor({
    id: 'exa',
    name: 'Exa',
    baseUrl,
    auth: { type: 'header', name: 'x-api-key', value: apiKey, env: 'EXA_API_KEY' },
    timeoutMs: 20_000,
    retries: 1,
    rateLimit: { capacity: 5, refill: 5, intervalMs: 1_000, maxWaitMs: 2_000 },
    ...options,
  })
  return {
    source: 'exa',
    supports: ['includeDomains', 'excludeDomains'],
    async search({ query, max, includeDomains, excludeDomains }) {
      const outcome = await client.post(
        '/search',
        {
          query,
          numResults: max,
          type: 'auto',
          contents: { text: { maxCharacters: 500 } },
          ...(includeDomains?.length ? { includeDomains } : {}),
          ...(excludeDomains?.length ? { excludeDomains } : {}),
        },
        { idempotent: true, label: 'search' },
      )
      if (!outcome.ok) return outcome
      const read = client.read(() => {
        const results = fieldsOf(outcome.body).results
        if (!Array.isArray(results)) throw new UnreadableAnswerError('Exa answered no results')
        return resultsOf(results, { snippet: 'text', published: 'publishedDate', score: 'score' })
      })
      return 'ok' in read ? read : { ok: true, results: read, answer: null }
    },
    available: () => client.available(),
  }
}

export declare namespace exa {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.exa.ai' */
    baseUrl?: string
    /** Exa key; without it the engine is unavailable. */
    apiKey: string | undefined
  }
}
