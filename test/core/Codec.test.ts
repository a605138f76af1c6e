import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as Authorization from '../../core/Authorization.js'
import * as Codec from '../../core/Codec.js'
import * as Escrow from '../../core/Escrow.js'
import * as Futures from '../../core/Futures.js'
import * as Invoice from '../../core/Invoice.js'
import { authorization, balances, records } from '../support/records.js'

/** A record with every kind of field. */
type Sample = {
  id: string
  amount: bigint
  at: Date
  seen: Date
  note: string | undefined
  tags: readonly string[]
  legs: readonly { to: string; amount: bigint }[]
  last: { amount: bigint; at: Date } | undefined
}

const codec = Codec.from<Sample, Record<string, unknown>>({
  id: 'json',
  amount: 'bigint',
  at: 'date',
  seen: 'millis',
  note: Codec.nullable('json'),
  tags: Codec.withDefault('json', []),
  legs: [{ to: 'json', amount: 'bigint' }],
  last: { amount: 'bigint', at: 'date' },
})

const sample: Sample = {
  id: 's1',
  amount: 2n ** 256n - 1n,
  at: new Date('2030-01-01T00:00:00.000Z'),
  seen: new Date('2030-01-01T00:00:01.500Z'),
  note: 'hello',
  tags: ['a'],
  legs: [{ to: 'bob', amount: 5n }],
  last: { amount: 1n, at: new Date('2030-01-02T00:00:00.000Z') },
}

describe('from', () => {
  test('default: bigints as decimal strings, dates as ISO 8601 or epoch ms, nested and listed fields, read back exactly', () => {
    const json = codec.serialize(sample)
    expect(JSON.stringify(json)).toBe(
      '{"id":"s1","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935",' +
        '"at":"2030-01-01T00:00:00.000Z","seen":1893456001500,"note":"hello","tags":["a"],' +
        '"legs":[{"to":"bob","amount":"5"}],"last":{"amount":"1","at":"2030-01-02T00:00:00.000Z"}}',
    )
    expect(codec.deserialize(JSON.parse(JSON.stringify(json)))).toEqual(sample)
  })

  test('behavior: fields are written in their declared order, whatever order the object was built in', () => {
    const { last, id, ...rest } = sample
    expect(Object.keys(codec.serialize({ last, ...rest, id }))).toEqual(Object.keys(codec.serialize(sample)))
  })

  test('behavior: a field not declared is neither written nor read', () => {
    const extra = { ...sample, secret: 'x' } as Sample
    expect(codec.serialize(extra)).not.toHaveProperty('secret')
    expect(codec.deserialize({ ...codec.serialize(sample), secret: 'x' })).not.toHaveProperty('secret')
  })

  test('behavior: an absent field is left out, an absent nullable one is written null and read back absent', () => {
    const json = codec.serialize({ ...sample, note: undefined, last: undefined })
    expect(json).toHaveProperty('note', null)
    expect(json).not.toHaveProperty('last')
    const read = codec.deserialize(json)
    expect(read).not.toHaveProperty('note')
    expect(read).not.toHaveProperty('last')
  })

  test('behavior: a nullable field a record lacks altogether reads back absent', () => {
    const { note: _, ...older } = codec.serialize(sample)
    expect(codec.deserialize(older)).not.toHaveProperty('note')
  })

  test('behavior: a defaulted field a record lacks reads back as its default, a fresh copy every time', () => {
    const { tags: _, ...older } = codec.serialize(sample)
    const first = codec.deserialize(older)
    const second = codec.deserialize(older)
    expect(first.tags).toEqual([])
    expect(first.tags).not.toBe(second.tags)
  })
})

/** The JSON of a record as the hand-written serializers wrote it, byte for byte. */
function fixture(name: string): string {
  return readFileSync(join(import.meta.dir, '../fixtures/records', `${name}.json`), 'utf8').trimEnd()
}

describe('records already stored', () => {
  test.each(Object.keys(records) as (keyof typeof records)[])(
    'behavior: %s is written as before, byte for byte, and reads back',
    (name) => {
      const { value, codec: of } = records[name]
      const serialize = of.serialize as (value: unknown) => unknown
      const deserialize = of.deserialize as (json: never) => unknown
      expect(JSON.stringify(serialize(value))).toBe(fixture(name))
      expect(deserialize(JSON.parse(fixture(name)) as never)).toEqual(value)
      expect(JSON.stringify(serialize(deserialize(JSON.parse(fixture(name)) as never)))).toBe(fixture(name))
    },
  )

  test('behavior: an invoice stored before invoices named a payer is open to anyone, and is written with payer null', () => {
    const invoice = Invoice.deserialize(JSON.parse(fixture('invoice-open-before-payer')))
    expect(invoice.payer).toBeUndefined()
    expect(invoice).toEqual({ ...records['invoice-open'].value, payer: undefined })
    expect(Invoice.serialize(invoice)).toEqual({ ...JSON.parse(fixture('invoice-open')), payer: null })
  })

  test('behavior: an escrow stored before descriptions and conditions has neither', () => {
    const escrow = Escrow.deserialize(JSON.parse(fixture('escrow-active-before-description')))
    expect(escrow.description).toBeUndefined()
    expect(escrow.conditions).toEqual([])
    expect(escrow).toEqual({ ...records['escrow-active'].value, description: undefined, conditions: [] })
  })

  test('behavior: futures balances are written as before, byte for byte, and read back', () => {
    expect(JSON.stringify(Futures.serialize(balances))).toBe(fixture('futures-balances'))
    expect(Futures.deserialize(JSON.parse(fixture('futures-balances')))).toEqual(balances)
  })

  test('behavior: an authorization is written as the ledger keeps it, byte for byte, and read back', () => {
    expect(Authorization.serialize(authorization)).toBe(fixture('authorization'))
    expect(Authorization.deserialize(fixture('authorization'))).toEqual(authorization)
  })
})
