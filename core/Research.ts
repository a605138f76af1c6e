import type { Availability, Outcome } from './Upstream.js'

/**
 * The research databases as ports (scholarly works, preprints, PubMed, PubChem, the US Census, open-data catalogs, a
 * dictionary), one normalized {@link Paper} across them, and the identifiers they take, checked here (checksums and
 * check digits included) so that a malformed one is refused before anything is paid or sent.
 */

/** One author of a paper. */
export type Author = {
  /** Name as the source prints it. */
  name: string
  /** ORCID iD (`0000-0002-1825-0097`), where the source knows it. */
  orcid: string | null
}

/** A scholarly work, the same shape whichever source it came from. */
export type Paper = {
  /** Where this record came from: `openalex`, `crossref`, `arxiv`, `biorxiv`, `medrxiv` or `pubmed`. */
  source: string
  /** Title. */
  title: string | null
  /** Authors in order. */
  authors: Author[]
  /** Journal, proceedings or server it appeared in. */
  venue: string | null
  /** Year of publication. */
  year: number | null
  /** Date of publication, `YYYY-MM-DD` (or `YYYY-MM`, `YYYY`) as precise as the source has it. */
  published: string | null
  /** DOI, lowercase, without `https://doi.org/`. */
  doi: string | null
  /** The work's ids at its sources: `openalex`, `arxiv`, `pmid`, `pmcid`, ... */
  ids: Record<string, string>
  /** Abstract, where the source gives it (its licence allows it). */
  abstract: string | null
  /** Works citing it, as the source counts them. */
  citationCount: number | null
  /** Landing page and full text. */
  urls: {
    /** Landing page. */
    landing: string | null
    /** PDF, when the source links one. */
    pdf: string | null
  }
}

/** A page of papers. */
export type Papers = {
  /** Matches in all, as the source counts them. */
  total: number
  /** This page. */
  papers: Paper[]
}

/** An answer that is absent when the source does not know the identifier (its 404). */
export type Found<value> = Outcome<{ found: value | null }>

