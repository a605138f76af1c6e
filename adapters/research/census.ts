import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { vendor } from '../vendor/vendor.js'

/**
 * The US Census Data API (`https://api.census.gov/data/{year}/{dataset}?get=&for=&in=&key=`), answering an array of
 * rows whose first row names the columns; 204 (no body) when nothing matches, 400 plain text (`error: unknown
 * variable ...`) for bad input. A key is optional (without one, about 500 queries a day per address). Limit: 5
 * requests/s from this gateway; answers cached a day (published estimates do not change).
 */
export function census(parameters: census.Parameters): Research.Census {
  const { baseUrl = 'https://api.census.gov/data', apiKey, userAgent, ...options } = parameters
  const client = vendor({
    id: 'census',
    name: 'the Census Data API',
    baseUrl,
    auth: apiKey ? { type: 'query', name: 'key', value: apiKey } : { type: 'none' },
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 5, refill: 5, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 24 * 60 * 60_000, maxEntries: 2_000 },
    ...options,
  })

  return {
    async query({ year, dataset, variables, geography }) {
      const place: Record<string, string> =
        geography.kind === 'state'
          ? { for: `state:${geography.state}` }
          : geography.kind === 'county'
            ? { for: `county:${geography.county}`, in: `state:${geography.state}` }
            : geography.kind === 'zip'
              ? { for: `zip code tabulation area:${geography.zip}` }
              : { for: geography.geo }
      const outcome = await client.get(`/${year}/${dataset}`, {
        query: { get: variables.join(','), ...place },
        accept: [404],
        label: 'data',
      })
      if (!outcome.ok) return outcome
      // 204: no row matches the place; 404: no such dataset or year.
      if (outcome.status === 404 || outcome.status === 204 || outcome.body === undefined)
        return { ok: true, found: null }
      const read = client.read(() => {
        const table = outcome.body
        if (!Array.isArray(table) || !Array.isArray(table[0]))
          throw new UnreadableAnswerError('the Census Data API answered no table')
        const [header, ...rows] = table as unknown[][]
        return rows.map((row) =>
          Object.fromEntries(
            header!.map((name, index) => [String(name), row[index] == null ? null : String(row[index])]),
          ),
        )
      })
      if ('ok' in read) return read
      return { ok: true, found: read.length === 0 ? null : read }
    },
    available: () => client.available(),
  }
}

export declare namespace census {
  type Parameters = vendor.Options & {
    /** Base URL of the API (`/{year}/{dataset}` is appended). @default 'https://api.census.gov/data' */
    baseUrl?: string
    /** Census API key (optional). */
    apiKey?: string | undefined
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}
