import { createPublicClient, createWalletClient, defineChain, http, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { contracts, deployerIndex, devPriceFeeds, mnemonic } from '../adapters/chain/devnet.js'
import { aggregatorV3Abi } from '../adapters/chain/priceFeeds.js'

// Dev command: sets the USD price of a token on a running devnet's price feed (a new round, updated now).
// Usage: npm run price -- <USDC|ETH|SOL> <usd price, e.g. 3150.25>   (DEVNET_RPC_URL, default http://127.0.0.1:8545)

const symbols = devPriceFeeds.map(({ symbol }) => symbol) as readonly string[]
const [symbolArgument = '', price = ''] = process.argv.slice(2)
const symbol = symbolArgument.toUpperCase()
if (!symbols.includes(symbol) || !/^\d+(\.\d{1,8})?$/.test(price)) {
  process.stderr.write(`Usage: npm run price -- <${symbols.join('|')}> <usd price, up to 8 decimals, e.g. 3150.25>\n`)
  process.exit(2)
}
const url = process.env.DEVNET_RPC_URL ?? 'http://127.0.0.1:8545'
const transport = http(url, { retryCount: 0 })
const chainId = await createPublicClient({ transport })
  .getChainId()
  .catch(() => {
    process.stderr.write(
      `No devnet answers at ${url}: start one with \`npm start\` or \`npm run devnet\` (or set DEVNET_RPC_URL).\n`,
    )
    return process.exit(1)
  })
const chain = defineChain({
  id: chainId,
  name: 'Devnet',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [url] } },
})
// The devnet's deployer key is public (test mnemonic) and owns the feeds; it exists only on the devnet.
const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex })
const feed = contracts().priceFeeds[symbol]!
const client = createPublicClient({ chain, transport })
const wallet = createWalletClient({ account: deployer, chain, transport })
const setAnswerAbi = [
  {
    type: 'function',
    name: 'setAnswer',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'int256' }],
    outputs: [],
  },
] as const
if ((await client.getCode({ address: feed })) === undefined) {
  process.stderr.write(
    `The chain at ${url} has no ${symbol} / USD feed at ${feed}: DEVNET_RPC_URL must be the JSON-RPC of a devnet that deployed the price feeds.\n`,
  )
  process.exit(1)
}
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
