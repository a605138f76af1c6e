import { parseUnits } from 'viem'
import { contracts, devPriceFeeds } from '../adapters/chain/devnet.js'
import { aggregatorV3Abi } from '../adapters/chain/priceFeeds.js'
import { connectDevnet } from './devnet-client.js'

// Dev command: sets the USD price of a token or fiat currency on a running devnet's price feed (a new round, updated now).
// Usage: npm run price -- <USDC|ETH|SOL|EUR|GBP|JPY|CHF|CAD|AUD> <usd price, e.g. 3150.25>   (DEVNET_RPC_URL, default http://127.0.0.1:${DEVNET_RPC_PORT:-8545})

const symbols = devPriceFeeds.map(({ symbol }) => symbol) as readonly string[]
const [symbolArgument = '', price = ''] = process.argv.slice(2)
const symbol = symbolArgument.toUpperCase()
if (!symbols.includes(symbol) || !/^\d+(\.\d{1,8})?$/.test(price)) {
  process.stderr.write(`Usage: npm run price -- <${symbols.join('|')}> <usd price, up to 8 decimals, e.g. 3150.25>\n`)
  process.exit(2)
}
const feed = contracts().priceFeeds[symbol]!
const { client, wallet } = await connectDevnet({ expected: { name: `${symbol} / USD feed`, address: feed } })
const setAnswerAbi = [
  {
    type: 'function',
    name: 'setAnswer',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'int256' }],
    outputs: [],
  },
] as const
const hash = await wallet.writeContract({
  address: feed,
  abi: setAnswerAbi,
  functionName: 'setAnswer',
  args: [parseUnits(price, 8)],
})
const receipt = await client.waitForTransactionReceipt({ hash })
if (receipt.status !== 'success') throw new Error(`setAnswer reverted in ${hash}`)
const [roundId, answer] = await client.readContract({
  address: feed,
  abi: aggregatorV3Abi,
  functionName: 'latestRoundData',
})
process.stdout.write(`Set ${symbol} / USD to ${price} (answer ${answer}, round ${roundId}) at ${feed} in ${hash}.\n`)
