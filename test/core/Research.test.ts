import { describe, expect, test } from 'bun:test'
import * as Research from '../../core/Research.js'

describe('checkOrcid', () => {
  test.each([
    ['0000-0002-1825-0097', undefined],
    ['0000-0001-5109-3700', undefined],
    ['0000-0002-1694-233X', undefined],
    ['0000-0002-1825-0098', 'the ORCID iD fails its check digit'],
    ['0000-0002-1694-2339', 'the ORCID iD fails its check digit'],
  ])('vector: %s', (orcid, expected) => {
    expect(Research.checkOrcid(orcid)).toBe(expected)
  })

  test('behavior: the orcid.org URL form and a lowercase x are read', () => {
    expect(Research.toOrcid('https://orcid.org/0000-0002-1694-233x')).toBe('0000-0002-1694-233X')
  })

  test('error: not four groups of four', () => {
    expect(Research.checkOrcid('0000-0002-1825-009')).toStartWith('an ORCID iD is four groups')
  })
})

describe('checkIssn', () => {
  test.each([
    ['0028-0836', undefined],
    ['1476-4687', undefined],
    ['0378-5955', undefined],
    ['2434-561X', undefined],
    ['0028-0837', 'the ISSN fails its check digit'],
    ['00280836', 'an ISSN is NNNN-NNNC, the last may be X (e.g. 0028-0836)'],
  ])('vector: %s', (issn, expected) => {
    expect(Research.checkIssn(issn)).toBe(expected)
  })
})

describe('checkArxivId', () => {
  test.each([
    ['1706.03762', true],
    ['1706.03762v7', true],
    ['0704.0001', true],
    ['hep-th/9901001', true],
    ['math.GT/0309136v2', true],
    ['1706.0376', false],
    ['1412.00001', false],
    ['2113.00001', false],
    ['hep-th/9913001', false],
    ['HEP-TH/9901001', false],
  ])('vector: %s', (id, valid) => {
    expect(Research.checkArxivId(id) === undefined).toBe(valid)
  })

  test('behavior: arXiv: and abs URL prefixes are removed', () => {
    expect(Research.toArxivId('arXiv:1706.03762')).toBe('1706.03762')
    expect(Research.toArxivId('https://arxiv.org/abs/hep-th/9901001')).toBe('hep-th/9901001')
  })
})

describe('checkDoi', () => {
  test('behavior: prefixes are removed and case folded; a DOI needs 10., a registrant and a suffix', () => {
    expect(Research.toDoi('https://doi.org/10.7717/PEERJ.4375')).toBe('10.7717/peerj.4375')
    expect(Research.toDoi('doi:10.1000/182')).toBe('10.1000/182')
    expect(Research.checkDoi('10.1000/182')).toBeUndefined()
    expect(Research.checkDoi('10.1000.10/abc')).toBeUndefined()
    expect(Research.checkDoi('10.12/abc')).toBeDefined()
    expect(Research.checkDoi('11.1000/abc')).toBeDefined()
    expect(Research.checkDoi('10.1000/')).toBeDefined()
  })
})

describe('other identifiers', () => {
  test('behavior: PMIDs, CIDs, bioRxiv DOIs, FIPS codes and ZIP codes', () => {
    expect(Research.checkPmid('31452104')).toBeUndefined()
    expect(Research.checkPmid('031452104')).toBeDefined()
    expect(Research.checkPmid('1234567890')).toBeDefined()
    expect(Research.checkCid('2244')).toBeUndefined()
    expect(Research.checkCid('-1')).toBeDefined()
    expect(Research.checkRxivDoi('10.1101/2020.03.01.972240')).toBeUndefined()
    expect(Research.checkRxivDoi('10.1038/nature12373')).toBeDefined()
    expect(Research.checkStateFips('06')).toBeUndefined()
    expect(Research.checkStateFips('72')).toBeUndefined()
    expect(Research.checkStateFips('03')).toBe('03 is the FIPS code of no state')
    expect(Research.checkCountyFips('075')).toBeUndefined()
    expect(Research.checkCountyFips('000')).toBeDefined()
    expect(Research.checkZip('94103')).toBeUndefined()
    expect(Research.checkZip('9410')).toBeDefined()
  })
})
