import { type TObject, type TOptional, type TProperties, type TSchema, type TString, Type } from '@sinclair/typebox'

/** Descriptions of every query parameter the research endpoints take. */
const parameters = {
  pmid: 'PubMed id, 1 to 9 digits, e.g. `31452104`.',
  cid: 'PubChem compound id, e.g. `2244` (aspirin).',
  name: 'Name to look up: a compound name (chemistry/compound), or an author name (papers/by-author, or give `author`).',
  author: "Author name (the original gateway's name; or give `name`, not both).",
  geo: 'Census `for` clause, e.g. `state:*` (every state), `state:06`, `county:*`, `us:1`; instead of state, county or zip. @default state:* when none of them is given',
  filter: 'OpenAlex filter expression, e.g. `publication_year:2020,is_oa:true`.',
  select:
    'Comma-separated fields each result keeps: source, title, authors, venue, year, published, doi, ids, abstract, citationCount, urls. @default all',
  per_page: "Most results, 1 to 50 (the original gateway's name; or give `limit`, not both). @default 10",
  max_results: "Most results, 1 to 50 (the original gateway's name; or give `limit`, not both). @default 10",
  rows: "Most results, 1 to 50 (the original gateway's name; or give `limit`, not both). @default 10",
  max_records: "Most results, 1 to 50 (the original gateway's name; or give `limit`, not both). @default 10",
  formula: 'Molecular formula, e.g. `C9H8O4`.',
  threshold: 'Least 2-D similarity, percent, 70 to 100. @default 90',
  state: 'State FIPS code, two digits, e.g. `06` (California).',
  county: 'County FIPS code, three digits, with `state`, e.g. `075`.',
  zip: 'ZIP code (ZIP Code Tabulation Area), five digits, e.g. `94103`.',
  variables:
    'Comma-separated Census variables, at most 20, e.g. `NAME,B19013_001E`. @default NAME,B01003_001E (name, population)',
  year: 'Year of the dataset, 2009 to 2030. @default 2022',
  dataset: 'Census dataset path, e.g. `acs/acs5`. @default acs/acs5',
  word: 'The word, letters, apostrophes, hyphens and spaces, at most 64 characters.',
  lang: 'Language code of the dictionary, e.g. `en`. @default en',
  orcid: 'ORCID iD, e.g. `0000-0002-1825-0097` (its check digit is verified).',
  doi: 'DOI, e.g. `10.1038/nature12373` (a `doi:` or `https://doi.org/` prefix is accepted).',
  issn: 'ISSN, e.g. `0028-0836` (its check digit is verified).',
  id: 'preprints/by-id: arXiv id (`2101.00001`, `hep-th/9901001`, with an optional version) or a bioRxiv/medRxiv DOI (`10.1101/...`); papers/citations: OpenAlex work id (`W2741809807`), instead of `doi`.',
  server: '`biorxiv` or `medrxiv`, for a 10.1101 DOI or recent preprints there. @default biorxiv for a DOI',
  category:
    'arXiv category (e.g. `cs.AI`), or with `server` a bioRxiv/medRxiv category (e.g. `neuroscience`). @default cs.AI (preprints/recent without `server`)',
  days: 'How many days back, 1 to 365. @default 7',
  topic: 'Topic words, at most 200 characters.',
  q: 'Search words, 1 to 300 characters.',
  limit:
    'Most results, 1 to 50 (chemistry/bioactivity: 1 to 200, default 50); where the original gateway names it otherwise (per_page, max_results, rows, max_records), give one of the two. @default 10',
  page: 'Page of results, 1 to 100. @default 1',
  offset: 'Results skipped, 0 to 1000. @default 0',
} as const

/** A parameter's name. */
export type Parameter = keyof typeof parameters

/** The query schema of an endpoint taking `names`, each an optional string (checked in full before payment). */
export function queryOf<const names extends Parameter>(
  names: readonly names[],
): TObject<{ [name in names]: TOptional<TString> }> {
  return Type.Object(
    Object.fromEntries(
      names.map((name) => [name, Type.Optional(Type.String({ maxLength: 512, description: parameters[name] }))]),
    ) as { [name in names]: TOptional<TString> },
  )
}

