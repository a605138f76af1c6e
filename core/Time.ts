import { ValidationError } from './Errors.js'

/** An ISO 8601 date, or date and time with a zone (`Z` or `±hh:mm`), as request schemas admit it. */
export const isoPattern = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$'

/** Parses a time that {@link isoPattern} admitted; refuses impossible ones (Feb 30, 25:00) rather than rolling over. */
export function fromIso(text: string, field: string): Date {
  const time = new Date(text)
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number]
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (Number.isNaN(time.getTime()) || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day)
    throw new ValidationError({ field, message: 'must be a real ISO 8601 date or time' })
  return time
}
