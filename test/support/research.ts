/**
 * One local stand-in for every research vendor, each under its own path prefix, answering in the shapes the vendors
 * document (JSON, and Atom or PubMed XML), their 404s included; `state.fail` makes a prefix answer an error status
 * (429 with Retry-After, 5xx) instead. Records every request.
 */

/** Prefixes of the vendors, and the variables that point the gateway at them. */
export const prefixes = {
  openalex: 'OPENALEX_URL',
  crossref: 'CROSSREF_URL',
  arxiv: 'ARXIV_URL',
  biorxiv: 'BIORXIV_URL',
  eutils: 'NCBI_EUTILS_URL',
  pubchem: 'PUBCHEM_URL',
  census: 'CENSUS_URL',
  ckan: 'DATASETS_URL',
  dictionary: 'DICTIONARY_URL',
} as const

/** A vendor's prefix. */
export type Prefix = keyof typeof prefixes

/** A request the stand-in received. */
export type Seen = { prefix: string; path: string; query: URLSearchParams; headers: Headers }

/** A work in OpenAlex's shape (the PeerJ paper OpenAlex's documentation uses). */
export const openalexWork = {
  id: 'https://openalex.org/W2741809807',
  doi: 'https://doi.org/10.7717/peerj.4375',
  ids: { openalex: 'https://openalex.org/W2741809807', pmid: 'https://pubmed.ncbi.nlm.nih.gov/29456894' },
  title: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
  display_name: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
  publication_year: 2018,
  publication_date: '2018-02-13',
  authorships: [
    {
      author_position: 'first',
      author: { id: 'https://openalex.org/A5023888391', display_name: 'Heather Piwowar', orcid: null },
    },
    {
      author_position: 'last',
      author: {
        id: 'https://openalex.org/A5002034958',
        display_name: 'Josiah Carberry',
        orcid: 'https://orcid.org/0000-0002-1825-0097',
      },
    },
  ],
  primary_location: {
    landing_page_url: 'https://doi.org/10.7717/peerj.4375',
    pdf_url: 'https://peerj.com/articles/4375.pdf',
    source: { display_name: 'PeerJ' },
  },
  abstract_inverted_index: { Despite: [0], growing: [1], interest: [2], in: [3], OA: [4] },
  cited_by_count: 1067,
  cited_by_api_url: 'https://api.openalex.org/works?filter=cites:W2741809807',
  referenced_works: ['https://openalex.org/W1491283001', 'https://openalex.org/W1964141474'],
}

/** A citing work. */
const citingWork = {
  ...openalexWork,
  id: 'https://openalex.org/W3000000001',
  doi: 'https://doi.org/10.1000/citing.1',
  title: 'A paper that cites the state of OA',
  cited_by_count: 3,
}

/** A Crossref work (the Crossref test DOI). */
export const crossrefWork = {
  DOI: '10.5555/12345678',
  title: ['Toward a Unified Theory of High-Energy Metaphysics: Silly String Theory'],
  author: [{ given: 'Josiah', family: 'Carberry', ORCID: 'http://orcid.org/0000-0002-1825-0097', sequence: 'first' }],
  'container-title': ['Journal of Psychoceramics'],
  published: { 'date-parts': [[2008, 8, 13]] },
  type: 'journal-article',
  URL: 'https://doi.org/10.5555/12345678',
  'is-referenced-by-count': 42,
  'references-count': 2,
  reference: [
    { key: 'ref1', DOI: '10.1038/nature12373' },
    { key: 'ref2', unstructured: 'Carberry J. Brown University, 2007.' },
  ],
  abstract: '<jats:p>The abstract, in JATS.</jats:p>',
}

