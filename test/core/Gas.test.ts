import { describe, expect, test } from 'bun:test'
import * as Gas from '../../core/Gas.js'
import { fieldOf } from '../support/errors.js'

/** peaq's block gas limit: 75% of a 0.5 s block at 40M gas per second (peaq runtime `BlockGasLimit`). */
const peaqBlockGasLimit = 15_000_000n

describe('schedule', () => {
  test('default', () => {
    // The protocol constants the model rests on; a change here changes every estimate.
    expect(Gas.schedule).toEqual({
      intrinsic: 21_000n,
      calldataNonZeroByte: 16n,
      calldataZeroByte: 4n,
      coldAccountAccess: 2_600n,
      coldSload: 2_100n,
      warmAccess: 100n,
      sstoreSet: 20_000n,
      sstoreReset: 2_900n,
      callValue: 9_000n,
      newAccount: 25_000n,
      log: 375n,
      logTopic: 375n,
      logDataByte: 8n,
    })
  })
})

describe('model', () => {
  test('default', () => {
    expect(Gas.model).toMatchInlineSnapshot(`
      {
        "erc20": {
          "base": 91348n,
          "perColdRecipient": 30680n,
          "perWarmRecipient": 13580n,
        },
        "native": {
          "base": 81892n,
          "perColdRecipient": 40624n,
          "perWarmRecipient": 15624n,
        },
      }
    `)
  })

  test('behavior: calldata is the worst case, 64 non-zero bytes per recipient', () => {
    expect(Gas.calldata.perRecipient).toBe(64n * 16n)
  })

  test('behavior: a cold ERC-20 recipient costs 25k-35k gas, a cold native one includes account creation', () => {
    expect(Gas.model.erc20.perColdRecipient).toBeGreaterThanOrEqual(25_000n)
    expect(Gas.model.erc20.perColdRecipient).toBeLessThanOrEqual(35_000n)
    expect(Gas.model.native.perColdRecipient).toBeGreaterThan(Gas.schedule.newAccount + Gas.schedule.callValue)
  })

  test('behavior: cold minus warm is exactly the zero -> non-zero premium', () => {
    expect(Gas.model.erc20.perColdRecipient - Gas.model.erc20.perWarmRecipient).toBe(20_000n - 2_900n)
    expect(Gas.model.native.perColdRecipient - Gas.model.native.perWarmRecipient).toBe(25_000n)
  })
})

