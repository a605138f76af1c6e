import { Type } from '@sinclair/typebox'
import { arxiv } from '../../adapters/research/arxiv.js'
import { biorxiv } from '../../adapters/research/biorxiv.js'
import { census } from '../../adapters/research/census.js'
import { ckan } from '../../adapters/research/ckan.js'
import { crossref } from '../../adapters/research/crossref.js'
import { dictionary } from '../../adapters/research/dictionary.js'
import { openalex } from '../../adapters/research/openalex.js'
import { pubchem } from '../../adapters/research/pubchem.js'
import { pubmed } from '../../adapters/research/pubmed.js'
import * as Catalog from '../../core/Catalog.js'
import { define } from './shared.js'

/** The contact variable, in the User-Agent and the polite-pool parameters of every research source. */
const contact = Type.Optional(
  Type.String({
    minLength: 3,
    description:
      "the operator's contact (an email), sent in the User-Agent of every research request and as OpenAlex's and Crossref's `mailto` and NCBI's `email` (their polite pools); unset, the gateway's repository URL is sent instead",
  }),
)

/** A keyless public upstream's base URL variable. */
const url = (value: string, description: string) => Type.String({ minLength: 1, default: value, description })

/** An optional key. */
const key = (description: string) => Type.Optional(Type.String({ minLength: 1, secret: true, description }))

/**
 * The public scholarly and data APIs of the research family, each keyless and on by default: OpenAlex, Crossref,
 * arXiv, bioRxiv/medRxiv, NCBI E-utilities, PubChem, the Census Data API, data.gov's catalog and the Free Dictionary.
 */
export const research = define({
  port: 'research',
  description: 'the research sources',
  env: Type.Object({
    RESEARCH_CONTACT: contact,
    OPENALEX_URL: url('https://api.openalex.org', 'OpenAlex API (`/api/v1/research/papers/*`)'),
    OPENALEX_API_KEY: key('OpenAlex key (optional: a larger daily budget)'),
    CROSSREF_URL: url('https://api.crossref.org', 'Crossref REST API (`/api/v1/research/scholarly/*`)'),
    ARXIV_URL: url('https://export.arxiv.org/api', 'arXiv API (`/query` is appended; `/api/v1/research/preprints/*`)'),
    ARXIV_INTERVAL_MS: Type.Integer({
      minimum: 1,
      maximum: 60_000,
      default: 3_000,
      description:
        "least time between two requests to arXiv, in ms (arXiv's terms: one request every 3 s, on one connection); lower only for a mirror of your own",
    }),
    ARXIV_MAX_WAIT_MS: Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 10_000,
      description:
        'longest a preprint call queues for its turn at arXiv (one request per 3 s), in ms; past it a 503, nothing charged',
    }),
    BIORXIV_URL: url('https://api.biorxiv.org', 'bioRxiv/medRxiv details API (10.1101 DOIs, recent preprints)'),
    NCBI_EUTILS_URL: url(
      'https://eutils.ncbi.nlm.nih.gov/entrez/eutils',
      'NCBI E-utilities (`/api/v1/research/biomedical/*`)',
    ),
    NCBI_API_KEY: key('NCBI API key (optional: 10 requests/s instead of 3)'),
    PUBCHEM_URL: url('https://pubchem.ncbi.nlm.nih.gov/rest/pug', 'PubChem PUG-REST (`/api/v1/research/chemistry/*`)'),
    CENSUS_URL: url('https://api.census.gov/data', 'US Census Data API (`/api/v1/research/demographics/census`)'),
    CENSUS_API_KEY: key('Census Data API key (optional: more than about 500 queries a day)'),
    DATASETS_URL: url(
      'https://catalog.data.gov/api/3',
      'CKAN Action API of the open-data catalog (`/action/package_search`; `/api/v1/research/demographics/datasets`)',
    ),
    DICTIONARY_URL: url(
      'https://api.dictionaryapi.dev/api/v2',
      'Free Dictionary API (`/api/v1/research/dictionary/*`)',
    ),
  }),
  build: ({ env }) => {
    const contact = env.RESEARCH_CONTACT
    // Every research vendor asks callers to say who they are and how to reach them.
    const userAgent = `pay-per-call-gateway/${Catalog.overviewVersion} (${contact ? `mailto:${contact}` : 'no operator contact set'})`
    return {
      works: openalex({ baseUrl: env.OPENALEX_URL, apiKey: env.OPENALEX_API_KEY, contact, userAgent }),
      registry: crossref({ baseUrl: env.CROSSREF_URL, contact, userAgent }),
      arxiv: arxiv({
        baseUrl: env.ARXIV_URL,
        userAgent,
        intervalMs: env.ARXIV_INTERVAL_MS,
        maxWaitMs: env.ARXIV_MAX_WAIT_MS,
      }),
      rxiv: biorxiv({ baseUrl: env.BIORXIV_URL, userAgent }),
      pubmed: pubmed({ baseUrl: env.NCBI_EUTILS_URL, apiKey: env.NCBI_API_KEY, contact, userAgent }),
      pubchem: pubchem({ baseUrl: env.PUBCHEM_URL, userAgent }),
      census: census({ baseUrl: env.CENSUS_URL, apiKey: env.CENSUS_API_KEY, userAgent }),
      datasets: ckan({ baseUrl: env.DATASETS_URL, userAgent }),
      dictionary: dictionary({ baseUrl: env.DICTIONARY_URL, userAgent }),
    }
  },
})
