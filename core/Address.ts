import { ed25519 } from '@noble/curves/ed25519'
import { FormatRegistry, Type } from '@sinclair/typebox'
import { checksumAddress, isAddress } from 'viem'
import { ValidationError } from './Errors.js'
import {
  base32,
  base32Alphabet,
  base58,
  bitcoinAlphabet,
  decode,
  rippleAlphabet,
  strkey,
  xrpBase58,
  xrpBase58check,
} from './internal/baseEncoding.js'

/** An address family the validator knows. */
export type Family = 'evm' | 'solana' | 'xrp' | 'stellar'

/** Every family, in the order results are reported. */
export const families = ['evm', 'solana', 'xrp', 'stellar'] as const satisfies readonly Family[]

/** Longest input decoded at all (characters); longer input is `bad_length` at once, which bounds the bigint work. */
export const maxLength = 128

/** What `validate` returns as `address` when the input is a secret seed or key, so it is never echoed. */
export const redacted = '<redacted>'

/** Stable snake_case reason an input is not an address of a family. Reasons never change once published. */
export type Reason =
  | 'bad_prefix'
  | 'bad_length'
  | 'bad_characters'
  | 'bad_checksum'
  | 'bad_version'
  | 'bad_tag'
  | 'secret_seed_not_address'

/** The input is an address of the family; `format` says which kind. */
export type Valid =
  | (Valid.Of<'evm_checksummed' | 'evm_unchecksummed'> & {
      /** The EIP-55 checksummed form. */
      normalized: string
    })
  | (Valid.Of<'solana'> & {
      /** Facts about the key. */
      details: {
        /** Solana addresses carry no checksum, so a typo can still decode to a valid address. */
        checksum: false
        /** Whether the key is an ed25519 point; program derived addresses are valid and off the curve. */
        onCurve: boolean
      }
    })
  | Valid.Of<'xrp_classic'>
  | (Valid.Of<'xrp_x_address'> & {
      /** What the X-address packs. */
      details: {
        /** `main` for `X...`, `test` for `T...`. */
        network: 'main' | 'test'
        /** The destination tag, or `null` when the address carries none. */
        tag: number | null
        /** The classic `r...` address of the same account. */
        classicAddress: string
      }
    })
  | Valid.Of<'stellar_account'>
  | (Valid.Of<'stellar_muxed'> & {
      /** What the muxed account packs. */
      details: {
        /** The `G...` account the muxed address pays into. */
        accountAddress: string
        /** The 64-bit muxed id, as a decimal string. */
        muxedId: string
      }
    })

export declare namespace Valid {
  /** The fields every valid result has. */
  type Of<format extends string> = {
    /** Always `true` here. */
    valid: true
    /** The kind of address: `evm_checksummed`, `evm_unchecksummed`, `solana`, `xrp_classic`, `xrp_x_address`, `stellar_account`, `stellar_muxed`. */
    format: format
  }
}

/** The input is not an address of the family. */
export type Invalid = {
  /** Always `false` here. */
  valid: false
  /** Stable snake_case reason, safe to match on. */
  reason: Reason
  /** One human sentence saying what is wrong; never repeats a secret. */
  message: string
}

/** The verdict of one family on one input. */
export type Result = Valid | Invalid

/** Checks an input against the address formats of several families and says which match and why the others do not. */
export function validate(parameters: validate.Parameters): validate.ReturnType {
  const { address, families: requested = families } = parameters
  if (requested.length === 0) throw new ValidationError({ field: 'families', message: 'name at least one family' })
  for (const family of requested)
    if (!families.includes(family))
      throw new ValidationError({ field: 'families', message: `unknown family "${family}"` })

  const results: Partial<Record<Family, Result>> = {}
  const matches: Family[] = []
  for (const family of families) {
    if (!requested.includes(family)) continue
    const result = validators[family](address)
    results[family] = result
    if (result.valid) matches.push(family)
  }
  // A secret is redacted even when the family that recognises it was not asked for.
  const holdsSecret = families.some((family) => {
    const result = results[family] ?? validators[family](address)
    return !result.valid && result.reason === 'secret_seed_not_address'
  })
  return { address: holdsSecret ? redacted : address, valid: matches.length > 0, matches, results }
}

