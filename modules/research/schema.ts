import { type TObject, type TOptional, type TSchema, type TString, Type } from '@sinclair/typebox'

/** Descriptions of every query parameter the research endpoints take. */
const parameters = {
  pmid: 'PubMed id, 1 to 9 digits, e.g. `31452104`.',
  cid: 'PubChem compound id, e.g. `2244` (aspirin).',
  name: 'Name to look up (a compound name, or an author name).',
  formula: 'Molecular formula, e.g. `C9H8O4`.',
  threshold: 'Least 2-D similarity, percent, 70 to 100. @default 90',
  state: 'State FIPS code, two digits, e.g. `06` (California).',
  county: 'County FIPS code, three digits, with `state`, e.g. `075`.',
  zip: 'ZIP code (ZIP Code Tabulation Area), five digits, e.g. `94103`.',
  variables:
    'Comma-separated Census variables, at most 20, e.g. `NAME,B01003_001E`. @default NAME,B01003_001E,B19013_001E (name, population, median household income)',
  year: 'Year of the dataset, 2009 to 2030. @default 2022',
  dataset: 'Census dataset path, e.g. `acs/acs5`. @default acs/acs5',
  word: 'The word, letters, apostrophes, hyphens and spaces, at most 64 characters.',
  lang: 'Language code of the dictionary, e.g. `en`. @default en',
  orcid: 'ORCID iD, e.g. `0000-0002-1825-0097` (its check digit is verified).',
  doi: 'DOI, e.g. `10.1038/nature12373` (a `doi:` or `https://doi.org/` prefix is accepted).',
  issn: 'ISSN, e.g. `0028-0836` (its check digit is verified).',
  id: 'arXiv id (`2101.00001`, `hep-th/9901001`, with an optional version) or a bioRxiv/medRxiv DOI (`10.1101/...`).',
  server: '`biorxiv` or `medrxiv`, for a 10.1101 DOI or recent preprints there. @default biorxiv for a DOI',
  category: 'arXiv category (e.g. `cs.AI`), or with `server` a bioRxiv/medRxiv category (e.g. `neuroscience`).',
  days: 'How many days back, 1 to 365. @default 30 (trending), 7 (recent preprints)',
  topic: 'Topic words, at most 200 characters.',
  q: 'Search words, 1 to 300 characters.',
  limit: 'Most results, 1 to 50. @default 10',
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

/** The answers of the research endpoints, by catalog key. */
export const outputs: Record<string, TSchema> = {
  'GET /api/v1/research/biomedical/by-pmid': Type.Object({ paper: Paper }),
  'GET /api/v1/research/biomedical/related': Type.Object({ pmid: Type.String(), papers: Type.Array(Paper) }),
  'GET /api/v1/research/biomedical/search': Type.Object({ query: Type.String(), ...papers }),
  'GET /api/v1/research/chemistry/compound': Type.Object({ compounds: Type.Array(compound) }),
  'GET /api/v1/research/chemistry/bioactivity': Type.Object({
    cid: Type.Integer(),
    total: Type.Integer(),
    assays: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description:
        'Rows of PubChem assay summary, keyed by its columns (AID, Activity Outcome, Target Accession, ...).',
    }),
  }),
  'GET /api/v1/research/chemistry/similarity': Type.Object({
    cid: Type.Integer(),
    threshold: Type.Integer(),
    cids: Type.Array(Type.Integer()),
  }),
  'GET /api/v1/research/demographics/census': Type.Object({
    year: Type.Integer(),
    dataset: Type.String(),
    geography: Type.Object(
      {},
      { additionalProperties: true, description: '`kind` state, county or zip, and its codes.' },
    ),
    rows: Type.Array(Type.Record(Type.String(), nullable(Type.String())), {
      description: 'One object per row, keyed by variable and geography.',
    }),
  }),
  'GET /api/v1/research/demographics/datasets': Type.Object({
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
          Type.Object({ name: nullable(Type.String()), format: nullable(Type.String()), url: nullable(Type.String()) }),
        ),
        url: nullable(Type.String()),
      }),
    ),
  }),
  'GET /api/v1/research/dictionary/define': Type.Object({
    word: Type.String(),
    language: Type.String(),
    entries: Type.Array(entry),
  }),
  'GET /api/v1/research/dictionary/phonetics': Type.Object({
    word: Type.String(),
    phonetic: nullable(Type.String()),
    phonetics: Type.Array(Type.Object({ text: nullable(Type.String()), audio: nullable(Type.String()) })),
  }),
  'GET /api/v1/research/dictionary/synonyms': Type.Object({
    word: Type.String(),
    synonyms: Type.Array(Type.String()),
    antonyms: Type.Array(Type.String()),
  }),
  'GET /api/v1/research/papers/by-author': Type.Object({
    author: Type.Object({
      id: Type.String(),
      name: Type.String(),
      orcid: nullable(Type.String()),
      works: nullable(Type.Integer()),
    }),
    ...papers,
  }),
  'GET /api/v1/research/papers/by-doi': Type.Object({ paper: Paper }),
  'GET /api/v1/research/papers/citations': Type.Object({
    doi: Type.String(),
    citationCount: nullable(Type.Integer()),
    citedBy: Type.Object(papers, { description: 'Works citing it, most cited first.' }),
    references: Type.Array(Type.String(), { description: 'OpenAlex ids of the works it references.' }),
    paper: Paper,
  }),
  'GET /api/v1/research/papers/search': Type.Object({ query: Type.String(), page: Type.Integer(), ...papers }),
  'GET /api/v1/research/papers/trending': Type.Object({
    topic: nullable(Type.String()),
    since: Type.String({ description: 'First publication date counted, `YYYY-MM-DD`.' }),
    ...papers,
  }),
  'GET /api/v1/research/preprints/by-id': Type.Object({ paper: Paper }),
  'GET /api/v1/research/preprints/recent': Type.Object({
    source: Type.String({ description: '`arxiv`, `biorxiv` or `medrxiv`.' }),
    category: nullable(Type.String()),
    ...papers,
  }),
  'GET /api/v1/research/preprints/search': Type.Object({
    query: Type.String(),
    category: nullable(Type.String()),
    ...papers,
  }),
  'GET /api/v1/research/scholarly/by-doi': Type.Object({
    paper: Paper,
    type: nullable(Type.String(), 'Crossref work type, e.g. `journal-article`.'),
    references: Type.Array(reference),
  }),
  'GET /api/v1/research/scholarly/citations-count': Type.Object({
    doi: Type.String(),
    title: nullable(Type.String()),
    citationCount: nullable(Type.Integer()),
    referencesCount: Type.Integer(),
    references: Type.Array(reference, { description: 'The first 50.' }),
  }),
  'GET /api/v1/research/scholarly/journal-info': Type.Object({
    issn: Type.String(),
    journal: Type.Object({
      title: nullable(Type.String()),
      publisher: nullable(Type.String()),
      issns: Type.Array(Type.Object({ value: Type.String(), type: nullable(Type.String()) })),
      subjects: Type.Array(Type.String()),
      dois: Type.Object({
        total: nullable(Type.Integer()),
        current: nullable(Type.Integer()),
        backfile: nullable(Type.Integer()),
      }),
    }),
  }),
  'GET /api/v1/research/scholarly/search': Type.Object({ query: Type.String(), ...papers }),
}
