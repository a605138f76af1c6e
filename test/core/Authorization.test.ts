import { describe, expect, test } from 'bun:test'
import { type Address, type Hex, hashDomain, hashTypedData, hexToBytes, recoverTypedDataAddress, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { libsecp256k1, libsecp256k1Sign } from '../../adapters/crypto/libsecp256k1.js'
import * as Authorization from '../../core/Authorization.js'

/** secp256k1 group order. */
const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const native = await libsecp256k1()
const nativeSign = await libsecp256k1Sign()
const implementations = [
  ['pure JS (@noble/curves)', Authorization.recoverPublicKey],
  ['libsecp256k1 (native)', native],
] as const

/** What viem answers for the same signed authorization: the address, or `undefined` where it throws. */
async function viem(signed: Authorization.Signed, domain: Authorization.Domain): Promise<Address | undefined> {
  const { signature, ...authorization } = signed
  return recoverTypedDataAddress({ ...Authorization.toTypedData(authorization, domain), signature }).catch(
    () => undefined,
  )
}

function random(bytes: number): bigint {
  return BigInt(toHex(crypto.getRandomValues(new Uint8Array(bytes))))
}

/** A random authorization over a random domain, signed by a random key; edge values now and then. */
async function vector(index: number) {
  const payer = privateKeyToAccount(generatePrivateKey())
  const edges = [0n, 1n, (1n << 256n) - 1n]
  const domain: Authorization.Domain = {
    name: index % 3 === 0 ? 'USD Coin' : `Token ${index} ✓`,
    version: String(index % 4),
    chainId: index % 2 === 0 ? 84_532 : Number(random(4)),
    verifyingContract: privateKeyToAccount(generatePrivateKey()).address,
  }
  const authorization: Authorization.Authorization = {
    from: payer.address,
    to: privateKeyToAccount(generatePrivateKey()).address,
    value: index % 5 === 0 ? edges[index % 3]! : random(1 + (index % 32)),
    validAfter: index % 7 === 0 ? edges[index % 3]! : random(4),
    validBefore: random(1 + (index % 32)),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await payer.signTypedData(Authorization.toTypedData(authorization, domain))
  return { signed: { ...authorization, signature }, domain }
}

const vectors = await Promise.all(Array.from({ length: 120 }, (_, index) => vector(index)))

/** The signature with s and v replaced. */
function withSignature(signature: Hex, parts: { r?: bigint; s?: bigint; v?: number }): Hex {
  const r = parts.r ?? BigInt(`0x${signature.slice(2, 66)}`)
  const s = parts.s ?? BigInt(`0x${signature.slice(66, 130)}`)
  const v = parts.v ?? Number.parseInt(signature.slice(130), 16)
  return `0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}${v.toString(16).padStart(2, '0')}`
}

describe('hash', () => {
  test('behavior: equals viem hashTypedData on random authorizations and domains', () => {
    for (const { signed, domain } of vectors) {
      const { signature: _, ...authorization } = signed
      expect(toHex(Authorization.hash(authorization, domain)!)).toBe(
        hashTypedData(Authorization.toTypedData(authorization, domain)),
      )
    }
  })

  test('error: a field viem cannot encode gives no digest', () => {
    const { signed, domain } = vectors[0]!
    const wrongChecksum = (signed.from.slice(0, 2) +
      signed.from
        .slice(2)
        .replace(/[a-f]/, (c) => c.toUpperCase())
        .replace(/[A-F]/, (c) => c.toLowerCase())) as Address
    expect(Authorization.hash({ ...signed, value: 1n << 256n }, domain)).toBeUndefined()
    expect(Authorization.hash({ ...signed, validBefore: -1n }, domain)).toBeUndefined()
    expect(Authorization.hash({ ...signed, nonce: signed.nonce.slice(0, 64) as Hex }, domain)).toBeUndefined()
    if (wrongChecksum !== signed.from)
      expect(Authorization.hash({ ...signed, from: wrongChecksum }, domain)).toBeUndefined()
  })
})

describe('domainSeparator', () => {
  test('default: the separator of the devnet token, as viem computes it, once per domain', () => {
    const domain = {
      name: 'USD Coin',
      version: '2',
      chainId: 84_532,
      verifyingContract: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
    } as const
    const separator = Authorization.domainSeparator(domain)
    const types = {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    } as const
    expect(toHex(separator)).toBe(hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId) }, types }))
    expect(Authorization.domainSeparator({ ...domain })).toBe(separator)
  })

  test('error: a verifying contract that is not an address', () => {
    const domain = { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: '0x1234' as Address }
    expect(() => Authorization.domainSeparator(domain)).toThrow('Not an EIP-712 domain')
  })
})

