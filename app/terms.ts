import { getContractAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../adapters/chain/devnet.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import { type Config, ConfigError } from './config.js'

/** USDC on Base mainnet: the production asset. */
const baseUsdc = {
  address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  name: 'USD Coin',
  version: '2',
  decimals: 6,
} as const

/** Networks that are never the embedded devnet and therefore need an explicit payee. */
const production = new Set(['eip155:8453'])

/** Builds the payment terms of every offer from the configuration. */
export function terms(config: Config): PaymentTerms {
  if (production.has(config.network)) {
    if (!config.payTo)
      throw new ConfigError(`PAY_TO is required on ${config.network}: set it to the address that receives payments.`)
    return { network: config.network, asset: baseUsdc, payTo: config.payTo, maxTimeoutSeconds: 300 }
  }
  // The devnet deploys its token as the deployer's first transaction, so the address is known before boot.
  const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }).address
  return {
    network: config.network,
    asset: { address: getContractAddress({ from: deployer, nonce: 0n }), name: 'USD Coin', version: '2', decimals: 6 },
    payTo: config.payTo ?? mnemonicToAccount(mnemonic, { addressIndex: 0 }).address,
    maxTimeoutSeconds: 300,
  }
}
