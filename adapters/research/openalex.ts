import type * as Research from '../../core/Research.js'
import type { Outcome } from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { doiOf, doiPath, numberOf, orcidOf, papersOf, stringOf } from './paper.js'

/** Fields of a work every answer selects (keeps OpenAlex's answers small). */
const workFields =
  'id,doi,ids,title,display_name,publication_year,publication_date,authorships,primary_location,abstract_inverted_index,cited_by_count'

/**
 * OpenAlex (`https://api.openalex.org`): `GET /works/doi:{doi}`, `GET /works?search=&filter=&sort=&per_page=&page=`,
 * `GET /authors/orcid:{orcid}` and `GET /authors?search=`, answering `{ meta: { count }, results: [Work] }` for lists
 * and 404 for an unknown id. The polite pool takes a `mailto`; a key (`api_key`) is optional. Limit: 10 requests/s;
 * answers cached an hour.
 */
export function openalex(parameters: openalex.Parameters): Research.WorksIndex {
  const { baseUrl = 'https://api.openalex.org', apiKey, contact, userAgent, ...options } = parameters
  const client = vendor({
    id: 'openalex',
    name: 'OpenAlex',
    baseUrl,
    auth: apiKey ? { type: 'query', name: 'api_key', value: apiKey } : { type: 'none' },
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 10, refill: 10, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 60 * 60_000, maxEntries: 2_000 },
    ...options,
  })
  const polite: Record<string, string> = contact ? { mailto: contact } : {}

  /** One work by DOI or OpenAlex id; `null` on 404. */
  async function work(id: string): Promise<Research.Found<Research.Paper>> {
    const outcome = await client.get(`/works/${doiPath(id)}`, {
      query: { ...polite, select: workFields },
      accept: [404],
      label: 'work',
    })
    if (!outcome.ok) return outcome
    if (outcome.status === 404) return { ok: true, found: null }
    const read = client.read(() => workOf(outcome.body))
    return 'ok' in read ? read : { ok: true, found: read }
  }

  /** A page of works. */
  async function works(query: Record<string, string>): Promise<Outcome<Research.Papers>> {
    const outcome = await client.get('/works', { query: { ...polite, select: workFields, ...query }, label: 'works' })
    if (!outcome.ok) return outcome
    const read = client.read(() =>
      papersOf(outcome.body, (body) => fieldsOf(fieldsOf(body).meta).count, 'results', workOf),
    )
    return 'ok' in read ? read : { ok: true, ...read }
  }

  return {
    byDoi: (doi) => work(`doi:${doi}`),
    search: ({ query, filter, page, perPage }) =>
      works({ search: query, page: String(page), per_page: String(perPage), ...(filter ? { filter } : {}) }),
    async byAuthor({ name, orcid, page: number, perPage }) {
      const outcome = orcid
        ? await client.get(`/authors/orcid:${orcid}`, { query: polite, accept: [404], label: 'author' })
        : await client.get('/authors', { query: { ...polite, search: name ?? '', per_page: '1' }, label: 'authors' })
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, found: null }
      const author = orcid ? fieldsOf(outcome.body) : fieldsOf((fieldsOf(outcome.body).results as unknown[])?.[0])
      const id = stringOf(author.id)?.replace('https://openalex.org/', '')
      if (!id) return { ok: true, found: null }
      const page = await works({
        filter: `author.id:${id}`,
        sort: 'cited_by_count:desc',
        page: String(number),
        per_page: String(perPage),
      })
      if (!page.ok) return page
      const { ok: _, ...found } = page
      return {
        ok: true,
        found: {
          ...found,
          author: {
            id,
            name: stringOf(author.display_name) ?? '',
            orcid: orcidOf(author.orcid),
            works: numberOf(author.works_count),
          },
        },
      }
    },
    async citations(parameters) {
      const found = await work('doi' in parameters ? `doi:${parameters.doi}` : parameters.id)
      if (!found.ok || !found.found) return found as Research.Found<never>
      const paper = found.found
      const citing = await works({
        filter: `cites:${paper.ids.openalex}`,
        sort: 'cited_by_count:desc',
        per_page: String(parameters.perPage),
      })
      if (!citing.ok) return citing
      const referenced = await client.get(`/works/${paper.ids.openalex}`, {
        query: { ...polite, select: 'referenced_works,cited_by_api_url' },
        label: 'references',
      })
      if (!referenced.ok) return referenced
      const { referenced_works: list, cited_by_api_url: citedByApiUrl } = fieldsOf(referenced.body)
      const references = Array.isArray(list)
        ? list.flatMap((entry) => (typeof entry === 'string' ? [entry.replace('https://openalex.org/', '')] : []))
        : []
      return {
        ok: true,
        found: {
          paper,
          citedBy: { total: citing.total, papers: citing.papers },
          references,
          citedByApiUrl: stringOf(citedByApiUrl),
        },
      }
    },
    trending: ({ topic, since, perPage }) =>
      works({
        filter: `from_publication_date:${since}`,
        sort: 'cited_by_count:desc',
        per_page: String(perPage),
        ...(topic ? { search: topic } : {}),
      }),
    available: () => client.available(),
  }
}

export declare namespace openalex {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.openalex.org' */
    baseUrl?: string
    /** Key of the API (optional: it raises the daily budget). */
    apiKey?: string | undefined
    /** The operator's email, sent as `mailto` (OpenAlex's polite pool). */
    contact?: string | undefined
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}

/** The abstract of an `abstract_inverted_index` (`{ word: [positions] }`), its words put back in order. */
export function abstractOf(index: unknown): string | null {
  const entries = Object.entries(fieldsOf(index))
  if (entries.length === 0) return null
  const words: string[] = []
  for (const [word, positions] of entries)
    if (Array.isArray(positions))
      for (const position of positions) if (typeof position === 'number' && position < 100_000) words[position] = word
  return words.filter((word) => word !== undefined).join(' ')
}

/** An OpenAlex Work as a {@link Research.Paper}. */
function workOf(value: unknown): Research.Paper {
  const work = fieldsOf(value)
  const location = fieldsOf(work.primary_location)
  const ids: Record<string, string> = {}
  const openalexId = stringOf(work.id)?.replace('https://openalex.org/', '')
  if (openalexId) ids.openalex = openalexId
  const known = fieldsOf(work.ids)
  const pmid = stringOf(known.pmid)?.match(/([0-9]+)\/?$/)?.[1]
  if (pmid) ids.pmid = pmid
  const pmcid = stringOf(known.pmcid)?.match(/(PMC[0-9]+)\/?$/)?.[1]
  if (pmcid) ids.pmcid = pmcid
  return {
    source: 'openalex',
    title: stringOf(work.title) ?? stringOf(work.display_name),
    authors: Array.isArray(work.authorships)
      ? work.authorships.map((authorship) => {
          const author = fieldsOf(fieldsOf(authorship).author)
          return { name: stringOf(author.display_name) ?? '', orcid: orcidOf(author.orcid) }
        })
      : [],
    venue: stringOf(fieldsOf(location.source).display_name),
    year: numberOf(work.publication_year),
    published: stringOf(work.publication_date),
    doi: doiOf(work.doi),
    ids,
    abstract: abstractOf(work.abstract_inverted_index),
    citationCount: numberOf(work.cited_by_count),
    urls: { landing: stringOf(location.landing_page_url), pdf: stringOf(location.pdf_url) },
  }
}