/** A query as it arrives: strings by name. */
export type Query = Partial<Record<Parameter, string>>

const nullable = <schema extends TSchema>(schema: schema, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {})

/** One paper, the same shape whichever source answered (`core/Research.ts` `Paper`). */
export const Paper = Type.Object(
  {
    source: Type.String({ description: '`openalex`, `crossref`, `arxiv`, `biorxiv`, `medrxiv` or `pubmed`.' }),
    title: nullable(Type.String()),
    authors: Type.Array(
      Type.Object({ name: Type.String(), orcid: nullable(Type.String(), 'ORCID iD where the source knows it.') }),
    ),
    venue: nullable(Type.String(), 'Journal, proceedings or preprint server.'),
    year: nullable(Type.Integer()),
    published: nullable(Type.String(), '`YYYY-MM-DD` (or `YYYY-MM`, `YYYY`).'),
    doi: nullable(Type.String(), 'Lowercase, without `https://doi.org/`.'),
    ids: Type.Record(Type.String(), Type.String(), {
      description: 'Ids at the sources: openalex, arxiv, pmid, pmcid, ...',
    }),
    abstract: nullable(Type.String(), 'Where the source gives it.'),
    citationCount: nullable(Type.Integer()),
    urls: Type.Object({ landing: nullable(Type.String()), pdf: nullable(Type.String()) }),
  },
  { description: 'A scholarly work.' },
)

const papers = { total: Type.Integer({ description: 'Matches at the source.' }), papers: Type.Array(Paper) }
const entry = Type.Object({
  word: Type.String(),
  phonetic: nullable(Type.String()),
  phonetics: Type.Array(Type.Object({ text: nullable(Type.String()), audio: nullable(Type.String()) })),
  meanings: Type.Array(
    Type.Object({
      partOfSpeech: nullable(Type.String()),
      definitions: Type.Array(
        Type.Object({
          definition: Type.String(),
          example: nullable(Type.String()),
          synonyms: Type.Array(Type.String()),
          antonyms: Type.Array(Type.String()),
        }),
      ),
      synonyms: Type.Array(Type.String()),
      antonyms: Type.Array(Type.String()),
    }),
  ),
  sourceUrls: Type.Array(Type.String()),
})
const compound = Type.Object({
  cid: Type.Integer(),
  formula: nullable(Type.String()),
  weight: nullable(Type.String(), 'g/mol, decimal string.'),
  iupacName: nullable(Type.String()),
  inchiKey: nullable(Type.String()),
  smiles: nullable(Type.String()),
  xlogp: nullable(Type.Number()),
})
const reference = Type.Object({ doi: nullable(Type.String()), text: nullable(Type.String()) })
const journal = Type.Object({
  title: nullable(Type.String()),
  publisher: nullable(Type.String()),
  issns: Type.Array(Type.Object({ value: Type.String(), type: nullable(Type.String()) })),
  subjects: Type.Array(Type.String()),
  dois: Type.Object({
    total: nullable(Type.Integer()),
    current: nullable(Type.Integer()),
    backfile: nullable(Type.Integer()),
  }),
})

const record = Type.Record(Type.String(), Type.Unknown())

/**
 * An answer in the original gateway's envelope, `own` (this gateway's fields) beside it: `results` holds `result`s,
 * `extra` the envelope's fields on this endpoint.
 */
function enveloped(own: TProperties, result: TSchema, extra: TProperties = {}): TObject {
  return Type.Object({
    category: Type.String({
      description: '`research` (preprints/recent: the category listed, as the original gateway answers).',
    }),
    endpoint: Type.String({ description: 'The endpoint, e.g. `papers/search`.' }),
    source: Type.String({
      description:
        '`freedict`, `openalex`, `arxiv`, `biorxiv`, `medrxiv`, `crossref`, `pubchem`, `pubmed`, `census` or `datagov`.',
    }),
    source_license: Type.String({ description: "Licence of the source's data, e.g. `CC0`, `public-domain`." }),
    ...extra,
    results: Type.Array(result, { description: 'The records found.' }),
    attribution: Type.String({ description: 'The attribution the source asks for.' }),
    spraay_request_id: Type.String({ description: "The call's request id (its `X-Request-Id`)." }),
    ...own,
  })
}

