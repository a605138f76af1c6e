import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { doiOf, numberOf, stringOf } from './paper.js'

/** Site of each server, for landing pages. */
const sites = { biorxiv: 'https://www.biorxiv.org', medrxiv: 'https://www.medrxiv.org' } as const

/**
 * The bioRxiv and medRxiv details API (`https://api.biorxiv.org/details/{server}/{interval}/{cursor}/json`, where the
 * interval is a DOI, `YYYY-MM-DD/YYYY-MM-DD` or `Nd`; `?category=`), answering `{ messages: [{ status, total }],
 * collection: [{ doi, title, authors: "A; B", date, version, category, abstract, published, server }] }`; an unknown
 * DOI is an empty collection. Limit: 1 request/s (no published figure; polite); answers cached an hour.
 */
export function biorxiv(parameters: biorxiv.Parameters): Research.PreprintServer {
  const { baseUrl = 'https://api.biorxiv.org', userAgent, ...options } = parameters
  const client = vendor({
    id: 'biorxiv',
    name: 'the bioRxiv API',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: 2, refill: 1, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 60 * 60_000, maxEntries: 1_000 },
    ...options,
  })

  return {
    async byDoi({ server, doi }) {
      const outcome = await client.get(`/details/${server}/${doi}/na/json`, { label: 'details' })
      if (!outcome.ok) return outcome
      const read = client.read(() => collectionOf(outcome.body))
      if ('ok' in read) return read
      // Every version of the preprint is listed, oldest first.
      const latest = read.at(-1)
      return { ok: true, found: latest ? paperOf(latest, server) : null }
    },
    async recent({ server, days, category, max }) {
      const outcome = await client.get(`/details/${server}/${days}d/0/json`, {
        query: category ? { category } : {},
        label: 'details',
      })
      if (!outcome.ok) return outcome
      const read = client.read(() => collectionOf(outcome.body))
      if ('ok' in read) return read
      const total = numberOf(fieldsOf((fieldsOf(outcome.body).messages as unknown[])?.[0]).total) ?? read.length
      const papers = read
        .map((entry) => paperOf(entry, server))
        .reverse()
        .slice(0, max)
      return { ok: true, total, papers }
    },
    available: () => client.available(),
  }
}

export declare namespace biorxiv {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.biorxiv.org' */
    baseUrl?: string
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}

function collectionOf(body: unknown): Record<string, unknown>[] {
  const answer = fieldsOf(body)
  if (!Array.isArray(answer.messages)) throw new UnreadableAnswerError('the bioRxiv API answered no messages')
  return (Array.isArray(answer.collection) ? answer.collection : []).map(fieldsOf)
}

function paperOf(entry: Record<string, unknown>, server: 'biorxiv' | 'medrxiv'): Research.Paper {
  const doi = doiOf(entry.doi)
  const date = stringOf(entry.date)
  const version = stringOf(entry.version) ?? '1'
  const landing = doi ? `${sites[server]}/content/${doi}v${version}` : null
  const published = doiOf(entry.published)
  return {
    source: server,
    title: stringOf(entry.title),
    authors: (stringOf(entry.authors) ?? '')
      .split(';')
      .map((name) => name.trim())
      .filter(Boolean)
      .map((name) => ({ name, orcid: null })),
    venue: server === 'biorxiv' ? 'bioRxiv' : 'medRxiv',
    year: date ? Number(date.slice(0, 4)) : null,
    published: date,
    doi,
    ids: {
      ...(stringOf(entry.category) ? { category: stringOf(entry.category)! } : {}),
      version,
      ...(published ? { publishedDoi: published } : {}),
    },
    abstract: stringOf(entry.abstract),
    citationCount: null,
    urls: { landing, pdf: landing ? `${landing}.full.pdf` : null },
  }
}
