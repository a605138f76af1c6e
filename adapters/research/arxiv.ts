import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import type { Outcome } from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { doiOf, numberOf } from './paper.js'
import { textOf, xml } from './xml.js'

/**
 * The arXiv API (`https://export.arxiv.org/api/query?search_query=&id_list=&max_results=&sortBy=&sortOrder=`),
 * answering an Atom feed (`feed > entry[]` with `id`, `title`, `summary`, `published`, `author[] > name`, `link[]`,
 * `arxiv:primary_category`, `arxiv:doi`, `arxiv:journal_ref`; `opensearch:totalResults`), parsed with fast-xml-parser.
 * Limit: arXiv asks for one request every 3 s on one connection; callers queue for up to `maxWaitMs` (default 10 s,
 * so three wait behind one under way), then get a 503. Answers cached an hour (arXiv updates once a day).
 */
export function arxiv(parameters: arxiv.Parameters): Research.Preprints {
  const {
    baseUrl = 'https://export.arxiv.org/api',
    userAgent,
    intervalMs = 3_000,
    maxWaitMs = 10_000,
    ...options
  } = parameters
  const client = vendor({
    id: 'arxiv',
    name: 'arXiv',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 20_000,
    retries: 1,
    rateLimit: { capacity: 1, refill: 1, intervalMs, maxWaitMs },
    cache: { ttlMs: 60 * 60_000, maxEntries: 1_000 },
    ...options,
  })

  async function feed(query: Record<string, string>): Promise<Outcome<Research.Papers>> {
    const outcome = await client.get('/query', { query, format: 'text', type: 'application/atom+xml', label: 'query' })
    if (!outcome.ok) return outcome
    const read = client.read(() => feedOf(String(outcome.body)))
    return 'ok' in read ? read : { ok: true, ...read }
  }

  return {
    byIds: (ids) => feed({ id_list: ids.join(','), max_results: String(ids.length) }),
    search: ({ query, category, max }) => {
      const terms = (query ?? '')
        .split(/\s+/)
        .map((word) => word.replace(/[^\p{L}\p{N}-]/gu, ''))
        .filter(Boolean)
        .map((word) => `all:${word}`)
      const clauses = [...terms, ...(category ? [`cat:${category}`] : [])]
      return feed({
        search_query: clauses.join(' AND '),
        max_results: String(max),
        sortBy: 'submittedDate',
        sortOrder: 'descending',
      })
    },
    available: () => client.available(),
  }
}

export declare namespace arxiv {
  type Parameters = vendor.Options & {
    /** Base URL of the API (`/query` is appended). @default 'https://export.arxiv.org/api' */
    baseUrl?: string
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
    /** Least time between two requests, in ms (arXiv's terms ask for 3 s). @default 3_000 */
    intervalMs?: number
    /** Longest a call queues for its turn, in ms; past it the call is refused (503). @default 10_000 */
    maxWaitMs?: number
  }
}

/** The papers of an Atom feed of the arXiv API. */
export function feedOf(text: string): Research.Papers {
  const feed = fieldsOf(fieldsOf(xml.parse(text)).feed)
  if (Object.keys(feed).length === 0) throw new UnreadableAnswerError('arXiv answered no Atom feed')
  const entries = (Array.isArray(feed.entry) ? feed.entry : []).map(fieldsOf)
  // arXiv reports a malformed query as a feed with one entry titled "Error".
  const papers = entries.filter((entry) => textOf(entry.title) !== 'Error').map(entryOf)
  return { total: numberOf(textOf(feed.totalResults)) ?? papers.length, papers }
}

function entryOf(entry: Record<string, unknown>): Research.Paper {
  const abs = textOf(entry.id) ?? ''
  const id = abs.replace(/^https?:\/\/arxiv\.org\/abs\//, '')
  const links = (Array.isArray(entry.link) ? entry.link : []).map(fieldsOf)
  const published = textOf(entry.published)
  return {
    source: 'arxiv',
    title: textOf(entry.title),
    authors: (Array.isArray(entry.author) ? entry.author : []).map((author) => ({
      name: textOf(fieldsOf(author).name) ?? '',
      orcid: null,
    })),
    venue: textOf(entry.journal_ref) ?? 'arXiv',
    year: published ? Number(published.slice(0, 4)) : null,
    published: published ? published.slice(0, 10) : null,
    doi: doiOf(textOf(entry.doi)),
    ids: {
      arxiv: id,
      ...(textOf(fieldsOf(entry.primary_category).term)
        ? { category: textOf(fieldsOf(entry.primary_category).term)! }
        : {}),
    },
    abstract: textOf(entry.summary),
    citationCount: null,
    urls: {
      landing: links.find((link) => link.rel === 'alternate')?.href?.toString() ?? (abs || null),
      pdf: links.find((link) => link.title === 'pdf')?.href?.toString() ?? null,
    },
  }
}
