import { getAddress, isAddress } from 'viem'
import { mintDevnetUsdc } from './devnet-client.js'

// Dev command: mints devnet USDC to an address on a running gateway's embedded devnet.
// Usage: npm run fund -- <address> <usdc amount, e.g. 250.5>   (DEVNET_RPC_URL, default http://127.0.0.1:${DEVNET_RPC_PORT:-8545})

const [address, amount = '1000'] = process.argv.slice(2)
if (!address || !isAddress(address, { strict: false }) || !/^\d+(\.\d{1,6})?$/.test(amount)) {
  process.stderr.write('Usage: npm run fund -- <0x address> [usdc amount, up to 6 decimals; default 1000]\n')
  process.exit(2)
}
const { hash, balance } = await mintDevnetUsdc({ address: getAddress(address), amount })
process.stdout.write(
  `Minted ${amount} devnet USDC to ${getAddress(address)} in ${hash}; balance ${balance} atomic units.\n`,
)
