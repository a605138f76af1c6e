import { describe, expect, test } from 'bun:test'
import { keccak_256 } from '@noble/hashes/sha3'
import { bytesToHex } from '@noble/hashes/utils'
import * as AuditChain from '../../core/AuditChain.js'
import { genesisHash } from '../../core/Store.js'

const first = {
  previousHash: genesisHash,
  sequence: 1,
  value: { resource: 'invoice:42', action: 'invoice.cancel', details: { z: [1, { b: true, a: null }], a: 'é' } },
  createdAt: new Date('2025-01-02T03:04:05.678Z'),
}

/** A valid chain of `length` entries, built the way the audit module appends. */
function chain(length: number): AuditChain.Linked[] {
  const entries: AuditChain.Linked[] = []
  for (let sequence = 1; sequence <= length; sequence++) {
    const hashed = {
      previousHash: entries.at(-1)?.hash ?? genesisHash,
      sequence,
      value: { action: `step.${sequence}`, resource: `thing:${sequence}` },
      createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, sequence)),
    }
    entries.push({ ...hashed, hash: AuditChain.hash(hashed) })
  }
  return entries
}

describe('serialize', () => {
  test('default: canonical JSON, keys sorted at every depth, no whitespace', () => {
    expect(AuditChain.serialize(first)).toMatchInlineSnapshot(
      `"{"createdAt":"2025-01-02T03:04:05.678Z","previousHash":"0x0000000000000000000000000000000000000000000000000000000000000000","sequence":1,"value":{"action":"invoice.cancel","details":{"a":"é","z":[1,{"a":null,"b":true}]},"resource":"invoice:42"}}"`,
    )
  })

  test('behavior: the order keys arrive in does not matter (stores may reorder them)', () => {
    const reordered = {
      ...first,
      value: { details: { a: 'é', z: [1, { a: null, b: true }] }, action: 'invoice.cancel', resource: 'invoice:42' },
    }
    expect(AuditChain.serialize(reordered)).toBe(AuditChain.serialize(first))
  })

  test('behavior: fields JSON drops are dropped (a JSON round trip does not change the hash)', () => {
    const withUndefined = { ...first, value: { ...first.value, note: undefined } }
    expect(AuditChain.serialize(withUndefined)).toBe(AuditChain.serialize(first))
    expect(AuditChain.hash({ ...first, value: JSON.parse(JSON.stringify(first.value)) })).toBe(AuditChain.hash(first))
  })
})

describe('hash', () => {
  test('default: keccak256 of the canonical JSON in UTF-8', () => {
    expect(AuditChain.hash(first)).toMatchInlineSnapshot(
      `"0x24c3572575980e80b6fb5eb76adf65db53662af270bea320a6c00ab469cec2ae"`,
    )
    expect(AuditChain.hash(first)).toBe(
      `0x${bytesToHex(keccak_256(new TextEncoder().encode(AuditChain.serialize(first))))}`,
    )
  })

  test.each([
    ['value', { value: { ...first.value, action: 'invoice.pay' } }],
    ['sequence', { sequence: 2 }],
    ['previousHash', { previousHash: `0x${'1'.repeat(64)}` as const }],
    ['createdAt', { createdAt: new Date('2025-01-02T03:04:05.679Z') }],
  ])('behavior: covers %s', (_, change) => {
    expect(AuditChain.hash({ ...first, ...change })).not.toBe(AuditChain.hash(first))
  })
})

describe('verify', () => {
  test('default: an intact chain is valid, with its length and head', () => {
    const entries = chain(3)
    expect(AuditChain.verify(entries)).toEqual({ valid: true, length: 3, head: entries[2]!.hash })
  })

  test('behavior: an empty chain is valid, headed by the genesis hash', () => {
    expect(AuditChain.verify([])).toEqual({ valid: true, length: 0, head: genesisHash })
  })

  test('behavior: page by page, each page after the last verified entry', () => {
    const entries = chain(5)
    const head = AuditChain.verify(entries.slice(0, 2))
    expect(head.valid).toBe(true)
    expect(AuditChain.verify(entries.slice(2), { after: entries[1] })).toEqual({
      valid: true,
      length: 5,
      head: entries[4]!.hash,
    })
    expect(AuditChain.verify(entries.slice(2), { after: { ...entries[1]!, hash: genesisHash } })).toEqual({
      valid: false,
      brokenAt: 3,
      reason: 'previous_hash_mismatch',
    })
  })

  test('security: an altered value is named where it was altered', () => {
    const entries = chain(4)
    entries[1] = { ...entries[1]!, value: { action: 'step.2', resource: 'thing:999' } }
    expect(AuditChain.verify(entries)).toEqual({ valid: false, brokenAt: 2, reason: 'hash_mismatch' })
  })

  test('security: an altered time is caught', () => {
    const entries = chain(4)
    entries[2] = { ...entries[2]!, createdAt: new Date(0) }
    expect(AuditChain.verify(entries)).toEqual({ valid: false, brokenAt: 3, reason: 'hash_mismatch' })
  })

  test('security: an altered entry whose hash was recomputed breaks the link of the next', () => {
    const entries = chain(4)
    const forged = { ...entries[1]!, value: { action: 'step.2', resource: 'thing:999' } }
    entries[1] = { ...forged, hash: AuditChain.hash(forged) }
    expect(AuditChain.verify(entries)).toEqual({ valid: false, brokenAt: 3, reason: 'previous_hash_mismatch' })
  })

  test('security: a removed entry is a gap at its sequence', () => {
    const entries = chain(4)
    expect(AuditChain.verify([entries[0]!, entries[2]!, entries[3]!])).toEqual({
      valid: false,
      brokenAt: 2,
      reason: 'sequence_gap',
    })
  })

  test('security: a removed and renumbered entry breaks the link', () => {
    const entries = chain(4)
    const renumbered = { ...entries[2]!, sequence: 2 }
    expect(AuditChain.verify([entries[0]!, renumbered])).toEqual({
      valid: false,
      brokenAt: 2,
      reason: 'previous_hash_mismatch',
    })
  })

  test('security: swapped entries are caught at the first out of place', () => {
    const entries = chain(3)
    expect(AuditChain.verify([entries[0]!, entries[2]!, entries[1]!])).toEqual({
      valid: false,
      brokenAt: 2,
      reason: 'sequence_gap',
    })
  })

  test('behavior: a chain cut short at its end verifies; its head differs from the one kept', () => {
    const entries = chain(4)
    const kept = AuditChain.verify(entries)
    const cut = AuditChain.verify(entries.slice(0, 3))
    expect(cut.valid).toBe(true)
    expect(cut.valid && kept.valid && cut.head !== kept.head).toBe(true)
  })
})
