import { type Address, parseAbi } from 'viem'
import { base } from 'viem/chains'

/** Where the lending markets the positions endpoint reads are on one chain. */
export type Deployment = {
  /** Aave v3. */
  aave: {
    /** Pool (`getUserAccountData`). */
    pool: Address
    /** AaveProtocolDataProvider (`getAllReservesTokens`, `getUserReserveData`: current balances, not scaled). */
    dataProvider: Address
  }
  /** Compound v3 markets (Comet proxies), by name. */
  comets: readonly {
    /** Market name, e.g. `cUSDCv3`. */
    name: string
    /** Comet address. */
    address: Address
  }[]
}

/**
 * Aave v3 and Compound v3 on Base mainnet: Aave's Pool and AaveProtocolDataProvider from the Aave address book
 * (`AaveV3Base`), Compound's USDC and WETH markets from its Base deployments.
 */
export const baseMainnet: Deployment = {
  aave: {
    pool: '0xA238Dd80C259a72e81d7e4664a9801593F98d1c5',
    dataProvider: '0x0F43731EB8d45A581f4a36DD74F5f358bc90C73A',
  },
  comets: [
    { name: 'cUSDCv3', address: '0xb125E6687d4313864e53df431d5425969c15Eb2F' },
    { name: 'cWETHv3', address: '0x46e6b214b524310239732D51387075E0e70970bf' },
  ],
}

/**
 * The look-alikes on the embedded devnet, at the addresses its DeFi deployer's nonces give them
 * (adapters/chain/devnet.ts `contracts()`; a test keeps the two equal).
 */
export const devnet: Deployment = {
  aave: {
    pool: '0x5E81a027E3128876A666A42aBA6f6E38b20B4F2c',
    dataProvider: '0xB4f02d437373b4F1aE411b4f95b4d505D9e46559',
  },
  comets: [{ name: 'cUSDCv3', address: '0x7C775702e27ee32D52a0c95a7E1a9031d7F6fddB' }],
}

/** The deployment on the chain of a node by its id: Base mainnet's on Base, the devnet's otherwise. */
export function of(chainId: number): Deployment {
  return chainId === base.id ? baseMainnet : devnet
}

/** The Aave v3 reads: the Pool's account data and the data provider's reserves and user balances. */
export const aaveAbi = parseAbi([
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function getAllReservesTokens() view returns ((string symbol, address tokenAddress)[])',
  'function getUserReserveData(address asset, address user) view returns (uint256 currentATokenBalance, uint256 currentStableDebt, uint256 currentVariableDebt, uint256 principalStableDebt, uint256 scaledVariableDebt, uint256 stableBorrowRate, uint256 liquidityRate, uint40 stableRateLastUpdated, bool usageAsCollateralEnabled)',
])

/** The Compound v3 (Comet) reads. */
export const cometAbi = parseAbi([
  'struct AssetInfo { uint8 offset; address asset; address priceFeed; uint64 scale; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }',
  'function baseToken() view returns (address)',
  'function numAssets() view returns (uint8)',
  'function getAssetInfo(uint8 i) view returns (AssetInfo)',
  'function balanceOf(address account) view returns (uint256)',
  'function borrowBalanceOf(address account) view returns (uint256)',
  'function collateralBalanceOf(address account, address asset) view returns (uint128)',
])

/** Decimals of Aave v3's base currency (USD) in `getUserAccountData`. */
export const aaveBaseDecimals = 8

/** Decimals of Aave v3's health factor. */
export const healthFactorDecimals = 18
