import { erc20Abi, formatEther, formatUnits } from 'viem'
import type { devnet as Devnet } from '../adapters/chain/devnet.js'

/** Mnemonic indexes of the devnet accounts the banner offers as payers. */
export const payerIndexes = [1, 2] as const

/**
 * What `npm start` and `npm run devnet` print about a devnet: chain id, JSON-RPC URL, where its chain is kept, the
 * token, and the funded payer accounts with their (public) keys and current balances.
 */
export async function devnetBanner(parameters: devnetBanner.Parameters): Promise<string> {
  const { devnet, title, rpcUrl, journal, lines = [], hints = [] } = parameters
  const accounts = await Promise.all(
    payerIndexes.map(async (index) => {
      const { address, privateKey } = devnet.accounts[index]!
      const [eth, usdc] = await Promise.all([
        devnet.publicClient.getBalance({ address }),
        devnet.publicClient.readContract({
          address: devnet.token.address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
        }),
      ])
      return [
        `  Account #${index}: ${address} (${formatEther(eth)} ETH, ${formatUnits(usdc, devnet.token.decimals)} USDC)`,
        `  Private Key: ${privateKey}`,
      ]
    }),
  )
  return [
    '',
    title,
    `  JSON-RPC:  ${rpcUrl ?? 'off (DEVNET_RPC_PORT=0)'}`,
    `  Chain:     ${journal ? `kept in ${journal} across restarts` : 'new at every start (DEVNET_PERSIST=false)'}`,
    `  USDC:      ${devnet.token.address} ("${devnet.token.name}" v${devnet.token.version}, ${devnet.token.decimals} decimals)`,
    ...lines,
    '',
    'Funded payer accounts (devnet only: these keys are public, never use them elsewhere):',
    ...accounts.flat(),
    '',
    ...hints,
    '',
  ].join('\n')
}

export declare namespace devnetBanner {
  type Parameters = {
    /** The running devnet. */
    devnet: Devnet.Devnet
    /** First line, e.g. `Embedded devnet (chain id 84532, network eip155:84532)`. */
    title: string
    /** Where its JSON-RPC is served; undefined when it is not. */
    rpcUrl: string | undefined
    /** Path of its journal; undefined when it keeps no journal. */
    journal: string | undefined
    /** More `  Name:      value` lines after the token's. @default [] */
    lines?: string[]
    /** Commands to try next, one per line, at the end. @default [] */
    hints?: string[]
  }
}
