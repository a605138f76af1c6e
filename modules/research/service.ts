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

/**
 * The sources as the original gateway names them in its envelope (`source`), with the licence of their data
 * (`source_license`) and the attribution they ask for, in the original's words where it has them.
 */
export const origins = {
  freedict: { license: 'free/open', attribution: 'Data from Free Dictionary API (https://dictionaryapi.dev).' },
  openalex: { license: 'CC0', attribution: 'Data from OpenAlex (https://openalex.org). Licensed under CC0.' },
  arxiv: {
    license: 'CC0',
    attribution: 'Thank you to arXiv for use of its open access interoperability. Metadata licensed under CC0.',
  },
  // bioRxiv and medRxiv have no licence of their own for metadata: each preprint carries the one its authors chose.
  biorxiv: {
    license: 'per-preprint',
    attribution: 'Data from bioRxiv (https://www.biorxiv.org), Cold Spring Harbor Laboratory.',
  },
  medrxiv: {
    license: 'per-preprint',
    attribution: 'Data from medRxiv (https://www.medrxiv.org), Cold Spring Harbor Laboratory.',
  },
  crossref: {
    license: 'CC0',
    attribution: 'Data from Crossref (https://www.crossref.org). Bibliographic metadata is CC0.',
  },
  pubchem: {
    license: 'public-domain',
    attribution: 'Data from PubChem (https://pubchem.ncbi.nlm.nih.gov), National Library of Medicine, NIH.',
  },
  pubmed: {
    license: 'public-domain',
    attribution: 'Data from PubMed (https://pubmed.ncbi.nlm.nih.gov), National Library of Medicine, NIH.',
  },
  census: { license: 'public-domain', attribution: 'Data from U.S. Census Bureau (https://www.census.gov).' },
  datagov: {
    license: 'public-domain',
    attribution: 'Data from Data.gov (https://data.gov), U.S. General Services Administration.',
  },
} as const

/** A source as the envelope names it. */
export type Origin = keyof typeof origins

/** What an endpoint answers: its own fields, and the parts of the original gateway's envelope that depend on it. */
export type Answer = {
  /** The source that answered, as the envelope names it. */
  origin: Origin
  /** The envelope's `results`: the records found. */
  results: readonly unknown[]
  /** Fields the original adds to its envelope on this endpoint (`total_results`, `page`, ...). @default none */
  extra?: Record<string, unknown>
  /** This gateway's own fields of the answer. */
  own: Record<string, unknown>
}

