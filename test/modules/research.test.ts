import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import { outputs } from '../../modules/research/schema.js'
import { origin, paidGateway } from '../support/paid.js'
import { researchServer } from '../support/research.js'

// Every research endpoint on the devnet, paid for real, against one local stand-in speaking each vendor's documented
// shapes. An unknown identifier is a 404, an upstream 429 a 503 and a 5xx a 502, none of them charged; bad input is a
// 400 before any 402.

const vendors = researchServer()
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({ env: { ...vendors.env, RESEARCH_CONTACT: 'ops@gateway.test', ARXIV_INTERVAL_MS: '1' } })
})
afterAll(async () => {
  await gateway.close()
  vendors.stop()
})

/** The catalog price of `GET path` in atomic USDC. */
function priceOf(path: string): bigint {
  const entry = Catalog.find('GET', path)
  if (!entry) throw new Error(`no entry ${path}`)
  return Price.quote({ price: entry.price })
}

/** A paid GET by account 2: status, body, request id and what it cost. */
async function paid(path: string) {
  const account = gateway.account(2)
  const before = await gateway.balance(account.address)
  const response = await gateway.paid(account, 'GET', path)
  const body = (await response.json()) as any
  const requestId = response.headers.get('x-request-id')
  return { status: response.status, body, requestId, cost: before - (await gateway.balance(account.address)) }
}

/** An unpaid GET: status and body. */
async function unpaid(path: string) {
  const response = await gateway.fetch(`${origin}${path}`)
  return { status: response.status, body: (await response.json()) as any }
}

