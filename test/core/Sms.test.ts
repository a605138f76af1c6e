import { describe, expect, test } from 'bun:test'
import * as Sms from '../../core/Sms.js'

describe('isE164', () => {
  test.each([
    ['+14155550100', true],
    ['+442079460958', true],
    ['+12', true],
    ['+123456789012345', true],
    ['14155550100', false],
    ['+04155550100', false],
    ['+1', false],
    ['+1234567890123456', false],
    ['+44 20 7946 0958', false],
    ['+1-415-555-0100', false],
    ['+1415555010a', false],
    ['', false],
  ])('%s: %p', (value, expected) => {
    expect(Sms.isE164(value)).toBe(expected)
  })
})

describe('encodingOf', () => {
  test.each([
    ['plain ASCII', 'Your code is 123456.', 'GSM-7'],
    ['a circumflex (not in GSM 03.38)', 'Crème brûlée', 'UCS-2'],
    ['the extension table', 'Price: 5€ [x] {y} ~z^ |\\', 'GSM-7'],
    ['the basic alphabet’s accents only', 'èéùìòÇØøÅåÄÖÑÜäöñüà§¿¡£¥', 'GSM-7'],
    ['a lower-case ç (not in GSM 03.38)', 'ça', 'UCS-2'],
    ['Cyrillic', 'Привет', 'UCS-2'],
    ['an emoji', 'ok 👍', 'UCS-2'],
    ['a curly quote', 'it’s', 'UCS-2'],
  ])('%s', (_, text, encoding) => {
    expect(Sms.encodingOf(text)).toBe(encoding as Sms.Encoding)
  })
})

describe('segmentsOf', () => {
  test.each([
    ['empty', '', 'GSM-7', 0, 0],
    ['one GSM-7 segment, full', 'a'.repeat(160), 'GSM-7', 160, 1],
    ['161 septets: two of 153', 'a'.repeat(161), 'GSM-7', 161, 2],
    ['306 septets: two', 'a'.repeat(306), 'GSM-7', 306, 2],
    ['307 septets: three', 'a'.repeat(307), 'GSM-7', 307, 3],
    ['extension characters count two septets', '€'.repeat(80), 'GSM-7', 160, 1],
    ['81 euro signs: 162 septets, two segments', '€'.repeat(81), 'GSM-7', 162, 2],
    ['an escape pair never straddles segments', `${'a'.repeat(152)}€${'a'.repeat(152)}`, 'GSM-7', 306, 3],
    ['one UCS-2 segment, full', 'я'.repeat(70), 'UCS-2', 70, 1],
    ['71 code units: two of 67', 'я'.repeat(71), 'UCS-2', 71, 2],
    ['134 code units: two', 'я'.repeat(134), 'UCS-2', 134, 2],
    ['135 code units: three', 'я'.repeat(135), 'UCS-2', 135, 3],
    ['an emoji is two code units', '😀'.repeat(35), 'UCS-2', 70, 1],
    ['a surrogate pair never straddles segments', `${'я'.repeat(66)}😀${'я'.repeat(66)}`, 'UCS-2', 134, 3],
    ['one non-GSM character makes the whole text UCS-2', `${'a'.repeat(70)}ç`, 'UCS-2', 71, 2],
  ])('%s', (_, text, encoding, units, segments) => {
    expect(Sms.segmentsOf(text)).toEqual({ encoding: encoding as Sms.Encoding, units, segments })
  })
})
