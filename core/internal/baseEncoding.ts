/** Base58 alphabet of Bitcoin and Solana. */
export const bitcoinAlphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Base58 alphabet of the XRP Ledger; `r` encodes zero. */
export const rippleAlphabet = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz'

/** RFC 4648 base32 alphabet (uppercase, used by Stellar strkeys). */
export const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/**
 * Decodes base58 text in the given alphabet; each leading zero digit becomes one zero byte.
 * Returns `undefined` when a character is outside the alphabet. Callers bound the length: the cost grows with its square.
 */
export function base58Decode(text: string, alphabet: string): Uint8Array | undefined {
  const zero = alphabet[0]
  let leadingZeros = 0
  while (leadingZeros < text.length && text[leadingZeros] === zero) leadingZeros++
  let value = 0n
  for (let index = leadingZeros; index < text.length; index++) {
    const digit = alphabet.indexOf(text[index]!)
    if (digit === -1) return undefined
    value = value * 58n + BigInt(digit)
  }
  const body = value === 0n ? new Uint8Array(0) : fromHex(value.toString(16))
  const bytes = new Uint8Array(leadingZeros + body.length)
  bytes.set(body, leadingZeros)
  return bytes
}

/** Encodes bytes as base58 in the given alphabet; each leading zero byte becomes one zero digit. */
export function base58Encode(bytes: Uint8Array, alphabet: string): string {
  let leadingZeros = 0
  while (leadingZeros < bytes.length && bytes[leadingZeros] === 0) leadingZeros++
  let value = 0n
  for (let index = leadingZeros; index < bytes.length; index++) value = (value << 8n) | BigInt(bytes[index]!)
  let digits = ''
  while (value > 0n) {
    digits = alphabet[Number(value % 58n)]! + digits
    value /= 58n
  }
  return alphabet[0]!.repeat(leadingZeros) + digits
}

/**
 * Decodes unpadded RFC 4648 base32 (uppercase only).
 * Returns `undefined` for a character outside the alphabet, a length no byte string encodes to,
 * or non-zero unused bits in the last character (a non-canonical encoding).
 */
export function base32Decode(text: string): Uint8Array | undefined {
  // Unpadded base32 ends in a group of 2, 4, 5 or 7 characters; 1, 3 or 6 cannot come from whole bytes.
  if ([1, 3, 6].includes(text.length % 8)) return undefined
  const bytes = new Uint8Array(Math.floor((text.length * 5) / 8))
  let buffer = 0
  let bits = 0
  let offset = 0
  for (const character of text) {
    const digit = base32Alphabet.indexOf(character)
    if (digit === -1) return undefined
    buffer = ((buffer << 5) | digit) & 0xfff
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes[offset++] = (buffer >> bits) & 0xff
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined
  return bytes
}

/** Encodes bytes as unpadded RFC 4648 base32 (uppercase). */
export function base32Encode(bytes: Uint8Array): string {
  let text = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff
    bits += 8
    while (bits >= 5) {
      bits -= 5
      text += base32Alphabet[(buffer >> bits) & 0x1f]
    }
  }
  if (bits > 0) text += base32Alphabet[(buffer << (5 - bits)) & 0x1f]
  return text
}

/** Parses hex digits (an odd count gets a leading zero) into bytes. */
function fromHex(hex: string): Uint8Array {
  const even = hex.length % 2 === 0 ? hex : `0${hex}`
  const bytes = new Uint8Array(even.length / 2)
  for (let index = 0; index < bytes.length; index++) bytes[index] = Number.parseInt(even.slice(index * 2, index * 2 + 2), 16)
  return bytes
}