/** An arXiv Atom feed of `entries` (id, title), as the arXiv API documents it. */
export function atomOf(entries: { id: string; title: string }[], total = entries.length): string {
  const items = entries
    .map(
      ({ id, title }) => `
  <entry>
    <id>http://arxiv.org/abs/${id}</id>
    <updated>2017-12-06T03:30:32Z</updated>
    <published>2017-06-12T17:57:34Z</published>
    <title>${title}</title>
    <summary>  The dominant sequence transduction models are based on complex recurrent or
convolutional neural networks.</summary>
    <author><name>Ashish Vaswani</name></author>
    <author><name>Noam Shazeer</name></author>
    <arxiv:doi xmlns:arxiv="http://arxiv.org/schemas/atom">10.48550/arXiv.${id.replace(/v[0-9]+$/, '')}</arxiv:doi>
    <link href="http://arxiv.org/abs/${id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`,
    )
    .join('')
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query</title>
  <id>http://arxiv.org/api/stand-in</id>
  <updated>2024-01-01T00:00:00-05:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">${entries.length}</opensearch:itemsPerPage>${items}
</feed>`
}

/** PubMed articles the stand-in knows, by PMID. */
export const pubmedArticles: Record<string, { title: string; abstract: string }> = {
  '31452104': { title: 'A study of things.', abstract: 'Things were studied.' },
  '29456894': { title: 'A related study.', abstract: 'Related things were studied.' },
}

const json = (body: unknown, status = 200) => Response.json(body, { status })

/** Starts the stand-in on 127.0.0.1. */
export function researchServer() {
  const seen: Seen[] = []
  const state = {
    /** An error status a prefix answers instead (e.g. `{ arxiv: 503 }`). */
    fail: {} as Partial<Record<Prefix, number>>,
  }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      const [, prefix = '', ...rest] = url.pathname.split('/')
      const path = `/${rest.join('/')}`
      seen.push({ prefix, path, query: url.searchParams, headers: request.headers })
      const failing = state.fail[prefix as Prefix]
      if (failing === 429) return new Response('Too Many Requests', { status: 429, headers: { 'retry-after': '0' } })
      if (failing) return json({ error: 'upstream down' }, failing)
      return answer(prefix, path, url.searchParams)
    },
  })
  const base = `http://127.0.0.1:${server.port}`
  return {
    /** The variables that point a gateway at the stand-in. */
    env: Object.fromEntries(Object.entries(prefixes).map(([prefix, name]) => [name, `${base}/${prefix}`])),
    seen,
    state,
    /** Requests to `prefix`. */
    to: (prefix: Prefix) => seen.filter((request) => request.prefix === prefix),
    stop: () => server.stop(true),
  }
}

function answer(prefix: string, path: string, query: URLSearchParams): Response {
  switch (prefix) {
    case 'openalex':
      return openalex(path, query)
    case 'crossref':
      return crossref(path, query)
    case 'arxiv':
      return arxiv(path, query)
    case 'biorxiv':
      return biorxiv(path)
    case 'eutils':
      return eutils(path, query)
    case 'pubchem':
      return pubchem(path, query)
    case 'census':
      return census(path, query)
    case 'ckan':
      return ckan(path, query)
    case 'dictionary':
      return dictionary(path)
  }
  return new Response('not found', { status: 404 })
}

function openalex(path: string, query: URLSearchParams): Response {
  const notFound = () => json({ error: 'Not Found', message: 'not found' }, 404)
  if (path === '/works/doi:10.7717/peerj.4375' || path === '/works/W2741809807') return json(openalexWork)
  // Works the bench asks for, one per DOI.
  const bench = path.match(/^\/works\/doi:(10\.5555\/bench\.[0-9]+)$/)
  if (bench) return json({ ...openalexWork, doi: `https://doi.org/${bench[1]}` })
  if (path.startsWith('/works/')) return notFound()
  if (path === '/works') {
    const filter = query.get('filter') ?? ''
    const results = filter.startsWith('cites:W2741809807') ? [citingWork] : [openalexWork]
    return json({
      meta: { count: results.length, db_response_time_ms: 5, page: 1, per_page: 10 },
      results,
      group_by: [],
    })
  }
  const author = {
    id: 'https://openalex.org/A5002034958',
    display_name: 'Josiah Carberry',
    orcid: 'https://orcid.org/0000-0002-1825-0097',
    works_count: 12,
  }
  if (path === '/authors/orcid:0000-0002-1825-0097') return json(author)
  if (path.startsWith('/authors/')) return notFound()
  if (path === '/authors') {
    const results = query.get('search') === 'nobody at all' ? [] : [author]
    return json({ meta: { count: results.length }, results })
  }
  return notFound()
}

