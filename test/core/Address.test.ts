import { describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { sha256 } from '@noble/hashes/sha2'
import * as Address from '../../core/Address.js'
import { ValidationError } from '../../core/Errors.js'
import {
  base32,
  base58,
  decode,
  rippleAlphabet,
  strkey as strkeyCoder,
  xrpBase58,
  xrpBase58check,
} from '../../core/internal/baseEncoding.js'

// Encoders written here, independent of the validator, so every vector below is confirmed by a round trip
// through its own checksum rather than trusted from memory.

/** XRP base58check: payload followed by the first 4 bytes of sha256(sha256(payload)). */
function xrpEncode(payload: Uint8Array): string {
  const checksum = sha256(sha256(payload)).subarray(0, 4)
  return xrpBase58.encode(new Uint8Array([...payload, ...checksum]))
}

/** The 20-byte account id inside a classic XRP address. */
function accountIdOf(classicAddress: string): Uint8Array {
  return decode(xrpBase58, classicAddress)!.subarray(1, 21)
}

/** XLS-5d X-address of an account id with an optional 32-bit tag. */
function xAddress(accountId: Uint8Array, tag: number | null, network: 'main' | 'test'): string {
  const prefix = network === 'main' ? [0x05, 0x44] : [0x04, 0x93]
  const tagBytes = new Uint8Array(8)
  if (tag !== null) new DataView(tagBytes.buffer).setUint32(0, tag, true)
  return xrpEncode(new Uint8Array([...prefix, ...accountId, tag === null ? 0 : 1, ...tagBytes]))
}

/** CRC-16/XMODEM, table-driven (the core computes it bit by bit). */
const crcTable = Array.from({ length: 256 }, (_, index) => {
  let crc = index << 8
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1
  return crc & 0xffff
})
function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) ^ crcTable[((crc >> 8) ^ byte) & 0xff]!) & 0xffff
  return crc
}

/** Stellar strkey: base32 of version byte, payload and little-endian CRC16. */
function strkey(version: number, payload: Uint8Array): string {
  const body = new Uint8Array([version, ...payload])
  const checksum = crc16(body)
  return base32.encode(new Uint8Array([...body, checksum & 0xff, checksum >> 8]))
}

/** Replaces the character at `index` with another from the same alphabet. */
function changeCharacter(text: string, index: number, alphabet: string): string {
  const current = alphabet.indexOf(text[index]!)
  return text.slice(0, index) + alphabet[(current + 1) % alphabet.length] + text.slice(index + 1)
}

const bytes = (length: number, fill: (index: number) => number) =>
  Uint8Array.from({ length }, (_, index) => fill(index))

// EIP-55 "Test Cases" (all caps, all lower, normal).
const eip55 = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
] as const

const evm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const solana = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const xrpGenesis = 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh'
const stellarAccount = 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7'

