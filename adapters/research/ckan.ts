import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { numberOf, stringOf } from './paper.js'

/**
 * A CKAN Action API (`{base}/action/package_search?q=&rows=`, data.gov's catalog by default), answering `{ success,
 * result: { count, results: [{ id, name, title, notes, organization: { title }, metadata_modified, resources: [{ name,
 * format, url }] }] } }`. Limit: 5 requests/s from this gateway (no published figure); answers cached an hour.
 */
export function ckan(parameters: ckan.Parameters): Research.DataCatalog {
  const { baseUrl = 'https://catalog.data.gov/api/3', userAgent, ...options } = parameters
  const client = vendor({
    id: 'ckan',
    name: 'the data catalog',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 5, refill: 5, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 60 * 60_000, maxEntries: 1_000 },
    ...options,
  })
  // Dataset pages live at the site's root: `https://catalog.data.gov/dataset/{name}`.
  const site = new URL(baseUrl).origin

  return {
    async search({ query, rows }) {
      const outcome = await client.get('/action/package_search', {
        query: { q: query, rows: String(rows) },
        label: 'package_search',
        check: (body) =>
          fieldsOf(body).success === true
            ? undefined
            : client.fail('failed', 'the data catalog answered success: false'),
      })
      if (!outcome.ok) return outcome
      const read = client.read(() => {
        const result = fieldsOf(fieldsOf(outcome.body).result)
        if (!Array.isArray(result.results)) throw new UnreadableAnswerError('the data catalog answered no results')
        return {
          total: numberOf(result.count) ?? result.results.length,
          datasets: result.results.map((entry) => {
            const dataset = fieldsOf(entry)
            const name = stringOf(dataset.name)
            return {
              id: String(dataset.id ?? ''),
              title: stringOf(dataset.title),
              description: stringOf(dataset.notes),
              organization: stringOf(fieldsOf(dataset.organization).title),
              modified: stringOf(dataset.metadata_modified),
              resources: (Array.isArray(dataset.resources) ? dataset.resources : []).map((resource) => {
                const fields = fieldsOf(resource)
                return { name: stringOf(fields.name), format: stringOf(fields.format), url: stringOf(fields.url) }
              }),
              url: name ? `${site}/dataset/${name}` : null,
            }
          }),
        }
      })
      return 'ok' in read ? read : { ok: true, ...read }
    },
    available: () => client.available(),
  }
}

export declare namespace ckan {
  type Parameters = vendor.Options & {
    /** Base URL of the Action API (`/action/...` is appended). @default 'https://catalog.data.gov/api/3' */
    baseUrl?: string
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}