function crossref(path: string, query: URLSearchParams): Response {
  // Crossref's 404 is plain text.
  const notFound = () => new Response('Resource not found.', { status: 404, headers: { 'content-type': 'text/plain' } })
  if (path === '/works/10.5555/12345678')
    return json({ status: 'ok', 'message-type': 'work', 'message-version': '1.0.0', message: crossrefWork })
  if (path.startsWith('/works/')) return notFound()
  if (path === '/works')
    return json({
      status: 'ok',
      'message-type': 'work-list',
      message: {
        'total-results': 1,
        items: [crossrefWork],
        'items-per-page': Number(query.get('rows') ?? 20),
        query: { 'start-index': 0, 'search-terms': query.get('query') },
      },
    })
  if (path === '/journals/0028-0836')
    return json({
      status: 'ok',
      'message-type': 'journal',
      message: {
        title: 'Nature',
        publisher: 'Springer Science and Business Media LLC',
        ISSN: ['0028-0836', '1476-4687'],
        'issn-type': [
          { value: '0028-0836', type: 'print' },
          { value: '1476-4687', type: 'electronic' },
        ],
        subjects: [{ name: 'Multidisciplinary', ASJC: 1000 }],
        counts: { 'total-dois': 420000, 'current-dois': 8000, 'backfile-dois': 412000 },
      },
    })
  return notFound()
}

function arxiv(path: string, query: URLSearchParams): Response {
  if (path !== '/query') return new Response('not found', { status: 404 })
  const atom = (body: string) => new Response(body, { headers: { 'content-type': 'application/atom+xml' } })
  const ids = query.get('id_list')
  if (ids !== null)
    return atom(
      atomOf(
        ids
          .split(',')
          .filter((id) => id.startsWith('1706.03762'))
          .map((id) => ({ id: `${id.replace(/v[0-9]+$/, '')}v7`, title: 'Attention Is All You Need' })),
      ),
    )
  return atom(
    atomOf(
      [
        { id: '1706.03762v7', title: 'Attention Is All You Need' },
        { id: '2101.00001v1', title: 'Another paper' },
      ],
      1234,
    ),
  )
}

function biorxiv(path: string): Response {
  const entry = {
    doi: '10.1101/2020.03.01.972240',
    title: 'A preprint about cells',
    authors: 'Smith, J.; Doe, A.',
    author_corresponding: 'Jane Smith',
    author_corresponding_institution: 'Somewhere University',
    date: '2020-03-03',
    version: '2',
    type: 'new results',
    license: 'cc_by',
    category: 'cell biology',
    jatsxml: 'https://www.biorxiv.org/content/early/2020/03/03/2020.03.01.972240.source.xml',
    abstract: 'Cells were observed.',
    published: 'NA',
    server: 'bioRxiv',
  }
  if (path === '/details/biorxiv/10.1101/2020.03.01.972240/na/json')
    return json({
      messages: [{ status: 'ok' }],
      collection: [{ ...entry, version: '1', date: '2020-03-02' }, entry],
    })
  if (path.startsWith('/details/biorxiv/10.1101/'))
    return json({ messages: [{ status: 'no posts found' }], collection: [] })
  if (/^\/details\/(biorxiv|medrxiv)\/[0-9]+d\/0\/json$/.test(path))
    return json({
      messages: [{ status: 'ok', interval: '7d', cursor: 0, count: 2, total: 2 }],
      collection: [
        { ...entry, doi: '10.1101/2024.01.01.000001', title: 'Older', date: '2024-01-01' },
        { ...entry, doi: '10.1101/2024.01.02.000002', title: 'Newer', date: '2024-01-02' },
      ],
    })
  return new Response('not found', { status: 404 })
}

