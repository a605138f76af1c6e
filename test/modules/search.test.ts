import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { brave } from '../../adapters/search/brave.js'
import { exa } from '../../adapters/search/exa.js'
import { ExtractOutput, QnaOutput, WebOutput } from '../../modules/search/schema.js'
import { preflightOptions } from '../../modules/search/service.js'
import { origin, paidGateway } from '../support/paid.js'
import { vendorServer } from '../support/vendor.js'

// Web search through a Tavily stand-in, extraction of local pages through the outbound guard (loopback allowed, so
// that the pages can be served here; every other private range is still refused), and qna on a chat stand-in.

/** Local pages the extractor reads. */
const article = `<!doctype html><html lang="en"><head><title>How extraction works | Example</title>
<meta name="author" content="Ada Lovelace">
<meta property="article:published_time" content="2024-05-01T10:00:00Z">
<meta property="og:site_name" content="Example">
</head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>How extraction works</h1>
<p>Readability finds the main text of a page by scoring its blocks: paragraphs with many words and few links score high.</p>
<p>Navigation, footers and advertisements score low and are left out, so what remains is the article a reader came for.</p>
<p>The extractor then reports the title, the byline, the time of publication and the language of the document.</p>
</article><footer>Copyright Example</footer></body></html>`
const pages = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request): Response {
    const { pathname } = new URL(request.url)
    const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
    if (pathname === '/article') return html(article)
    if (pathname === '/long') return html(article.replaceAll('</p>', `${' more words'.repeat(200)}</p>`))
    if (pathname === '/moved') return Response.redirect(`http://127.0.0.1:${pages.port}/article`, 301)
    // The metadata address of a cloud: a redirect there is refused at the hop.
    if (pathname === '/to-private') return Response.redirect('http://169.254.169.254/latest/meta-data/', 302)
    if (pathname === '/huge') return html(`<html><body><p>${'x'.repeat(200_000)}</p></body></html>`)
    if (pathname === '/image') return new Response(new Uint8Array(64), { headers: { 'content-type': 'image/png' } })
    if (pathname === '/notes.txt')
      return new Response('Plain notes.\n\nSecond line.', { headers: { 'content-type': 'text/plain' } })
    return new Response('gone', { status: 404, headers: { 'content-type': 'text/html' } })
  },
})
const page = (path: string) => `http://127.0.0.1:${pages.port}${path}`

/** Tavily and the chat upstream. */
const tavily = vendorServer()
const chat = vendorServer()
let gateway: Awaited<ReturnType<typeof paidGateway>>
let keyless: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  tavily.state.answer = tavilyAnswer
  chat.state.answer = chatAnswer
  gateway = await paidGateway({
    env: {
      TAVILY_URL: tavily.url,
      TAVILY_API_KEY: 'tvly-test-secret',
      OUTBOUND_ALLOW: '127.0.0.1',
      EXTRACT_MAX_BYTES: String(100_000),
      EXTRACT_MAX_CHARS: String(1_000),
      CHAT_UPSTREAM_URL: chat.url,
      CHAT_ALLOWED_MODELS: 'small-model',
      QNA_MODEL: 'small-model',
    },
  })
  keyless = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
  await keyless.close()
  pages.stop(true)
  tavily.stop()
  chat.stop()
})

/** Tavily's `/search` answer: the article page first, then the image and a page that is gone. */
function tavilyAnswer(request: { url: URL; body: string }): Response {
  if (request.url.pathname !== '/api/search') return Response.json({ detail: { error: 'Not found' } }, { status: 404 })
  const { query, include_answer } = JSON.parse(request.body)
  if (query === 'slow down') return Response.json({ detail: { error: 'rate limited' } }, { status: 429 })
  return Response.json({
    query,
    answer: include_answer ? 'Readability scores the blocks of a page.' : null,
    images: [],
    results: [
      {
        title: 'How extraction works',
        url: page('/article'),
        content: 'Readability finds the main text of a page.',
        score: 0.92,
        published_date: '2024-05-01',
      },
      { title: 'An image', url: page('/image'), content: 'A picture of text.', score: 0.5 },
      { title: 'Gone', url: page('/gone'), content: '', score: 0.1 },
    ],
    response_time: 0.42,
    request_id: 'req-1',
  })
}

/** The chat upstream: answers citing the first source. */
function chatAnswer(request: { url: URL }): Response {
  if (request.url.pathname !== '/api/chat/completions') return new Response('not found', { status: 404 })
  return Response.json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'small-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'It scores blocks of the page and keeps the best [1].' },
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 12, total_tokens: 112 },
  })
}