// ripple-address-codec test vectors: [classic address, tag or null, mainnet X-address, testnet X-address].
const xAddressVectors: [string, number | null, string, string][] = [
  [
    'r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59',
    null,
    'X7AcgcsBL6XDcUb289X4mJ8djcdyKaB5hJDWMArnXr61cqZ',
    'T719a5UwUCnEs54UsxG9CJYYDhwmFCqkr7wxCcNcfZ6p5GZ',
  ],
  [
    'r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59',
    1,
    'X7AcgcsBL6XDcUb289X4mJ8djcdyKaGZMhc9YTE92ehJ2Fu',
    'T719a5UwUCnEs54UsxG9CJYYDhwmFCvbJNZbi37gBGkRkbE',
  ],
  [
    'r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59',
    11747,
    'X7AcgcsBL6XDcUb289X4mJ8djcdyKaLFuhLRuNXPrDeJd9A',
    'T719a5UwUCnEs54UsxG9CJYYDhwmFCziiNHtUukubF2Mg6t',
  ],
  [
    'rLczgQHxPhWtjkaQqn3Q6UM8AbRbbRvs5K',
    null,
    'XVZVpQj8YSVpNyiwXYSqvQoQqgBttTxAZwMcuJd4xteQHyt',
    'TVVrSWtmQQssgVcmoMBcFQZKKf56QscyWLKnUyiuZW8ALU4',
  ],
  [
    'rsA2LpzuawewSBQXkiju3YQTMzW13pAAdW',
    23480,
    'X7d3eHCXzwBeWrZec1yT24iZerQjYL8m8zCJ16ACxu1BrBY',
    'T7YChPFWifjCAXLEtg5N74c7fSAYsvSokwcmBPBUZWhxH5P',
  ],
  [
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    null,
    'XVLhHMPHU98es4dbozjVtdWzVrDjtV5fdx1mHp98tDMoQXb',
    'TVE26TYGhfLC7tQDno7G8dGtxSkYQn49b3qD26PK7FcGSKE',
  ],
  [
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    0,
    'XVLhHMPHU98es4dbozjVtdWzVrDjtV8AqEL4xcZj5whKbmc',
    'TVE26TYGhfLC7tQDno7G8dGtxSkYQnSy8RHqGHoGJ59spi2',
  ],
  [
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    1,
    'XVLhHMPHU98es4dbozjVtdWzVrDjtV8xvjGQTYPiAx6gwDC',
    'TVE26TYGhfLC7tQDno7G8dGtxSkYQnSz1uDimDdPYXzSpyw',
  ],
  [
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    65591,
    'XVLhHMPHU98es4dbozjVtdWzVrDjtVozpjdhPQVdt3ghaWw',
    'TVE26TYGhfLC7tQDno7G8dGtxSkYQn7ryu2W6njw7mT1jmS',
  ],
  [
    'rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf',
    4294967295,
    'XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi',
    'TVE26TYGhfLC7tQDno7G8dGtxSkYQnXoy6kSDh6rZzApc69',
  ],
  [
    'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY',
    13371337,
    'XV5sbjUmgPpvXv4ixFWZ5ptAYZ6PD2qwGkhgc48zzcx6Gkr',
    'TVd2rqMkYL2AyS97NdELcpeiprNBjwVUDvp3vhpXbNhLwJi',
  ],
]

// js-stellar-base muxed-account vectors (SEP-23): all pay into the same G account.
const stellarBase = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ'
const muxedVectors: [string, string][] = [
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK', '9223372036854775808'],
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAFB4CJJBRKA', '1357924680'],
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAE2JUG6', '1234'],
  ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', '0'],
]