function eutils(path: string, query: URLSearchParams): Response {
  const ids = (query.get('id') ?? '').split(',').filter(Boolean)
  if (path === '/esearch.fcgi') {
    if (query.get('term') === 'bad[[query') return json({ header: {}, esearchresult: { ERROR: 'Invalid query' } })
    return json({
      header: { type: 'esearch', version: '0.3' },
      esearchresult: { count: '2', retmax: '2', retstart: '0', idlist: Object.keys(pubmedArticles) },
    })
  }
  if (path === '/esummary.fcgi') {
    const result: Record<string, unknown> = { uids: ids }
    for (const id of ids)
      result[id] = pubmedArticles[id]
        ? {
            uid: id,
            pubdate: '2019 Aug 22',
            sortpubdate: '2019/08/22 00:00',
            source: 'Nature',
            fulljournalname: 'Nature',
            authors: [
              { name: 'Carberry J', authtype: 'Author' },
              { name: 'Consortium X', authtype: 'CollectiveName' },
            ],
            title: pubmedArticles[id]!.title,
            articleids: [
              { idtype: 'pubmed', value: id },
              { idtype: 'doi', value: `10.1000/pubmed.${id}` },
            ],
          }
        : { uid: id, error: 'cannot get document summary' }
    return json({ header: { type: 'esummary', version: '0.3' }, result })
  }
  if (path === '/efetch.fcgi') {
    const articles = ids
      .filter((id) => pubmedArticles[id])
      .map(
        (id) => `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">${id}</PMID>
<Article PubModel="Print"><ArticleTitle>${pubmedArticles[id]!.title}</ArticleTitle><Abstract>
<AbstractText Label="BACKGROUND">${pubmedArticles[id]!.abstract}</AbstractText>
<AbstractText Label="RESULTS">It worked.</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>`,
      )
      .join('\n')
    return new Response(
      `<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2024//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_240101.dtd">\n<PubmedArticleSet>${articles}</PubmedArticleSet>`,
      { headers: { 'content-type': 'text/xml' } },
    )
  }
  if (path === '/elink.fcgi')
    return json({
      header: { type: 'elink', version: '0.3' },
      linksets: [
        {
          dbfrom: 'pubmed',
          ids: [ids[0]],
          linksetdbs: [
            { dbto: 'pubmed', linkname: 'pubmed_pubmed_citedin', links: ['1'] },
            {
              dbto: 'pubmed',
              linkname: 'pubmed_pubmed',
              links:
                ids[0] === '31452104'
                  ? [
                      { id: '31452104', score: 1 },
                      { id: '29456894', score: 2 },
                    ]
                  : [],
            },
          ],
        },
      ],
    })
  return new Response('not found', { status: 404 })
}

function pubchem(path: string, query: URLSearchParams): Response {
  const notFound = () =>
    json({ Fault: { Code: 'PUGREST.NotFound', Message: 'No CID found', Details: ['No CID found'] } }, 404)
  const aspirin = {
    CID: 2244,
    MolecularFormula: 'C9H8O4',
    MolecularWeight: '180.16',
    IUPACName: '2-acetyloxybenzoic acid',
    InChIKey: 'BSYNRYMUTXBXSQ-UHFFFAOYSA-N',
    SMILES: 'CC(=O)OC1=CC=CC=C1C(=O)O',
    XLogP: 1.2,
  }
  const properties = /\/property\/[A-Za-z,]+\/JSON$/
  if (properties.test(path)) {
    if (path.startsWith('/compound/cid/2244/') || path.startsWith('/compound/name/aspirin/'))
      return json({ PropertyTable: { Properties: [aspirin] } })
    if (path.startsWith('/compound/fastformula/C9H8O4/'))
      return json({
        PropertyTable: {
          Properties: [aspirin, { ...aspirin, CID: 54670067, IUPACName: 'an isomer' }].slice(
            0,
            Number(query.get('MaxRecords') ?? 10),
          ),
        },
      })
    return notFound()
  }
  if (path === '/compound/cid/2244/assaysummary/JSON')
    return json({
      Table: {
        Columns: {
          Column: [
            'AID',
            'Panel Member ID',
            'SID',
            'CID',
            'Activity Outcome',
            'Target Accession',
            'Activity Value [uM]',
            'Assay Name',
          ],
        },
        Row: [
          { Cell: [1, '', 103164874, 2244, 'Active', 'P23219', 1.5, 'COX-1 inhibition'] },
          { Cell: [2, '', 103164874, 2244, 'Inactive', '', '', 'Another assay'] },
        ],
      },
    })
  if (path === '/compound/fastsimilarity_2d/cid/2244/cids/JSON')
    return json({ IdentifierList: { CID: [2244, 5161, 54670067].slice(0, Number(query.get('MaxRecords') ?? 10)) } })
  return notFound()
}

