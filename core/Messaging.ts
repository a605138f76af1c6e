import { secp256k1 } from '@noble/curves/secp256k1'
import { base64 } from '@scure/base'
import { decrypt as eciesDecrypt, encrypt as eciesEncrypt } from 'eciesjs'
import { Config } from 'eciesjs/config'
import { type Address, bytesToHex, getAddress, type Hex, hexToBytes } from 'viem'
import { ValidationError } from './Errors.js'

/**
 * End-to-end encrypted wallet messages, the client half and the rules both sides share. A wallet holds a separate
 * secp256k1 messaging keypair (never its wallet key: browser wallets cannot do raw ECDH) and binds the public half to
 * its address by signing {@link keyMessage} (EIP-191). A sender encrypts to that key with ECIES (eciesjs: an ephemeral
 * secp256k1 key, HKDF-SHA256, AES-256-GCM); the gateway stores and relays only the resulting envelope.
 */

/** The eciesjs settings every envelope uses, fixed here rather than read from eciesjs's mutable global. */
const config = new Config()

/** Bytes of an uncompressed ephemeral public key, the first part of every envelope. */
const ephemeralKeyBytes = 65

/** Bytes an envelope adds to its plaintext: ephemeral key (65), AES-GCM nonce (16) and tag (16). */
export const overheadBytes = ephemeralKeyBytes + 16 + 16

/** Most characters of an envelope (its base64 text): 16 KiB, about 12 KiB of plaintext. */
export const maxEnvelopeLength = 16_384

/** Most bytes of plaintext one envelope carries: what fits {@link maxEnvelopeLength} after the overhead. */
export const maxContentBytes = (maxEnvelopeLength / 4) * 3 - overheadBytes

/** A messaging keypair: hex private key (32 bytes) and compressed public key (33 bytes). */
export type KeyPair = {
  /** The secret half; stays with its owner. */
  privateKey: Hex
  /** The half the owner registers and senders encrypt to, compressed (`0x02`/`0x03` and 32 bytes). */
  publicKey: Hex
}

/** A fresh random messaging keypair. It is not, and must not be, the wallet's own key. */
export function createKeyPair(): KeyPair {
  const privateKey = secp256k1.utils.randomPrivateKey()
  return { privateKey: bytesToHex(privateKey), publicKey: bytesToHex(secp256k1.getPublicKey(privateKey, true)) }
}

/** The compressed public key of a messaging private key. */
export function publicKeyOf(privateKey: Hex): Hex {
  return bytesToHex(secp256k1.getPublicKey(hexToBytes(privateKey), true))
}

/** Whether `publicKey` is a compressed secp256k1 public key: `0x02`/`0x03`, 32 bytes, a point on the curve. */
export function isPublicKey(publicKey: string): publicKey is Hex {
  if (!/^0x0[23][0-9a-fA-F]{64}$/.test(publicKey)) return false
  try {
    secp256k1.ProjectivePoint.fromHex(publicKey.slice(2)).assertValidity()
    return true
  } catch {
    return false
  }
}

/**
 * The exact text a wallet signs (EIP-191 `personal_sign`) to bind a messaging key to its address. The gateway
 * rebuilds it from the registration's fields to verify the signature, and anyone who fetches the registration can do
 * the same: it names the address, the key, the settlement chain and when it was signed.
 */
export function keyMessage(parameters: keyMessage.Parameters): string {
  const { address, publicKey, chainId, issuedAt } = parameters
  return [
    'Register this public key for end-to-end encrypted wallet messages.',
    'Only the holder of its private key can read messages sent to this address.',
    '',
    `Address: ${getAddress(address)}`,
    `Messaging key: ${publicKey.toLowerCase()}`,
    `Chain ID: ${chainId}`,
    `Issued At: ${issuedAt}`,
  ].join('\n')
}

export declare namespace keyMessage {
  type Parameters = {
    /** The wallet that owns the key; written checksummed. */
    address: Address
    /** The compressed messaging public key; written in lowercase hex. */
    publicKey: Hex
    /** EIP-155 id of the gateway's settlement chain. */
    chainId: number
    /** When the wallet signed, ISO 8601 (`2026-11-26T08:00:00.000Z`); a newer registration replaces an older one. */
    issuedAt: string
  }
}

/** Encrypts `content` (UTF-8 text) to a recipient's messaging public key: the envelope, base64 of eciesjs's output. */
export function encrypt(parameters: encrypt.Parameters): string {
  const { content, publicKey } = parameters
  const plaintext = new TextEncoder().encode(content)
  if (plaintext.length === 0) throw new ValidationError({ field: 'content', message: 'a message needs content' })
  if (plaintext.length > maxContentBytes)
    throw new ValidationError({
      field: 'content',
      message: `a message carries at most ${maxContentBytes} bytes; this one has ${plaintext.length}`,
    })
  if (!isPublicKey(publicKey))
    throw new ValidationError({ field: 'publicKey', message: 'is not a compressed secp256k1 public key' })
  return base64.encode(eciesEncrypt(publicKey.slice(2), plaintext, config))
}

export declare namespace encrypt {
  type Parameters = {
    /** The message, as text. */
    content: string
    /** The recipient's registered messaging public key. */
    publicKey: Hex
  }
}

/** Decrypts an envelope with the recipient's messaging private key; throws when the key does not open it. */
export function decrypt(parameters: decrypt.Parameters): string {
  const { envelope, privateKey } = parameters
  const parsed = parse(envelope)
  if (!parsed.ok) throw new ValidationError({ field: 'envelope', message: `is not an envelope: ${parsed.reason}` })
  return new TextDecoder('utf-8', { fatal: true }).decode(eciesDecrypt(privateKey.slice(2), parsed.bytes, config))
}

export declare namespace decrypt {
  type Parameters = {
    /** The envelope as {@link encrypt} made it. */
    envelope: string
    /** The recipient's messaging private key. */
    privateKey: Hex
  }
}

/**
 * Checks that `envelope` has the shape of an ECIES envelope without opening it: base64 of at most
 * {@link maxEnvelopeLength} characters, longer than the overhead, starting with an uncompressed ephemeral public key
 * that is a point on secp256k1. Plaintext fails it; only the recipient's key can tell more.
 */
export function parse(envelope: string): { ok: true; bytes: Uint8Array } | { ok: false; reason: string } {
  if (envelope.length > maxEnvelopeLength)
    return { ok: false, reason: `is longer than ${maxEnvelopeLength} characters` }
  let bytes: Uint8Array
  try {
    bytes = base64.decode(envelope)
  } catch {
    return { ok: false, reason: 'is not base64 (RFC 4648, padded)' }
  }
  if (bytes.length <= overheadBytes)
    return { ok: false, reason: `is ${bytes.length} bytes; an envelope has more than ${overheadBytes}` }
  if (bytes[0] !== 0x04) return { ok: false, reason: 'does not start with an uncompressed ephemeral public key' }
  try {
    secp256k1.ProjectivePoint.fromHex(bytes.subarray(0, ephemeralKeyBytes)).assertValidity()
  } catch {
    return { ok: false, reason: 'does not start with a secp256k1 public key' }
  }
  return { ok: true, bytes }
}