const totalResults = { total_results: Type.Integer({ description: 'Matches at the source.' }) }
const preprintCount = { total_results: Type.Integer({ description: 'How many preprints are answered.' }) }
const pageOf = {
  page: Type.Integer({ description: 'Page of results.' }),
  per_page: Type.Integer({ description: 'Most results per page.' }),
}

/** The answers of the research endpoints, by catalog key. */
export const outputs: Record<string, TSchema> = {
  'GET /api/v1/research/biomedical/by-pmid': enveloped({ paper: Paper }, Paper),
  'GET /api/v1/research/biomedical/related': enveloped({ pmid: Type.String(), papers: Type.Array(Paper) }, Paper, {
    seed_pmid: Type.String({ description: 'The PubMed id asked about.' }),
  }),
  'GET /api/v1/research/biomedical/search': enveloped({ query: Type.String(), ...papers }, Paper, totalResults),
  'GET /api/v1/research/chemistry/compound': enveloped({ compounds: Type.Array(compound) }, compound),
  'GET /api/v1/research/chemistry/bioactivity': enveloped(
    {
      cid: Type.Integer(),
      total: Type.Integer(),
      assays: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description:
          'Rows of PubChem assay summary, keyed by its columns (AID, Activity Outcome, Target Accession, ...).',
      }),
    },
    record,
  ),
  'GET /api/v1/research/chemistry/similarity': enveloped(
    { cid: Type.Integer(), threshold: Type.Integer(), cids: Type.Array(Type.Integer()) },
    Type.Object(
      { IdentifierList: Type.Object({ CID: Type.Array(Type.Integer()) }) },
      { description: "PubChem's answer: the CIDs found." },
    ),
  ),
  'GET /api/v1/research/demographics/census': enveloped(
    {
      year: Type.Integer(),
      datasetPath: Type.String({ description: 'The dataset asked for, e.g. `acs/acs5`.' }),
      geography: Type.Object(
        {},
        { additionalProperties: true, description: '`kind` state, county, zip or geo, and its codes.' },
      ),
      rows: Type.Array(Type.Record(Type.String(), nullable(Type.String())), {
        description: 'One object per row, keyed by variable and geography.',
      }),
    },
    Type.Record(Type.String(), nullable(Type.String())),
    {
      dataset: Type.String({ description: 'Year and dataset, e.g. `2022/acs/acs5`.' }),
      variables: Type.Array(Type.String(), { description: 'The variables asked for.' }),
    },
  ),
  'GET /api/v1/research/demographics/datasets': enveloped(
    {
      query: Type.String(),
      total: Type.Integer(),
      datasets: Type.Array(
        Type.Object({
          id: Type.String(),
          title: nullable(Type.String()),
          description: nullable(Type.String()),
          organization: nullable(Type.String()),
          modified: nullable(Type.String()),
          resources: Type.Array(
            Type.Object({
              name: nullable(Type.String()),
              format: nullable(Type.String()),
              url: nullable(Type.String()),
            }),
          ),
          url: nullable(Type.String()),
        }),
      ),
    },
    Type.Object(
      {
        id: Type.String(),
        title: nullable(Type.String()),
        notes: nullable(Type.String(), 'Description.'),
        organization: nullable(Type.String()),
        metadata_modified: nullable(Type.String()),
        resources: Type.Array(record),
        url: nullable(Type.String()),
      },
      { description: "A dataset, in the original gateway's field names." },
    ),
    totalResults,
  ),
  'GET /api/v1/research/dictionary/define': enveloped(
    { word: Type.String(), language: Type.String(), entries: Type.Array(entry) },
    entry,
  ),
  'GET /api/v1/research/dictionary/phonetics': enveloped(
    {
      word: Type.String(),
      phonetic: nullable(Type.String()),
      phonetics: Type.Array(Type.Object({ text: nullable(Type.String()), audio: nullable(Type.String()) })),
    },
    Type.Object({ word: Type.String(), phonetics: Type.Array(record) }),
  ),
  'GET /api/v1/research/dictionary/synonyms': enveloped(
    { word: Type.String(), synonyms: Type.Array(Type.String()), antonyms: Type.Array(Type.String()) },
    Type.Object({ word: Type.String(), synonyms: Type.Array(Type.String()), antonyms: Type.Array(Type.String()) }),
  ),
  'GET /api/v1/research/papers/by-author': enveloped(
    {
      author: Type.Object({
        id: Type.String(),
        name: Type.String(),
        orcid: nullable(Type.String()),
        works: nullable(Type.Integer()),
      }),
      ...papers,
    },
    Paper,
    { ...totalResults, ...pageOf },
  ),
  'GET /api/v1/research/papers/by-doi': enveloped({ paper: Paper }, Paper),
  'GET /api/v1/research/papers/citations': enveloped(
    {
      doi: nullable(Type.String()),
      citationCount: nullable(Type.Integer()),
      citedBy: Type.Object(papers, { description: 'Works citing it, most cited first.' }),
      references: Type.Array(Type.String(), { description: 'OpenAlex ids of the works it references.' }),
      paper: Paper,
    },
    Type.Object(
      {
        id: nullable(Type.String(), 'OpenAlex id as a URL.'),
        title: nullable(Type.String()),
        doi: nullable(Type.String(), 'DOI as a URL.'),
        cited_by_count: nullable(Type.Integer()),
        cited_by_api_url: nullable(Type.String(), "OpenAlex's URL listing the works citing it."),
        referenced_works: Type.Array(nullable(Type.String()), { description: 'OpenAlex ids (URLs) it references.' }),
        referenced_works_count: Type.Integer(),
      },
      { description: "The work, in OpenAlex's field names as the original gateway answers it." },
    ),
  ),
  'GET /api/v1/research/papers/search': enveloped({ query: Type.String(), page: Type.Integer(), ...papers }, record, {
    ...totalResults,
    ...pageOf,
  }),
  'GET /api/v1/research/papers/trending': enveloped(
    {
      topic: nullable(Type.String()),
      since: Type.String({ description: 'First publication date counted, `YYYY-MM-DD`.' }),
      ...papers,
    },
    Paper,
    { ...totalResults, days_back: Type.Integer({ description: 'How many days back.' }) },
  ),
  'GET /api/v1/research/preprints/by-id': enveloped({ paper: Paper }, Paper),
  'GET /api/v1/research/preprints/recent': enveloped(papers, Paper, {
    ...preprintCount,
    category: nullable(Type.String(), 'The category listed (in place of `research`, as the original gateway answers).'),
  }),
  'GET /api/v1/research/preprints/search': enveloped(
    {
      query: nullable(Type.String()),
      arxivCategory: nullable(Type.String(), 'The arXiv category searched in.'),
      ...papers,
    },
    Paper,
    preprintCount,
  ),
  'GET /api/v1/research/scholarly/by-doi': enveloped(
    {
      paper: Paper,
      type: nullable(Type.String(), 'Crossref work type, e.g. `journal-article`.'),
      references: Type.Array(reference),
    },
    Paper,
  ),
  'GET /api/v1/research/scholarly/citations-count': enveloped(
    {
      doi: Type.String(),
      title: nullable(Type.String()),
      citationCount: nullable(Type.Integer()),
      referencesCount: Type.Integer(),
      references: Type.Array(reference, { description: 'The first 50.' }),
    },
    Type.Object({
      doi: Type.String(),
      title: nullable(Type.String()),
      citations_count: Type.Integer(),
      references_count: Type.Integer(),
      references: Type.Array(reference, { description: 'The first 50.' }),
    }),
  ),
  'GET /api/v1/research/scholarly/journal-info': enveloped({ issn: Type.String(), journal }, journal),
  'GET /api/v1/research/scholarly/search': enveloped({ query: Type.String(), ...papers }, Paper, totalResults),
}