/** A paid call that must succeed and cost exactly the catalog price. */
async function served(path: string) {
  const result = await paid(path)
  if (result.status !== 200) throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`)
  expect(result.cost).toBe(priceOf(path.split('?')[0]!))
  // Every answer matches the schema discovery documents for it.
  const schema = outputs[`GET ${path.split('?')[0]}`]!
  expect({
    path,
    errors: [...Value.Errors(schema, result.body)].map((error) => `${error.path}: ${error.message}`),
  }).toEqual({ path, errors: [] })
  // Every answer is in the original gateway's envelope, its request id the call's.
  expect(result.body).toMatchObject({
    category: expect.any(String),
    endpoint: path.split('?')[0]!.slice('/api/v1/research/'.length),
    source_license: expect.any(String),
    results: expect.any(Array),
    spraay_request_id: result.requestId,
  })
  expect(result.body.attribution).toStartWith(result.body.source === 'arxiv' ? 'Thank you to arXiv' : 'Data from')
  return result.body
}

/** A paid call that must fail with `status` and cost nothing. */
async function uncharged(path: string, status: number) {
  const result = await paid(path)
  expect({ path, status: result.status }).toEqual({ path, status })
  expect(result.cost).toBe(0n)
  return result.body
}

describe('papers (OpenAlex)', () => {
  test('behavior: by-doi answers the normalized paper, with ORCID where known and the abstract rebuilt', async () => {
    const body = await served('/api/v1/research/papers/by-doi?doi=https://doi.org/10.7717/PEERJ.4375')
    expect(body.paper).toMatchObject({
      source: 'openalex',
      doi: '10.7717/peerj.4375',
      year: 2018,
      venue: 'PeerJ',
      ids: { openalex: 'W2741809807', pmid: '29456894' },
      abstract: 'Despite growing interest in OA',
      citationCount: 1067,
      urls: { pdf: 'https://peerj.com/articles/4375.pdf' },
    })
    expect(body.paper.authors).toEqual([
      { name: 'Heather Piwowar', orcid: null },
      { name: 'Josiah Carberry', orcid: '0000-0002-1825-0097' },
    ])
    // The polite pool: mailto, and a User-Agent naming the gateway and the operator's contact.
    const request = vendors.to('openalex').at(-1)!
    expect(request.query.get('mailto')).toBe('ops@gateway.test')
    expect(request.headers.get('user-agent')).toMatch(/^pay-per-call-gateway\/.+ \(mailto:ops@gateway\.test\)$/)
  })

  test('behavior: search, by-author (name and ORCID), citations and trending', async () => {
    const search = await served('/api/v1/research/papers/search?q=open%20access&limit=5')
    expect(search).toMatchObject({ query: 'open access', total: 1, papers: [{ doi: '10.7717/peerj.4375' }] })
    expect(vendors.to('openalex').at(-1)!.query.get('per_page')).toBe('5')

    const byOrcid = await served('/api/v1/research/papers/by-author?orcid=0000-0002-1825-0097')
    expect(byOrcid.author).toEqual({
      id: 'A5002034958',
      name: 'Josiah Carberry',
      orcid: '0000-0002-1825-0097',
      works: 12,
    })
    expect(vendors.to('openalex').at(-1)!.query.get('filter')).toBe('author.id:A5002034958')
    const byName = await served('/api/v1/research/papers/by-author?name=Josiah%20Carberry')
    expect(byName.papers).toHaveLength(1)

    const citations = await served('/api/v1/research/papers/citations?doi=10.7717/peerj.4375')
    expect(citations).toMatchObject({
      doi: '10.7717/peerj.4375',
      citationCount: 1067,
      citedBy: { total: 1, papers: [{ title: 'A paper that cites the state of OA' }] },
      references: ['W1491283001', 'W1964141474'],
    })

    const trending = await served('/api/v1/research/papers/trending?topic=climate&days=7')
    expect(trending.topic).toBe('climate')
    const filter = vendors.to('openalex').at(-1)!.query
    expect(filter.get('filter')).toBe(`from_publication_date:${trending.since}`)
    expect(filter.get('sort')).toBe('cited_by_count:desc')
  })

  test('error: an unknown DOI or author is a 404 and charges nothing', async () => {
    await uncharged('/api/v1/research/papers/by-doi?doi=10.1234/unknown', 404)
    await uncharged('/api/v1/research/papers/by-author?name=nobody%20at%20all', 404)
    await uncharged('/api/v1/research/papers/by-author?orcid=0000-0001-5109-3700', 404)
  })

  test('error: identifiers are checked before payment: a bad DOI, an ORCID failing its checksum', async () => {
    const before = vendors.seen.length
    const doi = await unpaid('/api/v1/research/papers/by-doi?doi=nature12373')
    expect(doi.status).toBe(400)
    expect(doi.body.code).toBe('validation_failed')
    const orcid = await unpaid('/api/v1/research/papers/by-author?orcid=0000-0002-1825-0098')
    expect(orcid).toMatchObject({ status: 400, body: { detail: 'orcid: the ORCID iD fails its check digit' } })
    expect((await unpaid('/api/v1/research/papers/search?q=x&limit=51')).status).toBe(400)
    expect((await unpaid('/api/v1/research/papers/search')).status).toBe(400)
    expect(vendors.seen.length).toBe(before)
    // Good input without payment is a 402.
    expect((await gateway.fetch(`${origin}/api/v1/research/papers/by-doi?doi=10.7717/peerj.4375`)).status).toBe(402)
  })

  test('behavior: a repeated query is served from the cache, without another upstream request', async () => {
    await served('/api/v1/research/papers/by-doi?doi=10.7717/peerj.4375')
    const before = vendors.to('openalex').length
    await served('/api/v1/research/papers/by-doi?doi=10.7717/peerj.4375')
    expect(vendors.to('openalex').length).toBe(before)
  })
})

describe('scholarly (Crossref)', () => {
  test('behavior: by-doi, citations-count, journal-info and search', async () => {
    const work = await served('/api/v1/research/scholarly/by-doi?doi=doi:10.5555/12345678')
    expect(work).toMatchObject({
      type: 'journal-article',
      paper: {
        source: 'crossref',
        title: 'Toward a Unified Theory of High-Energy Metaphysics: Silly String Theory',
        authors: [{ name: 'Josiah Carberry', orcid: '0000-0002-1825-0097' }],
        venue: 'Journal of Psychoceramics',
        year: 2008,
        published: '2008-08-13',
        doi: '10.5555/12345678',
        abstract: 'The abstract, in JATS.',
        citationCount: 42,
      },
      references: [
        { doi: '10.1038/nature12373', text: null },
        { doi: null, text: 'Carberry J. Brown University, 2007.' },
      ],
    })
    expect(vendors.to('crossref').at(-1)!.query.get('mailto')).toBe('ops@gateway.test')
    const count = await served('/api/v1/research/scholarly/citations-count?doi=10.5555/12345678')
    expect(count).toMatchObject({ citationCount: 42, referencesCount: 2 })
    const journal = await served('/api/v1/research/scholarly/journal-info?issn=0028-0836')
    expect(journal.journal).toMatchObject({
      title: 'Nature',
      issns: [
        { value: '0028-0836', type: 'print' },
        { value: '1476-4687', type: 'electronic' },
      ],
      subjects: ['Multidisciplinary'],
      dois: { total: 420000 },
    })
    const search = await served('/api/v1/research/scholarly/search?q=metaphysics&limit=3&offset=0')
    expect(search).toMatchObject({ total: 1, papers: [{ doi: '10.5555/12345678' }] })
  })

  test("error: an unknown DOI (Crossref's plain-text 404) or ISSN is a 404, uncharged; a bad check digit a 400", async () => {
    await uncharged('/api/v1/research/scholarly/by-doi?doi=10.5555/00000000', 404)
    await uncharged('/api/v1/research/scholarly/journal-info?issn=1476-4687', 404)
    expect((await unpaid('/api/v1/research/scholarly/journal-info?issn=0028-0837')).status).toBe(400)
  })

  test('error: an upstream 429 is a 503 and a 5xx a 502, neither charged', async () => {
    vendors.state.fail.crossref = 429
    await uncharged('/api/v1/research/scholarly/search?q=throttled', 503)
    vendors.state.fail.crossref = 500
    await uncharged('/api/v1/research/scholarly/search?q=broken', 502)
    delete vendors.state.fail.crossref
  })
})

describe('preprints (arXiv, bioRxiv)', () => {
  test('behavior: by-id in the new and old arXiv forms, and a bioRxiv DOI', async () => {
    const modern = await served('/api/v1/research/preprints/by-id?id=arXiv:1706.03762')
    expect(modern.paper).toMatchObject({
      source: 'arxiv',
      title: 'Attention Is All You Need',
      ids: { arxiv: '1706.03762v7', category: 'cs.CL' },
      doi: '10.48550/arxiv.1706.03762',
      published: '2017-06-12',
      urls: { pdf: 'http://arxiv.org/pdf/1706.03762v7' },
    })
    expect(modern.paper.abstract).toStartWith('The dominant sequence transduction models')
    await uncharged('/api/v1/research/preprints/by-id?id=hep-th/9901001', 404)
    expect(vendors.to('arxiv').at(-1)!.query.get('id_list')).toBe('hep-th/9901001')

    const rxiv = await served('/api/v1/research/preprints/by-id?id=10.1101/2020.03.01.972240')
    expect(rxiv.paper).toMatchObject({
      source: 'biorxiv',
      venue: 'bioRxiv',
      ids: { version: '2' },
      authors: [
        { name: 'Smith, J.', orcid: null },
        { name: 'Doe, A.', orcid: null },
      ],
      urls: { landing: 'https://www.biorxiv.org/content/10.1101/2020.03.01.972240v2' },
    })
    await uncharged('/api/v1/research/preprints/by-id?id=10.1101/2099.01.01.000000', 404)
  })

  test('behavior: recent (an arXiv category, or a server) and search', async () => {
    const recent = await served('/api/v1/research/preprints/recent?category=cs.AI&limit=2')
    expect(recent).toMatchObject({ source: 'arxiv', total: 1234 })
    expect(vendors.to('arxiv').at(-1)!.query.get('search_query')).toBe('cat:cs.AI')
    const server = await served('/api/v1/research/preprints/recent?server=medrxiv&category=cell%20biology&days=3')
    expect(server.papers.map((paper: any) => paper.title)).toEqual(['Newer', 'Older'])
    expect(vendors.to('biorxiv').at(-1)!.path).toBe('/details/medrxiv/3d/0/json')
    const search = await served('/api/v1/research/preprints/search?q=attention%20transformers&category=cs.CL')
    expect(search.papers).toHaveLength(2)
    expect(vendors.to('arxiv').at(-1)!.query.get('search_query')).toBe(
      'all:attention AND all:transformers AND cat:cs.CL',
    )
  })

  test('error: malformed arXiv ids are refused before payment', async () => {
    for (const id of ['1706.0376', '1513.00001', '2101.0001', 'hep-th/99010']) {
      const { status } = await unpaid(`/api/v1/research/preprints/by-id?id=${id}`)
      expect({ id, status }).toEqual({ id, status: 400 })
    }
  })
})

describe('biomedical (PubMed)', () => {
  test('behavior: by-pmid joins esummary and the efetch XML abstract', async () => {
    const body = await served('/api/v1/research/biomedical/by-pmid?pmid=31452104')
    expect(body.paper).toMatchObject({
      source: 'pubmed',
      title: 'A study of things.',
      authors: [{ name: 'Carberry J', orcid: null }],
      venue: 'Nature',
      published: '2019-08-22',
      doi: '10.1000/pubmed.31452104',
      ids: { pmid: '31452104' },
      abstract: 'BACKGROUND: Things were studied.\nRESULTS: It worked.',
    })
    const request = vendors.to('eutils').at(-1)!
    expect(request.query.get('tool')).toBe('pay-per-call-gateway')
    expect(request.query.get('email')).toBe('ops@gateway.test')
    await uncharged('/api/v1/research/biomedical/by-pmid?pmid=1', 404)
  })

  test('behavior: related (pubmed_pubmed links, itself left out) and search', async () => {
    const related = await served('/api/v1/research/biomedical/related?pmid=31452104')
    expect(related.papers.map((paper: any) => paper.ids.pmid)).toEqual(['29456894'])
    const search = await served('/api/v1/research/biomedical/search?q=things')
    expect(search).toMatchObject({ total: 2 })
    expect(search.papers).toHaveLength(2)
  })

  test('error: a PMID that is not one is a 400 before payment; E-utilities refusing a query is a 400 uncharged', async () => {
    expect((await unpaid('/api/v1/research/biomedical/by-pmid?pmid=0123')).status).toBe(400)
    await uncharged('/api/v1/research/biomedical/search?q=bad[[query', 400)
  })
})

describe('chemistry (PubChem)', () => {
  test('behavior: compound by CID, name and formula; bioactivity; similarity', async () => {
    const byCid = await served('/api/v1/research/chemistry/compound?cid=2244')
    expect(byCid.results).toEqual(byCid.compounds)
    expect(byCid.compounds).toEqual([
      {
        cid: 2244,
        formula: 'C9H8O4',
        weight: '180.16',
        iupacName: '2-acetyloxybenzoic acid',
        inchiKey: 'BSYNRYMUTXBXSQ-UHFFFAOYSA-N',
        smiles: 'CC(=O)OC1=CC=CC=C1C(=O)O',
        xlogp: 1.2,
      },
    ])
    expect((await served('/api/v1/research/chemistry/compound?name=aspirin')).compounds[0].cid).toBe(2244)
    expect((await served('/api/v1/research/chemistry/compound?formula=C9H8O4')).compounds).toHaveLength(2)
    const assays = await served('/api/v1/research/chemistry/bioactivity?cid=2244')
    expect(assays.total).toBe(2)
    expect(assays.assays[0]).toMatchObject({ AID: 1, 'Activity Outcome': 'Active', 'Target Accession': 'P23219' })
    expect(assays.assays[1]['Target Accession']).toBeNull()
    const similar = await served('/api/v1/research/chemistry/similarity?cid=2244&threshold=95&limit=2')
    expect(similar).toMatchObject({ cid: 2244, threshold: 95, cids: [2244, 5161] })
    expect(vendors.to('pubchem').at(-1)!.query.get('Threshold')).toBe('95')
  })

  test('error: an unknown name is a 404 (PUGREST.NotFound), uncharged; a busy PubChem (503) a 502; bad input a 400', async () => {
    await uncharged('/api/v1/research/chemistry/compound?name=unobtainium', 404)
    vendors.state.fail.pubchem = 503
    await uncharged('/api/v1/research/chemistry/compound?cid=7', 502)
    delete vendors.state.fail.pubchem
    for (const query of ['cid=0', 'cid=2244&name=aspirin', 'formula=c9h8o4', '', 'cid=2244&threshold=50'])
      expect(
        (await unpaid(`/api/v1/research/chemistry/${query.includes('threshold') ? 'similarity' : 'compound'}?${query}`))
          .status,
      ).toBe(400)
  })
})

describe('demographics (Census, data.gov)', () => {
  test('behavior: census by state, county and zip, rows keyed by variable', async () => {
    const state = await served('/api/v1/research/demographics/census?state=06&variables=NAME,B01003_001E,B19013_001E')
    expect(state.rows).toEqual([{ NAME: 'California', B01003_001E: '39356104', B19013_001E: '91905', state: '06' }])
    // Without variables, the original gateway's default: name and population.
    const defaults = await served('/api/v1/research/demographics/census?state=06')
    expect(defaults.rows).toEqual([{ NAME: 'California', B01003_001E: '39356104', state: '06' }])
    const county = await served('/api/v1/research/demographics/census?state=06&county=075&variables=NAME,B01003_001E')
    expect(county.rows[0]).toEqual({
      NAME: 'San Francisco County, California',
      B01003_001E: '851036',
      state: '06',
      county: '075',
    })
    const zip = await served('/api/v1/research/demographics/census?zip=94103&year=2021')
    expect(zip).toMatchObject({ year: 2021, geography: { kind: 'zip', zip: '94103' }, rows: [{ NAME: 'ZCTA5 94103' }] })
  })

  test('error: no such place (204) is a 404; an unknown variable (plain-text 400) a 400; bad FIPS before payment', async () => {
    await uncharged('/api/v1/research/demographics/census?zip=00000', 404)
    await uncharged('/api/v1/research/demographics/census?state=06&variables=NAME,B99999_001E', 400)
    for (const query of ['state=03', 'state=6', 'state=06&county=75', 'zip=9410', 'county=075', 'zip=94103&state=06'])
      expect((await unpaid(`/api/v1/research/demographics/census?${query}`)).status).toBe(400)
  })

  test('behavior: datasets by keyword from the CKAN catalog', async () => {
    const body = await served('/api/v1/research/demographics/datasets?q=climate&limit=1')
    expect(body).toMatchObject({
      query: 'climate',
      total: 2841,
      datasets: [
        {
          title: 'Climate Data Online (climate)',
          organization: 'National Oceanic and Atmospheric Administration',
          resources: [{ format: 'API' }],
        },
      ],
    })
    expect(body.datasets[0].url).toEndWith('/dataset/climate-data-online')
  })
})

describe('dictionary (Free Dictionary API)', () => {
  test('behavior: define, phonetics and synonyms of one entry', async () => {
    const define = await served('/api/v1/research/dictionary/define?word=Hello')
    expect(define.entries[0].meanings[1].definitions[0]).toEqual({
      definition: 'A greeting (salutation) said when meeting someone.',
      example: 'Hello, everyone.',
      synonyms: [],
      antonyms: ['bye', 'goodbye'],
    })
    const phonetics = await served('/api/v1/research/dictionary/phonetics?word=hello')
    expect(phonetics).toMatchObject({
      word: 'hello',
      phonetic: '/həˈləʊ/',
      phonetics: [
        { text: '/həˈləʊ/', audio: 'https://api.dictionaryapi.dev/media/pronunciations/en/hello-uk.mp3' },
        { text: '/həˈloʊ/', audio: null },
      ],
    })
    const synonyms = await served('/api/v1/research/dictionary/synonyms?word=hello')
    expect(synonyms).toMatchObject({
      word: 'hello',
      synonyms: ['greeting', 'hi', 'howdy'],
      antonyms: ['bye', 'goodbye'],
    })
    expect(phonetics.results).toEqual([{ word: 'hello', phonetics: phonetics.phonetics }])
    expect(synonyms.results).toEqual([{ word: 'hello', synonyms: synonyms.synonyms, antonyms: synonyms.antonyms }])
  })

  test('error: an unknown word is a 404, uncharged; a word with digits a 400', async () => {
    await uncharged('/api/v1/research/dictionary/define?word=qwxz', 404)
    expect((await unpaid('/api/v1/research/dictionary/define?word=h3llo')).status).toBe(400)
  })
})

describe("the original gateway's calls", () => {
  test("behavior: each of the 23 endpoints, called in the original's names, answers its envelope and core fields", async () => {
    const calls: [string, string, Record<string, unknown>][] = [
      ['dictionary/define?word=hello&lang=en', 'freedict', { source_license: 'free/open' }],
      ['dictionary/synonyms?word=hello', 'freedict', { results: [{ word: 'hello', antonyms: ['bye', 'goodbye'] }] }],
      ['dictionary/phonetics?word=hello', 'freedict', { results: [{ word: 'hello' }] }],
      [
        'papers/search?q=open%20access&page=1&per_page=5&filter=publication_year:2018',
        'openalex',
        { source_license: 'CC0', total_results: 1, page: 1, per_page: 5 },
      ],
      ['papers/by-doi?doi=10.7717/peerj.4375', 'openalex', { results: [{ doi: '10.7717/peerj.4375' }] }],
      [
        'papers/by-author?author=Josiah%20Carberry&page=2&per_page=3',
        'openalex',
        { total_results: 1, page: 2, per_page: 3 },
      ],
      [
        'papers/citations?id=W2741809807',
        'openalex',
        {
          results: [
            {
              id: 'https://openalex.org/W2741809807',
              doi: 'https://doi.org/10.7717/peerj.4375',
              cited_by_count: 1067,
              cited_by_api_url: 'https://api.openalex.org/works?filter=cites:W2741809807',
              referenced_works: ['https://openalex.org/W1491283001', 'https://openalex.org/W1964141474'],
              referenced_works_count: 2,
            },
          ],
        },
      ],
      ['papers/trending?topic=climate&per_page=5', 'openalex', { total_results: 1, days_back: 7 }],
      ['preprints/search?category=cs.CL&max_results=2', 'arxiv', { category: 'research', total_results: 2 }],
      ['preprints/by-id?id=1706.03762', 'arxiv', { results: [{ title: 'Attention Is All You Need' }] }],
      ['preprints/recent', 'arxiv', { category: 'cs.AI', total_results: 2 }],
      ['scholarly/by-doi?doi=10.5555/12345678', 'crossref', { results: [{ doi: '10.5555/12345678' }] }],
      ['scholarly/search?q=metaphysics&rows=3&offset=0', 'crossref', { total_results: 1 }],
      [
        'scholarly/citations-count?doi=10.5555/12345678',
        'crossref',
        { results: [{ doi: '10.5555/12345678', citations_count: 42, references_count: 2 }] },
      ],
      ['scholarly/journal-info?issn=0028-0836', 'crossref', { results: [{ title: 'Nature' }] }],
      ['chemistry/compound?name=aspirin', 'pubchem', { source_license: 'public-domain', results: [{ cid: 2244 }] }],
      [
        'chemistry/similarity?cid=2244&threshold=95&max_records=2',
        'pubchem',
        { results: [{ IdentifierList: { CID: [2244, 5161] } }] },
      ],
      ['chemistry/bioactivity?cid=2244', 'pubchem', { results: [{ AID: 1 }, {}] }],
      ['biomedical/search?q=things&max_results=2', 'pubmed', { total_results: 2 }],
      ['biomedical/by-pmid?pmid=31452104', 'pubmed', { results: [{ ids: { pmid: '31452104' } }] }],
      ['biomedical/related?pmid=31452104&max_results=5', 'pubmed', { seed_pmid: '31452104' }],
      [
        'demographics/census',
        'census',
        {
          dataset: '2022/acs/acs5',
          variables: ['NAME', 'B01003_001E'],
          results: [
            { NAME: 'California', state: '06' },
            { NAME: 'Texas', state: '48' },
          ],
        },
      ],
      [
        'demographics/datasets?q=climate&rows=1',
        'datagov',
        {
          total_results: 2841,
          results: [{ notes: 'Daily and monthly climate records.', metadata_modified: '2024-05-01T12:00:00.000000' }],
        },
      ],
    ]
    expect(new Set(calls.map(([call]) => call.split('?')[0])).size).toBe(23)
    for (const [call, source, fields] of calls) {
      const body = await served(`/api/v1/research/${call}`)
      expect({ call, body }).toMatchObject({ call, body: { category: 'research', source, ...fields } })
    }
  })

  test("behavior: the original's parameters reach the source: per_page, page and filter, rows, max_records, max_results, geo", async () => {
    await served('/api/v1/research/papers/search?q=open%20access&per_page=7&filter=publication_year:2018,is_oa:true')
    expect(vendors.to('openalex').at(-1)!.query.get('per_page')).toBe('7')
    expect(vendors.to('openalex').at(-1)!.query.get('filter')).toBe('publication_year:2018,is_oa:true')
    await served('/api/v1/research/papers/by-author?author=Josiah%20Carberry&page=3&per_page=4')
    expect(vendors.to('openalex').at(-1)!.query.get('page')).toBe('3')
    expect(vendors.to('openalex').at(-1)!.query.get('per_page')).toBe('4')
    await served('/api/v1/research/scholarly/search?q=metaphysics&rows=4')
    expect(vendors.to('crossref').at(-1)!.query.get('rows')).toBe('4')
    await served('/api/v1/research/chemistry/similarity?cid=2244&max_records=3')
    expect(vendors.to('pubchem').at(-1)!.query.get('MaxRecords')).toBe('3')
    await served('/api/v1/research/biomedical/search?q=things&max_results=3')
    const searches = vendors.to('eutils').filter((request) => request.path.includes('esearch'))
    expect(searches.at(-1)!.query.get('retmax')).toBe('3')
    await served('/api/v1/research/preprints/search?category=cs.LG&max_results=3')
    expect(vendors.to('arxiv').at(-1)!.query.get('search_query')).toBe('cat:cs.LG')
    expect(vendors.to('arxiv').at(-1)!.query.get('max_results')).toBe('3')
    const one = await served('/api/v1/research/demographics/census?geo=state:06&variables=NAME')
    expect(vendors.to('census').at(-1)!.query.get('for')).toBe('state:06')
    expect(one.geography).toEqual({ kind: 'geo', geo: 'state:06' })
    const trending = await served('/api/v1/research/papers/trending')
    expect(trending.since).toBe(new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10))
  })

  test('behavior: select keeps the named fields of each result', async () => {
    const body = await served('/api/v1/research/papers/search?q=open%20access&select=title,doi')
    expect(body.results).toEqual([
      {
        title: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
        doi: '10.7717/peerj.4375',
      },
    ])
    expect(body.papers[0].venue).toBe('PeerJ')
  })

  test("error: the original's name and ours together, a bad geo, filter, select or OpenAlex id, are a 400 before payment", async () => {
    const before = vendors.seen.length
    for (const [call, field] of [
      ['papers/search?q=x&per_page=5&limit=5', 'per_page'],
      ['papers/by-author?author=a&name=a', 'author'],
      ['papers/citations?doi=10.7717/peerj.4375&id=W2741809807', 'id'],
      ['papers/citations?id=2741809807', 'id'],
      ['papers/search?q=x&filter=nonsense', 'filter'],
      ['papers/search?q=x&select=title,cited_by_count', 'select'],
      ['preprints/search?q=x&max_results=2&limit=2', 'max_results'],
      ['preprints/search', 'q'],
      ['scholarly/search?q=x&rows=2&limit=2', 'rows'],
      ['chemistry/similarity?cid=2244&max_records=2&limit=2', 'max_records'],
      ['demographics/datasets?q=x&rows=2&limit=2', 'rows'],
      ['demographics/census?geo=state:06&state=06', 'geo'],
      ['demographics/census?geo=state', 'geo'],
    ] as const) {
      const { status, body } = await unpaid(`/api/v1/research/${call}`)
      expect({ call, status, field: body.field ?? body.detail?.split(':')[0] }).toEqual({ call, status: 400, field })
    }
    expect(vendors.seen.length).toBe(before)
  })
})

describe('discovery', () => {
  test('default: all 23 research endpoints are served and available', async () => {
    const document = (await (await gateway.fetch(`${origin}/openapi.json`)).json()) as any
    const research = Object.keys(document.paths).filter((path) => path.startsWith('/api/v1/research/'))
    expect(research).toHaveLength(23)
    for (const path of research)
      expect({ path, available: document.paths[path].get['x-available'] }).toEqual({ path, available: true })
    // The envelope's fields are documented with each answer.
    const answer = document.paths['/api/v1/research/papers/search'].get.responses['200'].content['application/json']
    expect(answer.schema.properties.spraay_request_id.description).toContain('X-Request-Id')
    expect(answer.schema.properties.per_page.description).toBe('Most results per page.')
  })
})

describe('readiness', () => {
  test('behavior: a source whose breaker opened is unavailable in discovery, with the reason, and refused with 503 before payment', async () => {
    const path = '/api/v1/research/dictionary/define'
    vendors.state.fail.dictionary = 500
    try {
      for (let call = 0; call < 5; call++) await uncharged(`${path}?word=breaker`, 502)
    } finally {
      delete vendors.state.fail.dictionary
    }
    const manifest = (await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()) as any
    const resourceOf = (path: string) => manifest.resources.find((resource: any) => resource.path === path)
    expect(resourceOf(path).available).toBe(false)
    expect(resourceOf(path).unavailable.code).toBe('upstream_unavailable')
    expect(resourceOf(path).unavailable.reason).toContain('failed 5 calls in a row')
    expect(resourceOf('/api/v1/research/papers/by-doi').available).toBe(true)
    const document = (await (await gateway.fetch(`${origin}/openapi.json`)).json()) as any
    expect(document.paths[path].get['x-available']).toBe(false)
    const refused = await unpaid(`${path}?word=breaker`)
    expect(refused.status).toBe(503)
    expect(refused.body.code).toBe('upstream_unavailable')
    await uncharged(`${path}?word=breaker`, 503)
  })
})
