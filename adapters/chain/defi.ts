import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getContractAddress,
  type Hex,
  zeroAddress,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import * as Uniswap from '../../core/Uniswap.js'
import aavePoolJson from './contracts/artifacts/AavePool.json' with { type: 'json' }
import aaveDataProviderJson from './contracts/artifacts/AaveProtocolDataProvider.json' with { type: 'json' }
import cometJson from './contracts/artifacts/Comet.json' with { type: 'json' }
import nonfungiblePositionManagerJson from './contracts/artifacts/uniswap/NonfungiblePositionManager.json' with {
  type: 'json',
}
import quoterV2Json from './contracts/artifacts/uniswap/QuoterV2.json' with { type: 'json' }
import swapRouter02Json from './contracts/artifacts/uniswap/SwapRouter02.json' with { type: 'json' }
import uniswapV3FactoryJson from './contracts/artifacts/uniswap/UniswapV3Factory.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import type { UniswapArtifact } from './contracts/uniswap.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/12) of the account that deploys and seeds the devnet's DeFi contracts (Uniswap v3,
 * the Aave v3 and Compound v3 look-alikes). It is not the main deployer, so its nonces, and the addresses they give,
 * do not move when contracts are added to the main deployer's sequence.
 */
export const defiDeployerIndex = 12

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const factory = uniswapV3FactoryJson as unknown as UniswapArtifact
const positionManager = nonfungiblePositionManagerJson as unknown as UniswapArtifact
const quoterV2 = quoterV2Json as unknown as UniswapArtifact
const swapRouter02 = swapRouter02Json as unknown as UniswapArtifact
const aavePool = aavePoolJson as unknown as Artifact
const aaveDataProvider = aaveDataProviderJson as unknown as Artifact
const comet = cometJson as unknown as Artifact

/**
 * The pools the devnet seeds, full range at the oracle's prices, each side worth `usd` whole dollars: deep pools to
 * and from WETH and between the dollar stablecoins, and one deliberately thin direct USDC/DAI pool that a route
 * through WETH beats. EURC has no pool, so it has no route.
 */
export const devPools = [
  { tokenA: 'USDC', tokenB: 'WETH', fee: 500, usd: 400_000n },
  { tokenA: 'DAI', tokenB: 'WETH', fee: 3000, usd: 300_000n },
  { tokenA: 'USDC', tokenB: 'USDT', fee: 100, usd: 200_000n },
  { tokenA: 'USDC', tokenB: 'DAI', fee: 3000, usd: 1_000n },
] as const

/** Whole tokens of each devnet token minted to the DeFi deployer to seed the pools and the lending look-alikes. */
export const defiDeployerTokens = 2_000_000n

/** The lending look-alikes' cash: what borrowers can take out, in whole dollars per market and asset. */
const lendingCashUsd = 100_000n

/** The addresses of the DeFi contracts, which follow from the DeFi deployer's nonces 0 to 6. */
export function defiContracts(parameters: defiContracts.Parameters): defiContracts.ReturnType {
  const { deployer } = parameters
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) })
  return {
    uniswap: { factory: at(0), positionManager: at(1), quoterV2: at(2), swapRouter02: at(3) },
    aave: { pool: at(4), dataProvider: at(5) },
    comet: at(6),
  }
}

export declare namespace defiContracts {
  type Parameters = {
    /** The DeFi deployer's address. */
    deployer: Address
  }
  type ReturnType = {
    /** Uniswap v3 from the published artifacts. */
    uniswap: {
      /** UniswapV3Factory (nonce 0). */
      factory: Address
      /** NonfungiblePositionManager (nonce 1). */
      positionManager: Address
      /** QuoterV2 (nonce 2). */
      quoterV2: Address
      /** SwapRouter02 (nonce 3). */
      swapRouter02: Address
    }
    /** The Aave v3 look-alikes. */
    aave: {
      /** AavePool (nonce 4). */
      pool: Address
      /** AaveProtocolDataProvider over it (nonce 5). */
      dataProvider: Address
    }
    /** The Compound v3 look-alike, a USDC market with WETH collateral (nonce 6). */
    comet: Address
  }
}

/**
 * Deploys and seeds the DeFi contracts from the DeFi deployer: every transaction signed here with its nonce, gas and
 * fee, so none waits for an estimate, and sent in order (each is mined on arrival). Throws when one reverts.
 * The deployer must hold ETH and {@link defiDeployerTokens} of every pooled token.
 */
