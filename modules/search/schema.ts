import { type Static, Type } from '@sinclair/typebox'

/** Most URLs one extraction call takes (the original gateway's limit). */
const maxUrls = 5

/** A list of domains, e.g. `["arxiv.org"]`. */
const domains = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' }), {
      maxItems: 100,
      description,
    }),
  )

/** The kind of sources searched. */
const topic = Type.Optional(
  Type.Union([Type.Literal('general'), Type.Literal('news'), Type.Literal('finance')], {
    description:
      '`general`, `news` or `finance` (Tavily only; another engine refuses a value besides `general`). @default general',
  }),
)

/** Body of `POST /api/v1/search/web`. */
export const WebBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 400, description: 'What to search the web for.' }),
    search_depth: Type.Optional(
      Type.Union([Type.Literal('basic'), Type.Literal('advanced')], {
        description:
          '`basic` or `advanced` (reads more of each page; Tavily only, another engine refuses `advanced`). @default basic',
      }),
    ),
    max_results: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: 'Most results, 1 to 20. @default 5' }),
    ),
    include_domains: domains('Only results from these domains (Tavily and Exa). @default all'),
    exclude_domains: domains('No results from these domains (Tavily and Exa). @default none'),
    topic,
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/search/web`. */
export type WebBody = Static<typeof WebBody>

/** Body of `POST /api/v1/search/extract`. */
export const ExtractBody = Type.Object(
  {
    urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
      minItems: 1,
      maxItems: maxUrls,
      description: `http(s) URLs of pages, 1 to ${maxUrls}; each is fetched through the outbound guard.`,
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/search/extract`. */
export type ExtractBody = Static<typeof ExtractBody>

/** Body of `POST /api/v1/search/qna`: `query` (the original gateway's name) or `question`, one of them. */
export const QnaBody = Type.Object(
  {
    query: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'The question (or give `question`, not both).' }),
    ),
    question: Type.Optional(
      Type.String({ minLength: 3, maxLength: 500, description: 'The question (or give `query`, not both).' }),
    ),
    topic,
    max_sources: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, description: 'Search results read to answer, 1 to 5. @default 3' }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/search/qna`. */
export type QnaBody = Static<typeof QnaBody>

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description })

/** Answer of `POST /api/v1/search/web`. */
export const WebOutput = Type.Object({
  query: Type.String(),
  answer: nullable("The engine's short answer to the query (Tavily's), or `null`."),
  result_count: Type.Integer({ description: 'How many results there are.' }),
  search_depth: Type.String({ description: '`basic` or `advanced`, as searched.' }),
  source: Type.String({ description: 'The engine: `tavily`, `brave` or `exa`.' }),
  results: Type.Array(
    Type.Object({
      title: Type.String(),
      url: Type.String(),
      content: Type.String({ description: 'Text of the page relevant to the query (the same as `snippet`).' }),
      snippet: Type.String({ description: 'Text of the page relevant to the query.' }),
      published_date: nullable('Publication date as the engine gives it (the same as `published`).'),
      published: nullable('Publication date as the engine gives it.'),
      score: Type.Union([Type.Number(), Type.Null()], { description: "The engine's relevance score." }),
    }),
  ),
})

/** A page whose text was extracted. */
const Extracted = Type.Object({
  ok: Type.Literal(true),
  url: Type.String(),
  finalUrl: Type.String({ description: 'After redirects.' }),
  title: nullable('Document title.'),
  byline: nullable('Author line.'),
  published: nullable('Publication time as the page states it.'),
  language: nullable('Document language, e.g. `en`.'),
  siteName: nullable('Site name.'),
  excerpt: nullable('Short summary.'),
  content: Type.String({ description: 'Main text, at most EXTRACT_MAX_CHARS (the same as `text`).' }),
  text: Type.String({ description: 'Main text, at most EXTRACT_MAX_CHARS.' }),
  truncated: Type.Boolean({ description: 'Whether the text was cut at that limit.' }),
})

/** A page that gave no text. */
const Failed = Type.Object({
  ok: Type.Literal(false),
  url: Type.String(),
  error: Type.String({ description: 'Why, in one sentence (the same as `message`).' }),
  reason: Type.String({
    description: '`refused`, `timeout`, `too_large`, `http_error`, `unsupported_content_type` or `no_content`.',
  }),
  message: Type.String(),
})

/** Answer of `POST /api/v1/search/extract`. */
export const ExtractOutput = Type.Object({
  results: Type.Array(Extracted, { description: 'The pages whose text was extracted, in the order asked.' }),
  failed: Type.Array(Failed, { description: 'The pages that gave no text, in the order asked, each saying why.' }),
  succeeded: Type.Integer({ description: 'How many pages gave text.' }),
  failedCount: Type.Integer({ description: 'How many pages gave no text.' }),
})

const source = Type.Object({
  number: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  score: Type.Union([Type.Number(), Type.Null()], { description: "The search engine's relevance score." }),
})

/** Answer of `POST /api/v1/search/qna`. */
export const QnaOutput = Type.Object({
  query: Type.String({ description: 'The question asked (the same as `question`).' }),
  question: Type.String(),
  answer: Type.String({ description: 'From the sources only, citing them as `[n]`.' }),
  model: Type.String(),
  citations: Type.Array(source, { description: 'The sources the answer cites.' }),
  sources: Type.Array(source, { description: 'Every source put before the model.' }),
  searchSource: Type.String({ description: 'The search engine.' }),
})
