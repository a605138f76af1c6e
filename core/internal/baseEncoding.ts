import { sha256 } from '@noble/hashes/sha2'
import { type BytesCoder, base32nopad, base58xrp, base58 as bitcoinBase58, utils } from '@scure/base'

/** Base58 alphabet of Bitcoin and Solana, for messages that name a character outside it. */
export const bitcoinAlphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Base58 alphabet of the XRP Ledger (`r` encodes zero), for messages that name a character outside it. */
export const rippleAlphabet = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz'

/** RFC 4648 base32 alphabet (uppercase, as Stellar strkeys use it), for messages that name a character outside it. */
export const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** Base58 in the Bitcoin alphabet (Solana addresses); each leading zero byte is one `1`. Callers bound the length. */
export const base58: BytesCoder = bitcoinBase58

/** Base58 in the XRP Ledger's alphabet; each leading zero byte is one `r`. Callers bound the length. */
export const xrpBase58: BytesCoder = base58xrp

/** Unpadded RFC 4648 base32, uppercase; refuses a length no byte string encodes to and non-zero unused bits. */
export const base32: BytesCoder = base32nopad

/** XRP base58check: the payload, then the first 4 bytes of sha256(sha256(payload)), in the XRP alphabet. */
export const xrpBase58check: BytesCoder = utils.chain(
  utils.checksum(4, (payload) => sha256(sha256(payload))),
  base58xrp,
)

/** A Stellar strkey (SEP-23): version byte and payload, then their CRC-16/XMODEM little-endian, in base32. */
export const strkey: BytesCoder = utils.chain(
  utils.checksum(2, (payload) => {
    const crc = crc16Xmodem(payload)
    return new Uint8Array([crc & 0xff, crc >> 8])
  }),
  base32nopad,
)

/**
 * Decodes `text` with a coder; `undefined` where the coder refuses it (a character outside the alphabet, a length or
 * ending no byte string encodes to, a checksum that does not match).
 */
export function decode(coder: BytesCoder, text: string): Uint8Array | undefined {
  try {
    return coder.decode(text)
  } catch {
    return undefined
  }
}

/** CRC-16/XMODEM (poly 0x1021, init 0x0000, no reflection), as Stellar strkeys use it. */
function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}