/** One research endpoint: its path, parameters, the check of its query, its source and what it answers. */
// biome-ignore lint/suspicious/noExplicitAny: a list of endpoints holds inputs of every shape.
export type Endpoint<input = any> = {
  /** Path, e.g. `/api/v1/research/papers/by-doi`. */
  path: string
  /** Query parameters it takes, the original gateway's names first. */
  parameters: readonly Parameter[]
  /** The query checked and read; throws {@link ValidationError} (a 400 before payment). */
  parse: (query: Query) => input
  /** The sources it calls, for readiness before payment. */
  uses: (sources: Research.Sources) => readonly { available: () => Upstream.Availability }[]
  /** The answer. */
  run: (deps: Deps, input: input) => Promise<Answer>
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

/**
 * The value of `name`, the original gateway's name of a parameter, or of `ours`, this gateway's name of it (give one
 * of the two, not both); `undefined` when neither is given.
 */
function either(query: Query, name: Parameter, ours: Parameter): { name: Parameter; value: string } | undefined {
  const theirs = optional(query, name)
  const mine = optional(query, ours)
  if (theirs !== undefined && mine !== undefined)
    throw new ValidationError({ field: name, message: `give ${name} or ${ours}, not both` })
  if (theirs !== undefined) return { name, value: theirs }
  return mine === undefined ? undefined : { name: ours, value: mine }
}

/** Most results: `limit`, or the original gateway's name of it on this endpoint (`per_page`, `rows`, ...), 1 to 50. */
function limit(query: Query, name: Parameter = 'limit', bounds = { min: 1, max: 50, default: 10 }): number {
  const given = name === 'limit' ? undefined : either(query, name, 'limit')
  return integer(query, given?.name ?? 'limit', bounds)
}

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
  answer: (
    input: ReturnType<typeof wordOf>,
    entries: Research.Entry[],
  ) => { results: readonly unknown[]; own: Record<string, unknown> },
): Endpoint<ReturnType<typeof wordOf>> {
  return {
    path,
    parameters: ['word', 'lang'],
    parse: wordOf,
    uses: (sources) => [sources.dictionary],
    async run(deps, input) {
      const entries = found(await deps.sources.dictionary.entries(input), `The word "${input.word}"`)
      return { origin: 'freedict', ...answer(input, entries) }
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

/** A page of papers as the original gateway's envelope gives it: the papers, and how many match. */
function papersAnswer(origin: Origin, page: Research.Papers, own: Record<string, unknown>, extra = {}): Answer {
  return { origin, results: page.papers, extra: { total_results: page.total, ...extra }, own: { ...own, ...page } }
}

/** A page of preprints: the original gateway counts the preprints it answers as `total_results`. */
function preprintsAnswer(origin: Origin, page: Research.Papers, own: Record<string, unknown>, extra = {}): Answer {
  return {
    origin,
    results: page.papers,
    extra: { ...extra, total_results: page.papers.length },
    own: { ...own, ...page },
  }
}

/** OpenAlex's form of a work's id, as the original gateway answers it (`https://openalex.org/W2741809807`). */
const openalexUrl = (id: string | undefined) => (id === undefined ? null : `https://openalex.org/${id}`)

/** The fields of a paper `select` may keep. */
const selectable = [
  'source',
  'title',
  'authors',
  'venue',
  'year',
  'published',
  'doi',
  'ids',
  'abstract',
  'citationCount',
  'urls',
]

/** The fields of each paper `select` keeps (`undefined`: all of them). */
function selectOf(query: Query): string[] | undefined {
  const select = optional(query, 'select')
  if (select === undefined) return undefined
  const names = select.split(',').map((name) => name.trim())
  const unknown = names.find((name) => !selectable.includes(name))
  if (unknown !== undefined)
    throw new ValidationError({
      field: 'select',
      message: `names fields of the papers this gateway answers: ${selectable.join(', ')}`,
    })
  return names
}

/** Census `for` clause: a geography level and a code or `*`, e.g. `state:*`, `county:075`, `us:1`. */
const censusFor = /^[a-z][a-z0-9 ]{0,60}:(?:\*|[0-9A-Za-z]{1,12}(?:,[0-9A-Za-z]{1,12}){0,49})$/

/** An OpenAlex work id, bare (`W2741809807`) or as a URL. */
function openalexIdOf(value: string): string {
  const id = value.replace(/^https:\/\/openalex\.org\//i, '').toUpperCase()
  if (!/^W[0-9]{1,12}$/.test(id))
    throw new ValidationError({ field: 'id', message: 'must be an OpenAlex work id such as W2741809807' })
  return id
}

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
      return { origin: 'pubmed', results: [paper], own: { paper } }
    },
  }),
  endpoint({
    path: '/api/v1/research/biomedical/related',
    parameters: ['pmid', 'max_results', 'limit'],
    parse: (query) => ({ pmid: pmidOf(query), max: limit(query, 'max_results') }),
    uses: (sources) => [sources.pubmed],
    async run(deps, { pmid, max }) {
      const { pmids } = unwrap(await deps.sources.pubmed.related({ pmid, max }))
      if (pmids.length === 0) throw new NotFoundError(`PubMed relates no article to ${pmid}.`)
      const papers = await pubmedPapers(deps, pmids)
      return { origin: 'pubmed', results: papers, extra: { seed_pmid: pmid }, own: { pmid, papers } }
    },
  }),
  endpoint({
    path: '/api/v1/research/biomedical/search',
    parameters: ['q', 'max_results', 'limit'],
    parse: (query) => ({ query: text(query, 'q', 300), max: limit(query, 'max_results') }),
    uses: (sources) => [sources.pubmed],
    async run(deps, { query, max }) {
      const { total, pmids } = unwrap(await deps.sources.pubmed.search({ query, max }))
      return papersAnswer('pubmed', { total, papers: await pubmedPapers(deps, pmids) }, { query })
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/compound',
    parameters: ['name', 'formula', 'cid', 'limit'],
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
      const compounds = found(await deps.sources.pubchem.compounds(input), 'The compound')
      return { origin: 'pubchem', results: compounds, own: { compounds } }
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/bioactivity',
    parameters: ['cid', 'limit'],
    parse: (query) => ({ cid: cidOf(query), max: limit(query, 'limit', { min: 1, max: 200, default: 50 }) }),
    uses: (sources) => [sources.pubchem],
    async run(deps, { cid, max }) {
      const { total, rows } = found(await deps.sources.pubchem.bioactivity({ cid, max }), `Compound ${cid}`)
      return { origin: 'pubchem', results: rows, own: { cid, total, assays: rows } }
    },
  }),
  endpoint({
    path: '/api/v1/research/chemistry/similarity',
    parameters: ['cid', 'threshold', 'max_records', 'limit'],
    parse: (query) => ({
      cid: cidOf(query),
      threshold: integer(query, 'threshold', { min: 70, max: 100, default: 90 }),
      max: limit(query, 'max_records'),
    }),
    uses: (sources) => [sources.pubchem],
    async run(deps, input) {
      const cids = found(await deps.sources.pubchem.similar(input), `Compound ${input.cid}`)
      // PubChem's own answer, which the original gateway passes on as its one result.
      return {
        origin: 'pubchem',
        results: [{ IdentifierList: { CID: cids } }],
        own: { cid: input.cid, threshold: input.threshold, cids },
      }
    },
  }),
  endpoint({
    path: '/api/v1/research/demographics/census',
    parameters: ['dataset', 'year', 'variables', 'geo', 'state', 'county', 'zip'],
    parse: (query) => {
      const state = optional(query, 'state')
      const county = optional(query, 'county')
      const zip = optional(query, 'zip')
      const geo = optional(query, 'geo')
      let geography: Research.Geography
      if (geo !== undefined) {
        if (state !== undefined || county !== undefined || zip !== undefined)
          throw new ValidationError({ field: 'geo', message: 'give geo, or a state (and county) or a zip, not both' })
        if (!censusFor.test(geo))
          throw new ValidationError({
            field: 'geo',
            message: 'must be a Census for clause such as state:* or state:06',
          })
        geography = { kind: 'geo', geo }
      } else if (zip !== undefined) {
        if (state !== undefined || county !== undefined)
          throw new ValidationError({ field: 'zip', message: 'give a zip alone, or a state (and county)' })
        assert('zip', Research.checkZip(zip))
        geography = { kind: 'zip', zip }
      } else if (state !== undefined) {
        assert('state', Research.checkStateFips(state))
        if (county !== undefined) assert('county', Research.checkCountyFips(county))
        geography = county === undefined ? { kind: 'state', state } : { kind: 'county', state, county }
      } else {
        if (county !== undefined) throw new ValidationError({ field: 'state', message: 'give the state of the county' })
        // The original gateway's default: every state.
        geography = { kind: 'geo', geo: 'state:*' }
      }
      const variables = (optional(query, 'variables') ?? 'NAME,B01003_001E').split(',')
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
      return {
        origin: 'census',
        results: rows,
        // The original's `dataset` is the year and the dataset's path; the path alone is `datasetPath` here.
        extra: { dataset: `${input.year}/${input.dataset}`, variables: input.variables },
        own: { year: input.year, datasetPath: input.dataset, geography: input.geography, rows },
      }
    },
  }),
  endpoint({
    path: '/api/v1/research/demographics/datasets',
    parameters: ['q', 'rows', 'limit'],
    parse: (query) => ({ query: text(query, 'q', 300), rows: limit(query, 'rows') }),
    uses: (sources) => [sources.datasets],
    async run(deps, input) {
      const { total, datasets } = unwrap(await deps.sources.datasets.search(input))
      return {
        origin: 'datagov',
        // The original's names of a dataset's fields.
        results: datasets.map((dataset) => ({
          id: dataset.id,
          title: dataset.title,
          notes: dataset.description,
          organization: dataset.organization,
          metadata_modified: dataset.modified,
          resources: dataset.resources,
          url: dataset.url,
        })),
        extra: { total_results: total },
        own: { query: input.query, total, datasets },
      }
    },
  }),
  dictionaryEndpoint('/api/v1/research/dictionary/define', (input, entries) => ({
    results: entries,
    own: { word: input.word, language: input.language, entries },
  })),
  dictionaryEndpoint('/api/v1/research/dictionary/phonetics', (input, entries) => {
    const phonetics = entries.flatMap((entry) => entry.phonetics).filter((item) => item.text || item.audio)
    const seen = new Set<string>()
    const own = {
      word: input.word,
      phonetic: entries.find((entry) => entry.phonetic)?.phonetic ?? phonetics.find((item) => item.text)?.text ?? null,
      phonetics: phonetics.filter((item) => {
        const key = `${item.text}|${item.audio}`
        if (seen.has(key)) return false
        seen.add(key)
        return true
      }),
    }
    return { results: [{ word: own.word, phonetics: own.phonetics }], own }
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
    const own = { word: input.word, synonyms: [...synonyms], antonyms: [...antonyms] }
    return { results: [own], own }
  }),
  endpoint({
    path: '/api/v1/research/papers/by-author',
    parameters: ['author', 'orcid', 'page', 'per_page', 'name', 'limit'],
    parse: (query) => {
      const page = integer(query, 'page', { min: 1, max: 100, default: 1 })
      const perPage = limit(query, 'per_page')
      const orcid = optional(query, 'orcid')
      if (orcid !== undefined) {
        const normalized = Research.toOrcid(orcid)
        assert('orcid', Research.checkOrcid(normalized))
        return { orcid: normalized, page, perPage }
      }
      const name = either(query, 'author', 'name')
      if (name === undefined) throw new ValidationError({ field: 'author', message: 'give an author name or an orcid' })
      return { name: text(query, name.name, 200), page, perPage }
    },
    uses: (sources) => [sources.works],
    async run(deps, input) {
      const { author, ...page } = found(await deps.sources.works.byAuthor(input), 'The author')
      return papersAnswer('openalex', page, { author }, { page: input.page, per_page: input.perPage })
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/by-doi',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.works],
    async run(deps, { doi }) {
      const paper = found(await deps.sources.works.byDoi(doi), `DOI ${doi}`)
      return { origin: 'openalex', results: [paper], own: { paper } }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/citations',
    parameters: ['doi', 'id', 'limit'],
    parse: (query) => {
      const perPage = limit(query)
      const id = optional(query, 'id')
      if (id === undefined) return { doi: doiOf(query), perPage }
      if (optional(query, 'doi') !== undefined)
        throw new ValidationError({ field: 'id', message: 'give doi or id, not both' })
      return { id: openalexIdOf(id), perPage }
    },
    uses: (sources) => [sources.works],
    async run(deps, input) {
      const what = 'doi' in input ? `DOI ${input.doi}` : `Work ${input.id}`
      const { paper, citedBy, references, citedByApiUrl } = found(await deps.sources.works.citations(input), what)
      return {
        origin: 'openalex',
        // The original's record: OpenAlex's field names, ids and DOIs in OpenAlex's URL forms.
        results: [
          {
            id: openalexUrl(paper.ids.openalex),
            title: paper.title,
            doi: paper.doi === null ? null : `https://doi.org/${paper.doi}`,
            cited_by_count: paper.citationCount,
            cited_by_api_url: citedByApiUrl,
            referenced_works: references.map(openalexUrl),
            referenced_works_count: references.length,
          },
        ],
        own: { doi: paper.doi, citationCount: paper.citationCount, citedBy, references, paper },
      }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/search',
    parameters: ['q', 'page', 'per_page', 'filter', 'select', 'limit'],
    parse: (query) => {
      const filter = optional(query, 'filter')
      if (filter !== undefined && !/^[A-Za-z0-9_.]+:[^&#]{1,300}$/.test(filter))
        throw new ValidationError({
          field: 'filter',
          message: 'must be an OpenAlex filter such as publication_year:2020',
        })
      return {
        query: text(query, 'q', 300),
        filter,
        select: selectOf(query),
        page: integer(query, 'page', { min: 1, max: 100, default: 1 }),
        perPage: limit(query, 'per_page'),
      }
    },
    uses: (sources) => [sources.works],
    async run(deps, { select, ...input }) {
      const page = unwrap(await deps.sources.works.search(input))
      const answer = papersAnswer(
        'openalex',
        page,
        { query: input.query, page: input.page },
        {
          page: input.page,
          per_page: input.perPage,
        },
      )
      if (select === undefined) return answer
      const keep = (paper: Research.Paper) =>
        Object.fromEntries(Object.entries(paper).filter(([name]) => select.includes(name)))
      return { ...answer, results: page.papers.map(keep) }
    },
  }),
  endpoint({
    path: '/api/v1/research/papers/trending',
    parameters: ['topic', 'days', 'per_page', 'limit'],
    parse: (query) => ({
      topic: optional(query, 'topic') === undefined ? undefined : text(query, 'topic', 200),
      days: integer(query, 'days', { min: 1, max: 365, default: 7 }),
      perPage: limit(query, 'per_page'),
    }),
    uses: (sources) => [sources.works],
    async run(deps, { topic, days, perPage }) {
      const since = new Date(deps.now() - days * 86_400_000).toISOString().slice(0, 10)
      const page = unwrap(await deps.sources.works.trending({ topic, since, perPage }))
      return papersAnswer('openalex', page, { topic: topic ?? null, since }, { days_back: days })
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
      if (input.kind === 'rxiv') {
        const paper = found(await deps.sources.rxiv.byDoi(input), `Preprint ${input.doi} on ${input.server}`)
        return { origin: input.server, results: [paper], own: { paper } }
      }
      const [paper] = unwrap(await deps.sources.arxiv.byIds([input.id])).papers
      if (!paper) throw new NotFoundError(`arXiv has no preprint ${input.id}.`)
      return { origin: 'arxiv', results: [paper], own: { paper } }
    },
  }),
  endpoint({
    path: '/api/v1/research/preprints/recent',
    parameters: ['category', 'max_results', 'server', 'days', 'limit'],
    parse: (query) => {
      const server = serverOf(query)
      const category = optional(query, 'category')
      const max = limit(query, 'max_results')
      if (server !== undefined) {
        if (category !== undefined && !/^[a-z]+(?:[_ ][a-z]+)*$/.test(category))
          throw new ValidationError({ field: 'category', message: 'must be a category such as neuroscience' })
        const days = integer(query, 'days', { min: 1, max: 365, default: 7 })
        return { kind: 'rxiv' as const, server, category, days, max }
      }
      // The original gateway's default category.
      const arxiv = category ?? 'cs.AI'
      if (!arxivCategory.test(arxiv))
        throw new ValidationError({ field: 'category', message: 'must be an arXiv category such as cs.AI' })
      return { kind: 'arxiv' as const, category: arxiv, max }
    },
    uses: (sources) => [sources.arxiv, sources.rxiv],
    async run(deps, input) {
      if (input.kind === 'rxiv') {
        const { server, category, days, max } = input
        const page = unwrap(
          await deps.sources.rxiv.recent({ server, days, max, category: category?.replaceAll(' ', '_') }),
        )
        return preprintsAnswer(server, page, { source: server }, { category: category ?? null })
      }
      const page = unwrap(await deps.sources.arxiv.search({ category: input.category, max: input.max }))
      return preprintsAnswer('arxiv', page, { source: 'arxiv' }, { category: input.category })
    },
  }),
  endpoint({
    path: '/api/v1/research/preprints/search',
    parameters: ['q', 'category', 'max_results', 'limit'],
    parse: (query) => {
      const category = optional(query, 'category')
      if (category !== undefined && !arxivCategory.test(category))
        throw new ValidationError({ field: 'category', message: 'must be an arXiv category such as cs.AI' })
      const max = limit(query, 'max_results')
      if (optional(query, 'q') === undefined) {
        if (category === undefined) throw new ValidationError({ field: 'q', message: 'give q or a category' })
        return { query: undefined, category, max }
      }
      return { query: text(query, 'q', 300), category, max }
    },
    uses: (sources) => [sources.arxiv],
    async run(deps, input) {
      const page = unwrap(await deps.sources.arxiv.search(input))
      // The envelope's `category` is `research` here, as the original's; the arXiv category searched is arxivCategory.
      return preprintsAnswer('arxiv', page, { query: input.query ?? null, arxivCategory: input.category ?? null })
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/by-doi',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.registry],
    async run(deps, { doi }) {
      const work = found(await deps.sources.registry.byDoi(doi), `DOI ${doi}`)
      return { origin: 'crossref', results: [work.paper], own: work }
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/citations-count',
    parameters: ['doi'],
    parse: (query) => ({ doi: doiOf(query) }),
    uses: (sources) => [sources.registry],
    async run(deps, { doi }) {
      const { paper, references } = found(await deps.sources.registry.byDoi(doi), `DOI ${doi}`)
      const first = references.slice(0, 50)
      return {
        origin: 'crossref',
        results: [
          {
            doi,
            title: paper.title,
            citations_count: paper.citationCount ?? 0,
            references_count: references.length,
            references: first,
          },
        ],
        own: {
          doi,
          title: paper.title,
          citationCount: paper.citationCount,
          referencesCount: references.length,
          references: first,
        },
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
      const journal = found(await deps.sources.registry.journal(issn), `ISSN ${issn}`)
      return { origin: 'crossref', results: [journal], own: { issn, journal } }
    },
  }),
  endpoint({
    path: '/api/v1/research/scholarly/search',
    parameters: ['q', 'rows', 'offset', 'limit'],
    parse: (query) => ({
      query: text(query, 'q', 300),
      rows: limit(query, 'rows'),
      offset: integer(query, 'offset', { min: 0, max: 1_000, default: 0 }),
    }),
    uses: (sources) => [sources.registry],
    async run(deps, input) {
      return papersAnswer('crossref', unwrap(await deps.sources.registry.search(input)), { query: input.query })
    },
  }),
]

/**
 * Answers one call of `endpoint` in the original gateway's envelope (`category`, `endpoint`, `source`,
 * `source_license`, its extra fields, `results`, `attribution`, `spraay_request_id`) beside this gateway's own fields;
 * where a name is in both, the envelope's meaning holds. `requestId` is the call's `X-Request-Id`.
 */
export async function run(deps: Deps, endpoint: Endpoint, query: Query, requestId: string): Promise<unknown> {
  const { origin, results, extra = {}, own } = await endpoint.run(deps, endpoint.parse(query))
  return {
    ...own,
    category: 'research',
    endpoint: endpoint.path.slice('/api/v1/research/'.length),
    source: origin,
    source_license: origins[origin].license,
    ...extra,
    results,
    attribution: origins[origin].attribution,
    spraay_request_id: requestId,
  }
}
