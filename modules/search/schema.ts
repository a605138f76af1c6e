import { type Static, Type } from '@sinclair/typebox'

/** Most URLs one extraction call takes. */
export const maxUrls = 10

/** Body of `POST /api/v1/search/web`. */
export const WebBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 400, description: 'What to search the web for.' }),
  max_results: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 20, description: 'Most results, 1 to 20. @default 5' }),
  ),
})
/** Body of `POST /api/v1/search/web`. */
export type WebBody = Static<typeof WebBody>

/** Body of `POST /api/v1/search/extract`. */
export const ExtractBody = Type.Object({
  urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    minItems: 1,
    maxItems: maxUrls,
    description: `http(s) URLs of pages, 1 to ${maxUrls}; each is fetched through the outbound guard.`,
  }),
})
/** Body of `POST /api/v1/search/extract`. */
export type ExtractBody = Static<typeof ExtractBody>

/** Body of `POST /api/v1/search/qna`. */
export const QnaBody = Type.Object({
  question: Type.String({ minLength: 3, maxLength: 500, description: 'The question.' }),
  max_sources: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 5, description: 'Search results read to answer, 1 to 5. @default 3' }),
  ),
})
/** Body of `POST /api/v1/search/qna`. */
export type QnaBody = Static<typeof QnaBody>

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description })

/** Answer of `POST /api/v1/search/web`. */
export const WebOutput = Type.Object({
  query: Type.String(),
  source: Type.String({ description: 'The engine: `tavily`, `brave` or `exa`.' }),
  results: Type.Array(
    Type.Object({
      title: Type.String(),
      url: Type.String(),
      snippet: Type.String(),
      published: nullable('Publication date as the engine gives it.'),
      score: Type.Union([Type.Number(), Type.Null()], { description: "The engine's relevance score." }),
    }),
  ),
})

/** Answer of `POST /api/v1/search/extract`. */
export const ExtractOutput = Type.Object({
  results: Type.Array(
    Type.Union([
      Type.Object({
        ok: Type.Literal(true),
        url: Type.String(),
        finalUrl: Type.String({ description: 'After redirects.' }),
        title: nullable('Document title.'),
        byline: nullable('Author line.'),
        published: nullable('Publication time as the page states it.'),
        language: nullable('Document language, e.g. `en`.'),
        siteName: nullable('Site name.'),
        excerpt: nullable('Short summary.'),
        text: Type.String({ description: 'Main text, at most EXTRACT_MAX_CHARS.' }),
        truncated: Type.Boolean({ description: 'Whether the text was cut at that limit.' }),
      }),
      Type.Object({
        ok: Type.Literal(false),
        url: Type.String(),
        reason: Type.String({
          description: '`refused`, `timeout`, `too_large`, `http_error`, `unsupported_content_type` or `no_content`.',
        }),
        message: Type.String(),
      }),
    ]),
  ),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
})

const source = Type.Object({ number: Type.Integer(), url: Type.String(), title: Type.String() })

/** Answer of `POST /api/v1/search/qna`. */
export const QnaOutput = Type.Object({
  question: Type.String(),
  answer: Type.String({ description: 'From the sources only, citing them as `[n]`.' }),
  model: Type.String(),
  citations: Type.Array(source, { description: 'The sources the answer cites.' }),
  sources: Type.Array(source, { description: 'Every source put before the model.' }),
  searchSource: Type.String({ description: 'The search engine.' }),
})
