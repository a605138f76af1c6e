import { createWalletClient, getAddress, http, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { normalize, toCoinType } from 'viem/ens'
import { account, contracts } from '../adapters/chain/devnet.js'
import { register, setPrimaryName } from '../adapters/chain/ens.js'
import { connectDevnet } from './devnet-client.js'

// Dev command: registers `<label>.eth` on a running devnet's name service, pointing at an address; when the address
// is a funded devnet account, also sets its primary name (reverse record) from that account. `<label>.base` makes a
// Basename (`<label>.base.eth`), whose address is on Base's coin type and has no Ethereum primary name.
// Usage: npm run name -- <label> <address>   (DEVNET_RPC_URL, default http://127.0.0.1:${DEVNET_RPC_PORT:-8545})

/** Funded accounts of a devnet started with the default settings. */
const devnetAccounts = 10

const [label = '', address = ''] = process.argv.slice(2)
let name: string
try {
  name = normalize(`${label}.eth`)
} catch {
  name = ''
}
if (label === '' || name === '' || name.split('.').includes('') || !isAddress(address, { strict: true })) {
  process.stderr.write('Usage: npm run name -- <label, e.g. alice or alice.base> <0x address>\n')
  process.exit(2)
}
const target = getAddress(address)
const names = contracts().names
const { url, chain, client, wallet } = await connectDevnet({
  expected: { name: 'name registry', address: names.registry },
})
const basename = name.endsWith('.base.eth')
const coinType = basename ? toCoinType(8453) : toCoinType(1)
await register({ client, wallet, contracts: names, name, address: target, coinType })
process.stdout.write(`Registered ${name} -> ${target} (coin type ${coinType}) at registry ${names.registry}.\n`)

const index = Array.from({ length: devnetAccounts }, (_, index) => index).find(
  (index) => account({ index }).address === target,
)
if (!basename && index !== undefined) {
  const owner = createWalletClient({
    account: privateKeyToAccount(account({ index }).privateKey),
    chain,
    transport: http(url, { retryCount: 0 }),
  })
  const hash = await setPrimaryName({ client, wallet: owner, reverseRegistrar: names.reverseRegistrar, name })
  process.stdout.write(`Set the primary name of devnet account #${index} to ${name} in ${hash}.\n`)
}