/** OpenAlex: works, their authors, citations and references. */
export type WorksIndex = {
  /** One work by DOI. */
  byDoi: (doi: string) => Promise<Found<Paper>>
  /** Works matching a full-text query, and an OpenAlex filter expression (`publication_year:2020,is_oa:true`). */
  search: (parameters: {
    query: string
    filter?: string | undefined
    page: number
    perPage: number
  }) => Promise<Outcome<Papers>>
  /** The author best matching a name, or the one with an ORCID iD, and a page of their works, most cited first. */
  byAuthor: (parameters: {
    name?: string | undefined
    orcid?: string | undefined
    page: number
    perPage: number
  }) => Promise<Found<Papers & { author: { id: string; name: string; orcid: string | null; works: number | null } }>>
  /**
   * A work by DOI or OpenAlex id (`W2741809807`), the works citing it (most cited first), the OpenAlex ids it
   * references and OpenAlex's URL listing the works citing it.
   */
  citations: (
    parameters: ({ doi: string } | { id: string }) & { perPage: number },
  ) => Promise<Found<{ paper: Paper; citedBy: Papers; references: string[]; citedByApiUrl: string | null }>>
  /** Works published since `since` (`YYYY-MM-DD`), on a topic, most cited first. */
  trending: (parameters: { topic?: string | undefined; since: string; perPage: number }) => Promise<Outcome<Papers>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A journal as Crossref knows it. */
export type Journal = {
  /** Title. */
  title: string | null
  /** Publisher. */
  publisher: string | null
  /** ISSNs with their kind (`print`, `electronic`). */
  issns: { value: string; type: string | null }[]
  /** Subjects. */
  subjects: string[]
  /** DOIs registered: in all, current (last two years), backfile. */
  dois: { total: number | null; current: number | null; backfile: number | null }
}

/** Crossref: DOI metadata, references, journals. */
export type Registry = {
  /** One work by DOI, with the DOIs (or texts) of its references. */
  byDoi: (doi: string) => Promise<Found<{ paper: Paper; type: string | null; references: Reference[] }>>
  /** Works matching a bibliographic query. */
  search: (parameters: { query: string; rows: number; offset: number }) => Promise<Outcome<Papers>>
  /** A journal by ISSN. */
  journal: (issn: string) => Promise<Found<Journal>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** One reference of a work. */
export type Reference = {
  /** DOI of the cited work, when Crossref matched it. */
  doi: string | null
  /** The reference as printed, when the publisher deposited it. */
  text: string | null
}

/** The arXiv API. */
export type Preprints = {
  /** Preprints by arXiv id. */
  byIds: (ids: readonly string[]) => Promise<Outcome<Papers>>
  /** Preprints matching a query, in a category or not, newest first (or `category` alone: the latest in it). */
  search: (parameters: {
    query?: string | undefined
    category?: string | undefined
    max: number
  }) => Promise<Outcome<Papers>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** The bioRxiv and medRxiv details API. */
export type PreprintServer = {
  /** A preprint by DOI (`10.1101/...`) on `server`, its latest version. */
  byDoi: (parameters: { server: 'biorxiv' | 'medrxiv'; doi: string }) => Promise<Found<Paper>>
  /** The latest preprints of the last `days` days on `server`, in a category or all. */
  recent: (parameters: {
    server: 'biorxiv' | 'medrxiv'
    days: number
    category?: string | undefined
    max: number
  }) => Promise<Outcome<Papers>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** PubMed through NCBI E-utilities. */
export type Biomedical = {
  /** Summaries (and abstracts) of PubMed ids, in the order given; unknown ids are left out. */
  byPmids: (pmids: readonly string[]) => Promise<Outcome<{ papers: Paper[] }>>
  /** Ids of the articles PubMed relates to one, most related first. */
  related: (parameters: { pmid: string; max: number }) => Promise<Outcome<{ pmids: string[] }>>
  /** Ids of the articles matching a PubMed query, and how many match. */
  search: (parameters: { query: string; max: number }) => Promise<Outcome<{ total: number; pmids: string[] }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A compound's identity and computed properties. */
export type Compound = {
  /** PubChem compound id. */
  cid: number
  /** Molecular formula, e.g. `C9H8O4`. */
  formula: string | null
  /** Molecular weight, g/mol, as a decimal string. */
  weight: string | null
  /** IUPAC name. */
  iupacName: string | null
  /** InChIKey. */
  inchiKey: string | null
  /** SMILES (with stereochemistry where known). */
  smiles: string | null
  /** Octanol-water partition coefficient (computed). */
  xlogp: number | null
}

/** PubChem PUG-REST. */
export type Chemistry = {
  /** Compounds by CID, name or formula (a formula may match many), at most `max`. */
  compounds: (
    parameters: ({ cid: number } | { name: string } | { formula: string }) & { max: number },
  ) => Promise<Found<Compound[]>>
  /** Assay results of a compound: the summary table's rows as objects keyed by its columns. */
  bioactivity: (parameters: {
    cid: number
    max: number
  }) => Promise<Found<{ total: number; rows: Record<string, string | number | null>[] }>>
  /** CIDs of compounds at least `threshold`% similar in 2-D (Tanimoto on PubChem fingerprints). */
  similar: (parameters: { cid: number; threshold: number; max: number }) => Promise<Found<number[]>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A place the Census Data API answers for. */
export type Geography =
  | { /** A state by FIPS code. */ kind: 'state'; state: string }
  | { /** A county by state and county FIPS codes. */ kind: 'county'; state: string; county: string }
  | { /** A ZIP Code Tabulation Area. */ kind: 'zip'; zip: string }
  | {
      /** The API's own `for` clause, e.g. `state:*` or `county:*` (the original gateway's `geo`). */ kind: 'geo'
      geo: string
    }

/** The US Census Data API. */
export type Census = {
  /** Variables of a dataset and year for one place: each row of the answer as an object keyed by variable. */
  query: (parameters: {
    year: number
    dataset: string
    variables: readonly string[]
    geography: Geography
  }) => Promise<Found<Record<string, string | null>[]>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** A dataset of an open-data catalog. */
export type Dataset = {
  /** Catalog id. */
  id: string
  /** Title. */
  title: string | null
  /** Description. */
  description: string | null
  /** Publishing organization. */
  organization: string | null
  /** Last change of its metadata, ISO 8601. */
  modified: string | null
  /** Its files and APIs. */
  resources: { name: string | null; format: string | null; url: string | null }[]
  /** Page on the catalog. */
  url: string | null
}

/** An open-data catalog (CKAN's Action API: data.gov and most government portals). */
export type DataCatalog = {
  /** Datasets matching a query. */
  search: (parameters: { query: string; rows: number }) => Promise<Outcome<{ total: number; datasets: Dataset[] }>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** One meaning of a word. */
export type Meaning = {
  /** Part of speech. */
  partOfSpeech: string | null
  /** Definitions, each with an example where there is one. */
  definitions: { definition: string; example: string | null; synonyms: string[]; antonyms: string[] }[]
  /** Synonyms of the meaning. */
  synonyms: string[]
  /** Antonyms of the meaning. */
  antonyms: string[]
}

/** A dictionary entry. */
export type Entry = {
  /** The word. */
  word: string
  /** Its main transcription. */
  phonetic: string | null
  /** Transcriptions and recordings. */
  phonetics: { text: string | null; audio: string | null }[]
  /** Meanings. */
  meanings: Meaning[]
  /** Where the entry came from. */
  sourceUrls: string[]
}

/** A dictionary (the Free Dictionary API). */
export type Dictionary = {
  /** Entries of a word in a language. */
  entries: (parameters: { word: string; language: string }) => Promise<Found<Entry[]>>
  /** Whether calls may start now. */
  available: () => Availability
}

/** Every research source, built once from the research family's environment. */
export type Sources = {
  /** OpenAlex. */
  works: WorksIndex
  /** Crossref. */
  registry: Registry
  /** arXiv. */
  arxiv: Preprints
  /** bioRxiv and medRxiv. */
  rxiv: PreprintServer
  /** PubMed. */
  pubmed: Biomedical
  /** PubChem. */
  pubchem: Chemistry
  /** The Census Data API. */
  census: Census
  /** data.gov's catalog. */
  datasets: DataCatalog
  /** The Free Dictionary API. */
  dictionary: Dictionary
}

/** An identifier that is not well formed: `undefined` when it is, else why not. */
type Check = string | undefined

/** A DOI without `doi:`, `https://doi.org/` or `https://dx.doi.org/` in front, lowercased (DOIs ignore case). */
export function toDoi(value: string): string {
  return value
    .trim()
    .replace(/^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)/i, '')
    .toLowerCase()
}

/** Why `doi` (after {@link toDoi}) is not a DOI: `10.` a registrant code of 4 to 9 digits, `/` and a suffix. */
export function checkDoi(doi: string): Check {
  if (!/^10\.[0-9]{4,9}(?:\.[0-9]+)*\/[^\s]+$/.test(doi))
    return 'a DOI is 10., a registrant code, / and a suffix (e.g. 10.1038/nature12373)'
  if (doi.length > 300) return 'a DOI is at most 300 characters'
  return undefined
}

/** Why `pmid` is not a PubMed id: 1 to 9 digits, not starting with 0. */
export function checkPmid(pmid: string): Check {
  return /^[1-9][0-9]{0,8}$/.test(pmid) ? undefined : 'a PubMed id is 1 to 9 digits (e.g. 31452104)'
}

/** An ORCID iD without `https://orcid.org/` in front, its check character uppercased. */
export function toOrcid(value: string): string {
  return value
    .trim()
    .replace(/^https?:\/\/orcid\.org\//i, '')
    .toUpperCase()
}

/** Why `orcid` is not an ORCID iD: four groups of four, the last character the ISO 7064 MOD 11-2 check of the rest. */
export function checkOrcid(orcid: string): Check {
  if (!/^[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]$/.test(orcid))
    return 'an ORCID iD is four groups of four digits, the last may be X (e.g. 0000-0002-1825-0097)'
  const digits = orcid.replaceAll('-', '')
  let total = 0
  for (const digit of digits.slice(0, 15)) total = (total + Number(digit)) * 2
  const check = (12 - (total % 11)) % 11
  const expected = check === 10 ? 'X' : String(check)
  return digits[15] === expected ? undefined : 'the ORCID iD fails its check digit'
}

/** Why `issn` is not an ISSN: `NNNN-NNNC`, the last character the modulus-11 check of the seven digits. */
export function checkIssn(issn: string): Check {
  if (!/^[0-9]{4}-[0-9]{3}[0-9X]$/.test(issn)) return 'an ISSN is NNNN-NNNC, the last may be X (e.g. 0028-0836)'
  const digits = issn.replace('-', '')
  let total = 0
  for (let index = 0; index < 7; index++) total += Number(digits[index]) * (8 - index)
  const check = (11 - (total % 11)) % 11
  const expected = check === 10 ? 'X' : String(check)
  return digits[7] === expected ? undefined : 'the ISSN fails its check digit'
}

/** An arXiv id without `arXiv:` or `https://arxiv.org/abs/` in front. */
export function toArxivId(value: string): string {
  return value.trim().replace(/^(?:arxiv:|https?:\/\/arxiv\.org\/abs\/)/i, '')
}

/**
 * Why `id` is not an arXiv id: the new form `YYMM.NNNNN` (four digits before 2015) or the old `archive(.XX)/YYMMNNN`,
 * each with an optional version `vN`.
 */
export function checkArxivId(id: string): Check {
  const modern = id.match(/^([0-9]{2})(0[1-9]|1[0-2])\.([0-9]{4,5})(?:v[1-9][0-9]*)?$/)
  if (modern) {
    // Five-digit numbers began in January 2015 (1501); before it, four.
    const fiveDigits = Number(modern[1]) >= 15
    return modern[3]!.length === (fiveDigits ? 5 : 4)
      ? undefined
      : `an arXiv id of ${modern[1]}${modern[2]} has ${fiveDigits ? 'five' : 'four'} digits after the dot`
  }
  if (/^[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?\/[0-9]{2}(?:0[1-9]|1[0-2])[0-9]{3}(?:v[1-9][0-9]*)?$/.test(id))
    return undefined
  return 'an arXiv id is YYMM.NNNNN (e.g. 2101.00001) or archive/YYMMNNN (e.g. hep-th/9901001)'
}

/** Why `doi` is not a bioRxiv or medRxiv DOI (`10.1101/` and the rest). */
export function checkRxivDoi(doi: string): Check {
  return /^10\.1101\/[0-9a-z.\-/]+$/.test(doi) ? undefined : 'bioRxiv and medRxiv DOIs start with 10.1101/'
}

/** Why `cid` is not a PubChem compound id: a positive integer below 10^10. */
export function checkCid(cid: string): Check {
  return /^[1-9][0-9]{0,9}$/.test(cid) ? undefined : 'a PubChem CID is a positive integer (e.g. 2244)'
}

/** FIPS codes of the states, the District of Columbia and Puerto Rico. */
export const stateFips: ReadonlySet<string> = new Set([
  ...['01', '02', '04', '05', '06', '08', '09', '10', '11', '12', '13', '15', '16', '17', '18', '19', '20', '21'],
  ...['22', '23', '24', '25', '26', '27', '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39'],
  ...['40', '41', '42', '44', '45', '46', '47', '48', '49', '50', '51', '53', '54', '55', '56', '72'],
])

/** Why `state` is not a state FIPS code (two digits, one in use: `06` is California, `03` is none). */
export function checkStateFips(state: string): Check {
  if (!/^[0-9]{2}$/.test(state)) return 'a state FIPS code is two digits (e.g. 06 for California)'
  return stateFips.has(state) ? undefined : `${state} is the FIPS code of no state`
}

/** Why `county` is not a county FIPS code: three digits, not `000`. */
export function checkCountyFips(county: string): Check {
  if (!/^[0-9]{3}$/.test(county) || county === '000') return 'a county FIPS code is three digits (e.g. 037)'
  return undefined
}

/** Why `zip` is not a ZIP code (five digits). */
export function checkZip(zip: string): Check {
  return /^[0-9]{5}$/.test(zip) ? undefined : 'a ZIP code is five digits (e.g. 94103)'
}