function census(path: string, query: URLSearchParams): Response {
  if (!/^\/20[0-9]{2}\/acs\/acs5$/.test(path)) return new Response('not found', { status: 404 })
  const variables = (query.get('get') ?? '').split(',')
  const unknown = variables.find((name) => !['NAME', 'B01003_001E', 'B19013_001E'].includes(name))
  // The Census Data API answers bad input in plain text.
  if (unknown) return new Response(`error: error: unknown variable '${unknown}'`, { status: 400 })
  const place = query.get('for') ?? ''
  const values: Record<string, string> = { NAME: '', B01003_001E: '', B19013_001E: '' }
  let geography: string[] = []
  if (place === 'state:06') {
    Object.assign(values, { NAME: 'California', B01003_001E: '39356104', B19013_001E: '91905' })
    geography = ['state', '06']
  } else if (place === 'county:075' && query.get('in') === 'state:06') {
    Object.assign(values, { NAME: 'San Francisco County, California', B01003_001E: '851036', B19013_001E: '136689' })
    geography = ['state', '06', 'county', '075']
  } else if (place === 'state:*') {
    // Two states stand for all of them.
    return json([
      [...variables, 'state'],
      [
        ...variables.map((name) => ({ NAME: 'California', B01003_001E: '39356104', B19013_001E: '91905' })[name]!),
        '06',
      ],
      [...variables.map((name) => ({ NAME: 'Texas', B01003_001E: '29243342', B19013_001E: '73035' })[name]!), '48'],
    ])
  } else if (place === 'zip code tabulation area:94103') {
    Object.assign(values, { NAME: 'ZCTA5 94103', B01003_001E: '31176', B19013_001E: '91932' })
    geography = ['zip code tabulation area', '94103']
  } else return new Response(null, { status: 204 })
  const names = geography.filter((_, index) => index % 2 === 0)
  const codes = geography.filter((_, index) => index % 2 === 1)
  return json([
    [...variables, ...names],
    [...variables.map((name) => values[name]!), ...codes],
  ])
}

function ckan(path: string, query: URLSearchParams): Response {
  if (path !== '/action/package_search') return json({ success: false, error: { message: 'Not found' } }, 404)
  return json({
    help: 'https://catalog.data.gov/api/3/action/help_show?name=package_search',
    success: true,
    result: {
      count: 2841,
      sort: 'score desc, metadata_modified desc',
      results: [
        {
          id: '3f2d6c6e-0000-4000-8000-000000000001',
          name: 'climate-data-online',
          title: `Climate Data Online (${query.get('q')})`,
          notes: 'Daily and monthly climate records.',
          organization: { title: 'National Oceanic and Atmospheric Administration' },
          metadata_modified: '2024-05-01T12:00:00.000000',
          resources: [{ name: 'CDO API', format: 'API', url: 'https://www.ncdc.noaa.gov/cdo-web/webservices/v2' }],
        },
      ].slice(0, Number(query.get('rows') ?? 10)),
    },
  })
}

function dictionary(path: string): Response {
  if (path !== '/entries/en/hello')
    return json(
      {
        title: 'No Definitions Found',
        message: "Sorry pal, we couldn't find definitions for the word you were looking for.",
        resolution: 'You can try the search again at later time or head to the web instead.',
      },
      404,
    )
  return json([
    {
      word: 'hello',
      phonetic: '/həˈləʊ/',
      phonetics: [
        { text: '/həˈləʊ/', audio: 'https://api.dictionaryapi.dev/media/pronunciations/en/hello-uk.mp3' },
        { text: '/həˈloʊ/', audio: '' },
      ],
      meanings: [
        {
          partOfSpeech: 'noun',
          definitions: [{ definition: '"Hello!" or an equivalent greeting.', synonyms: ['greeting'], antonyms: [] }],
          synonyms: ['greeting'],
          antonyms: [],
        },
        {
          partOfSpeech: 'interjection',
          definitions: [
            {
              definition: 'A greeting (salutation) said when meeting someone.',
              example: 'Hello, everyone.',
              synonyms: [],
              antonyms: ['bye', 'goodbye'],
            },
          ],
          synonyms: ['hi', 'howdy'],
          antonyms: ['bye'],
        },
      ],
      license: { name: 'CC BY-SA 3.0', url: 'https://creativecommons.org/licenses/by-sa/3.0' },
      sourceUrls: ['https://en.wiktionary.org/wiki/hello'],
    },
  ])
}
