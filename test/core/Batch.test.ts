import { describe, expect, test } from 'bun:test'
import { checksumAddress, maxUint256 } from 'viem'
import * as Batch from '../../core/Batch.js'
import { fieldOf } from '../support/errors.js'

const alice = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const carol = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
/** `bob` with one letter's case flipped: fails EIP-55. */
const bobBadChecksum = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8'
const zero = '0x0000000000000000000000000000000000000000'
const usdcOnBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

/** `count` distinct checksummed addresses. */
function addresses(count: number): string[] {
  return Array.from({ length: count }, (_, index) => checksumAddress(`0x${(index + 1).toString(16).padStart(40, 'a')}`))
}

describe('constants', () => {
  test('default', () => {
    expect(Batch.maxRecipients).toBe(200)
    expect(Batch.chains).toEqual(['base', 'peaq'])
    expect(Batch.defaultFeeBps).toBe(30n)
    expect(Batch.tokens).toMatchInlineSnapshot(`
      {
        "base": {
          "DAI": {
            "decimals": 18,
            "isETH": false,
          },
          "ETH": {
            "decimals": 18,
            "isETH": true,
          },
          "EURC": {
            "decimals": 6,
            "isETH": false,
          },
          "USDC": {
            "decimals": 6,
            "isETH": false,
          },
          "USDT": {
            "decimals": 6,
            "isETH": false,
          },
          "WETH": {
            "decimals": 18,
            "isETH": false,
          },
        },
        "peaq": {
          "USDC": {
            "decimals": 6,
            "isETH": false,
          },
        },
      }
    `)
  })
})

describe('fee', () => {
  test('default', () => {
    expect(Batch.fee({ total: 1_500_000n })).toEqual({ fee: 4_500n, totalWithFee: 1_504_500n })
  })

  // must match the batch contract's calculateFee: total * feeBps / 10000, rounded down.
  test.each([
    [0n, 0n],
    [1n, 0n],
    [333n, 0n],
    [334n, 1n],
    [666n, 1n],
    [667n, 2n],
    [10_000n, 30n],
    [1_500_000n, 4_500n],
    [1_000_000_000_000_000_000n, 3_000_000_000_000_000n],
    [10n ** 30n + 333n, 3n * 10n ** 27n],
    [maxUint256 / 2n, ((maxUint256 / 2n) * 30n) / 10_000n],
  ])('behavior: total %p -> fee %p', (total, expected) => {
    const result = Batch.fee({ total })
    expect(result.fee).toBe(expected)
    expect(result.totalWithFee).toBe(total + expected)
  })

  test('behavior: rounds down, never up', () => {
    for (let total = 0n; total < 2_000n; total++) {
      const { fee } = Batch.fee({ total })
      expect(fee * 10_000n <= total * 30n).toBe(true)
      expect((fee + 1n) * 10_000n > total * 30n).toBe(true)
    }
  })

  test.each([
    [1_000_000n, 0n, 0n],
    [1_000_000n, 100n, 10_000n],
    [1_000_000n, 10_000n, 1_000_000n],
    [999n, 1n, 0n],
  ])('behavior: total %p at %p bps -> fee %p', (total, feeBps, expected) => {
    expect(Batch.fee({ total, feeBps }).fee).toBe(expected)
  })

  test('error: negative total', () => {
    expect(fieldOf(() => Batch.fee({ total: -1n }))).toBe('total')
  })

  test('error: fee rate outside 0..10000 bps', () => {
    expect(fieldOf(() => Batch.fee({ total: 1n, feeBps: -1n }))).toBe('feeBps')
    expect(fieldOf(() => Batch.fee({ total: 1n, feeBps: 10_001n }))).toBe('feeBps')
  })
})

describe('resolveChain', () => {
  test('default', () => {
    expect(Batch.resolveChain(undefined)).toBe('base')
  })

  test('behavior: both allowed chains', () => {
    expect(Batch.resolveChain('base')).toBe('base')
    expect(Batch.resolveChain('peaq')).toBe('peaq')
  })

  test.each(['ethereum', 'Base', 'BASE', '', 8453, null])(
    'error: %p is refused, naming the allowed values',
    (chain) => {
      expect(fieldOf(() => Batch.resolveChain(chain))).toBe('chain')
      expect(() => Batch.resolveChain(chain)).toThrow('allowed: base, peaq')
    },
  )
})