describe('estimate', () => {
  test('default', () => {
    expect(Gas.estimate({ recipientCount: 1, isETH: false })).toEqual({
      gas: 91_348n + 30_680n,
      base: 91_348n,
      perRecipient: 30_680n,
      perWarmRecipient: 13_580n,
      proofFloor: 0n,
    })
  })

  test.each([
    // recipientCount, isETH, gas on base (all cold)
    [1, false, 122_028n],
    [2, false, 152_708n],
    [10, false, 398_148n],
    [100, false, 3_159_348n],
    [200, false, 6_227_348n],
    [1, true, 122_516n],
    [10, true, 488_132n],
    [200, true, 8_206_692n],
  ])('behavior: %i recipients, isETH %p -> %p gas', (recipientCount, isETH, gas) => {
    const result = Gas.estimate({ recipientCount, isETH })
    expect(result.gas).toBe(gas)
    expect(result.gas).toBe(result.base + BigInt(recipientCount) * result.perRecipient)
  })

  test('behavior: strictly increasing in recipient count', () => {
    for (const isETH of [false, true])
      for (const chain of ['base', 'peaq'] as const)
        for (let count = 2; count <= 200; count++)
          expect(Gas.estimate({ recipientCount: count, isETH, chain }).gas).toBeGreaterThan(
            Gas.estimate({ recipientCount: count - 1, isETH, chain }).gas,
          )
  })

  test('behavior: native batches cost more than ERC-20 batches of the same size on base', () => {
    for (let count = 1; count <= 200; count++)
      expect(Gas.estimate({ recipientCount: count, isETH: true }).gas).toBeGreaterThan(
        Gas.estimate({ recipientCount: count, isETH: false }).gas,
      )
  })

  test('behavior: warm recipients cost less; all cold is the default and the ceiling', () => {
    const allCold = Gas.estimate({ recipientCount: 50, isETH: false })
    expect(Gas.estimate({ recipientCount: 50, isETH: false, coldRecipients: 50 })).toEqual(allCold)
    const allWarm = Gas.estimate({ recipientCount: 50, isETH: false, coldRecipients: 0 })
    expect(allWarm.gas).toBe(allWarm.base + 50n * allWarm.perWarmRecipient)
    let previous = allWarm.gas
    for (let cold = 1; cold <= 50; cold++) {
      const { gas } = Gas.estimate({ recipientCount: 50, isETH: false, coldRecipients: cold })
      expect(gas).toBeGreaterThan(previous)
      previous = gas
    }
    expect(previous).toBe(allCold.gas)
  })

  test('behavior: peaq adds a proof-size floor that dominates small ERC-20 batches only', () => {
    const small = Gas.estimate({ recipientCount: 1, isETH: false, chain: 'peaq' })
    expect(small.proofFloor).toBe(4n * (Gas.proof.erc20.base + 2n * Gas.proof.erc20.perRecipient))
    expect(small.gas).toBe(small.proofFloor)
    expect(small.gas).toBeGreaterThan(Gas.estimate({ recipientCount: 1, isETH: false }).gas)
    const large = Gas.estimate({ recipientCount: 200, isETH: false, chain: 'peaq' })
    expect(large.gas).toBe(Gas.estimate({ recipientCount: 200, isETH: false }).gas)
    expect(large.proofFloor).toBeLessThan(large.gas)
  })

  test('behavior: the largest batch fits in a peaq block', () => {
    for (const isETH of [false, true])
      expect(Gas.estimate({ recipientCount: 200, isETH, chain: 'peaq' }).gas).toBeLessThan(peaqBlockGasLimit)
  })

  test.each([[0], [201], [-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'error: recipientCount %p',
    (recipientCount) => {
      expect(fieldOf(() => Gas.estimate({ recipientCount, isETH: false }))).toBe('recipientCount')
      expect(() => Gas.estimate({ recipientCount, isETH: false })).toThrow('must be an integer from 1 to 200')
    },
  )

  test.each([[-1], [11], [2.5]])('error: coldRecipients %p', (coldRecipients) => {
    expect(fieldOf(() => Gas.estimate({ recipientCount: 10, isETH: false, coldRecipients }))).toBe('coldRecipients')
  })

  test('error: chain outside the allowlist', () => {
    expect(fieldOf(() => Gas.estimate({ recipientCount: 1, isETH: false, chain: 'ethereum' as never }))).toBe('chain')
  })
})

describe('withMargin', () => {
  test('default', () => {
    expect(Gas.withMargin({ gas: 100_000n, marginBps: 2_000n })).toBe(120_000n)
  })

  test.each([
    [0n, 2_000n, 0n],
    [1n, 1n, 2n],
    [100_001n, 2_000n, 120_002n],
    [122_028n, 1_000n, 134_231n],
    [7n, 0n, 7n],
  ])('behavior: %p gas + %p bps -> %p (rounded up)', (gas, marginBps, expected) => {
    expect(Gas.withMargin({ gas, marginBps })).toBe(expected)
  })

  test('error: negative inputs', () => {
    expect(fieldOf(() => Gas.withMargin({ gas: -1n, marginBps: 0n }))).toBe('gas')
    expect(fieldOf(() => Gas.withMargin({ gas: 1n, marginBps: -1n }))).toBe('marginBps')
  })
})

describe('cost', () => {
  test('default: wei and micro-dollars, rounded up', () => {
    // 21,000 gas at 1 gwei is 0.000021 ETH; at 3150.25 USD per ETH that is 0.06615525 USD, up to 0.066156.
    expect(Gas.cost({ gas: 21_000n, gasPrice: 1_000_000_000n, usdPerEther: '3150.25' })).toEqual({
      wei: 21_000_000_000_000n,
      usd: 66_156n,
    })
  })

  test('behavior: an exact cost is not rounded', () => {
    expect(Gas.cost({ gas: 1_000_000n, gasPrice: 1_000_000_000_000n, usdPerEther: '2000', usdDecimals: 2 }).usd).toBe(
      200_000n,
    )
  })

  test('error: a price that is not a decimal names usdPerEther', () => {
    expect(fieldOf(() => Gas.cost({ gas: 1n, gasPrice: 1n, usdPerEther: '-1' }))).toBe('usdPerEther')
  })
})
