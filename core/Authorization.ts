import { secp256k1 } from '@noble/curves/secp256k1'
import { keccak_256 } from '@noble/hashes/sha3'
import { type Address, checksumAddress, type Hex, isAddress } from 'viem'
import * as Codec from './Codec.js'

/** An EIP-3009 `TransferWithAuthorization`: what x402 `exact` and MPP `evm` charge both carry. */
export type Authorization = {
  /** Payer; the verified caller once the signature checks out. */
  from: Address
  /** Payee. */
  to: Address
  /** Amount in atomic token units. */
  value: bigint
  /** Unix seconds after which it is valid. */
  validAfter: bigint
  /** Unix seconds before which it is valid. */
  validBefore: bigint
  /** 32-byte random nonce, unique per payer. */
  nonce: Hex
}

/** A signed authorization. */
export type Signed = Authorization & {
  /** 65-byte ECDSA signature (or an EIP-1271 / EIP-6492 blob for smart wallets). */
  signature: Hex
}

/** The token contract an authorization is bound to through its EIP-712 domain. */
export type Domain = {
  /** EIP-712 domain name, e.g. `USD Coin`. */
  name: string
  /** EIP-712 domain version, e.g. `2`. */
  version: string
  /** Chain id. */
  chainId: number
  /** Token contract. */
  verifyingContract: Address
}

/**
 * Recovers the secp256k1 public key that signed a digest: the one operation of `recover` worth a native
 * implementation. Answers `undefined` when no key can be recovered (r or s out of range, r not an x coordinate,
 * the point at infinity). Implementations: {@link recoverPublicKey} (pure JS, the default) and the native
 * libsecp256k1 binding in `adapters/crypto/`.
 */
export type RecoverPublicKey = (parameters: {
  /** 32-byte message digest. */
  digest: Uint8Array
  /** 64 bytes: r then s, big-endian; s is at most half the curve order. */
  signature: Uint8Array
  /** Parity of the y coordinate of R (0 or 1). */
  recovery: 0 | 1
}) => Uint8Array | undefined

/**
 * Signs a 32-byte digest with a 32-byte private key: the compact signature (r then s, s at most half the curve order)
 * and its recovery id; RFC 6979 nonces, so one key and digest always give one signature. Implemented by the native
 * libsecp256k1 binding in `adapters/crypto/`.
 */
export type SignDigest = (parameters: { digest: Uint8Array; privateKey: Uint8Array }) => {
  signature: Uint8Array
  recovery: number
}

/** EIP-712 types of EIP-3009 `transferWithAuthorization`; must match the token contract's typehash. */
export const types = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** The typed data a payer signs. */
export function toTypedData(authorization: Authorization, domain: Domain) {
  return { domain, types, primaryType: 'TransferWithAuthorization' as const, message: authorization }
}

const encoder = new TextEncoder()

// Must match TRANSFER_WITH_AUTHORIZATION_TYPEHASH of the token (FiatTokenV2 and our DevUSDC).
/** keccak256 of the EIP-712 type string of `TransferWithAuthorization`. */
export const typeHash: Uint8Array = keccak_256(
  encoder.encode(
    'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
  ),
)

