/**
 * Text messages as carriers count them. A phone number is written in E.164 (`+`, a country code that does not start
 * with 0, at most 15 digits in all). A text is sent in GSM-7 when every character is in the GSM 03.38 default alphabet
 * or its extension table (an extension character takes two septets: the escape and the character), else in UCS-2
 * (UTF-16 code units; a character outside the Basic Multilingual Plane takes two). One segment holds 160 septets or
 * 70 code units; a longer text is split into segments of 153 septets or 67 code units (the rest is the concatenation
 * header), and a segment never splits an escape pair or a surrogate pair.
 */

/** The pattern of an E.164 phone number, for schemas. */
export const e164Pattern = '^\\+[1-9][0-9]{1,14}$'

const e164 = new RegExp(e164Pattern)

/** Whether `value` is a phone number in E.164, e.g. `+14155550100`. */
export function isE164(value: string): boolean {
  return e164.test(value)
}

/** How a text is encoded on the air. */
export type Encoding = 'GSM-7' | 'UCS-2'

/** The GSM 03.38 default alphabet (one septet each), without the escape that introduces the extension table. */
const basic = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
)

/** The GSM 03.38 extension table: two septets each (the escape, then the character). */
const extension = new Set('\f^{}\\[~]|€')

/** Septets of one character in GSM-7, or `undefined` when GSM-7 cannot carry it. */
function septetsOf(character: string): number | undefined {
  if (basic.has(character)) return 1
  if (extension.has(character)) return 2
  return undefined
}

/** The encoding a text is sent in: GSM-7 when it can carry every character, else UCS-2. */
export function encodingOf(text: string): Encoding {
  for (const character of text) if (septetsOf(character) === undefined) return 'UCS-2'
  return 'GSM-7'
}

/** Segments a text is sent in, and its length in its encoding's units. */
export function segmentsOf(text: string): segmentsOf.ReturnType {
  const encoding = encodingOf(text)
  // Units of each character: septets in GSM-7, UTF-16 code units in UCS-2 (a code point iterates as one character).
  const sizes = [...text].map((character) => (encoding === 'GSM-7' ? septetsOf(character)! : character.length))
  const units = sizes.reduce((sum, size) => sum + size, 0)
  const single = encoding === 'GSM-7' ? 160 : 70
  if (units === 0) return { encoding, units, segments: 0 }
  if (units <= single) return { encoding, units, segments: 1 }
  const room = encoding === 'GSM-7' ? 153 : 67
  let segments = 1
  let used = 0
  for (const size of sizes) {
    // A pair (escape and character, or two surrogates) that does not fit whole starts the next segment.
    if (used + size > room) {
      segments += 1
      used = 0
    }
    used += size
  }
  return { encoding, units, segments }
}

export declare namespace segmentsOf {
  type ReturnType = {
    /** GSM-7 or UCS-2. */
    encoding: Encoding
    /** Length in the encoding's units: septets (GSM-7) or UTF-16 code units (UCS-2). */
    units: number
    /** Segments the carrier sends (and bills); 0 for an empty text. */
    segments: number
  }
}
