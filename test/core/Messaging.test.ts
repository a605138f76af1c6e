import { describe, expect, test } from 'bun:test'
import { base64 } from '@scure/base'
import { decrypt as eciesDecrypt, encrypt as eciesEncrypt } from 'eciesjs'
import { verifyMessage } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ValidationError } from '../../core/Errors.js'
import * as Messaging from '../../core/Messaging.js'

const recipient = Messaging.createKeyPair()

describe('createKeyPair', () => {
  test('default: a fresh compressed keypair each time, whose public half derives from the private one', () => {
    const other = Messaging.createKeyPair()
    expect(recipient.privateKey).toMatch(/^0x[0-9a-f]{64}$/)
    expect(recipient.publicKey).toMatch(/^0x0[23][0-9a-f]{64}$/)
    expect(other.privateKey).not.toBe(recipient.privateKey)
    expect(Messaging.publicKeyOf(recipient.privateKey)).toBe(recipient.publicKey)
    expect(Messaging.isPublicKey(recipient.publicKey)).toBe(true)
  })
})

describe('isPublicKey', () => {
  test.each([
    ['uncompressed', `0x04${'11'.repeat(64)}`],
    ['off the curve', `0x02${'f'.repeat(64)}`],
    ['short', '0x02abcd'],
    ['no prefix', '02'.repeat(33)],
  ])('error: %s', (_, key) => {
    expect(Messaging.isPublicKey(key)).toBe(false)
  })
})

describe('keyMessage', () => {
  test('default: names the address (checksummed), the key (lowercase), the chain and the time', () => {
    expect(
      Messaging.keyMessage({
        address: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
        publicKey: '0x02ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789',
        chainId: 8453,
        issuedAt: '2026-11-26T08:00:00.000Z',
      }),
    ).toMatchInlineSnapshot(`
      "Register this public key for end-to-end encrypted wallet messages.
      Only the holder of its private key can read messages sent to this address.

      Address: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
      Messaging key: 0x02abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789
      Chain ID: 8453
      Issued At: 2026-11-26T08:00:00.000Z"
    `)
  })

  test('behavior: a wallet signature of it verifies against the same fields only', async () => {
    const wallet = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
    const fields = { address: wallet.address, publicKey: recipient.publicKey, chainId: 1, issuedAt: 'now' }
    const signature = await wallet.signMessage({ message: Messaging.keyMessage(fields) })
    expect(await verifyMessage({ address: wallet.address, message: Messaging.keyMessage(fields), signature })).toBe(
      true,
    )
    const otherChain = Messaging.keyMessage({ ...fields, chainId: 2 })
    expect(await verifyMessage({ address: wallet.address, message: otherChain, signature })).toBe(false)
  })
})

describe('encrypt and decrypt', () => {
  test('default: round-trips UTF-8 text; each envelope is fresh', () => {
    const content = 'gm ☀️ — 0.5 USDC at block 1000'
    const first = Messaging.encrypt({ content, publicKey: recipient.publicKey })
    const second = Messaging.encrypt({ content, publicKey: recipient.publicKey })
    expect(first).not.toBe(second)
    expect(first).not.toContain('USDC at block')
    expect(Messaging.decrypt({ envelope: first, privateKey: recipient.privateKey })).toBe(content)
  })

  test('behavior: the envelope is base64 of plain eciesjs output (secp256k1, AES-256-GCM), 97 bytes of overhead', () => {
    const envelope = Messaging.encrypt({ content: 'abc', publicKey: recipient.publicKey })
    const bytes = base64.decode(envelope)
    expect(bytes.length).toBe(3 + Messaging.overheadBytes)
    expect(new TextDecoder().decode(eciesDecrypt(recipient.privateKey.slice(2), bytes))).toBe('abc')
    const foreign = base64.encode(eciesEncrypt(recipient.publicKey.slice(2), new TextEncoder().encode('from eciesjs')))
    expect(Messaging.decrypt({ envelope: foreign, privateKey: recipient.privateKey })).toBe('from eciesjs')
  })

  test('error: another key, or a changed byte, does not open it', () => {
    const envelope = Messaging.encrypt({ content: 'secret', publicKey: recipient.publicKey })
    const other = Messaging.createKeyPair()
    expect(() => Messaging.decrypt({ envelope, privateKey: other.privateKey })).toThrow()
    const bytes = base64.decode(envelope)
    bytes[bytes.length - 1]! ^= 1
    expect(() => Messaging.decrypt({ envelope: base64.encode(bytes), privateKey: recipient.privateKey })).toThrow()
  })

  test('behavior: the largest content fits the largest envelope; one byte more is refused', () => {
    const largest = 'x'.repeat(Messaging.maxContentBytes)
    const envelope = Messaging.encrypt({ content: largest, publicKey: recipient.publicKey })
    expect(envelope.length).toBeLessThanOrEqual(Messaging.maxEnvelopeLength)
    expect(Messaging.parse(envelope).ok).toBe(true)
    expect(() => Messaging.encrypt({ content: `${largest}x`, publicKey: recipient.publicKey })).toThrow(/at most/)
  })

  test('error: empty content and a bad recipient key are validation errors naming the field', () => {
    expect(() => Messaging.encrypt({ content: '', publicKey: recipient.publicKey })).toThrow(ValidationError)
    expect(() => Messaging.encrypt({ content: '', publicKey: recipient.publicKey })).toThrow(/content/)
    expect(() => Messaging.encrypt({ content: 'hi', publicKey: `0x02${'f'.repeat(64)}` })).toThrow(
      expect.objectContaining({ code: 'validation_failed', field: 'publicKey' }),
    )
  })
})

describe('parse', () => {
  const plain = (text: string) => base64.encode(new TextEncoder().encode(text))
  test.each([
    ['plaintext', 'hello bob', /not base64/],
    [
      'base64 of plaintext',
      plain('hello bob, this is a plain text message long enough to pass the overhead check of ninety-seven bytes'),
      /ephemeral/,
    ],
    ['too short', base64.encode(new Uint8Array(Messaging.overheadBytes).fill(4)), /bytes/],
    ['0x04 and no point', base64.encode(new Uint8Array(200).fill(4)), /secp256k1/],
    ['too long', 'A'.repeat(Messaging.maxEnvelopeLength + 4), /longer/],
  ])('error: %s', (_, envelope, reason) => {
    const parsed = Messaging.parse(envelope)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.reason).toMatch(reason)
  })
})