/** keccak256 of the EIP-712 type string of a domain with name, version, chainId and verifyingContract. */
const domainTypeHash = keccak_256(
  encoder.encode('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
)

/** Largest s the token accepts (EIP-2): half the secp256k1 order, rounded down. */
const halfOrder = secp256k1.CURVE.n >> 1n

/** 2^256: the first value a uint256 cannot hold. */
const uint256Limit = 1n << 256n

/** Domain separators already computed, by domain; a gateway has one or two, so the map stays tiny. */
const separators = new Map<string, Uint8Array>()

/** The EIP-712 domain separator of a token, computed once per domain. */
export function domainSeparator(domain: Domain): Uint8Array {
  const key = `${domain.name}\n${domain.version}\n${domain.chainId}\n${domain.verifyingContract.toLowerCase()}`
  const known = separators.get(key)
  if (known) return known
  if (!isAddress(domain.verifyingContract) || !Number.isSafeInteger(domain.chainId) || domain.chainId < 0)
    throw new Error(`Not an EIP-712 domain of a token: ${key.replaceAll('\n', ', ')}.`)
  const encoded = new Uint8Array(160)
  encoded.set(domainTypeHash, 0)
  encoded.set(keccak_256(encoder.encode(domain.name)), 32)
  encoded.set(keccak_256(encoder.encode(domain.version)), 64)
  writeUint256(encoded, 96, BigInt(domain.chainId))
  writeHex(encoded, 140, domain.verifyingContract)
  const separator = keccak_256(encoded)
  if (separators.size >= 64) separators.clear()
  separators.set(key, separator)
  return separator
}

/**
 * The EIP-712 digest a payer signs for an authorization (what viem's `hashTypedData` computes for
 * {@link toTypedData}); `undefined` when a field cannot be encoded (an address with a wrong checksum, an integer
 * outside uint256, a nonce that is not 32 bytes), where viem throws.
 */
export function hash(authorization: Authorization, domain: Domain): Uint8Array | undefined {
  const { from, to, value, validAfter, validBefore, nonce } = authorization
  if (!isAddress(from) || !isAddress(to) || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return undefined
  if (![value, validAfter, validBefore].every((integer) => integer >= 0n && integer < uint256Limit)) return undefined
  const struct = new Uint8Array(224)
  struct.set(typeHash, 0)
  writeHex(struct, 44, from)
  writeHex(struct, 76, to)
  writeUint256(struct, 96, value)
  writeUint256(struct, 128, validAfter)
  writeUint256(struct, 160, validBefore)
  writeHex(struct, 192, nonce)
  const message = new Uint8Array(66)
  message[0] = 0x19
  message[1] = 0x01
  message.set(domainSeparator(domain), 2)
  message.set(keccak_256(struct), 34)
  return keccak_256(message)
}

/** Pure-JS {@link RecoverPublicKey} on @noble/curves: the computation viem's `recoverTypedDataAddress` makes. */
export const recoverPublicKey: RecoverPublicKey = ({ digest, signature, recovery }) => {
  try {
    const r = readUint256(signature, 0)
    const s = readUint256(signature, 32)
    return new secp256k1.Signature(r, s).addRecoveryBit(recovery).recoverPublicKey(digest).toRawBytes(false)
  } catch {
    return undefined
  }
}

/**
 * Recovers the signer of a 65-byte signature (v is 27, 28, 0 or 1); `undefined` when the signature cannot be
 * recovered. Equals viem's `recoverTypedDataAddress` on every signature the token accepts; unlike viem it also
 * refuses a high-s signature (s above half the order), which the token's `ecrecover` check rejects (EIP-2).
 */
export async function recover(
  signed: Signed,
  domain: Domain,
  options: recover.Options = {},
): Promise<Address | undefined> {
  const digest = hash(signed, domain)
  return digest && recoverDigest(digest, signed.signature, options)
}

/** The signer of a 65-byte signature over a 32-byte EIP-712 digest, by the rules of {@link recover}. */
export function recoverDigest(digest: Uint8Array, signature: Hex, options: recover.Options = {}): Address | undefined {
  const { recoverPublicKey: recoverKey = recoverPublicKey } = options
  if (signature.length !== 132 || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  const v = Number.parseInt(signature.slice(130), 16)
  const recovery = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
  if (recovery === undefined) return undefined
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  if (s === 0n || s > halfOrder) return undefined
  const publicKey = recoverKey({ digest, signature: hexToBytes(signature.slice(2, 130)), recovery })
  if (publicKey?.length !== 65 || publicKey[0] !== 0x04) return undefined
  return checksumAddress(toHex(keccak_256(publicKey.subarray(1)).subarray(12)))
}

export declare namespace recover {
  type Options = {
    /** How the public key is recovered. @default {@link recoverPublicKey} (pure JS) */
    recoverPublicKey?: RecoverPublicKey | undefined
  }
}

/** How the ledger keeps a signed authorization: bigints as decimal strings, in this order. */
const codec = Codec.from<Signed, Record<keyof Signed, string>>({
  from: 'json',
  to: 'json',
  value: 'bigint',
  validAfter: 'bigint',
  validBefore: 'bigint',
  nonce: 'json',
  signature: 'json',
})

/** A signed authorization as JSON text, as the ledger keeps it: bigints as decimal strings. */
export function serialize(signed: Signed): string {
  return JSON.stringify(codec.serialize(signed))
}

/** Reads back an authorization written by {@link serialize}. */
export function deserialize(text: string): Signed {
  return codec.deserialize(JSON.parse(text))
}

/** Two lower-case hex digits of every byte value. */
const hexOfByte = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/** Writes `value` as a 32-byte big-endian word at `offset`. */
function writeUint256(target: Uint8Array, offset: number, value: bigint): void {
  writeHex(target, offset, value.toString(16).padStart(64, '0'))
}

/** Writes the bytes of a hex string (with or without `0x`, already checked to be hex) at `offset`. */
function writeHex(target: Uint8Array, offset: number, hex: string): void {
  const start = hex.startsWith('0x') ? 2 : 0
  for (let index = start, at = offset; index < hex.length; index += 2, at++)
    target[at] = (nibble(hex.charCodeAt(index)) << 4) | nibble(hex.charCodeAt(index + 1))
}

/** The value of one hex digit given its character code. */
function nibble(code: number): number {
  if (code <= 57) return code - 48
  if (code <= 70) return code - 55
  return code - 87
}

/** The bytes of a hex string without `0x` (already checked to be hex of even length). */
function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2)
  writeHex(bytes, 0, hex)
  return bytes
}

/** The 32-byte big-endian word at `offset`. */
function readUint256(source: Uint8Array, offset: number): bigint {
  let hex = '0x'
  for (let index = offset; index < offset + 32; index++) hex += hexOfByte[source[index]!]
  return BigInt(hex)
}

/** `0x` and the lower-case hex of `bytes`. */
function toHex(bytes: Uint8Array): Hex {
  let hex = '0x'
  for (const byte of bytes) hex += hexOfByte[byte]
  return hex as Hex
}
