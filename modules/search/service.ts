import type * as Chat from '../../core/Chat.js'
import { UpstreamFailedError, ValidationError } from '../../core/Errors.js'
import * as Outbound from '../../core/Outbound.js'
import type * as Search from '../../core/Search.js'
import * as Upstream from '../../core/Upstream.js'
import type { ExtractBody, QnaBody, WebBody } from './schema.js'

/** Longest text of one source put before the model, in characters. */
const sourceChars = 6_000

/** The option of a search each body field sets, by field name. */
const options = {
  search_depth: 'depth',
  topic: 'topic',
  include_domains: 'includeDomains',
  exclude_domains: 'excludeDomains',
} as const satisfies Record<string, Search.Option>

/**
 * Refuses before payment a search option the engine cannot honour: a field given with a value besides its default
 * (`basic`, `general`, an empty list), which the engine would otherwise drop without a word.
 */
export function preflightOptions(engine: Search.Engine, body: Record<string, unknown> | null): void {
  for (const [field, option] of Object.entries(options)) {
    const value = body?.[field]
    const unset =
      value === undefined || value === 'basic' || value === 'general' || (Array.isArray(value) && !value.length)
    if (!unset && !engine.supports.includes(option))
      throw new ValidationError({
        field,
        message: `is not honoured by the search engine of this gateway (${engine.source}); leave it out`,
      })
  }
}

/** Ranked results of a web search, with the engine's short answer where it gives one. */
export async function web(deps: { engine: Search.Engine }, body: WebBody) {
  const depth = body.search_depth ?? 'basic'
  const outcome = await deps.engine.search({
    query: body.query,
    max: body.max_results ?? 5,
    depth,
    topic: body.topic,
    includeDomains: body.include_domains,
    excludeDomains: body.exclude_domains,
  })
  if (!outcome.ok) throw Upstream.toError(outcome)
  return {
    query: body.query,
    answer: outcome.answer,
    result_count: outcome.results.length,
    search_depth: depth,
    source: deps.engine.source,
    results: outcome.results.map((result) => ({
      title: result.title,
      url: result.url,
      content: result.snippet,
      snippet: result.snippet,
      published_date: result.published,
      published: result.published,
      score: result.score,
    })),
  }
}

/** Checks every URL's form before payment (scheme, credentials, port); the guard checks addresses when it fetches. */
export function preflightExtract(body: Partial<ExtractBody> | null): void {
  const urls = body?.urls
  if (!Array.isArray(urls)) return
  for (const [index, url] of urls.entries()) {
    if (typeof url !== 'string') continue
    const target = Outbound.target(url)
    if (!target.ok) throw new ValidationError({ field: `urls.${index}`, message: target.message })
  }
}

/** Each URL's main text or why there is none; a call where no URL gave text fails (and charges nothing). */
export async function extract(deps: { extractor: Search.Extractor }, body: ExtractBody) {
  const results = await deps.extractor.extract(body.urls)
  if (!results.some((result) => result.ok))
    throw new UpstreamFailedError('No URL gave any text; nothing is charged.', {
      details: {
        results: results.map((result) =>
          result.ok ? result : { url: result.url, reason: result.reason, message: result.message },
        ),
      },
    })
  const extracted = results.flatMap((result) => (result.ok ? [{ ...result, content: result.text }] : []))
  const failed = results.flatMap((result) => (result.ok ? [] : [{ ...result, error: result.message }]))
  return { results: extracted, failed, succeeded: extracted.length, failedCount: failed.length }
}

/** The question of a qna body: `query` (the original gateway's name) or `question`, exactly one; checked before payment. */
export function questionOf(body: Partial<Record<'query' | 'question', unknown>> | null): string {
  const { query, question } = body ?? {}
  if (query !== undefined && question !== undefined)
    throw new ValidationError({ field: 'question', message: 'give the question as query or as question, not both' })
  const text = query ?? question
  if (text === undefined) throw new ValidationError({ field: 'query', message: 'is required' })
  return text as string
}

/** What question answering needs. */
export type QnaDeps = {
  /** The search API. */
  engine: Search.Engine
  /** The extractor. */
  extractor: Search.Extractor
  /** The chat upstream that answers. */
  chat: Chat.ChatUpstream
  /** The model asked. */
  model: string
}

/**
 * Searches, extracts the top results, and asks the model to answer from those texts only, citing them by number.
 * Without a readable source there is no answer (a 502, nothing charged).
 */
export async function qna(deps: QnaDeps, body: QnaBody) {
  const question = questionOf(body)
  const searched = await deps.engine.search({ query: question, max: body.max_sources ?? 3, topic: body.topic })
  if (!searched.ok) throw Upstream.toError(searched)
  const extracted = await deps.extractor.extract(searched.results.map((result) => result.url))
  const sources = extracted.flatMap((page, index) => {
    const result = searched.results[index]!
    // A page that could not be read still has the engine's snippet, which is a text the model may cite.
    const text = page.ok ? page.text : result.snippet
    return text.trim()
      ? [{ url: result.url, title: (page.ok ? page.title : null) ?? result.title, score: result.score, text }]
      : []
  })
  if (sources.length === 0)
    throw new UpstreamFailedError('The search found no readable source, so there is no answer; nothing is charged.')
  const numbered = sources
    .map((source, index) => `[${index + 1}] ${source.title}\nURL: ${source.url}\n${source.text.slice(0, sourceChars)}`)
    .join('\n\n---\n\n')
  const outcome = await deps.chat.complete({
    model: deps.model,
    temperature: 0,
    messages: [
      {
        role: 'system',
        content:
          'Answer the question using only the numbered sources below. Cite every claim with the number of its source in ' +
          'square brackets, e.g. [1]. If the sources do not answer the question, say so and cite nothing. Never use ' +
          'knowledge from outside the sources.',
      },
      { role: 'user', content: `Sources:\n\n${numbered}\n\nQuestion: ${question}` },
    ],
  })
  if (!outcome.ok) throw Upstream.toError(outcome)
  if (outcome.answer.type !== 'completion') throw new UpstreamFailedError('The chat upstream answered a stream.')
  const message = (outcome.answer.completion.choices[0] as { message?: { content?: unknown } } | undefined)?.message
  const answer = typeof message?.content === 'string' ? message.content.trim() : ''
  if (!answer) throw new UpstreamFailedError('The chat upstream answered no text.')
  const cited = new Set([...answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1])))
  const listed = sources.map((source, index) => ({
    number: index + 1,
    url: source.url,
    title: source.title,
    score: source.score,
  }))
  return {
    query: question,
    question,
    answer,
    model: deps.model,
    citations: listed.filter((source) => cited.has(source.number)),
    sources: listed,
    searchSource: deps.engine.source,
  }
}