export declare namespace validate {
  type Parameters = {
    /** The exact text to check; whitespace is not trimmed. */
    address: string
    /** Families to check. @default all four */
    families?: readonly Family[] | undefined
  }
  type ReturnType = {
    /** The input as given, or `<redacted>` when it is a secret seed or key. */
    address: string
    /** Whether at least one family matches. */
    valid: boolean
    /** The families that match, in the order of `families`. */
    matches: Family[]
    /** One verdict per requested family. */
    results: Partial<Record<Family, Result>>
  }
}

// The format of {@link evmSchema}: a route that declares it answers a bad address with a 400 before any payment.
FormatRegistry.Set('evm-address', (value) => isAddress(value, { strict: true }))

/**
 * The TypeBox schema of an EVM address in a request, `what` starting its description: `0x` and 40 hex digits, EIP-55
 * when mixed-case (the same rule as {@link validateEvm}'s verdicts).
 */
export function evmSchema(what: string) {
  return Type.String({
    maxLength: 64,
    format: 'evm-address',
    description: `${what}, 0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum.`,
  })
}

/** Checks an EVM address: `0x` and 40 hex digits; mixed case must match EIP-55. */
export function validateEvm(address: string): Result {
  const text = checkText(address)
  if (text) return text
  if (!address.startsWith('0x')) {
    if (address.startsWith('0X'))
      return invalid('bad_prefix', 'An EVM address starts with a lowercase "0x"; "0X" is not accepted.')
    return invalid('bad_prefix', 'An EVM address starts with "0x".')
  }
  const body = address.slice(2)
  const bad = checkAlphabet(body, '0123456789abcdefABCDEF', 'hexadecimal digits', 2)
  if (bad) return bad
  if (body.length !== 40) {
    const hint = body.length === 64 ? ' (64 is the length of a transaction hash or a private key)' : ''
    return invalid('bad_length', `The address has ${body.length} hex digits after "0x"; an EVM address has 40${hint}.`)
  }
  const normalized = checksumAddress(`0x${body.toLowerCase()}`)
  if (address === normalized) return { valid: true, format: 'evm_checksummed', normalized }
  if (body === body.toLowerCase() || body === body.toUpperCase())
    return { valid: true, format: 'evm_unchecksummed', normalized }
  return invalid(
    'bad_checksum',
    'The mixed-case address does not match its EIP-55 checksum, so it was probably mistyped; do not send funds to it.',
  )
}

/** Checks a Solana address: base58 (Bitcoin alphabet) that decodes to 32 bytes. Solana addresses have no checksum. */
export function validateSolana(address: string): Result {
  const text = checkText(address)
  if (text) return text
  const bad = checkAlphabet(address, bitcoinAlphabet, 'the base58 alphabet, which leaves out 0, O, I and l')
  if (bad) return bad
  const bytes = decode(base58, address)!
  if (bytes.length === 64 && isSolanaKeypair(bytes))
    return secret(
      'The input is a Solana secret key (64-byte keypair), not an address; never share it, and move the funds if it was real.',
    )
  if (bytes.length !== 32) {
    const hint = bytes.length === 64 ? ' (64 bytes is the length of a transaction signature)' : ''
    return invalid(
      'bad_length',
      `The text decodes to ${byteCount(bytes.length)}; a Solana address decodes to 32${hint}.`,
    )
  }
  return { valid: true, format: 'solana', details: { checksum: false, onCurve: isOnCurve(bytes) } }
}