/** A paid POST by account 3: status, body and cost. */
async function paid(path: string, body: unknown) {
  const account = gateway.account(3)
  const before = await gateway.balance(account.address)
  const response = await gateway.paid(account, 'POST', path, body)
  const json = (await response.json()) as any
  return { status: response.status, body: json, cost: before - (await gateway.balance(account.address)) }
}

/** An unpaid POST on `on`. */
async function unpaid(path: string, body: unknown, on = gateway) {
  const response = await on.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

describe('POST /api/v1/search/web', () => {
  test('default: ranked results with titles, snippets, dates and scores; the key goes as a bearer token', async () => {
    const { status, body, cost } = await paid('/api/v1/search/web', {
      query: 'how does extraction work',
      max_results: 3,
    })
    expect(status).toBe(200)
    expect(cost).toBe(20_000n)
    expect(Value.Check(WebOutput, body)).toBe(true)
    expect(body.source).toBe('tavily')
    expect(body.results[0]).toEqual({
      title: 'How extraction works',
      url: page('/article'),
      content: 'Readability finds the main text of a page.',
      snippet: 'Readability finds the main text of a page.',
      published_date: '2024-05-01',
      published: '2024-05-01',
      score: 0.92,
    })
    const request = tavily.seen.filter((seen) => seen.url.pathname === '/api/search').at(-1)!
    expect(request.headers.get('authorization')).toBe('Bearer tvly-test-secret')
    expect(JSON.parse(request.body)).toMatchObject({ query: 'how does extraction work', max_results: 3 })
    expect(JSON.stringify(body)).not.toContain('tvly-test-secret')
  })

  test("behavior: the original gateway's call (search_depth, topic, domain lists) is honoured and answered in its fields", async () => {
    const { status, body } = await paid('/api/v1/search/web', {
      query: 'x402 payments',
      search_depth: 'advanced',
      max_results: 3,
      topic: 'news',
      include_domains: ['example.com'],
      exclude_domains: ['spam.example'],
    })
    expect(status).toBe(200)
    expect(Value.Check(WebOutput, body)).toBe(true)
    expect(body).toMatchObject({
      query: 'x402 payments',
      answer: 'Readability scores the blocks of a page.',
      result_count: 3,
      search_depth: 'advanced',
      results: [{ content: 'Readability finds the main text of a page.', published_date: '2024-05-01' }, {}, {}],
    })
    expect(body.results[1].published_date).toBeNull()
    const request = tavily.seen.filter((seen) => seen.url.pathname === '/api/search').at(-1)!
    expect(JSON.parse(request.body)).toEqual({
      query: 'x402 payments',
      max_results: 3,
      search_depth: 'advanced',
      topic: 'news',
      include_answer: true,
      include_domains: ['example.com'],
      exclude_domains: ['spam.example'],
    })
  })

  test('error: a field neither gateway knows, or a search_depth or topic outside their values, is a 400 before payment', async () => {
    for (const body of [
      { query: 'x', unknown: 1 },
      { query: 'x', search_depth: 'deep' },
      { query: 'x', topic: 'sports' },
    ]) {
      const refused = await unpaid('/api/v1/search/web', body)
      expect({ body, status: refused.status, code: refused.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      })
    }
  })

  test('error: Tavily rate-limiting us is a 503 and charges nothing; an empty query a 400 before payment', async () => {
    const { status, cost } = await paid('/api/v1/search/web', { query: 'slow down' })
    expect(status).toBe(503)
    expect(cost).toBe(0n)
    expect((await unpaid('/api/v1/search/web', { query: '' })).status).toBe(400)
  })

  test('error: without a key, web search and qna answer 503 before payment; extract is served', async () => {
    const web = await unpaid('/api/v1/search/web', { query: 'anything' }, keyless)
    expect(web.status).toBe(503)
    expect(web.body.detail).toContain('TAVILY_API_KEY')
    expect((await unpaid('/api/v1/search/qna', { question: 'anything?' }, keyless)).status).toBe(503)
    expect((await unpaid('/api/v1/search/extract', { urls: ['https://example.com/'] }, keyless)).status).toBe(402)
  })
})

describe('POST /api/v1/search/extract', () => {
  test('default: the main text, title, byline, published time and language of an article; per-URL reasons for the rest', async () => {
    const { status, body, cost } = await paid('/api/v1/search/extract', {
      urls: ['/article', '/moved', '/to-private', '/huge', '/image'].map(page),
    })
    expect(status).toBe(200)
    expect(cost).toBe(20_000n)
    const more = await paid('/api/v1/search/extract', { urls: ['/gone', '/long', '/notes.txt'].map(page) })
    expect(more.status).toBe(200)
    // As the original gateway answers: `results` are the pages that gave text, `failed` those that did not.
    const [extracted, moved, long, notes] = [...body.results, ...more.body.results]
    const [privateHop, huge, image, gone] = [...body.failed, ...more.body.failed]
    expect(extracted).toMatchObject({
      ok: true,
      url: page('/article'),
      finalUrl: page('/article'),
      // Readability keeps the document's title as it is.
      title: 'How extraction works | Example',
      byline: 'Ada Lovelace',
      published: '2024-05-01T10:00:00Z',
      language: 'en',
      siteName: 'Example',
      truncated: false,
    })
    expect(extracted.text).toContain('Readability finds the main text of a page')
    expect(extracted.content).toBe(extracted.text)
    expect(extracted.text).not.toContain('Copyright Example')
    // A redirect is followed to a checked address.
    expect(moved).toMatchObject({ ok: true, finalUrl: page('/article') })
    // A redirect to the metadata address is refused at that hop.
    expect(privateHop).toMatchObject({ ok: false, reason: 'refused' })
    expect(privateHop.message).toStartWith('private_address')
    expect(privateHop.error).toBe(privateHop.message)
    expect(huge).toMatchObject({ ok: false, reason: 'too_large' })
    expect(image).toMatchObject({ ok: false, reason: 'unsupported_content_type' })
    expect(gone).toMatchObject({ ok: false, reason: 'http_error' })
    expect(long).toMatchObject({ ok: true, truncated: true })
    expect(long.text).toHaveLength(1_000)
    expect(notes).toMatchObject({ ok: true, text: 'Plain notes.\n\nSecond line.', title: null })
    expect(body).toMatchObject({ succeeded: 2, failedCount: 3 })
    expect(more.body).toMatchObject({ succeeded: 2, failedCount: 1 })
    expect(Value.Check(ExtractOutput, body)).toBe(true)
    expect(Value.Check(ExtractOutput, more.body)).toBe(true)
  })

  test('error: when no URL gives text the call fails and charges nothing', async () => {
    const { status, body, cost } = await paid('/api/v1/search/extract', { urls: [page('/image'), page('/gone')] })
    expect(status).toBe(502)
    expect(cost).toBe(0n)
    expect(body.results.map((result: any) => result.reason)).toEqual(['unsupported_content_type', 'http_error'])
  })

  test("error: a URL of another scheme, with credentials, or more than five URLs (the original gateway's limit) are refused before payment", async () => {
    for (const urls of [['file:///etc/passwd'], ['http://user:pass@127.0.0.1/'], Array(6).fill(page('/article')), []])
      expect((await unpaid('/api/v1/search/extract', { urls })).status).toBe(400)
    expect((await unpaid('/api/v1/search/extract', { urls: Array(5).fill(page('/article')) })).status).toBe(402)
  })
})

describe('POST /api/v1/search/qna', () => {
  test('default: the model answers from the extracted sources only, with numbered citations', async () => {
    const { status, body, cost } = await paid('/api/v1/search/qna', { question: 'How does extraction work?' })
    expect(status).toBe(200)
    expect(cost).toBe(30_000n)
    expect(body).toMatchObject({
      question: 'How does extraction work?',
      answer: 'It scores blocks of the page and keeps the best [1].',
      model: 'small-model',
      citations: [{ number: 1, url: page('/article'), title: 'How extraction works | Example' }],
    })
    expect(Value.Check(QnaOutput, body)).toBe(true)
    // The image's snippet still stands as a source; the page that is gone (no text, no snippet) does not.
    expect(body.sources.map((source: any) => source.url)).toEqual([page('/article'), page('/image')])
    const sent = JSON.parse(chat.seen.filter((seen) => seen.url.pathname === '/api/chat/completions').at(-1)!.body)
    expect(sent.model).toBe('small-model')
    expect(sent.messages[0].content).toContain('using only the numbered sources')
    expect(sent.messages[1].content).toContain('[1] How extraction works | Example')
    expect(sent.messages[1].content).toContain('Navigation, footers and advertisements score low')
  })

  test("behavior: the original gateway's call ({ query, topic }) answers with query, answer and scored sources", async () => {
    const { status, body } = await paid('/api/v1/search/qna', { query: 'How does extraction work?', topic: 'news' })
    expect(status).toBe(200)
    expect(Value.Check(QnaOutput, body)).toBe(true)
    expect(body).toMatchObject({
      query: 'How does extraction work?',
      answer: 'It scores blocks of the page and keeps the best [1].',
      sources: [
        { url: page('/article'), score: 0.92 },
        { url: page('/image'), score: 0.5 },
      ],
    })
    const sent = JSON.parse(tavily.seen.filter((seen) => seen.url.pathname === '/api/search').at(-1)!.body)
    expect(sent).toMatchObject({ query: 'How does extraction work?', topic: 'news' })
  })

  test('error: a question shorter than three characters, both query and question, or neither, is a 400 before payment', async () => {
    expect((await unpaid('/api/v1/search/qna', { question: 'hi' })).status).toBe(400)
    const both = await unpaid('/api/v1/search/qna', { query: 'Why?', question: 'Why?' })
    expect(both).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', detail: expect.stringContaining('not both') },
    })
    const neither = await unpaid('/api/v1/search/qna', { topic: 'news' })
    expect(neither).toMatchObject({ status: 400, body: { detail: 'query: is required' } })
  })
})