describe.each(implementations)('recover with %s', (_, recoverPublicKey) => {
  const run = (signed: Authorization.Signed, domain: Authorization.Domain) =>
    Authorization.recover(signed, domain, { recoverPublicKey: recoverPublicKey ?? undefined })

  test.skipIf(!recoverPublicKey)('default: returns what viem returns on random vectors', async () => {
    for (const { signed, domain } of vectors) {
      const expected = await viem(signed, domain)
      expect(expected).toBe(signed.from)
      expect(await run(signed, domain)).toBe(expected!)
    }
  })

  test.skipIf(!recoverPublicKey)('behavior: v as 27/28 or as 0/1, the same signer', async () => {
    for (const { signed, domain } of vectors.slice(0, 20)) {
      const v = Number.parseInt(signed.signature.slice(130), 16)
      const parity = { ...signed, signature: withSignature(signed.signature, { v: v - 27 }) }
      expect(await viem(parity, domain)).toBe(signed.from)
      expect(await run(parity, domain)).toBe(signed.from)
    }
  })

  test.skipIf(!recoverPublicKey)(
    'behavior: another message or domain recovers another address, as in viem',
    async () => {
      for (const { signed, domain } of vectors.slice(0, 20)) {
        const cheaper = { ...signed, value: signed.value + 1n }
        expect(await run(cheaper, domain)).toBe((await viem(cheaper, domain))!)
        expect(await run(cheaper, domain)).not.toBe(signed.from)
        const elsewhere = { ...domain, chainId: domain.chainId + 1 }
        expect(await run(signed, elsewhere)).toBe((await viem(signed, elsewhere))!)
      }
    },
  )

  test.skipIf(!recoverPublicKey)('error: invalid v, as viem refuses it', async () => {
    const { signed, domain } = vectors[1]!
    for (const v of [2, 3, 26, 29, 30, 0x7f, 0xff]) {
      const bad = { ...signed, signature: withSignature(signed.signature, { v }) }
      expect(await viem(bad, domain)).toBeUndefined()
      expect(await run(bad, domain)).toBeUndefined()
    }
  })

  test.skipIf(!recoverPublicKey)('error: r or s out of range, r off the curve, wrong length, not hex', async () => {
    const { signed, domain } = vectors[2]!
    const offCurve = 5n // x = 5: 5^3 + 7 = 132 has no square root mod p
    const cases: Hex[] = [
      withSignature(signed.signature, { r: 0n }),
      withSignature(signed.signature, { s: 0n }),
      withSignature(signed.signature, { r: n }),
      withSignature(signed.signature, { r: n + 1n }),
      withSignature(signed.signature, { r: offCurve }),
      signed.signature.slice(0, 130) as Hex,
      `${signed.signature}00`,
      `0x${'zz'.repeat(65)}`,
    ]
    for (const signature of cases) {
      expect(await viem({ ...signed, signature }, domain)).toBeUndefined()
      expect(await run({ ...signed, signature }, domain)).toBeUndefined()
    }
  })

  test.skipIf(!recoverPublicKey)(
    'error: a high-s twin, which the token rejects (EIP-2) and viem would recover',
    async () => {
      for (const { signed, domain } of vectors.slice(0, 20)) {
        const s = BigInt(`0x${signed.signature.slice(66, 130)}`)
        const v = Number.parseInt(signed.signature.slice(130), 16)
        const twin = { ...signed, signature: withSignature(signed.signature, { s: n - s, v: v === 27 ? 28 : 27 }) }
        // viem recovers the same signer from the malleated signature; the token's signature check refuses it.
        expect(await viem(twin, domain)).toBe(signed.from)
        expect(await run(twin, domain)).toBeUndefined()
      }
    },
  )

  test.skipIf(!recoverPublicKey)('error: a field viem cannot encode', async () => {
    const { signed, domain } = vectors[3]!
    const huge = { ...signed, value: 1n << 256n }
    expect(await viem(huge, domain)).toBeUndefined()
    expect(await run(huge, domain)).toBeUndefined()
  })
})