/** Checks an XRP Ledger address: a classic `r...` address or an X-address (`X...` main, `T...` test). */
export function validateXrp(address: string): Result {
  const text = checkText(address)
  if (text) return text
  const bad = checkAlphabet(address, rippleAlphabet, 'the XRP base58 alphabet, which leaves out 0, O, I and l')
  if (bad) return bad
  const bytes = decode(xrpBase58, address)!
  // Family seeds (`s...`, 21 bytes) and ed25519 seeds (`sEd...`, 23 bytes) are matched with a byte of slack either
  // way and before the checksum, so a seed with a typo is not echoed either.
  if (address.startsWith('s') && bytes.length >= 20 && bytes.length <= 24)
    return secret(
      'The input looks like an XRP Ledger secret seed (s...), not an address; never share it, and move the funds if it was real.',
    )
  if (bytes.length !== xrp.classicLength && bytes.length !== xrp.xAddressLength)
    return invalid(
      'bad_length',
      `The text decodes to ${byteCount(bytes.length)}; a classic XRP address decodes to ${xrp.classicLength} and an X-address to ${xrp.xAddressLength}.`,
    )
  const payload = decode(xrpBase58check, address)
  if (!payload)
    return invalid(
      'bad_checksum',
      'The XRP address checksum does not match, so it was probably mistyped; do not send funds to it.',
    )

  if (bytes.length === xrp.classicLength) {
    if (payload[0] !== xrp.accountVersion)
      return invalid(
        'bad_version',
        `The version byte is ${hexByte(payload[0]!)}; a classic XRP account address has 0x00.`,
      )
    return { valid: true, format: 'xrp_classic' }
  }

  const network = xrp.prefix.main.every((byte, index) => payload[index] === byte)
    ? 'main'
    : xrp.prefix.test.every((byte, index) => payload[index] === byte)
      ? 'test'
      : undefined
  if (!network)
    return invalid(
      'bad_version',
      'The X-address prefix is neither mainnet (0x05 0x44, X...) nor testnet (0x04 0x93, T...).',
    )
  const accountId = payload.subarray(2, 22)
  const flag = payload[22]!
  const tagBytes = payload.subarray(23, 31)
  // Tags are 32-bit on the ledger: the high four bytes of the 8-byte field stay zero, and without a tag all eight do.
  if (flag > 1) return invalid('bad_tag', `The X-address tag flag is ${flag}; it must be 0 (no tag) or 1 (32-bit tag).`)
  if (tagBytes.subarray(flag === 1 ? 4 : 0).some((byte) => byte !== 0))
    return invalid('bad_tag', 'The X-address tag field has non-zero bytes where a 32-bit tag leaves zeros.')
  const tag = flag === 1 ? new DataView(tagBytes.buffer, tagBytes.byteOffset, 4).getUint32(0, true) : null
  return {
    valid: true,
    format: 'xrp_x_address',
    details: { network, tag, classicAddress: toClassicAddress(accountId) },
  }
}

/** Checks a Stellar address: a `G...` account or `M...` muxed account strkey; other strkeys are reported by kind. */
export function validateStellar(address: string): Result {
  const text = checkText(address)
  if (text) return text
  const bad = checkAlphabet(address, base32Alphabet, 'the base32 alphabet (A-Z and 2-7, uppercase, no padding)')
  if (bad) return bad
  const kind: StrkeyKind | undefined = (stellar.kinds as Record<string, StrkeyKind>)[address[0]!]
  if (!kind)
    return invalid(
      'bad_version',
      `A Stellar address starts with G (or M for a muxed account); "${address[0]}" starts no Stellar strkey.`,
    )
  // Checked before length and checksum: a seed with a typo is still mostly the secret.
  if (kind.name === 'secret seed' && address.length >= 40)
    return secret(
      'The input looks like a Stellar secret seed (S...), not an address; never share it, and move the funds if it was real.',
    )
  if (kind.length !== undefined && address.length !== kind.length)
    return invalid(
      'bad_length',
      `The text has ${address.length} characters; a Stellar ${kind.name} (${address[0]}...) has ${kind.length}.`,
    )
  const bytes = decode(base32, address)
  if (!bytes)
    return invalid(
      'bad_characters',
      'The last character sets bits that no whole byte uses, so the base32 encoding is not canonical.',
    )
  if (bytes.length < 3)
    return invalid('bad_length', `The text decodes to ${byteCount(bytes.length)}, too few for a Stellar strkey.`)
  const payload = decode(strkey, address)
  if (!payload)
    return invalid(
      'bad_checksum',
      'The Stellar address checksum does not match, so it was probably mistyped; do not send funds to it.',
    )
  if (payload[0] !== kind.version)
    return invalid(
      'bad_version',
      `The version byte is ${hexByte(payload[0]!)}; a Stellar ${kind.name} (${address[0]}...) has ${hexByte(kind.version)}.`,
    )
  if (kind.name === 'account') return { valid: true, format: 'stellar_account' }
  if (kind.name === 'muxed account') {
    const key = payload.subarray(1, 33)
    const id = new DataView(payload.buffer, payload.byteOffset + 33, 8).getBigUint64(0, false)
    return {
      valid: true,
      format: 'stellar_muxed',
      details: { accountAddress: toStellarAccount(key), muxedId: id.toString() },
    }
  }
  return invalid(
    'bad_version',
    `The input is a Stellar ${kind.name} (${address[0]}...), not an account address (G... or M...).`,
  )
}

