import { describe, expect, test } from 'bun:test'
import uniswapDefault from '@uniswap/default-token-list/build/uniswap-default.tokenlist.json' with { type: 'json' }
import { base } from 'viem/chains'
import { contracts } from '../../adapters/chain/devnet.js'
import * as TokenList from '../../core/TokenList.js'
import { fieldOf } from '../support/errors.js'

/** The original gateway's Base tokens (src/routes/oracle.ts, swap-data.ts, prices.ts): symbol, address, decimals. */
const originals = [
  ['WETH', '0x4200000000000000000000000000000000000006', 18],
  ['cbBTC', '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', 8],
  ['cbETH', '0x2Ae3F1Ec7F1F5012CFEab0185bfc7aa3cf0DEc22', 18],
  ['USDC', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 6],
  ['USDT', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', 6],
  ['DAI', '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb', 18],
  ['EURC', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', 6],
  ['USDbC', '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA', 6],
  ['AERO', '0x940181a94A35A4569E4529A3CDfB74e38FD98631', 18],
  ['DEGEN', '0x4ed4E862860beD51a9570b96d89aF5E1B0Efefed', 18],
  ['BRETT', '0x532f27101965dd16442E59d40670FaF5eBB142E4', 18],
  ['TOSHI', '0xAC1Bd2486aAf3B5C0fc3Fd868558b082a531B2B4', 18],
] as const

describe('kept', () => {
  test("default: Uniswap's default list on Base, 100+ tokens, EIP-55, as the package ships it", () => {
    const listed = TokenList.kept(base.id)
    expect(listed.length).toBeGreaterThanOrEqual(100)
    expect(listed.length).toBe(uniswapDefault.tokens.filter((token) => token.chainId === base.id).length)
    for (const token of listed) expect(token.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(TokenList.keptList).toMatchObject({ package: '@uniswap/default-token-list', name: 'Uniswap Labs Default' })
    expect(TokenList.keptList.version).toMatch(/^\d+\.\d+\.\d+$/)
  })

  test('behavior: a chain the list has none of has none', () => {
    expect(TokenList.kept(31_337)).toEqual([])
  })
})

describe('find', () => {
  test.each(originals)(
    "default: the original gateway's %s resolves on Base mainnet, any case",
    (symbol, address, decimals) => {
      for (const token of [symbol, symbol.toLowerCase(), symbol.toUpperCase(), address.toLowerCase()])
        expect(TokenList.find({ name: 'base', chainId: base.id, token })).toMatchObject({ symbol, address, decimals })
    },
  )

  test('behavior: the curated entry wins over the list (same address, same symbol)', () => {
    const usdc = TokenList.baseMainnet.find((token) => token.symbol === 'USDC')!
    expect(TokenList.find({ name: 'base', chainId: base.id, token: 'usdc' })).toBe(usdc)
    const known = TokenList.known('base', base.id)
    expect(known.filter((token) => token.symbol.toUpperCase() === 'USDC')).toHaveLength(1)
    expect(new Set(known.map((token) => token.address.toLowerCase())).size).toBe(known.length)
    expect(known.slice(0, TokenList.baseMainnet.length)).toEqual([...TokenList.baseMainnet])
  })

  test('behavior: the list names its tokens', () => {
    expect(TokenList.find({ name: 'base', chainId: base.id, token: 'AERO' })?.name).toBe('Aerodrome Finance')
  })

  test('behavior: the devnet keeps its own deployed tokens only', () => {
    const chainId = 31_337
    expect(TokenList.known('base', chainId)).toEqual([...TokenList.devnet])
    expect(TokenList.find({ name: 'base', chainId, token: 'weth' })?.address).toBe(contracts().tokens.WETH!)
    expect(TokenList.find({ name: 'base', chainId, token: 'cbBTC' })).toBeUndefined()
  })

  test('error: a symbol or address no list has is none', () => {
    expect(TokenList.find({ name: 'base', chainId: base.id, token: 'NOPE' })).toBeUndefined()
    expect(
      TokenList.find({ name: 'base', chainId: base.id, token: '0x0000000000000000000000000000000000000001' }),
    ).toBeUndefined()
  })
})

describe('find among the tokens a deployment accepts', () => {
  const accepted = TokenList.baseMainnet.filter((token) => token.symbol === 'USDC' || token.symbol === 'DAI')

  test('default: by symbol or address, any case', () => {
    const usdc = accepted[0]!
    for (const token of [
      'USDC',
      'usdc',
      ' Usdc ',
      usdc.address,
      usdc.address.toLowerCase(),
      usdc.address.toUpperCase(),
    ])
      expect(TokenList.find({ tokens: accepted, token })).toBe(usdc)
  })

  test('error: a token listed on the chain but not accepted is none', () => {
    expect(TokenList.find({ tokens: accepted, token: 'WETH' })).toBeUndefined()
  })
})

describe('toToken', () => {
  const accepted = TokenList.baseMainnet.filter((token) => token.symbol === 'USDC')

  test('default: the accepted token named by symbol or address', () => {
    expect(TokenList.toToken({ tokens: accepted, token: 'usdc' })).toBe(accepted[0]!)
    expect(TokenList.toToken({ tokens: accepted, token: accepted[0]!.address.toLowerCase() })).toBe(accepted[0]!)
  })

  test('error: any other is refused, naming the field and the tokens accepted', () => {
    expect(() => TokenList.toToken({ tokens: accepted, token: 'DAI' })).toThrow(
      `is not a supported token; use one of USDC (${accepted[0]!.address})`,
    )
    expect(fieldOf(() => TokenList.toToken({ tokens: accepted, token: 'DAI' }))).toBe('token')
    expect(fieldOf(() => TokenList.toToken({ tokens: accepted, token: '0x12', field: 'currency' }))).toBe('currency')
  })
})
