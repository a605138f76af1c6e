import { type Address, encodeDeployData, encodeFunctionData, erc20Abi, getContractAddress, maxUint256 } from 'viem'
import type { LocalAccount } from 'viem/accounts'
import type * as Safety from '../../core/Safety.js'
import * as Uniswap from '../../core/Uniswap.js'
import devProxyJson from './contracts/artifacts/DevProxy.json' with { type: 'json' }
import safetySimulatorJson from './contracts/artifacts/SafetySimulator.json' with { type: 'json' }
import sanctionsOracleJson from './contracts/artifacts/SanctionsOracle.json' with { type: 'json' }
import taxTokenJson from './contracts/artifacts/TaxToken.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import { seedPool } from './defi.js'
import { sendInOrder } from './seed.js'

/**
 * Mnemonic index (m/44'/60'/0'/0/14) of the account that deploys the devnet's screening contracts: the sanctions
 * oracle look-alike, the taxed token and a proxy. Its own nonces give their addresses.
 */
export const safetyDeployerIndex = 14

const sanctionsOracle = sanctionsOracleJson as unknown as Artifact
const taxToken = taxTokenJson as unknown as Artifact
const devProxy = devProxyJson as unknown as Artifact

/** The token-trade simulator: SafetySimulator's runtime code, never deployed, run by eth_call at a scratch address. */
export const simulator: Safety.Simulator = {
  code: (safetySimulatorJson as unknown as Artifact).deployedBytecode,
  abi: (safetySimulatorJson as unknown as Artifact).abi,
}

/** The taxed token's sell tax, in basis points of the amount sold (10%). */
export const taxTokenSellFeeBps = 1_000n

/** The taxed token's pool: against WETH, in the 0.3% tier, 100,000 TAX for 100 WETH. */
export const taxTokenPool = { fee: 3000, tokens: 100_000n * 10n ** 18n, weth: 100n * 10n ** 18n } as const

/** The addresses of the screening contracts, which follow from the safety deployer's nonces 0 to 2. */
export function safetyContracts(parameters: safetyContracts.Parameters): safetyContracts.ReturnType {
  const { deployer } = parameters
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) })
  return { sanctionsOracle: at(0), taxToken: at(1), proxy: at(2) }
}

export declare namespace safetyContracts {
  type Parameters = {
    /** The safety deployer's address. */
    deployer: Address
  }
  type ReturnType = {
    /** The Chainalysis sanctions oracle look-alike; the deployer edits its list (nonce 0). */
    sanctionsOracle: Address
    /** TAX: an ERC-20 with a 10% sell tax, mint and blacklist, with a WETH pool on Uniswap v3 (nonce 1). */
    taxToken: Address
    /** An EIP-1967 proxy to the taxed token's code, the deployer its admin (nonce 2). */
    proxy: Address
  }
}

/**
 * Deploys the screening contracts from the safety deployer and gives the taxed token its WETH pool: one batch of
 * seven transactions. The deployer must hold ETH and {@link taxTokenPool}`.weth` of WETH.
 */
export async function seedSafety(parameters: seedSafety.Parameters): Promise<void> {
  const { account, chainId, request, weth, positionManager, factory } = parameters
  const addresses = safetyContracts({ deployer: account.address })
  const pool = Uniswap.poolAddress({ factory, tokenA: addresses.taxToken, tokenB: weth, fee: taxTokenPool.fee })
  const call = (to: Address, abi: Artifact['abi'], functionName: string, args: readonly unknown[]) => ({
    to,
    data: encodeFunctionData({ abi, functionName, args }),
  })
  await sendInOrder({
    account,
    chainId,
    request,
    label: 'Safety seeding',
    transactions: [
      { data: sanctionsOracle.bytecode },
      {
        data: encodeDeployData({
          abi: taxToken.abi,
          bytecode: taxToken.bytecode,
          args: ['Taxed Token', 'TAX', 1_000_000n * 10n ** 18n, taxTokenSellFeeBps],
        }),
      },
      {
        data: encodeDeployData({
          abi: devProxy.abi,
          bytecode: devProxy.bytecode,
          args: [addresses.taxToken, account.address],
        }),
      },
      // A transfer into the pool is a sell: taxed, unless the owner sells (so seeding the pool is not taxed).
      call(addresses.taxToken, taxToken.abi, 'setMarket', [pool, true]),
      call(addresses.taxToken, erc20Abi, 'approve', [positionManager, maxUint256]),
      call(weth, erc20Abi, 'approve', [positionManager, maxUint256]),
      seedPool({
        positionManager,
        tokenA: addresses.taxToken,
        amountA: taxTokenPool.tokens,
        tokenB: weth,
        amountB: taxTokenPool.weth,
        fee: taxTokenPool.fee,
        recipient: account.address,
      }),
    ],
  })
}

export declare namespace seedSafety {
  type Parameters = {
    /** The safety deployer ({@link safetyDeployerIndex}), with ETH and WETH. */
    account: LocalAccount
    /** The devnet's chain id. */
    chainId: number
    /** Sends one JSON-RPC request to the devnet. */
    request: (method: string, params?: unknown[]) => Promise<unknown>
    /** The devnet's WETH. */
    weth: Address
    /** The devnet's Uniswap v3 NonfungiblePositionManager. */
    positionManager: Address
    /** The devnet's Uniswap v3 factory. */
    factory: Address
  }
}
