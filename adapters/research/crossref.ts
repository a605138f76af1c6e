import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { datePartsOf, doiOf, doiPath, numberOf, orcidOf, papersOf, stringOf, stringsOf } from './paper.js'

/**
 * Crossref's REST API (`https://api.crossref.org`): `GET /works/{doi}`, `GET /works?query=&rows=&offset=` and `GET
 * /journals/{issn}`, each answering `{ status: "ok", message-type, message }`; an unknown DOI or ISSN is a plain-text
 * 404 ("Resource not found."). The polite pool takes a `mailto` (and the same contact in the User-Agent). Limit: 10
 * requests/s, under the 50/s Crossref documented until its December 2025 revision (the revised figures were not
 * confirmed); answers cached a day.
 */
export function crossref(parameters: crossref.Parameters): Research.Registry {
  const { baseUrl = 'https://api.crossref.org', contact, userAgent, ...options } = parameters
  const client = vendor({
    id: 'crossref',
    name: 'Crossref',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 10, refill: 10, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 24 * 60 * 60_000, maxEntries: 2_000 },
    ...options,
  })
  const polite: Record<string, string> = contact ? { mailto: contact } : {}

  /** The `message` of one record; `null` on 404. */
  async function record(path: string, label: string) {
    const outcome = await client.get(path, { query: polite, accept: [404], label })
    if (!outcome.ok) return outcome
    return { ok: true as const, message: outcome.status === 404 ? null : fieldsOf(fieldsOf(outcome.body).message) }
  }

  return {
    async byDoi(doi) {
      const found = await record(`/works/${doiPath(doi)}`, 'work')
      if (!found.ok || !found.message) return found.ok ? { ok: true, found: null } : found
      const message = found.message
      const read = client.read(() => ({
        paper: workOf(message),
        type: stringOf(message.type),
        references: Array.isArray(message.reference)
          ? message.reference.map((reference) => {
              const fields = fieldsOf(reference)
              return { doi: doiOf(fields.DOI), text: stringOf(fields.unstructured) }
            })
          : [],
      }))
      return 'ok' in read ? read : { ok: true, found: read }
    },
    async search({ query, rows, offset }) {
      const outcome = await client.get('/works', {
        query: { ...polite, query, rows: String(rows), offset: String(offset) },
        label: 'works',
      })
      if (!outcome.ok) return outcome
      const message = fieldsOf(outcome.body).message
      const read = client.read(() => papersOf(message, (body) => fieldsOf(body)['total-results'], 'items', workOf))
      return 'ok' in read ? read : { ok: true, ...read }
    },
    async journal(issn) {
      const found = await record(`/journals/${encodeURIComponent(issn)}`, 'journal')
      if (!found.ok || !found.message) return found.ok ? { ok: true, found: null } : found
      const message = found.message
      const counts = fieldsOf(message.counts)
      return {
        ok: true,
        found: {
          title: stringOf(message.title),
          publisher: stringOf(message.publisher),
          issns: Array.isArray(message['issn-type'])
            ? message['issn-type'].map((entry) => {
                const fields = fieldsOf(entry)
                return { value: String(fields.value ?? ''), type: stringOf(fields.type) }
              })
            : stringsOf(message.ISSN).map((value) => ({ value, type: null })),
          subjects: Array.isArray(message.subjects)
            ? message.subjects.flatMap((subject) => stringOf(fieldsOf(subject).name) ?? [])
            : [],
          dois: {
            total: numberOf(counts['total-dois']),
            current: numberOf(counts['current-dois']),
            backfile: numberOf(counts['backfile-dois']),
          },
        },
      }
    },
    available: () => client.available(),
  }
}

export declare namespace crossref {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.crossref.org' */
    baseUrl?: string
    /** The operator's email, sent as `mailto` (Crossref's polite pool). */
    contact?: string | undefined
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}

/** A Crossref work as a {@link Research.Paper}. */
function workOf(value: unknown): Research.Paper {
  const work = fieldsOf(value)
  const published = datePartsOf(work.published) ?? datePartsOf(work['published-print']) ?? datePartsOf(work.issued)
  const link = Array.isArray(work.link)
    ? work.link.map(fieldsOf).find((entry) => entry['content-type'] === 'application/pdf')
    : undefined
  // Crossref abstracts are JATS XML; the text is kept, the tags dropped.
  const abstract = stringOf(work.abstract)
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return {
    source: 'crossref',
    title: stringsOf(work.title)[0] ?? null,
    authors: Array.isArray(work.author)
      ? work.author.map((entry) => {
          const author = fieldsOf(entry)
          const name = [stringOf(author.given), stringOf(author.family)].filter(Boolean).join(' ')
          return { name: name || (stringOf(author.name) ?? ''), orcid: orcidOf(author.ORCID) }
        })
      : [],
    venue: stringsOf(work['container-title'])[0] ?? null,
    year: published ? Number(published.slice(0, 4)) : null,
    published,
    doi: doiOf(work.DOI),
    ids: {},
    abstract: abstract || null,
    citationCount: numberOf(work['is-referenced-by-count']),
    urls: { landing: stringOf(work.URL), pdf: stringOf(link?.URL) },
  }
}
