import { getAddress, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { account } from '../adapters/chain/devnet.js'
import { attest, kycDeployerIndex } from '../adapters/chain/kyc.js'
import * as Kyc from '../core/Kyc.js'
import { connectDevnet } from './devnet-client.js'

// Dev command: attests, as the devnet's Coinbase attester (the KYC deployer), that an address has a verified account,
// and with a country code also its verified country, on a running devnet's EAS; indexes both, so kyc/verify finds them.
// Usage: npm run attest -- <address> [ISO 3166-1 alpha-2 country]   (DEVNET_RPC_URL, default http://127.0.0.1:${DEVNET_RPC_PORT:-8545})

const [address = '', country] = process.argv.slice(2)
if (!isAddress(address, { strict: true }) || (country !== undefined && !/^[A-Z]{2}$/.test(country))) {
  process.stderr.write('Usage: npm run attest -- <0x address> [country, two capital letters, e.g. FR]\n')
  process.exit(2)
}
const recipient = getAddress(address)
const { chain, client } = await connectDevnet({ expected: { name: 'EAS', address: Kyc.devnet.eas } })
const parameters = {
  account: privateKeyToAccount(account({ index: kycDeployerIndex }).privateKey),
  chainId: chain.id,
  request: (method: string, params?: unknown[]) => client.request({ method, params } as never) as Promise<unknown>,
  recipient,
}
const uid = await attest({ ...parameters, check: 'verifiedAccount', value: true })
process.stdout.write(`Attested verifiedAccount of ${recipient}: ${uid}\n`)
if (country !== undefined) {
  const countryUid = await attest({ ...parameters, check: 'verifiedCountry', value: country })
  process.stdout.write(`Attested verifiedCountry ${country} of ${recipient}: ${countryUid}\n`)
}
