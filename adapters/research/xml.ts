import { XMLParser } from 'fast-xml-parser'

/** Elements read as lists even when one appears once (Atom and PubMed's article sets). */
const lists = new Set(['entry', 'author', 'link', 'category', 'PubmedArticle', 'AbstractText', 'Author', 'ArticleId'])

/**
 * The parser of every XML answer (arXiv's Atom, PubMed's efetch): attributes kept without a prefix, namespace prefixes
 * dropped, text kept as text (a title of digits stays a string), no entity expansion beyond XML's own.
 */
export const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  isArray: (name) => lists.has(name),
})

/** The text of a parsed element: itself when a string, its `#text` when it has attributes; `null` when empty. */
export function textOf(value: unknown): string | null {
  const text =
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null && typeof (value as { '#text'?: unknown })['#text'] === 'string'
        ? (value as { '#text': string })['#text']
        : undefined
  const trimmed = text?.replace(/\s+/g, ' ').trim()
  return trimmed ? trimmed : null
}