describe('Address.validate', () => {
  test('default', () => {
    expect(Address.validate({ address: evm })).toMatchInlineSnapshot(`
      {
        "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "matches": [
          "evm",
        ],
        "results": {
          "evm": {
            "format": "evm_checksummed",
            "normalized": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "valid": true,
          },
          "solana": {
            "message": "Character "0" at position 0 is not in the base58 alphabet, which leaves out 0, O, I and l.",
            "reason": "bad_characters",
            "valid": false,
          },
          "stellar": {
            "message": "Character "0" at position 0 is not in the base32 alphabet (A-Z and 2-7, uppercase, no padding).",
            "reason": "bad_characters",
            "valid": false,
          },
          "xrp": {
            "message": "Character "0" at position 0 is not in the XRP base58 alphabet, which leaves out 0, O, I and l.",
            "reason": "bad_characters",
            "valid": false,
          },
        },
        "valid": true,
      }
    `)
  })

  test('behavior: reports one match per family for a real address of each', () => {
    expect(Address.validate({ address: evm }).matches).toEqual(['evm'])
    expect(Address.validate({ address: solana }).matches).toEqual(['solana'])
    expect(Address.validate({ address: xrpGenesis }).matches).toEqual(['xrp'])
    expect(Address.validate({ address: stellarAccount }).matches).toEqual(['stellar'])
  })

  test('behavior: checks only the families asked, in the canonical order, once each', () => {
    const result = Address.validate({ address: evm, families: ['stellar', 'evm', 'evm'] })
    expect(Object.keys(result.results)).toEqual(['evm', 'stellar'])
    expect(result.matches).toEqual(['evm'])
    expect(result.valid).toBe(true)
    expect(Address.validate({ address: evm, families: ['solana'] }).valid).toBe(false)
  })

  test('behavior: says why other families reject an address', () => {
    const vectors: [string, Address.Family, Address.Reason][] = [
      [evm, 'solana', 'bad_characters'],
      [evm, 'xrp', 'bad_characters'],
      [evm, 'stellar', 'bad_characters'],
      [solana, 'evm', 'bad_prefix'],
      [solana, 'stellar', 'bad_characters'],
      [xrpGenesis, 'evm', 'bad_prefix'],
      [xrpGenesis, 'solana', 'bad_length'],
      [xrpGenesis, 'stellar', 'bad_characters'],
      [stellarAccount, 'evm', 'bad_prefix'],
      [stellarAccount, 'solana', 'bad_characters'],
      [stellarAccount, 'xrp', 'bad_characters'],
    ]
    for (const [address, family, reason] of vectors)
      expect({
        address,
        family,
        result: Address.validate({ address, families: [family] }).results[family],
      }).toMatchObject({
        address,
        family,
        result: { valid: false, reason },
      })
    expect(Address.validate({ address: evm }).results.solana).toEqual({
      valid: false,
      reason: 'bad_characters',
      message: 'Character "0" at position 0 is not in the base58 alphabet, which leaves out 0, O, I and l.',
    })
    expect(Address.validate({ address: xrpGenesis }).results.solana).toEqual({
      valid: false,
      reason: 'bad_length',
      message: 'The text decodes to 25 bytes; a Solana address decodes to 32.',
    })
  })

  test('behavior: redacts a secret seed whichever family is asked', () => {
    const seed = strkey(
      18 << 3,
      bytes(32, (index) => index * 7),
    )
    expect(seed.startsWith('S')).toBe(true)
    for (const families of [undefined, ['stellar'], ['evm']] as const) {
      const result = Address.validate({ address: seed, families })
      expect(result.address).toBe('<redacted>')
      expect(result.valid).toBe(false)
      expect(JSON.stringify(result)).not.toContain(seed)
    }
    expect(Address.validate({ address: seed }).results.stellar).toMatchObject({ reason: 'secret_seed_not_address' })
    expect(Address.validate({ address: evm }).address).toBe(evm)
  })

  test('error: the empty string is bad_length for every family', () => {
    const result = Address.validate({ address: '' })
    expect(result.valid).toBe(false)
    for (const family of Address.families)
      expect(result.results[family]).toMatchObject({ valid: false, reason: 'bad_length' })
  })

  test('error: surrounding whitespace is bad_characters for every family, not trimmed', () => {
    for (const address of [` ${evm}`, `${solana}\n`, `\t${xrpGenesis}`, `${stellarAccount} `]) {
      const result = Address.validate({ address })
      expect(result.valid).toBe(false)
      for (const family of Address.families)
        expect(result.results[family]).toMatchObject({ valid: false, reason: 'bad_characters' })
    }
  })

  test('error: input longer than 128 characters is bad_length without decoding', () => {
    const started = performance.now()
    const result = Address.validate({ address: '2'.repeat(100_000) })
    expect(performance.now() - started).toBeLessThan(250)
    for (const family of Address.families)
      expect(result.results[family]).toEqual({
        valid: false,
        reason: 'bad_length',
        message: 'The text has 100000 characters; no supported address is longer than 128.',
      })
    // 128 characters still decode.
    expect(Address.validateSolana('1'.repeat(128))).toMatchObject({
      reason: 'bad_length',
      message: expect.stringContaining('128 bytes'),
    })
  })

  test('error: families must name at least one known family', () => {
    expect(() => Address.validate({ address: evm, families: [] })).toThrow(ValidationError)
    expect(() => Address.validate({ address: evm, families: ['btc' as Address.Family] })).toThrow(ValidationError)
  })
})

