import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { doiOf, stringOf, stringsOf } from './paper.js'
import { textOf, xml } from './xml.js'

/** Month names of PubMed's `sortpubdate`-less dates. */
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/**
 * PubMed through NCBI E-utilities (`https://eutils.ncbi.nlm.nih.gov/entrez/eutils`): `esearch.fcgi` and `elink.fcgi`
 * (JSON) for ids, `esummary.fcgi` (JSON) for metadata and `efetch.fcgi` (XML only, parsed with fast-xml-parser) for
 * abstracts, each with `tool` and `email`, and `api_key` when set. Limit: 3 requests/s, 10 with a key (NCBI's
 * published limits); answers cached an hour.
 */
export function pubmed(parameters: pubmed.Parameters): Research.Biomedical {
  const {
    baseUrl = 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils',
    apiKey,
    contact,
    userAgent,
    ...options
  } = parameters
  const perSecond = apiKey ? 10 : 3
  const client = vendor({
    id: 'pubmed',
    name: 'NCBI E-utilities',
    baseUrl,
    auth: apiKey ? { type: 'query', name: 'api_key', value: apiKey } : { type: 'none' },
    headers: { 'user-agent': userAgent },
    timeoutMs: 15_000,
    retries: 1,
    rateLimit: { capacity: perSecond, refill: perSecond, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 60 * 60_000, maxEntries: 2_000 },
    ...options,
  })
  const identity = { tool: 'pay-per-call-gateway', ...(contact ? { email: contact } : {}) }

  /** The JSON of one E-utility; E-utilities report bad input as `{ error }` or `esearchresult.ERROR` with a 200. */
  async function utility(name: string, query: Record<string, string>) {
    return client.get(`/${name}.fcgi`, {
      query: { ...identity, db: 'pubmed', retmode: 'json', ...query },
      label: name,
      check: (body) => {
        const error = fieldsOf(body).error ?? fieldsOf(fieldsOf(body).esearchresult).ERROR
        return typeof error === 'string' ? client.fail('rejected', `E-utilities: ${error}`) : undefined
      },
    })
  }

  return {
    async byPmids(pmids) {
      const summaries = await utility('esummary', { id: pmids.join(',') })
      if (!summaries.ok) return summaries
      const abstracts = await client.get('/efetch.fcgi', {
        query: { ...identity, db: 'pubmed', id: pmids.join(','), retmode: 'xml', rettype: 'abstract' },
        format: 'text',
        type: 'application/xml',
        label: 'efetch',
      })
      if (!abstracts.ok) return abstracts
      const read = client.read(() => {
        const byPmid = abstractsOf(String(abstracts.body))
        const result = fieldsOf(fieldsOf(summaries.body).result)
        if (!Array.isArray(result.uids)) throw new UnreadableAnswerError('esummary answered no uids')
        return pmids.flatMap((pmid) => {
          const summary = fieldsOf(result[pmid])
          // An unknown id has a summary with only `uid` and `error`.
          if (summary.error !== undefined || !summary.title) return []
          return [summaryOf(pmid, summary, byPmid.get(pmid) ?? null)]
        })
      })
      return 'ok' in read ? read : { ok: true, papers: read }
    },
    async related({ pmid, max }) {
      const outcome = await utility('elink', { dbfrom: 'pubmed', id: pmid, cmd: 'neighbor_score' })
      if (!outcome.ok) return outcome
      const linksets = fieldsOf(outcome.body).linksets
      const set = Array.isArray(linksets) ? fieldsOf(linksets[0]) : {}
      const databases = Array.isArray(set.linksetdbs) ? set.linksetdbs.map(fieldsOf) : []
      const links = databases.find((database) => database.linkname === 'pubmed_pubmed')?.links
      const ids = (Array.isArray(links) ? links : [])
        .map((link) => (typeof link === 'object' ? String(fieldsOf(link).id) : String(link)))
        .filter((id) => id !== pmid)
      return { ok: true, pmids: ids.slice(0, max) }
    },
    async search({ query, max }) {
      const outcome = await utility('esearch', { term: query, retmax: String(max), sort: 'relevance' })
      if (!outcome.ok) return outcome
      const result = fieldsOf(fieldsOf(outcome.body).esearchresult)
      return { ok: true, total: Number(result.count ?? 0), pmids: stringsOf(result.idlist) }
    },
    available: () => client.available(),
  }
}

export declare namespace pubmed {
  type Parameters = vendor.Options & {
    /** Base URL of E-utilities. @default 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils' */
    baseUrl?: string
    /** NCBI API key (optional: 10 requests/s instead of 3). */
    apiKey?: string | undefined
    /** The operator's email, sent as `email` with `tool`, as NCBI asks. */
    contact?: string | undefined
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}

/** Abstracts of an efetch `PubmedArticleSet`, by PMID (structured abstracts keep their labels). */
function abstractsOf(text: string): Map<string, string> {
  const set = fieldsOf(fieldsOf(xml.parse(text)).PubmedArticleSet)
  const abstracts = new Map<string, string>()
  for (const article of Array.isArray(set.PubmedArticle) ? set.PubmedArticle : []) {
    const citation = fieldsOf(fieldsOf(article).MedlineCitation)
    const pmid = textOf(citation.PMID)
    const parts = fieldsOf(fieldsOf(fieldsOf(citation.Article).Abstract)).AbstractText
    if (!pmid || !Array.isArray(parts)) continue
    const text = parts
      .map((part) => {
        const body = textOf(part)
        const label = fieldsOf(part).Label
        return body && typeof label === 'string' ? `${label}: ${body}` : body
      })
      .filter(Boolean)
      .join('\n')
    if (text) abstracts.set(pmid, text)
  }
  return abstracts
}

/** `2019/08/22 00:00` (sortpubdate) or `2019 Aug 22` (pubdate) as `2019-08-22`. */
function dateOf(summary: Record<string, unknown>): string | null {
  const sorted = stringOf(summary.sortpubdate)?.match(/^([0-9]{4})\/([0-9]{2})\/([0-9]{2})/)
  if (sorted) return `${sorted[1]}-${sorted[2]}-${sorted[3]}`
  const [year, month, day] = (stringOf(summary.pubdate) ?? '').split(' ')
  if (!year || !/^[0-9]{4}$/.test(year)) return null
  const index = months.indexOf(month ?? '')
  if (index < 0) return year
  return `${year}-${String(index + 1).padStart(2, '0')}${day && /^[0-9]{1,2}$/.test(day) ? `-${day.padStart(2, '0')}` : ''}`
}

function summaryOf(pmid: string, summary: Record<string, unknown>, abstract: string | null): Research.Paper {
  const articleIds = (Array.isArray(summary.articleids) ? summary.articleids : []).map(fieldsOf)
  const idOf = (type: string) => stringOf(articleIds.find((entry) => entry.idtype === type)?.value)
  const pmcid = idOf('pmc')
  const published = dateOf(summary)
  return {
    source: 'pubmed',
    title: stringOf(summary.title),
    authors: (Array.isArray(summary.authors) ? summary.authors : [])
      .map(fieldsOf)
      .filter((author) => author.authtype === undefined || author.authtype === 'Author')
      .map((author) => ({ name: stringOf(author.name) ?? '', orcid: null })),
    venue: stringOf(summary.fulljournalname) ?? stringOf(summary.source),
    year: published ? Number(published.slice(0, 4)) : null,
    published,
    doi: doiOf(idOf('doi')),
    ids: { pmid, ...(pmcid ? { pmcid } : {}) },
    abstract,
    citationCount: null,
    urls: { landing: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`, pdf: null },
  }
}