export async function seedDefi(parameters: seedDefi.Parameters): Promise<void> {
  const { account, chainId, request, tokens, feeds, answers } = parameters
  const addresses = defiContracts({ deployer: account.address })
  const { uniswap } = addresses
  const weth = tokens.WETH!.address
  const usdc = tokens.USDC!.address
  // A token without a feed of its own is a dollar stablecoin look-alike, priced at the USDC feed's answer.
  const feedOf = (symbol: string) => (symbol === 'WETH' ? 'ETH' : answers[symbol] === undefined ? 'USDC' : symbol)
  const amountOf = (symbol: string, usd: bigint) =>
    (usd * 10n ** BigInt(tokens[symbol]!.decimals) * 10n ** 8n) / answers[feedOf(symbol)]!

  const deploy = (artifact: { abi: Artifact['abi']; bytecode: Hex }, args: readonly unknown[] = []) => ({
    data:
      args.length === 0
        ? artifact.bytecode
        : encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args }),
  })
  const call = (to: Address, abi: Artifact['abi'], functionName: string, args: readonly unknown[]) => ({
    to,
    data: encodeFunctionData({ abi, functionName, args }),
  })
  const transfer = (symbol: string, to: Address, usd: bigint) =>
    call(tokens[symbol]!.address, erc20Abi, 'transfer', [to, amountOf(symbol, usd)])
  const pooled = [...new Set(devPools.flatMap(({ tokenA, tokenB }) => [tokenA, tokenB]))]

  const transactions: { to?: Address; data: Hex }[] = [
    deploy(factory),
    deploy(positionManager, [uniswap.factory, weth, zeroAddress]),
    deploy(quoterV2, [uniswap.factory, weth]),
    // No Uniswap v2 on the devnet: SwapRouter02's v2 functions are never called.
    deploy(swapRouter02, [zeroAddress, uniswap.factory, uniswap.positionManager, weth]),
    deploy(aavePool),
    deploy(aaveDataProvider, [addresses.aave.pool]),
    deploy(comet, [usdc, feeds.USDC]),
    // The 0.01% tier came after v3-core 1.0.1, by governance; Base has it, so the devnet enables it the same way.
    call(uniswap.factory, factory.abi, 'enableFeeAmount', [100, 1]),
    call(addresses.aave.pool, aavePool.abi, 'listReserve', [usdc, feeds.USDC, 7_500, 7_800]),
    call(addresses.aave.pool, aavePool.abi, 'listReserve', [weth, feeds.ETH, 8_000, 8_300]),
    call(addresses.comet, comet.abi, 'addAsset', [weth, feeds.ETH, 800_000_000_000_000_000n, 850_000_000_000_000_000n]),
    ...pooled.map((symbol) =>
      call(tokens[symbol]!.address, erc20Abi, 'approve', [uniswap.positionManager, 2n ** 256n - 1n]),
    ),
    ...devPools.map(({ tokenA, tokenB, fee, usd }) => {
      const [token0, token1] = Uniswap.sort({ tokenA: tokens[tokenA]!.address, tokenB: tokens[tokenB]!.address })
      const [symbol0, symbol1] = token0 === tokens[tokenA]!.address ? [tokenA, tokenB] : [tokenB, tokenA]
      const amount0 = amountOf(symbol0, usd)
      const amount1 = amountOf(symbol1, usd)
      const spacing = Uniswap.tickSpacings[fee]
      const tickLower = Math.ceil(Uniswap.minTick / spacing) * spacing
      const create = encodeFunctionData({
        abi: positionManager.abi,
        functionName: 'createAndInitializePoolIfNecessary',
        args: [token0, token1, fee, Uniswap.sqrtPriceX96({ amount0, amount1 })],
      })
      const mint = encodeFunctionData({
        abi: positionManager.abi,
        functionName: 'mint',
        args: [
          {
            token0,
            token1,
            fee,
            tickLower,
            tickUpper: -tickLower,
            amount0Desired: amount0,
            amount1Desired: amount1,
            amount0Min: 0n,
            amount1Min: 0n,
            recipient: account.address,
            deadline: 2n ** 32n,
          },
        ],
      })
      return call(uniswap.positionManager, positionManager.abi, 'multicall', [[create, mint]])
    }),
    transfer('USDC', addresses.aave.pool, lendingCashUsd),
    transfer('WETH', addresses.aave.pool, lendingCashUsd),
    transfer('USDC', addresses.comet, lendingCashUsd),
  ]

  await sendAll({ account, chainId, request, transactions, label: 'DeFi seeding' })
}

/**
 * Signs and sends `transactions` from `account` in order, at its next nonces, each mined at once (auto-mining);
 * throws when one reverts. One batch of a devnet's seeding. Resolves with the transactions' hashes, in order.
 */
export async function sendAll(parameters: sendAll.Parameters): Promise<Hex[]> {
  const { account, chainId, request, transactions, label } = parameters
  const latest = (await request('eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: Hex }
  // Blocks below the gas target only lower the base fee, so twice the current one covers every transaction.
  const maxFeePerGas = BigInt(latest.baseFeePerGas) * 2n
  const nonce = Number(BigInt((await request('eth_getTransactionCount', [account.address, 'latest'])) as Hex))
  const hashes: Hex[] = []
  for (const [index, transaction] of transactions.entries()) {
    const signed = await account.signTransaction({
      ...transaction,
      type: 'eip1559',
      chainId,
      nonce: nonce + index,
      gas: 15_000_000n,
      maxFeePerGas,
      maxPriorityFeePerGas: 0n,
    })
    const hash = (await request('eth_sendRawTransaction', [signed])) as Hex
    const receipt = (await request('eth_getTransactionReceipt', [hash])) as { status: Hex } | null
    if (receipt?.status !== '0x1') throw new Error(`${label} transaction ${index} (${hash}) reverted.`)
    hashes.push(hash)
  }
  return hashes
}

export declare namespace sendAll {
  type Parameters = {
    /** The sending account, with ETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** The transactions, in order; without `to`, a deployment. */
    transactions: readonly {
      /** Called contract; absent for a deployment. */
      to?: Address
      /** Calldata or creation code. */
      data: Hex
    }[]
    /** Names the batch in the error of a reverted transaction. */
    label: string
  }
}

export declare namespace seedDefi {
  type Parameters = {
    /** The DeFi deployer ({@link defiDeployerIndex}), with ETH and tokens. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** The devnet's tokens by symbol. */
    tokens: Readonly<Record<string, { address: Address; decimals: number }>>
    /** The devnet's USD price feeds by symbol (USDC and ETH at least). */
    feeds: Readonly<Record<string, Address>>
    /** The feeds' answers by symbol, 8 decimals. */
    answers: Readonly<Record<string, bigint>>
  }
}