describe('resolveToken', () => {
  test('default', () => {
    expect(Batch.resolveToken({ chain: 'base' })).toEqual({ symbol: 'USDC', address: null, decimals: 6, isETH: false })
  })

  test.each([
    ['base', 'usdt', 'USDT', 6, false],
    ['base', 'EURC', 'EURC', 6, false],
    ['base', 'Dai', 'DAI', 18, false],
    ['base', 'WETH', 'WETH', 18, false],
    ['base', 'eth', 'ETH', 18, true],
    ['peaq', 'USDC', 'USDC', 6, false],
  ] as const)('behavior: %s %s -> %s', (chain, token, symbol, decimals, isETH) => {
    expect(Batch.resolveToken({ chain, token })).toEqual({ symbol, address: null, decimals, isETH })
  })

  test('behavior: an ERC-20 address comes back checksummed, decimals unknown', () => {
    expect(Batch.resolveToken({ chain: 'peaq', token: usdcOnBase.toLowerCase() })).toEqual({
      symbol: null,
      address: usdcOnBase,
      decimals: null,
      isETH: false,
    })
  })

  test.each([
    ['peaq', 'ETH', 'use one of USDC'],
    ['peaq', 'USDT', 'use one of USDC'],
    ['base', 'BTC', 'use one of USDC, USDT, EURC, DAI, WETH, ETH'],
    ['base', 'constructor', 'is not a token on base'],
    ['base', zero, 'zero address'],
    ['base', '0x1234', 'not an EVM address'],
    ['base', 42, 'must be a token symbol or an ERC-20 address'],
  ] as const)('error: %s %p', (chain, token, message) => {
    expect(fieldOf(() => Batch.resolveToken({ chain, token }))).toBe('token')
    expect(() => Batch.resolveToken({ chain, token })).toThrow(message)
  })
})

describe('resolveAddress', () => {
  test('default: comes back checksummed', () => {
    expect(Batch.resolveAddress({ value: bob.toLowerCase(), field: 'sender' })).toBe(bob)
    expect(Batch.resolveAddress({ value: bob, field: 'sender' })).toBe(bob)
  })

  test.each([undefined, 42, 'bob', bobBadChecksum, zero])('error: %p is refused, naming the field', (value) => {
    expect(fieldOf(() => Batch.resolveAddress({ value, field: 'sender' }))).toBe('sender')
  })
})

