import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  getContractAddress,
  http,
  isAddress,
  parseUnits,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../adapters/chain/devnet.js'

// Dev command: mints devnet USDC to an address on a running gateway's embedded devnet.
// Usage: npm run fund -- <address> <usdc amount, e.g. 250.5>   (DEVNET_RPC_URL, default http://127.0.0.1:8545)

const [address, amount = '1000'] = process.argv.slice(2)
if (!address || !isAddress(address, { strict: false }) || !/^\d+(\.\d{1,6})?$/.test(amount)) {
  process.stderr.write('Usage: npm run fund -- <0x address> [usdc amount, up to 6 decimals; default 1000]\n')
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
// The devnet's deployer key is public (test mnemonic) and is the token's minter; it exists only on the devnet.
const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex })
const token = getContractAddress({ from: deployer.address, nonce: 0n })
const client = createPublicClient({ chain, transport })
const wallet = createWalletClient({ account: deployer, chain, transport })
const abi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'address' }, { type: 'uint256' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
] as const
if ((await client.getCode({ address: token })) === undefined) {
  process.stderr.write(
    `The chain at ${url} has no devnet USDC at ${token}: DEVNET_RPC_URL must be the JSON-RPC of a devnet.\n`,
  )
  process.exit(1)
}
const recipient = getAddress(address)
const hash = await wallet.writeContract({
  address: token,
  abi,
  functionName: 'mint',
  args: [recipient, parseUnits(amount, 6)],
})
const receipt = await client.waitForTransactionReceipt({ hash })
if (receipt.status !== 'success') throw new Error(`mint reverted in ${hash}`)
const balance = await client.readContract({ address: token, abi, functionName: 'balanceOf', args: [recipient] })
process.stdout.write(`Minted ${amount} devnet USDC to ${recipient} in ${hash}; balance ${balance} atomic units.\n`)
