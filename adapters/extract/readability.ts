import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import * as Outbound from '../../core/Outbound.js'
import type * as Search from '../../core/Search.js'

/** Content types whose text is extracted: HTML (through Readability) and plain text (as is). */
const htmlTypes = new Set(['text/html', 'application/xhtml+xml'])

/**
 * Our extractor: each URL fetched through the outbound guard (private addresses refused, every redirect re-checked,
 * the body bounded in bytes and the exchange in time), only HTML and plain text accepted, and the main text of an
 * HTML page found by Mozilla's Readability on a linkedom document, with its title, byline, published time and
 * language; the text is cut at `maxChars`.
 */
export function readability(parameters: readability.Parameters): Search.Extractor {
  const { outbound, timeoutMs = 10_000, maxBytes = 2 * 1024 * 1024, maxChars = 50_000 } = parameters

  async function one(url: string): Promise<Search.Extraction> {
    const fail = (reason: Search.ExtractReason, message: string): Search.Extraction => ({
      ok: false,
      url,
      reason,
      message,
    })
    const fetched = await outbound.fetch(url, {
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8' },
      timeoutMs,
      maxBytes,
    })
    if (!fetched.ok) {
      if (fetched.reason === 'timeout') return fail('timeout', fetched.message)
      if (fetched.reason === 'too_large') return fail('too_large', `the page is larger than ${maxBytes} bytes`)
      return fail('refused', `${fetched.reason}: ${fetched.message}`)
    }
    if (fetched.status < 200 || fetched.status > 299)
      return fail('http_error', `${Outbound.describe(fetched.url)} answered HTTP ${fetched.status}`)
    const contentType = fetched.headers['content-type'] ?? ''
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase()
    if (!htmlTypes.has(mediaType) && mediaType !== 'text/plain')
      return fail('unsupported_content_type', `${mediaType || 'no content type'} is not HTML or text`)
    const text = decode(fetched.body, contentType)
    if (mediaType === 'text/plain') return page(url, fetched.url, {}, text)
    const { document } = parseHTML(text)
    const language = document.documentElement?.getAttribute('lang') || null
    // Readability changes the document it reads; this one is ours alone.
    const article = new Readability(document as unknown as Document).parse()
    if (!article?.textContent?.trim()) return fail('no_content', 'no readable main text was found in the page')
    return page(url, fetched.url, { ...article, lang: article.lang || language }, article.textContent)
  }

  function page(
    url: string,
    finalUrl: string,
    article: {
      title?: string | null | undefined
      byline?: string | null | undefined
      publishedTime?: string | null | undefined
      lang?: string | null | undefined
      siteName?: string | null | undefined
      excerpt?: string | null | undefined
    },
    raw: string,
  ): Search.Extraction {
    const text = raw
      .replace(/[ \t\f\v\r]+/g, ' ')
      .replace(/\n\s*\n+/g, '\n\n')
      .trim()
    return {
      ok: true,
      url,
      finalUrl,
      title: article.title?.trim() || null,
      byline: article.byline?.trim() || null,
      published: article.publishedTime?.trim() || null,
      language: article.lang?.trim() || null,
      siteName: article.siteName?.trim() || null,
      excerpt: article.excerpt?.trim() || null,
      text: text.slice(0, maxChars),
      truncated: text.length > maxChars,
    }
  }

  return { extract: (urls) => Promise.all(urls.map(one)) }
}

export declare namespace readability {
  type Parameters = {
    /** The guard every request goes through. */
    outbound: Outbound.Guard
    /** Time limit of one page, redirects included, in ms. @default 10_000 */
    timeoutMs?: number
    /** Largest page read, in bytes. @default 2 MiB */
    maxBytes?: number
    /** Longest text kept per page, in characters. @default 50_000 */
    maxChars?: number
  }
}

/** The body as text in the charset its content type names (UTF-8 when it names none or one we cannot decode). */
function decode(body: Uint8Array, contentType: string): string {
  const charset = contentType.match(/charset=["']?([^;"'\s]+)/i)?.[1]
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}
