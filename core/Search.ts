import type { Availability, Outcome } from './Upstream.js'

/**
 * Web search and page extraction as ports: a search API (Tavily, Brave Search, Exa) answers ranked results; the
 * extractor fetches a caller's URLs through the outbound guard and keeps each page's main text.
 */

/** One ranked result of a web search. */
export type Result = {
  /** Title of the page. */
  title: string
  /** URL of the page. */
  url: string
  /** Snippet of the page relevant to the query. */
  snippet: string
  /** Publication date as the engine gives it (ISO 8601 where it can), or `null`. */
  published: string | null
  /** Relevance score of the engine (0 to 1 for Tavily), or `null` when it gives none. */
  score: number | null
}

/** How deep a search goes: `advanced` reads more of each page (Tavily's `search_depth`). */
export type Depth = 'basic' | 'advanced'

/** The kind of sources searched (Tavily's `topic`). */
export type Topic = 'general' | 'news' | 'finance'

/** Options of a search beyond its query, each honoured only by the engines that list it in `supports`. */
export type Option = 'depth' | 'topic' | 'includeDomains' | 'excludeDomains'

/** What a search asks for. */
export type Query = {
  /** The words searched for. */
  query: string
  /** Most results. */
  max: number
  /** Depth of the search. @default 'basic' */
  depth?: Depth | undefined
  /** Kind of sources. @default 'general' */
  topic?: Topic | undefined
  /** Only results from these domains. @default all */
  includeDomains?: readonly string[] | undefined
  /** No results from these domains. @default none */
  excludeDomains?: readonly string[] | undefined
}

/** A web search API. */
export type Engine = {
  /** Name of the engine in answers, e.g. `tavily`. */
  source: string
  /** The options of {@link Query} it honours; any other given a value besides its default is refused before payment. */
  supports: readonly Option[]
  /** Ranked results of a query, at most `max`, and the engine's own short answer where it gives one (else `null`). */
  search: (parameters: Query) => Promise<Outcome<{ results: Result[]; answer: string | null }>>
  /** Whether calls may start now (its key is set, its breaker closed). */
  available: () => Availability
}

/** Why a page gave no text. */
export type ExtractReason =
  /** The outbound guard refused the URL or a redirect (private address, bad scheme, ...), or the fetch failed. */
  | 'refused'
  /** No answer within the time limit. */
  | 'timeout'
  /** The page is larger than the byte limit. */
  | 'too_large'
  /** The page answered an error status. */
  | 'http_error'
  /** The page is not HTML or text. */
  | 'unsupported_content_type'
  /** No readable main text was found in the page. */
  | 'no_content'

/** What came of one URL. */
export type Extraction =
  | {
      /** The page's text was extracted. */
      ok: true
      /** URL as asked. */
      url: string
      /** URL of the page after redirects. */
      finalUrl: string
      /** Title. */
      title: string | null
      /** Author line. */
      byline: string | null
      /** Publication time, as the page states it. */
      published: string | null
      /** Language (the document's `lang`), e.g. `en`. */
      language: string | null
      /** Site name. */
      siteName: string | null
      /** Short summary (the page's description, or its first paragraph). */
      excerpt: string | null
      /** Main text, at most the extractor's character limit. */
      text: string
      /** Whether `text` was cut at that limit. */
      truncated: boolean
    }
  | {
      /** Nothing was extracted. */
      ok: false
      /** URL as asked. */
      url: string
      /** Why, as a stable code. */
      reason: ExtractReason
      /** One sentence, safe to show the caller. */
      message: string
    }

/** Fetches pages and keeps their main text. */
export type Extractor = {
  /** Each URL's outcome, in the order given; the pages are fetched at once. */
  extract: (urls: readonly string[]) => Promise<Extraction[]>
}