describe('Address.validateEvm', () => {
  test('behavior: accepts the EIP-55 test vectors as checksummed', () => {
    for (const address of eip55)
      expect(Address.validateEvm(address)).toEqual({ valid: true, format: 'evm_checksummed', normalized: address })
  })

  test('behavior: accepts all-lowercase and all-uppercase hex as unchecksummed and normalises to EIP-55', () => {
    for (const address of eip55.slice(4)) {
      const body = address.slice(2)
      for (const variant of [`0x${body.toLowerCase()}`, `0x${body.toUpperCase()}`])
        expect(Address.validateEvm(variant)).toEqual({ valid: true, format: 'evm_unchecksummed', normalized: address })
    }
  })

  test('error: a mixed-case address with one flipped letter is bad_checksum', () => {
    for (const address of eip55.slice(4)) {
      const index = address.search(/[a-f]/)
      const flipped = address.slice(0, index) + address[index]!.toUpperCase() + address.slice(index + 1)
      expect(Address.validateEvm(flipped)).toMatchObject({ valid: false, reason: 'bad_checksum' })
    }
  })

  test('error: prefix, length and characters', () => {
    const vectors: [string, Address.Reason][] = [
      [evm.slice(2), 'bad_prefix'],
      [`0X${evm.slice(2)}`, 'bad_prefix'],
      [evm.slice(0, -1), 'bad_length'],
      [`${evm}0`, 'bad_length'],
      ['0x', 'bad_length'],
      [`0x${'ab'.repeat(32)}`, 'bad_length'],
      [`${evm.slice(0, -1)}g`, 'bad_characters'],
      [`0x ${evm.slice(3)}`, 'bad_characters'],
    ]
    for (const [address, reason] of vectors)
      expect({ address, result: Address.validateEvm(address) }).toMatchObject({
        address,
        result: { valid: false, reason },
      })
    expect(Address.validateEvm(`${evm.slice(0, -1)}g`)).toMatchObject({
      message: 'Character "g" at position 41 is not in hexadecimal digits.',
    })
  })
})

describe('Address.validateSolana', () => {
  test('behavior: accepts real addresses and says they carry no checksum', () => {
    const vectors: [string, Uint8Array | undefined][] = [
      ['11111111111111111111111111111111', new Uint8Array(32)],
      ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', undefined],
      ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', undefined],
    ]
    for (const [address, expected] of vectors) {
      const decoded = decode(base58, address)!
      expect(decoded.length).toBe(32)
      if (expected) expect(decoded).toEqual(expected)
      expect(base58.encode(decoded)).toBe(address)
      expect(Address.validateSolana(address)).toMatchObject({
        valid: true,
        format: 'solana',
        details: { checksum: false },
      })
    }
  })

  test('behavior: reports whether the key is on the ed25519 curve and accepts off-curve (PDA) keys', () => {
    const wallet = ed25519.getPublicKey(bytes(32, () => 1))
    expect(Address.validateSolana(base58.encode(wallet))).toEqual({
      valid: true,
      format: 'solana',
      details: { checksum: false, onCurve: true },
    })
    let offCurve: Uint8Array | undefined
    for (let seed = 2; !offCurve; seed++) {
      const candidate = bytes(32, (index) => (index === 0 ? seed : 0))
      try {
        ed25519.ExtendedPoint.fromHex(candidate)
      } catch {
        offCurve = candidate
      }
    }
    expect(Address.validateSolana(base58.encode(offCurve))).toEqual({
      valid: true,
      format: 'solana',
      details: { checksum: false, onCurve: false },
    })
  })

  test('error: characters outside base58 and byte lengths other than 32', () => {
    const vectors: [string, Address.Reason, string][] = [
      [`0OIl${solana.slice(4)}`, 'bad_characters', 'Character "0" at position 0'],
      [`${solana.slice(0, 10)}O${solana.slice(11)}`, 'bad_characters', 'Character "O" at position 10'],
      [base58.encode(bytes(31, (index) => index + 1)), 'bad_length', 'decodes to 31 bytes'],
      [base58.encode(bytes(33, (index) => index + 1)), 'bad_length', 'decodes to 33 bytes'],
      ['1', 'bad_length', 'decodes to 1 byte;'],
    ]
    for (const [address, reason, message] of vectors)
      expect(Address.validateSolana(address)).toMatchObject({
        valid: false,
        reason,
        message: expect.stringContaining(message),
      })
  })

  test('error: a transaction signature is bad_length', () => {
    const signature = ed25519.sign(
      new TextEncoder().encode('hello'),
      bytes(32, () => 1),
    )
    expect(Address.validateSolana(base58.encode(signature))).toEqual({
      valid: false,
      reason: 'bad_length',
      message:
        'The text decodes to 64 bytes; a Solana address decodes to 32 (64 bytes is the length of a transaction signature).',
    })
  })

  test('error: a 64-byte keypair is a secret and is redacted', () => {
    const seed = bytes(32, (index) => 255 - index)
    const keypair = base58.encode(new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]))
    expect(Address.validateSolana(keypair)).toMatchObject({ valid: false, reason: 'secret_seed_not_address' })
    const result = Address.validate({ address: keypair, families: ['evm'] })
    expect(result.address).toBe('<redacted>')
    expect(JSON.stringify(result)).not.toContain(keypair)
  })
})

