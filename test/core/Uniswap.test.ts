import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeFunctionData, keccak256 } from 'viem'
import { sources, type UniswapArtifact, uniswapDirectory } from '../../adapters/chain/contracts/uniswap.js'
import * as Uniswap from '../../core/Uniswap.js'

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const weth = '0x4200000000000000000000000000000000000006'
const dai = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb'

describe('sqrtPriceX96', () => {
  test.each([
    [1n, 1n, 2n ** 96n],
    [1n, 4n, 2n ** 97n],
    [4n, 1n, 2n ** 95n],
  ])('default: %p of token0 for %p of token1 is %p', (amount0, amount1, expected) => {
    expect(Uniswap.sqrtPriceX96({ amount0, amount1 })).toBe(expected)
  })

  test('behavior: the floor of the exact square root (WETH at 3,000 USDC)', () => {
    const amount0 = 10n ** 18n
    const amount1 = 3_000n * 10n ** 6n
    const root = Uniswap.sqrtPriceX96({ amount0, amount1 })
    const squared = (amount1 << 192n) / amount0
    expect(root * root <= squared).toBe(true)
    expect((root + 1n) * (root + 1n) > squared).toBe(true)
  })

  test('error: a zero amount', () => {
    expect(() => Uniswap.sqrtPriceX96({ amount0: 0n, amount1: 1n })).toThrow(RangeError)
  })
})

describe('encodePath', () => {
  test('default: token, 3-byte fee, token, ...', () => {
    expect(Uniswap.encodePath({ tokens: [usdc, weth, dai], fees: [500, 3000] })).toBe(
      `${usdc}0001f4${weth.slice(2)}000bb8${dai.slice(2)}`.toLowerCase() as `0x${string}`,
    )
  })
})

describe('routes', () => {
  test('default: four direct tiers and sixteen pairs of tiers through WETH', () => {
    const routes = Uniswap.routes({ tokenIn: usdc, tokenOut: dai, weth })
    expect(routes).toHaveLength(20)
    expect(routes.slice(0, 4).map((route) => route.fees)).toEqual([[100], [500], [3000], [10000]])
    expect(routes[4]).toEqual({ tokens: [usdc, weth, dai], fees: [100, 100] })
  })

  test('behavior: a pair with WETH is quoted direct only', () => {
    expect(Uniswap.routes({ tokenIn: weth, tokenOut: usdc, weth })).toHaveLength(4)
  })
})

describe('minimumOut', () => {
  test.each([
    [1_000_000n, 50n, 995_000n],
    [999n, 50n, 994n],
    [1n, 0n, 1n],
  ])('default: %p less %p bps rounds down to %p', (amountOut, slippageBps, expected) => {
    expect(Uniswap.minimumOut({ amountOut, slippageBps })).toBe(expected)
  })
})

describe('swapCalldata', () => {
  test('default: multicall(deadline, [exactInput]) for two hops', () => {
    const data = Uniswap.swapCalldata({
      route: { tokens: [usdc, weth, dai], fees: [500, 3000] },
      amountIn: 10n,
      amountOutMinimum: 9n,
      recipient: dai,
      deadline: 1_800_000_000n,
    })
    const outer = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data })
    expect(outer.functionName).toBe('multicall')
    const [deadline, calls] = outer.args as readonly [bigint, readonly `0x${string}`[]]
    expect(deadline).toBe(1_800_000_000n)
    const inner = decodeFunctionData({ abi: Uniswap.swapRouter02Abi, data: calls[0]! })
    expect(inner).toEqual({
      functionName: 'exactInput',
      args: [
        {
          path: Uniswap.encodePath({ tokens: [usdc, weth, dai], fees: [500, 3000] }),
          recipient: dai,
          amountIn: 10n,
          amountOutMinimum: 9n,
        },
      ],
    })
  })
})

describe('published artifacts', () => {
  test('default: each names the package, version and integrity it came from, as `npm run uniswap` wrote it', () => {
    for (const source of sources)
      for (const [contractName, path] of Object.entries(source.contracts)) {
        const artifact = JSON.parse(
          readFileSync(join(uniswapDirectory, `${contractName}.json`), 'utf8'),
        ) as UniswapArtifact
        expect(artifact.source).toMatchObject({ package: source.package, version: source.version, path })
        expect(artifact.source.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/)
        expect(artifact.bytecode).toMatch(/^0x[0-9a-f]+$/)
      }
  })

  test("behavior: the pool's creation code hashes to the periphery's POOL_INIT_CODE_HASH", () => {
    const pool = JSON.parse(readFileSync(join(uniswapDirectory, 'UniswapV3Pool.json'), 'utf8')) as UniswapArtifact
    expect(keccak256(pool.bytecode)).toBe(Uniswap.poolInitCodeHash)
  })
})
