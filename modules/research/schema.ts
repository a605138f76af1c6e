import { type TObject, type TOptional, type TString, Type } from '@sinclair/typebox'

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