describe('alternative engines', () => {
  const server = vendorServer()
  afterAll(() => server.stop())

  test('behavior: Brave Search maps web.results, its token in X-Subscription-Token', async () => {
    server.state.answer = () =>
      Response.json({
        query: { original: 'bun' },
        web: {
          results: [
            { title: 'Bun', url: 'https://bun.sh/', description: 'A fast runtime', page_age: '2024-01-01T00:00:00' },
          ],
        },
      })
    const engine = brave({ baseUrl: server.url, apiKey: 'brave-key' })
    expect(await engine.search({ query: 'bun', max: 2 })).toEqual({
      ok: true,
      results: [
        {
          title: 'Bun',
          url: 'https://bun.sh/',
          snippet: 'A fast runtime',
          published: '2024-01-01T00:00:00',
          score: null,
        },
      ],
      answer: null,
    })
    expect(server.last().url.pathname).toBe('/api/web/search')
    expect(server.last().url.searchParams.get('count')).toBe('2')
    expect(server.last().headers.get('x-subscription-token')).toBe('brave-key')
    // Brave honours no option beyond the query: a topic or a domain list is refused before payment, never dropped.
    const braveEngine = brave({ baseUrl: server.url, apiKey: 'brave-key' })
    expect(() => preflightOptions(braveEngine, { query: 'bun', topic: 'news' })).toThrow(/topic: is not honoured/)
    expect(() => preflightOptions(braveEngine, { query: 'bun', include_domains: ['bun.sh'] })).toThrow(
      /include_domains: is not honoured/,
    )
    expect(() => preflightOptions(braveEngine, { query: 'bun', search_depth: 'basic', topic: 'general' })).not.toThrow()
    expect(brave({ baseUrl: server.url, apiKey: undefined }).available()).toEqual({
      ok: false,
      reason: 'Brave Search needs a key; set BRAVE_API_KEY.',
    })
  })

  test('behavior: Exa maps results with their text, its key in x-api-key', async () => {
    server.state.answer = () =>
      Response.json({
        requestId: 'r1',
        results: [
          {
            id: 'x',
            url: 'https://exa.ai/',
            title: 'Exa',
            publishedDate: '2024-02-02',
            author: null,
            text: 'Search for AIs',
            score: 0.7,
          },
        ],
      })
    const engine = exa({ baseUrl: server.url, apiKey: 'exa-key' })
    expect(await engine.search({ query: 'exa', max: 1, includeDomains: ['exa.ai'] })).toEqual({
      ok: true,
      results: [
        { title: 'Exa', url: 'https://exa.ai/', snippet: 'Search for AIs', published: '2024-02-02', score: 0.7 },
      ],
      answer: null,
    })
    expect(JSON.parse(server.last().body)).toMatchObject({
      query: 'exa',
      numResults: 1,
      type: 'auto',
      includeDomains: ['exa.ai'],
    })
    expect(() => preflightOptions(engine, { query: 'exa', exclude_domains: ['x.com'] })).not.toThrow()
    expect(() => preflightOptions(engine, { query: 'exa', search_depth: 'advanced' })).toThrow(/search_depth/)
    expect(server.last().headers.get('x-api-key')).toBe('exa-key')
  })
})
