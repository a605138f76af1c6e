import { UnreadableAnswerError } from '../../core/Errors.js'
import * as Research from '../../core/Research.js'
import { fieldsOf } from '../vendor/vendor.js'

/** A non-empty string, or `null`. */
export function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

/** A finite number (or a numeric string), or `null`. */
export function numberOf(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof number === 'number' && Number.isFinite(number) ? number : null
}

/** A DOI in any of its written forms, normalized; `null` when absent or not a DOI. */
export function doiOf(value: unknown): string | null {
  const text = stringOf(value)
  if (!text) return null
  const doi = Research.toDoi(text)
  return Research.checkDoi(doi) === undefined ? doi : null
}

/** An ORCID iD in any of its written forms, normalized; `null` when absent or malformed. */
export function orcidOf(value: unknown): string | null {
  const text = stringOf(value)
  if (!text) return null
  const orcid = Research.toOrcid(text)
  return Research.checkOrcid(orcid) === undefined ? orcid : null
}

/** The strings of a list (others left out); `[]` when it is no list. */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.flatMap((item) => (typeof item === 'string' ? [item] : [])) : []
}

/** A page of papers from a list answer: the total (read by `total`) and each item of `list` mapped by `paperOf`. */
export function papersOf(
  body: unknown,
  total: (body: unknown) => unknown,
  list: string,
  paperOf: (value: unknown) => Research.Paper,
): Research.Papers {
  const items = fieldsOf(body)[list]
  if (!Array.isArray(items)) throw new UnreadableAnswerError(`the answer has no ${list} list`)
  return { total: numberOf(total(body)) ?? items.length, papers: items.map(paperOf) }
}

/** A date of Crossref's `{ "date-parts": [[y, m, d]] }` as `YYYY(-MM(-DD))`; `null` when absent. */
export function datePartsOf(value: unknown): string | null {
  const parts = (fieldsOf(value)['date-parts'] as unknown[][] | undefined)?.[0]
  if (!Array.isArray(parts) || typeof parts[0] !== 'number') return null
  return parts
    .filter((part): part is number => typeof part === 'number')
    .map((part, index) => (index === 0 ? String(part) : String(part).padStart(2, '0')))
    .join('-')
}

/** A DOI (or `doi:`-prefixed id) as a path segment: its slashes kept, as the APIs expect, and `?`, `#`, `%` escaped. */
export function doiPath(doi: string): string {
  return encodeURI(doi).replace(/[?#]/g, (character) => encodeURIComponent(character))
}