describe('Address.validateXrp', () => {
  test('behavior: accepts classic addresses', () => {
    const vectors: [string, Uint8Array | undefined][] = [
      ['rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', undefined],
      ['rrrrrrrrrrrrrrrrrrrrrhoLvTp', new Uint8Array(20)],
      ['rrrrrrrrrrrrrrrrrrrrBZbvji', bytes(20, (index) => (index === 19 ? 1 : 0))],
      ['rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf', undefined],
      ['r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59', undefined],
    ]
    for (const [address, accountId] of vectors) {
      expect(xrpEncode(new Uint8Array([0, ...accountIdOf(address)]))).toBe(address)
      if (accountId) expect(accountIdOf(address)).toEqual(accountId)
      expect(Address.validateXrp(address)).toEqual({ valid: true, format: 'xrp_classic' })
    }
  })

  test('behavior: accepts X-addresses and unpacks network, tag and classic address', () => {
    for (const [classicAddress, tag, main, test] of xAddressVectors) {
      for (const [address, network] of [
        [main, 'main'],
        [test, 'test'],
      ] as const) {
        expect(xAddress(accountIdOf(classicAddress), tag, network)).toBe(address)
        expect(Address.validateXrp(address)).toEqual({
          valid: true,
          format: 'xrp_x_address',
          details: { network, tag, classicAddress },
        })
      }
    }
  })

  test('error: one changed character is bad_checksum', () => {
    for (const address of [
      'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
      'rrrrrrrrrrrrrrrrrrrrrhoLvTp',
      xAddressVectors[1]![2],
    ]) {
      // A change inside the leading run of `r` (zero bytes) changes the length instead.
      for (const index of [1, 10, address.length - 1].filter((index) => !/^r+$/.test(address.slice(0, index + 1)))) {
        const changed = changeCharacter(address, index, rippleAlphabet)
        expect({ changed, result: Address.validateXrp(changed) }).toMatchObject({
          changed,
          result: { valid: false, reason: 'bad_checksum' },
        })
      }
    }
    // ripple-address-codec's bad-checksum vector.
    expect(Address.validateXrp('XVLhHMPHU98es4dbozjVtdWzVrDjtV5fdx1mHp98tDMoQXa')).toMatchObject({
      reason: 'bad_checksum',
    })
  })

  test('error: version, length, tag and characters', () => {
    const accountId = accountIdOf(xrpGenesis)
    const tagged = decode(xrpBase58, xAddressVectors[1]![2])!.subarray(0, -4)
    const vectors: [string, Address.Reason][] = [
      [xrpEncode(new Uint8Array([0x05, ...accountId])), 'bad_version'],
      // ripple-address-codec's bad-prefix vector.
      ['dGzKGt8CVpWoa8aWL1k18tAdy9Won3PxynvbbpkAqp3V47g', 'bad_version'],
      [xrpEncode(new Uint8Array([0, ...accountId.subarray(1)])), 'bad_length'],
      [xrpEncode(new Uint8Array([0, ...accountId, 0])), 'bad_length'],
      ['r', 'bad_length'],
      // ripple-address-codec's 64-bit tag vector (flag 2).
      ['XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8zeUygYrCgrPh', 'bad_tag'],
      [xrpEncode(tagged.map((byte, index) => (index === 22 ? 2 : byte))), 'bad_tag'],
      [xrpEncode(tagged.map((byte, index) => (index === 27 ? 1 : byte))), 'bad_tag'],
      [xrpEncode(tagged.map((byte, index) => (index === 22 ? 0 : byte))), 'bad_tag'],
      [`${xrpGenesis.slice(0, 5)}0${xrpGenesis.slice(6)}`, 'bad_characters'],
      [`l${xrpGenesis.slice(1)}`, 'bad_characters'],
    ]
    for (const [address, reason] of vectors)
      expect({ address, result: Address.validateXrp(address) }).toMatchObject({
        address,
        result: { valid: false, reason },
      })
  })

  test('error: a secret seed is reported and redacted', () => {
    // The well-known genesis seed ("masterpassphrase"); its checksum confirms it.
    const seed = 'snoPBrXtMeMyMHUVTgbuqAfg1SUTb'
    const decoded = decode(xrpBase58, seed)!
    expect(xrpEncode(decoded.subarray(0, -4))).toBe(seed)
    expect(decoded[0]).toBe(0x21)
    expect(Address.validateXrp(seed)).toMatchObject({ valid: false, reason: 'secret_seed_not_address' })
    expect(Address.validateXrp(changeCharacter(seed, 12, rippleAlphabet))).toMatchObject({
      reason: 'secret_seed_not_address',
    })
    const ed25519Seed = xrpEncode(new Uint8Array([0x01, 0xe1, 0x4b, ...bytes(16, (index) => index)]))
    expect(ed25519Seed.startsWith('sEd')).toBe(true)
    expect(Address.validateXrp(ed25519Seed)).toMatchObject({ reason: 'secret_seed_not_address' })
    expect(Address.validate({ address: seed }).address).toBe('<redacted>')
  })
})