describe('validateRecipients', () => {
  test('default', () => {
    expect(Batch.validateRecipients({ recipients: [alice, bob.toLowerCase()], amounts: ['1500000', '1'] })).toEqual({
      recipients: [
        { address: alice, amount: 1_500_000n },
        { address: bob, amount: 1n },
      ],
      total: 1_500_001n,
      duplicates: [],
    })
  })

  test('behavior: 200 recipients are accepted', () => {
    const recipients = addresses(200)
    const result = Batch.validateRecipients({ recipients, amounts: recipients.map(() => '1') })
    expect(result.recipients).toHaveLength(200)
    expect(result.total).toBe(200n)
  })

  test('behavior: all-lowercase and all-uppercase hex carry no checksum and are accepted', () => {
    const upper = `0x${bob.slice(2).toUpperCase()}`
    const result = Batch.validateRecipients({ recipients: [bob.toLowerCase(), upper], amounts: ['1', '2'] })
    expect(result.recipients.map((r) => r.address)).toEqual([bob, bob])
  })

  test('behavior: duplicates are reported with every index, matched case-insensitively', () => {
    const result = Batch.validateRecipients({
      recipients: [alice, bob, alice.toLowerCase(), carol, bob, alice],
      amounts: ['1', '2', '3', '4', '5', '6'],
    })
    expect(result.duplicates).toEqual([
      { address: alice, indexes: [0, 2, 5] },
      { address: bob, indexes: [1, 4] },
    ])
    expect(result.total).toBe(21n)
  })

  test('behavior: the largest uint256 amount is accepted when the total with fee still fits', () => {
    const amount = (maxUint256 / 2n).toString()
    expect(Batch.validateRecipients({ recipients: [alice], amounts: [amount] }).total).toBe(maxUint256 / 2n)
  })

  test.each([
    // name, recipients, amounts, field, message
    ['empty', [], [], 'recipients', 'must not be empty'],
    ['201 recipients', addresses(201), addresses(201).map(() => '1'), 'recipients', 'at most 200'],
    ['fewer amounts', [alice, bob], ['1'], 'amounts', 'has 1 entries but recipients has 2'],
    ['more amounts', [alice], ['1', '2'], 'amounts', 'parallel arrays'],
    [
      'bad address at 3',
      [alice, bob, carol, '0x1234', alice],
      ['1', '1', '1', '1', '1'],
      'recipients.3',
      'not an EVM address',
    ],
    ['bad checksum at 1', [alice, bobBadChecksum], ['1', '1'], 'recipients.1', 'EIP-55'],
    ['zero address at 0', [zero], ['1'], 'recipients.0', 'zero address'],
    ['ENS name', ['vitalik.eth'], ['1'], 'recipients.0', 'not an EVM address'],
    ['decimal amount at 7', addresses(8), ['1', '1', '1', '1', '1', '1', '1', '1.5'], 'amounts.7', 'decimal point'],
    ['zero amount', [alice], ['0'], 'amounts.0', 'greater than 0'],
    ['negative amount', [alice], ['-1'], 'amounts.0', 'negative'],
    ['leading plus', [alice], ['+1'], 'amounts.0', 'leading "+"'],
    ['exponent', [alice], ['1e6'], 'amounts.0', 'scientific notation'],
    ['hex amount', [alice], ['0x10'], 'amounts.0', 'not a base-unit integer string'],
    ['empty amount', [alice], [''], 'amounts.0', 'not a base-unit integer string'],
    ['79 digits', [alice], ['1'.repeat(79)], 'amounts.0', 'more than 78 digits'],
    ['above uint256', [alice], [(maxUint256 + 1n).toString()], 'amounts.0', 'exceeds a uint256'],
    ['total overflow', [alice, bob], [maxUint256.toString(), '1'], 'amounts', 'exceeds a uint256'],
  ])('error: %s', (_, recipients, amounts, field, message) => {
    const call = () => Batch.validateRecipients({ recipients: recipients as string[], amounts: amounts as string[] })
    expect(fieldOf(call)).toBe(field)
    expect(call).toThrow(message)
  })

  test('error: a number amount is refused (precision)', () => {
    const call = () => Batch.validateRecipients({ recipients: [alice], amounts: [1_500_000 as unknown as string] })
    expect(fieldOf(call)).toBe('amounts.0')
    expect(call).toThrow('2^53')
  })

  test('error: not arrays', () => {
    expect(fieldOf(() => Batch.validateRecipients({ recipients: alice as never, amounts: ['1'] }))).toBe('recipients')
    expect(fieldOf(() => Batch.validateRecipients({ recipients: [alice], amounts: '1' as never }))).toBe('amounts')
  })
})

