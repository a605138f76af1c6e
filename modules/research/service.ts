import { NotFoundError, ValidationError } from '../../core/Errors.js'
import * as Research from '../../core/Research.js'
import * as Upstream from '../../core/Upstream.js'
import type { Parameter, Query } from './schema.js'

/** What the research endpoints need from outside. */
export type Deps = {
  /** Every research source. */
  sources: Research.Sources
  /** Current time, epoch ms (trending's window). */
  now: () => number
}

/** One research endpoint: its path, parameters, the check of its query, its source and what it answers. */
// biome-ignore lint/suspicious/noExplicitAny: a list of endpoints holds inputs of every shape.
export type Endpoint<input = any> = {
  /** Path, e.g. `/api/v1/research/papers/by-doi`. */
  path: string
  /** Query parameters it takes. */
  parameters: readonly Parameter[]
  /** The query checked and read; throws {@link ValidationError} (a 400 before payment). */
  parse: (query: Query) => input
  /** The sources it calls, for readiness before payment. */
  uses: (sources: Research.Sources) => readonly { available: () => Upstream.Availability }[]
  /** The answer. */
  run: (deps: Deps, input: input) => Promise<unknown>
}

/** Declares an endpoint, typing `run`'s input from `parse`. */
function endpoint<input>(definition: Endpoint<input>): Endpoint<input> {
  return definition
}

/**
 * Why the endpoint of catalog key `key` (`GET /path`) cannot take calls now, as its sources' breakers and rate limits
 * see them (the module's readiness: a 503 before payment, and unavailable in discovery); `undefined` when it can.
 */
export function readiness(sources: Research.Sources, key: string): string | undefined {
  const endpoint = endpoints.find((candidate) => `GET ${candidate.path}` === key)
  for (const source of endpoint?.uses(sources) ?? []) {
    const availability = source.available()
    if (!availability.ok) return availability.reason
  }
  return undefined
}

/** The value of an upstream outcome; its failure as the error that charges nothing (429 → 503, 5xx → 502). */
function unwrap<value extends { ok: true }>(outcome: value | Upstream.Failure): Omit<value, 'ok'> {
  if (!outcome.ok) throw Upstream.toError(outcome)
  const { ok: _, ...value } = outcome
  return value
}

/** The found value, or a 404 (nothing charged) naming what was not found. */
function found<value>(outcome: Research.Found<value>, what: string): value {
  const { found } = unwrap(outcome)
  if (found === null) throw new NotFoundError(`${what} was not found at the source.`)
  return found
}

/** A required parameter, trimmed. */
function required(query: Query, name: Parameter): string {
  const value = query[name]?.trim()
  if (!value) throw new ValidationError({ field: name, message: 'is required' })
  return value
}

/** An optional parameter, trimmed; `undefined` when absent or empty. */
function optional(query: Query, name: Parameter): string | undefined {
  const value = query[name]?.trim()
  return value ? value : undefined
}

/** Throws the message of a failed identifier check. */
function assert(name: Parameter, problem: string | undefined): void {
  if (problem) throw new ValidationError({ field: name, message: problem })
}

/** An integer parameter within bounds, or its default. */
function integer(query: Query, name: Parameter, bounds: { min: number; max: number; default: number }): number {
  const value = optional(query, name)
  if (value === undefined) return bounds.default
  if (!/^[0-9]{1,6}$/.test(value) || Number(value) < bounds.min || Number(value) > bounds.max)
    throw new ValidationError({ field: name, message: `must be an integer from ${bounds.min} to ${bounds.max}` })
  return Number(value)
}

/** Free text (search words, a topic), at most `max` characters. */
function text(query: Query, name: Parameter, max: number): string {
  const value = required(query, name)
  if (value.length > max) throw new ValidationError({ field: name, message: `must be at most ${max} characters` })
  return value
}

const limit = (query: Query) => integer(query, 'limit', { min: 1, max: 50, default: 10 })

function doiOf(query: Query): string {
  const doi = Research.toDoi(required(query, 'doi'))
  assert('doi', Research.checkDoi(doi))
  return doi
}