describe('recover', () => {
  test('behavior: uses the injected public key recovery', async () => {
    const { signed, domain } = vectors[4]!
    const calls: number[] = []
    const other = privateKeyToAccount(generatePrivateKey())
    const injected: Authorization.RecoverPublicKey = () => {
      calls.push(1)
      return Uint8Array.from(Buffer.from(other.publicKey.slice(2), 'hex'))
    }
    expect(await Authorization.recover(signed, domain, { recoverPublicKey: injected })).toBe(other.address)
    expect(calls).toHaveLength(1)
    expect(await Authorization.recover(signed, domain, { recoverPublicKey: () => undefined })).toBeUndefined()
  })
})

describe('libsecp256k1', () => {
  test('behavior: undefined when the binding is not installed', async () => {
    expect(await libsecp256k1({ specifier: 'a-module-that-is-not-installed/bindings' })).toBeUndefined()
  })

  test.skipIf(!native)('behavior: agrees with the pure-JS recovery on random digests', () => {
    for (let index = 0; index < 50; index++) {
      const digest = crypto.getRandomValues(new Uint8Array(32))
      const signature = crypto.getRandomValues(new Uint8Array(64))
      signature[32]! &= 0x7f
      const recovery = (index % 2) as 0 | 1
      expect(native!({ digest, signature, recovery })).toEqual(
        Authorization.recoverPublicKey({ digest, signature, recovery }),
      )
    }
  })
})

describe('libsecp256k1Sign', () => {
  test('behavior: undefined when the binding is not installed', async () => {
    expect(await libsecp256k1Sign({ specifier: 'a-module-that-is-not-installed/bindings' })).toBeUndefined()
  })

  test.skipIf(!nativeSign)(
    'behavior: signs every digest as viem does, and the signature recovers to the key',
    async () => {
      for (let index = 0; index < 30; index++) {
        const privateKey = generatePrivateKey()
        const digest = crypto.getRandomValues(new Uint8Array(32))
        const { signature, recovery } = nativeSign!({ digest, privateKey: hexToBytes(privateKey) })
        const signer = privateKeyToAccount(privateKey)
        expect(`${toHex(signature)}${recovery === 1 ? '1c' : '1b'}`).toBe(await signer.sign({ hash: toHex(digest) }))
        expect(Authorization.recoverPublicKey({ digest, signature, recovery: recovery as 0 | 1 })).toEqual(
          hexToBytes(signer.publicKey),
        )
      }
    },
  )
})

describe('serialize', () => {
  test('behavior: round-trips every signed authorization exactly, uint256 edges included', () => {
    for (const { signed } of vectors) expect(Authorization.deserialize(Authorization.serialize(signed))).toEqual(signed)
  })

  test('behavior: bigints are decimal strings, so the text is JSON', () => {
    const { signed } = vectors[0]!
    expect(JSON.parse(Authorization.serialize(signed))).toEqual({
      ...signed,
      value: signed.value.toString(),
      validAfter: signed.validAfter.toString(),
      validBefore: signed.validBefore.toString(),
    })
  })
})
