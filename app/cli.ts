import { getAddress, isAddress } from 'viem'
import { fail, main, usage } from '../client/cli.js'
import * as Price from '../core/Price.js'
import { mintDevnetUsdc } from './devnet-client.js'

// The agent-pay command line in this repository (`npx agent-pay ...`, bin/agent-pay.mjs): client/cli.ts's commands,
// with `fund`, which mints on this checkout's devnet. The package's `agent-pay` runs client/cli.js on plain Node.

async function fund(args: string[]): Promise<void> {
  const [address, amount] = args
  if (!address || !isAddress(address, { strict: false }) || !amount || !/^\d+(\.\d{1,6})?$/.test(amount))
    fail(`fund needs an 0x ADDRESS and an AMOUNT of USDC (up to 6 decimals).\n\n${usage}`, 2)
  const { hash, balance } = await mintDevnetUsdc({ address: getAddress(address), amount })
  process.stdout.write(
    `Minted ${amount} devnet USDC to ${getAddress(address)} in ${hash}; balance ${Price.fromAtomic(balance)} USDC.\n`,
  )
}

await main(process.argv.slice(2), fund)