function pmidOf(query: Query): string {
  const pmid = required(query, 'pmid')
  assert('pmid', Research.checkPmid(pmid))
  return pmid
}

function cidOf(query: Query): number {
  const cid = required(query, 'cid')
  assert('cid', Research.checkCid(cid))
  return Number(cid)
}

function wordOf(query: Query) {
  const word = required(query, 'word')
  if (word.length > 64 || !/^[\p{L}\p{M}'’ -]+$/u.test(word))
    throw new ValidationError({ field: 'word', message: 'must be letters, apostrophes, hyphens or spaces, at most 64' })
  const language = optional(query, 'lang') ?? 'en'
  if (!/^[a-z]{2}(?:-[A-Z]{2})?$/.test(language))
    throw new ValidationError({ field: 'lang', message: 'must be a language code such as en' })
  return { word: word.toLowerCase(), language }
}

/** A dictionary endpoint: the entries of the word (a 404 when there are none), answered by `answer`. */
function dictionaryEndpoint(
  path: string,
  answer: (input: ReturnType<typeof wordOf>, entries: Research.Entry[]) => unknown,
): Endpoint<ReturnType<typeof wordOf>> {
  return {
    path,
    parameters: ['word', 'lang'],
    parse: wordOf,
    uses: (sources) => [sources.dictionary],
    async run(deps, input) {
      return answer(input, found(await deps.sources.dictionary.entries(input), `The word "${input.word}"`))
    },
  }
}

/** The papers of PubMed ids, in the order given. */
async function pubmedPapers(deps: Deps, pmids: readonly string[]) {
  if (pmids.length === 0) return []
  return unwrap(await deps.sources.pubmed.byPmids(pmids)).papers
}

/** The preprint server asked for, if any. */
function serverOf(query: Query): 'biorxiv' | 'medrxiv' | undefined {
  const server = optional(query, 'server')
  if (server === undefined || server === 'biorxiv' || server === 'medrxiv') return server
  throw new ValidationError({ field: 'server', message: 'must be biorxiv or medrxiv' })
}

/** An arXiv category, e.g. `cs.AI`, `math.GT`, `hep-th`, `q-bio.NC`. */
const arxivCategory = /^[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2,})?$/

/** Every research endpoint. */
export const endpoints: readonly Endpoint[] = [
  endpoint({
    path: '/api/v1/research/biomedical/by-pmid',
    parameters: ['pmid'],
    parse: (query) => ({ pmid: pmidOf(query) }),
    uses: (sources) => [sources.pubmed],
    async run(deps, { pmid }) {
      const [paper] = await pubmedPapers(deps, [pmid])
      if (!paper) throw new NotFoundError(`PubMed has no article ${pmid}.`)
      return { paper }
    },
  }),
  endpoint({
    path: '/api/v1/research/biomedical/related',
    parameters: ['pmid', 'limit'],
    parse: (query) => ({ pmid: pmidOf(query), max: limit(query) }),
    uses: (sources) => [sources.pubmed],
    async run(deps, { pmid, max }) {
      const { pmids } = unwrap(await deps.sources.pubmed.related({ pmid, max }))
      if (pmids.length === 0) throw new NotFoundError(`PubMed relates no article to ${pmid}.`)
      return { pmid, papers: await pubmedPapers(deps, pmids) }
    },
  }),
  endpoint({
    path: '/api/v1/research/biomedical/search',
    parameters: ['q', 'limit'],
    parse: (query) => ({ query: text(query, 'q', 300), max: limit(query) }),
    uses: (sources) => [sources.pubmed],
    async run(deps, { query, max }) {
      const { total, pmids } = unwrap(await deps.sources.pubmed.search({ query, max }))
      return { query, total, papers: await pubmedPapers(deps, pmids) }
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/compound',
    parameters: ['cid', 'name', 'formula', 'limit'],
    parse: (query) => {
      const given = (['cid', 'name', 'formula'] as const).filter((name) => optional(query, name) !== undefined)
      if (given.length !== 1)
        throw new ValidationError({ field: 'cid', message: 'give exactly one of cid, name or formula' })
      const max = limit(query)
      if (given[0] === 'cid') return { cid: cidOf(query), max }
      if (given[0] === 'name') return { name: text(query, 'name', 200), max }
      const formula = required(query, 'formula')
      if (!/^(?:[A-Z][a-z]?[0-9]{0,4}){1,30}$/.test(formula))
        throw new ValidationError({ field: 'formula', message: 'must be a molecular formula such as C9H8O4' })
      return { formula, max }
    },
    uses: (sources) => [sources.pubchem],
    async run(deps, input) {
      return { compounds: found(await deps.sources.pubchem.compounds(input), 'The compound') }
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/bioactivity',
    parameters: ['cid', 'limit'],
    parse: (query) => ({ cid: cidOf(query), max: integer(query, 'limit', { min: 1, max: 200, default: 50 }) }),
    uses: (sources) => [sources.pubchem],
    async run(deps, { cid, max }) {
      const { total, rows } = found(await deps.sources.pubchem.bioactivity({ cid, max }), `Compound ${cid}`)
      return { cid, total, assays: rows }
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/similarity',
    parameters: ['cid', 'threshold', 'limit'],
    parse: (query) => ({
      cid: cidOf(query),
      threshold: integer(query, 'threshold', { min: 70, max: 100, default: 90 }),
      max: limit(query),
    }),
    uses: (sources) => [sources.pubchem],
    async run(deps, input) {
      const cids = found(await deps.sources.pubchem.similar(input), `Compound ${input.cid}`)
      return { cid: input.cid, threshold: input.threshold, cids }
    },
  }),
  endpoint({
    path: '/api/v1/research/demographics/census',
    parameters: ['state', 'county', 'zip', 'variables', 'year', 'dataset'],
    parse: (query) => {
      const state = optional(query, 'state')
      const county = optional(query, 'county')
      const zip = optional(query, 'zip')
      let geography: Research.Geography
      if (zip !== undefined) {
        if (state !== undefined || county !== undefined)
          throw new ValidationError({ field: 'zip', message: 'give a zip alone, or a state (and county)' })
        assert('zip', Research.checkZip(zip))
        geography = { kind: 'zip', zip }
      } else {
        if (state === undefined) throw new ValidationError({ field: 'state', message: 'give a state or a zip' })
        assert('state', Research.checkStateFips(state))
        if (county !== undefined) assert('county', Research.checkCountyFips(county))
        geography = county === undefined ? { kind: 'state', state } : { kind: 'county', state, county }
      }
      const variables = (optional(query, 'variables') ?? 'NAME,B01003_001E,B19013_001E').split(',')
      if (variables.length > 20 || !variables.every((name) => /^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name)))
        throw new ValidationError({
          field: 'variables',
          message: 'must be up to 20 Census variable names, comma-separated',
        })
      const dataset = optional(query, 'dataset') ?? 'acs/acs5'
      if (!/^[a-z0-9]+(?:\/[a-z0-9]+){0,3}$/.test(dataset))
        throw new ValidationError({ field: 'dataset', message: 'must be a dataset path such as acs/acs5' })
      return { year: integer(query, 'year', { min: 2009, max: 2030, default: 2022 }), dataset, variables, geography }
    },
    uses: (sources) => [sources.census],
    async run(deps, input) {
      const rows = found(await deps.sources.census.query(input), 'The place or dataset')
      return { year: input.year, dataset: input.dataset, geography: input.geography, rows }
    },
  }),
  endpoint({
    path: '/api/v1/research/demographics/datasets',
    parameters: ['q', 'limit'],
    parse: (query) => ({ query: text(query, 'q', 300), rows: limit(query) }),
    uses: (sources) => [sources.datasets],
    async run(deps, input) {
      return { query: input.query, ...unwrap(await deps.sources.datasets.search(input)) }
    },
  }),
  dictionaryEndpoint('/api/v1/research/dictionary/define', (input, entries) => ({
    word: input.word,
    language: input.language,
    entries,
  })),
  dictionaryEndpoint('/api/v1/research/dictionary/phonetics', (input, entries) => {
    const phonetics = entries.flatMap((entry) => entry.phonetics).filter((item) => item.text || item.audio)
    const seen = new Set<string>()
    return {
      word: input.word,
      phonetic: entries.find((entry) => entry.phonetic)?.phonetic ?? phonetics.find((item) => item.text)?.text ?? null,
      phonetics: phonetics.filter((item) => {
        const key = `${item.text}|${item.audio}`
        if (seen.has(key)) return false
        seen.add(key)
        return true
      }),
    }
  }),
  dictionaryEndpoint('/api/v1/research/dictionary/synonyms', (input, entries) => {
    const synonyms = new Set<string>()
    const antonyms = new Set<string>()
    for (const meaning of entries.flatMap((entry) => entry.meanings)) {
      for (const word of meaning.synonyms) synonyms.add(word)
      for (const word of meaning.antonyms) antonyms.add(word)
      for (const definition of meaning.definitions) {
        for (const word of definition.synonyms) synonyms.add(word)
        for (const word of definition.antonyms) antonyms.add(word)
      }
    }
    return { word: input.word, synonyms: [...synonyms], antonyms: [...antonyms] }
  }),
  endpoint({
    path: '/api/v1/research/papers/by-author',
    parameters: ['name', 'orcid', 'limit'],
    parse: (query) => {
      const orcid = optional(query, 'orcid')
      if (orcid !== undefined) {
        const normalized = Research.toOrcid(orcid)
        assert('orcid', Research.checkOrcid(normalized))
        return { orcid: normalized, perPage: limit(query) }
      }
      if (optional(query, 'name') === undefined)
        throw new ValidationError({ field: 'name', message: 'give an author name or an orcid' })
      return { name: text(query, 'name', 200), perPage: limit(query) }
    },
    uses: (sources) => [sources.works],
    async run(deps, input) {
      return found(await deps.sources.works.byAuthor(input), 'The author')
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/by-doi',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.works],
    async run(deps, { doi }) {
      return { paper: found(await deps.sources.works.byDoi(doi), `DOI ${doi}`) }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/citations',
    parameters: ['doi', 'limit'],
    parse: (query) => ({ doi: doiOf(query), perPage: limit(query) }),
    uses: (sources) => [sources.works],
    async run(deps, input) {
      const { paper, citedBy, references } = found(await deps.sources.works.citations(input), `DOI ${input.doi}`)
      return { doi: input.doi, citationCount: paper.citationCount, citedBy, references, paper }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/search',
    parameters: ['q', 'page', 'limit'],
    parse: (query) => ({
      query: text(query, 'q', 300),
      page: integer(query, 'page', { min: 1, max: 100, default: 1 }),
      perPage: limit(query),
    }),
    uses: (sources) => [sources.works],
    async run(deps, input) {
      return { query: input.query, page: input.page, ...unwrap(await deps.sources.works.search(input)) }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/trending',
    parameters: ['topic', 'days', 'limit'],
    parse: (query) => ({
      topic: optional(query, 'topic') === undefined ? undefined : text(query, 'topic', 200),
      days: integer(query, 'days', { min: 1, max: 365, default: 30 }),
      perPage: limit(query),
    }),
    uses: (sources) => [sources.works],
    async run(deps, { topic, days, perPage }) {
      const since = new Date(deps.now() - days * 86_400_000).toISOString().slice(0, 10)
      return { topic: topic ?? null, since, ...unwrap(await deps.sources.works.trending({ topic, since, perPage })) }
    },
  }),
  endpoint({
    path: '/api/v1/research/preprints/by-id',
    parameters: ['id', 'server'],
    parse: (query) => {
      const raw = required(query, 'id')
      const server = serverOf(query)
      const doi = Research.toDoi(raw)
      if (doi.startsWith('10.')) {
        assert('id', Research.checkRxivDoi(doi))
        return { kind: 'rxiv' as const, doi, server: server ?? 'biorxiv' }
      }
      const id = Research.toArxivId(raw)
      assert('id', Research.checkArxivId(id))
      return { kind: 'arxiv' as const, id }
    },
    uses: (sources) => [sources.arxiv, sources.rxiv],
    async run(deps, input) {
      if (input.kind === 'rxiv')
        return { paper: found(await deps.sources.rxiv.byDoi(input), `Preprint ${input.doi} on ${input.server}`) }
      const [paper] = unwrap(await deps.sources.arxiv.byIds([input.id])).papers
      if (!paper) throw new NotFoundError(`arXiv has no preprint ${input.id}.`)
      return { paper }
    },
  }),
  endpoint({
    path: '/api/v1/research/preprints/recent',
    parameters: ['category', 'server', 'days', 'limit'],
    parse: (query) => {
      const server = serverOf(query)
      const category = optional(query, 'category')
      const max = limit(query)
      if (server !== undefined) {
        if (category !== undefined && !/^[a-z]+(?:[_ ][a-z]+)*$/.test(category))
          throw new ValidationError({ field: 'category', message: 'must be a category such as neuroscience' })
        const days = integer(query, 'days', { min: 1, max: 365, default: 7 })
        return { kind: 'rxiv' as const, server, category, days, max }
      }
      if (category === undefined || !arxivCategory.test(category))
        throw new ValidationError({ field: 'category', message: 'give an arXiv category such as cs.AI, or a server' })
      return { kind: 'arxiv' as const, category, max }
    },
    uses: (sources) => [sources.arxiv, sources.rxiv],
    async run(deps, input) {
      if (input.kind === 'rxiv') {
        const { server, category, days, max } = input
        const page = unwrap(
          await deps.sources.rxiv.recent({ server, days, max, category: category?.replaceAll(' ', '_') }),
        )
        return { source: server, category: category ?? null, ...page }
      }
      const page = unwrap(await deps.sources.arxiv.search({ category: input.category, max: input.max }))
      return { source: 'arxiv', category: input.category, ...page }
    },
  }),
  endpoint({
    path: '/api/v1/research/preprints/search',
    parameters: ['q', 'category', 'limit'],
    parse: (query) => {
      const category = optional(query, 'category')
      if (category !== undefined && !arxivCategory.test(category))
        throw new ValidationError({ field: 'category', message: 'must be an arXiv category such as cs.AI' })
      return { query: text(query, 'q', 300), category, max: limit(query) }
    },
    uses: (sources) => [sources.arxiv],
    async run(deps, input) {
      return { query: input.query, category: input.category ?? null, ...unwrap(await deps.sources.arxiv.search(input)) }
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/by-doi',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.registry],
    async run(deps, { doi }) {
      return found(await deps.sources.registry.byDoi(doi), `DOI ${doi}`)
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/citations-count',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.registry],
    async run(deps, { doi }) {
      const { paper, references } = found(await deps.sources.registry.byDoi(doi), `DOI ${doi}`)
      return {
        doi,
        title: paper.title,
        citationCount: paper.citationCount,
        referencesCount: references.length,
        references: references.slice(0, 50),
      }
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/journal-info',
    parameters: ['issn'],
    parse: (query) => {
      const issn = required(query, 'issn').toUpperCase()
      assert('issn', Research.checkIssn(issn))
      return { issn }
    },
    uses: (sources) => [sources.registry],
    async run(deps, { issn }) {
      return { issn, journal: found(await deps.sources.registry.journal(issn), `ISSN ${issn}`) }
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/search',
    parameters: ['q', 'limit', 'offset'],
    parse: (query) => ({
      query: text(query, 'q', 300),
      rows: limit(query),
      offset: integer(query, 'offset', { min: 0, max: 1_000, default: 0 }),
    }),
    uses: (sources) => [sources.registry],
    async run(deps, input) {
      return { query: input.query, ...unwrap(await deps.sources.registry.search(input)) }
    },
  }),
]

/** Answers one call of `endpoint`. */
export function run(deps: Deps, endpoint: Endpoint, query: Query): Promise<unknown> {
  return endpoint.run(deps, endpoint.parse(query))
}