const validators: Record<Family, (address: string) => Result> = {
  evm: validateEvm,
  solana: validateSolana,
  xrp: validateXrp,
  stellar: validateStellar,
}

const xrp = {
  /** Version byte of a classic account address. */
  accountVersion: 0x00,
  /** Version byte + 20-byte account id + 4-byte checksum. */
  classicLength: 25,
  /** 2-byte prefix + 20-byte account id + flag + 8-byte tag + 4-byte checksum. */
  xAddressLength: 35,
  /** X-address prefixes (XLS-5d). */
  prefix: { main: [0x05, 0x44], test: [0x04, 0x93] },
} as const

/** One Stellar strkey kind (SEP-23). */
type StrkeyKind = {
  /** Human name used in messages. */
  name: string
  /** Version byte: the kind's index shifted left by 3. */
  version: number
  /** Encoded length in characters, or `undefined` when it varies. */
  length: number | undefined
}

const stellar = {
  /** Strkey kinds by their first character. */
  kinds: {
    G: { name: 'account', version: 6 << 3, length: 56 },
    M: { name: 'muxed account', version: 12 << 3, length: 69 },
    S: { name: 'secret seed', version: 18 << 3, length: 56 },
    T: { name: 'pre-authorized transaction hash', version: 19 << 3, length: 56 },
    X: { name: 'SHA-256 hash signer', version: 23 << 3, length: 56 },
    P: { name: 'signed payload signer', version: 15 << 3, length: undefined },
    C: { name: 'contract address', version: 2 << 3, length: 56 },
    L: { name: 'liquidity pool id', version: 11 << 3, length: 56 },
    B: { name: 'claimable balance id', version: 1 << 3, length: 58 },
  } satisfies Record<string, StrkeyKind>,
} as const

/** Rejects what no family accepts: too long, empty, or wrapped in whitespace. */
function checkText(address: string): Invalid | undefined {
  if (address.length > maxLength)
    return invalid(
      'bad_length',
      `The text has ${address.length} characters; no supported address is longer than ${maxLength}.`,
    )
  if (address.length === 0) return invalid('bad_length', 'The address is empty.')
  if (address.trim() !== address)
    return invalid('bad_characters', 'The text has leading or trailing whitespace; send the exact address, untrimmed.')
  return undefined
}

/** Reports the first character outside an alphabet; `offset` is added to the position reported. */
function checkAlphabet(text: string, alphabet: string, alphabetName: string, offset = 0): Invalid | undefined {
  for (let index = 0; index < text.length; index++) {
    if (alphabet.includes(text[index]!)) continue
    return invalid(
      'bad_characters',
      `Character ${describeCharacter(text, index)} at position ${index + offset} is not in ${alphabetName}.`,
    )
  }
  return undefined
}

/** Shows a printable ASCII character in quotes and anything else as its code point. */
function describeCharacter(text: string, index: number): string {
  const code = text.codePointAt(index)!
  if (code > 0x20 && code < 0x7f) return `"${text[index]}"`
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

function invalid(reason: Reason, message: string): Invalid {
  return { valid: false, reason, message }
}

function secret(message: string): Invalid {
  return invalid('secret_seed_not_address', message)
}

/** Whether 32 bytes decode to an ed25519 point (wallet keys do; program derived addresses do not). */
function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.ExtendedPoint.fromHex(bytes)
    return true
  } catch {
    return false
  }
}

/** Whether 64 bytes are a Solana keypair: a 32-byte seed followed by its own public key. */
function isSolanaKeypair(bytes: Uint8Array): boolean {
  return equalBytes(ed25519.getPublicKey(bytes.subarray(0, 32)), bytes.subarray(32))
}

/** Encodes a 20-byte XRP account id as a classic `r...` address. */
function toClassicAddress(accountId: Uint8Array): string {
  return xrpBase58check.encode(new Uint8Array([xrp.accountVersion, ...accountId]))
}

/** Encodes a 32-byte ed25519 key as a Stellar `G...` account strkey. */
function toStellarAccount(key: Uint8Array): string {
  return strkey.encode(new Uint8Array([stellar.kinds.G.version, ...key]))
}

function equalBytes(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index])
}

function byteCount(count: number): string {
  return count === 1 ? '1 byte' : `${count} bytes`
}

function hexByte(byte: number): string {
  return `0x${byte.toString(16).padStart(2, '0')}`
}