describe('validate', () => {
  test('default', () => {
    expect(Batch.validate({ recipients: [{ address: alice, amount: '1.5' }] })).toMatchInlineSnapshot(`
      {
        "errors": [],
        "summary": {
          "bpaVersion": "1.0",
          "chain": "base",
          "fee": "0.0045",
          "feeRaw": "4500",
          "recipientCount": 1,
          "token": "USDC",
          "tokenDetails": {
            "address": null,
            "decimals": 6,
            "isETH": false,
            "symbol": "USDC",
          },
          "totalAmount": "1.5",
          "totalAmountRaw": "1500000",
          "totalFormatted": "1.5",
          "totalWithFee": "1.5045",
          "totalWithFeeRaw": "1504500",
          "uniqueAddresses": 1,
          "uniqueRecipients": 1,
        },
        "truncated": false,
        "valid": true,
        "version": "1.0",
        "warnings": [],
      }
    `)
  })

  test('behavior: explicit version, chain, token and memo', () => {
    const result = Batch.validate({
      version: '1.0',
      chain: 'base',
      token: 'ETH',
      recipients: [
        { address: alice, amount: '1', memo: 'rent' },
        { address: bob, amount: 0.5 },
      ],
    })
    expect(result.valid).toBe(true)
    expect(result.summary).toMatchObject({
      token: 'ETH',
      tokenDetails: { symbol: 'ETH', isETH: true, decimals: 18 },
      totalAmount: '1.5',
      totalAmountRaw: '1500000000000000000',
      totalFormatted: '1.5',
      fee: '0.0045',
      feeRaw: '4500000000000000',
      totalWithFee: '1.5045',
      totalWithFeeRaw: '1504500000000000000',
    })
  })

  test('behavior: USDC on peaq, the fee rounded down in base units', () => {
    const result = Batch.validate({
      chain: 'peaq',
      token: 'usdc',
      recipients: [{ address: alice, amount: '0.000001' }],
    })
    expect(result.valid).toBe(true)
    expect(result.summary?.chain).toBe('peaq')
    expect(result.summary?.tokenDetails.symbol).toBe('USDC')
    expect(result.summary).toMatchObject({ totalAmountRaw: '1', fee: '0', feeRaw: '0' })
  })

  test("behavior: the original gateway's payload, recipients[].to with human amounts, is valid", () => {
    const result = Batch.validate({
      chain: 'Base',
      token: 'USDC',
      sender: carol,
      recipients: [
        { to: alice, amount: '2500' },
        { to: bob, amount: 0.25 },
      ],
    })
    expect(result.errors).toEqual([])
    expect(result.warnings).toEqual([])
    expect(result.summary).toMatchObject({
      chain: 'base',
      token: 'USDC',
      recipientCount: 2,
      uniqueAddresses: 2,
      totalAmount: '2500.25',
      totalAmountRaw: '2500250000',
      feeRaw: '7500750',
      totalWithFeeRaw: '2507750750',
      bpaVersion: '1.0',
    })
    expect(Batch.validate({ chain: 'base-mainnet', recipients: [{ to: alice, amount: '1' }] }).valid).toBe(true)
  })

  test('error: an amount with more decimals than the token has names its field', () => {
    const result = Batch.validate({ token: 'USDC', recipients: [{ to: alice, amount: '2500.0000001' }] })
    expect(result.valid).toBe(false)
    expect(result.errors).toEqual([
      { field: 'recipients.0.amount', code: 'invalid_amount', message: 'has at most 6 decimal places here' },
    ])
  })

  test('error: to and address together are refused', () => {
    const result = Batch.validate({ recipients: [{ to: alice, address: bob, amount: '1' }] })
    expect(result.errors.map(({ field, code }) => `${field} ${code}`)).toEqual(['recipients.0.to conflicting_fields'])
  })

  test('error: a sender that is not an EVM address', () => {
    const result = Batch.validate({ sender: 'nope', recipients: [{ to: alice, amount: '1' }] })
    expect(result.errors.map(({ field, code }) => `${field} ${code}`)).toEqual(['sender invalid_address'])
  })

  test('behavior: an ERC-20 address token sums its human amounts exactly but has no raw totals or fee', () => {
    const result = Batch.validate({
      token: usdcOnBase.toLowerCase(),
      recipients: [
        { address: alice, amount: '10' },
        { address: bob, amount: '0.000000000000000000001' },
      ],
    })
    expect(result.valid).toBe(true)
    expect(result.summary?.token).toBe(usdcOnBase)
    expect(result.summary?.tokenDetails).toEqual({ symbol: null, address: usdcOnBase, decimals: null, isETH: false })
    expect(result.summary).toMatchObject({
      totalAmount: '10.000000000000000000001',
      totalAmountRaw: null,
      fee: null,
      feeRaw: null,
      totalWithFeeRaw: null,
    })
    expect(result.warnings.map(({ field, code }) => `${field} ${code}`)).toEqual(['token decimals_unknown'])
  })

  test('behavior: 200 recipients are valid, 201 are not', () => {
    const entries = (count: number) => addresses(count).map((address) => ({ address, amount: '1' }))
    const ok = Batch.validate({ recipients: entries(200) })
    expect(ok.valid).toBe(true)
    expect(ok.summary?.recipientCount).toBe(200)
    const over = Batch.validate({ recipients: entries(201) })
    expect(over.valid).toBe(false)
    expect(over.errors).toEqual([
      { field: 'recipients', code: 'too_many_recipients', message: 'has 201 entries; at most 200 per batch' },
    ])
    expect(over.summary).toBeNull()
  })

  test('behavior: duplicates are warnings, one per address, listing indexes', () => {
    const result = Batch.validate({
      recipients: [alice, bob, alice.toLowerCase(), carol, bob, alice].map((address, index) => ({
        address,
        amount: String(index + 1),
      })),
    })
    expect(result.valid).toBe(true)
    expect(result.warnings).toEqual([
      { field: 'recipients', code: 'duplicate_recipient', message: `${alice} is paid 3 times (indexes 0, 2, 5)` },
      { field: 'recipients', code: 'duplicate_recipient', message: `${bob} is paid 2 times (indexes 1, 4)` },
    ])
    expect(result.summary).toMatchObject({ recipientCount: 6, uniqueRecipients: 3, totalAmount: '21' })
  })

  test('behavior: duplicates are reported even when the payload has errors, with payload indexes', () => {
    const result = Batch.validate({
      chain: 'ethereum',
      recipients: [
        { address: 'nope', amount: '1' },
        { address: bob, amount: '1.5' },
        { address: alice, amount: '1' },
        { address: bob, amount: '2' },
      ],
    })
    expect(result.valid).toBe(false)
    expect(result.warnings).toEqual([
      { field: 'recipients', code: 'duplicate_recipient', message: `${bob} is paid 2 times (indexes 1, 3)` },
    ])
  })

  test('behavior: unknown fields are warnings', () => {
    const result = Batch.validate({ recipents: [], recipients: [{ address: alice, amount: '1', note: 'x' }] })
    expect(result.valid).toBe(true)
    expect(result.warnings.map(({ field, code }) => ({ field, code }))).toEqual([
      { field: 'recipents', code: 'unknown_field' },
      { field: 'recipients.0.note', code: 'unknown_field' },
    ])
  })

  test('behavior: collects every error in payload order, with paths', () => {
    const result = Batch.validate({
      version: '2.0',
      chain: 'base',
      token: 'DOGE',
      recipients: [
        { address: alice, amount: '1' },
        { address: bobBadChecksum, amount: '-1' },
        { amount: '1', memo: 'x'.repeat(141) },
        'not an object',
        { address: carol },
      ],
    })
    expect(result.valid).toBe(false)
    expect(result.summary).toBeNull()
    expect(result.truncated).toBe(false)
    expect(result.errors.map(({ field, code }) => `${field} ${code}`)).toEqual([
      'version unsupported_version',
      'token unsupported_token',
      'recipients.1.address invalid_checksum',
      'recipients.1.amount invalid_amount',
      'recipients.2.to required',
      'recipients.2.memo memo_too_long',
      'recipients.3 invalid_type',
      'recipients.4.amount required',
    ])
  })

  test('behavior: reports at most 50 errors and says it truncated', () => {
    const result = Batch.validate({ recipients: Array.from({ length: 120 }, () => ({ address: 'x', amount: '0' })) })
    expect(result.errors).toHaveLength(50)
    expect(result.truncated).toBe(true)
    expect(result.errors[0]).toMatchObject({ field: 'recipients.0.address', code: 'invalid_address' })
    expect(result.errors[49]).toMatchObject({ field: 'recipients.24.amount', code: 'amount_zero' })
  })

  test('behavior: an unsupported chain does not also fail a symbol, but still checks an address token', () => {
    expect(
      Batch.validate({ chain: 'solana', token: 'USDC', recipients: [{ address: alice, amount: '1' }] }).errors,
    ).toEqual([
      {
        field: 'chain',
        code: 'unsupported_chain',
        message: '"solana" is not supported; allowed: base, peaq (default base)',
      },
    ])
    const withAddress = Batch.validate({ chain: 'solana', token: zero, recipients: [{ address: alice, amount: '1' }] })
    expect(withAddress.errors.map((e) => e.code)).toEqual(['unsupported_chain', 'zero_address'])
  })

  test('behavior: a memo of 140 characters counts code points, not UTF-16 units', () => {
    const memo = '💸'.repeat(140)
    expect(memo.length).toBe(280)
    expect(Batch.validate({ recipients: [{ address: alice, amount: '1', memo }] }).valid).toBe(true)
  })

  test.each([[null], [[]], ['payload'], [42], [true]])('error: %p is not an object', (payload) => {
    expect(Batch.validate(payload)).toEqual({
      valid: false,
      version: '1.0',
      errors: [{ field: '', code: 'not_an_object', message: 'the payload must be a JSON object' }],
      warnings: [],
      truncated: false,
      summary: null,
    })
  })

  const one = { address: alice, amount: '1' }
  test.each([
    // name, payload, field, code
    ['version 1.1', { version: '1.1', recipients: [one] }, 'version', 'unsupported_version'],
    ['numeric version', { version: 1.0, recipients: [one] }, 'version', 'unsupported_version'],
    ['chain ethereum', { chain: 'ethereum', recipients: [one] }, 'chain', 'unsupported_chain'],
    ['chain solana', { chain: 'SOLANA', recipients: [one] }, 'chain', 'unsupported_chain'],
    ['ETH on peaq', { chain: 'peaq', token: 'ETH', recipients: [one] }, 'token', 'unsupported_token'],
    ['USDT on peaq', { chain: 'peaq', token: 'USDT', recipients: [one] }, 'token', 'unsupported_token'],
    ['token number', { token: 6, recipients: [one] }, 'token', 'invalid_type'],
    ['token zero address', { token: zero, recipients: [one] }, 'token', 'zero_address'],
    ['token bad checksum', { token: bobBadChecksum, recipients: [one] }, 'token', 'invalid_checksum'],
    ['recipients missing', {}, 'recipients', 'required'],
    ['recipients object', { recipients: { 0: one } }, 'recipients', 'invalid_type'],
    ['recipients empty', { recipients: [] }, 'recipients', 'too_few_recipients'],
    ['entry null', { recipients: [null] }, 'recipients.0', 'invalid_type'],
    ['address missing', { recipients: [{ amount: '1' }] }, 'recipients.0.to', 'required'],
    ['to number', { recipients: [{ to: 1, amount: '1' }] }, 'recipients.0.to', 'invalid_address'],
    ['address number', { recipients: [{ address: 1, amount: '1' }] }, 'recipients.0.address', 'invalid_address'],
    ['address short', { recipients: [{ address: '0xabc', amount: '1' }] }, 'recipients.0.address', 'invalid_address'],
    [
      'address no 0x',
      { recipients: [{ address: alice.slice(2), amount: '1' }] },
      'recipients.0.address',
      'invalid_address',
    ],
    [
      'address checksum',
      { recipients: [{ address: bobBadChecksum, amount: '1' }] },
      'recipients.0.address',
      'invalid_checksum',
    ],
    ['address zero', { recipients: [{ address: zero, amount: '1' }] }, 'recipients.0.address', 'zero_address'],
    ['amount missing', { recipients: [{ address: alice }] }, 'recipients.0.amount', 'required'],
    ['amount boolean', { recipients: [{ address: alice, amount: true }] }, 'recipients.0.amount', 'invalid_amount'],
    [
      'amount 7 decimals',
      { recipients: [{ address: alice, amount: '1.0000001' }] },
      'recipients.0.amount',
      'invalid_amount',
    ],
    ['amount exponent', { recipients: [{ address: alice, amount: 1e21 }] }, 'recipients.0.amount', 'invalid_amount'],
    ['amount plus', { recipients: [{ address: alice, amount: '+1' }] }, 'recipients.0.amount', 'invalid_amount'],
    ['amount negative', { recipients: [{ address: alice, amount: '-1' }] }, 'recipients.0.amount', 'invalid_amount'],
    ['amount zero', { recipients: [{ address: alice, amount: '000' }] }, 'recipients.0.amount', 'amount_zero'],
    [
      'amount 79 digits',
      { recipients: [{ address: alice, amount: '9'.repeat(79) }] },
      'recipients.0.amount',
      'amount_too_large',
    ],
    [
      'amount above uint256',
      { recipients: [{ address: alice, amount: (maxUint256 + 1n).toString() }] },
      'recipients.0.amount',
      'amount_too_large',
    ],
    [
      'total above uint256',
      { recipients: [{ address: alice, amount: (maxUint256 / 10n ** 6n).toString() }, one] },
      'recipients',
      'total_too_large',
    ],
    ['memo number', { recipients: [{ ...one, memo: 5 }] }, 'recipients.0.memo', 'invalid_type'],
    ['memo 141 characters', { recipients: [{ ...one, memo: 'm'.repeat(141) }] }, 'recipients.0.memo', 'memo_too_long'],
  ])('error: %s', (_, payload, field, code) => {
    const result = Batch.validate(payload)
    expect(result.valid).toBe(false)
    expect(result.summary).toBeNull()
    expect(result.errors.map((error) => ({ field: error.field, code: error.code as string }))).toEqual([
      { field, code },
    ])
    expect(result.errors[0]?.message.length).toBeGreaterThan(0)
  })
})
