/** Most characters of a caller's string that a message or problem repeats back. */
export const maxEchoLength = 64

/**
 * A caller's string as an error message may repeat it: cut to `maxLength` characters (whole code points) with an
 * ellipsis. Every message that quotes what a caller sent goes through here, so no problem repeats a long string.
 */
export function echo(value: string, maxLength: number = maxEchoLength): string {
  // A code point is at most two UTF-16 units, so the first 2 × maxLength units hold the first maxLength code points.
  const head = [...value.slice(0, maxLength * 2)]
  if (value.length <= maxLength * 2 && head.length <= maxLength) return value
  return `${head.slice(0, maxLength).join('')}…`
}