describe('Address.validateStellar', () => {
  test('behavior: accepts account addresses, including ones built from known keys', () => {
    const known = [stellarAccount, stellarBase, 'GA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQHES5']
    for (const address of known) {
      const decoded = decode(base32, address)!
      expect(strkey(decoded[0]!, decoded.subarray(1, 33))).toBe(address)
    }
    expect(strkey(6 << 3, new Uint8Array(32))).toBe('GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF')
    const built = [new Uint8Array(32), bytes(32, () => 0xff), bytes(32, (index) => index + 1)].map((key) =>
      strkey(6 << 3, key),
    )
    for (const address of [...known, ...built])
      expect(Address.validateStellar(address)).toEqual({ valid: true, format: 'stellar_account' })
  })

  test('behavior: accepts muxed accounts and unpacks the account and id', () => {
    for (const [address, muxedId] of muxedVectors) {
      const decoded = decode(base32, address)!
      expect(strkey(decoded[0]!, decoded.subarray(1, 41))).toBe(address)
      expect(Address.validateStellar(address)).toEqual({
        valid: true,
        format: 'stellar_muxed',
        details: { accountAddress: stellarBase, muxedId },
      })
    }
  })

  test('error: one changed character is bad_checksum', () => {
    for (const index of [1, 20, 55]) {
      const changed = changeCharacter(stellarAccount, index, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')
      expect(Address.validateStellar(changed)).toMatchObject({ valid: false, reason: 'bad_checksum' })
    }
  })

  test('error: the SEP-23 invalid strkeys', () => {
    const vectors: [string, Address.Reason][] = [
      ['GAAAAAAAACGC6', 'bad_length'],
      ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUR', 'bad_characters'],
      ['GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZA', 'bad_length'],
      ['GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUACUSI', 'bad_length'],
      ['G47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVP2I', 'bad_version'],
      ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLKA', 'bad_length'],
      // SEP-23 changed this one's version byte without recomputing the checksum, which is checked first.
      ['M47QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ', 'bad_checksum'],
      ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUK===', 'bad_characters'],
      ['MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUO', 'bad_checksum'],
      ['BAAD6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGR4TV', 'bad_characters'],
    ]
    for (const [address, reason] of vectors)
      expect({ address, result: Address.validateStellar(address) }).toMatchObject({
        address,
        result: { valid: false, reason },
      })
  })

  test('error: other strkey kinds are named, not accepted', () => {
    const vectors: [string, string][] = [
      ['CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE', 'contract address'],
      ['LA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUPJN', 'liquidity pool id'],
      ['BAAD6DBUX6J22DMZOHIEZTEQ64CVCHEDRKWZONFEUL5Q26QD7R76RGR4TU', 'claimable balance id'],
      [strkey(19 << 3, new Uint8Array(32)), 'pre-authorized transaction hash'],
      [strkey(23 << 3, new Uint8Array(32)), 'SHA-256 hash signer'],
      [strkey(15 << 3, new Uint8Array([...new Uint8Array(32), 0, 0, 0, 4, 1, 2, 3, 4])), 'signed payload signer'],
    ]
    for (const [address, kind] of vectors)
      expect(Address.validateStellar(address)).toEqual({
        valid: false,
        reason: 'bad_version',
        message: `The input is a Stellar ${kind} (${address[0]}...), not an account address (G... or M...).`,
      })
    expect(Address.validateStellar(`Q${stellarAccount.slice(1)}`)).toMatchObject({ reason: 'bad_version' })
  })

  test('error: lowercase and padding are bad_characters', () => {
    expect(Address.validateStellar(stellarAccount.toLowerCase())).toEqual({
      valid: false,
      reason: 'bad_characters',
      message: 'Character "g" at position 0 is not in the base32 alphabet (A-Z and 2-7, uppercase, no padding).',
    })
    expect(Address.validateStellar(`${stellarAccount}=`)).toMatchObject({ reason: 'bad_characters' })
  })

  test('error: a secret seed is reported without echoing it, even with a typo', () => {
    const seed = strkey(
      18 << 3,
      bytes(32, (index) => index),
    )
    for (const address of [seed, changeCharacter(seed, 30, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), seed.slice(0, -1)]) {
      const result = Address.validateStellar(address)
      expect(result).toMatchObject({ valid: false, reason: 'secret_seed_not_address' })
      expect((result as Address.Invalid).message).toContain('never share it')
      expect(Address.validate({ address }).address).toBe('<redacted>')
    }
  })
})

describe('baseEncoding', () => {
  test('behavior: RFC 4648 base32 vectors, unpadded', () => {
    const vectors = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ]
    for (const [text, encoded] of vectors) {
      const raw = new TextEncoder().encode(text)
      expect(base32.encode(raw)).toBe(encoded!)
      expect(decode(base32, encoded!)).toEqual(raw)
    }
  })

  test('behavior: base58 keeps leading zero bytes and round-trips', () => {
    expect(base58.encode(new TextEncoder().encode('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U')
    expect(decode(base58, '1112')).toEqual(new Uint8Array([0, 0, 0, 1]))
    expect(decode(xrpBase58, 'rrrp')).toEqual(new Uint8Array([0, 0, 0, 1]))
    for (const length of [0, 1, 5, 32, 64]) {
      const raw = bytes(length, (index) => (index < 3 ? 0 : (index * 37 + 11) & 0xff))
      for (const coder of [base58, xrpBase58]) expect(decode(coder, coder.encode(raw))).toEqual(raw)
      expect(decode(base32, base32.encode(raw))).toEqual(raw)
    }
  })

  test('behavior: the checksummed coders match the encoders written here, and refuse a changed character', () => {
    for (const length of [1, 21, 33]) {
      const payload = bytes(length, (index) => (index * 53 + 7) & 0xff)
      expect(xrpBase58check.encode(payload)).toBe(xrpEncode(payload))
      expect(decode(xrpBase58check, xrpEncode(payload))).toEqual(payload)
      expect(strkeyCoder.encode(payload)).toBe(strkey(payload[0]!, payload.subarray(1)))
      expect(decode(strkeyCoder, strkey(payload[0]!, payload.subarray(1)))).toEqual(payload)
    }
    expect(decode(xrpBase58check, changeCharacter(xrpGenesis, 10, rippleAlphabet))).toBeUndefined()
    expect(decode(strkeyCoder, changeCharacter(stellarAccount, 20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'))).toBeUndefined()
  })

  test('error: decoders return undefined for text no bytes encode to', () => {
    expect(decode(base58, '10')).toBeUndefined()
    expect(decode(base32, 'MY=')).toBeUndefined()
    expect(decode(base32, 'my')).toBeUndefined()
    expect(decode(base32, 'M')).toBeUndefined()
    expect(decode(base32, 'MZX')).toBeUndefined()
    expect(decode(base32, 'MZ')).toBeUndefined()
  })
})
