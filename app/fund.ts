import { getAddress, getContractAddress, isAddress, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../adapters/chain/devnet.js'
import { connectDevnet } from './devnet-client.js'

// Dev command: mints devnet USDC to an address on a running gateway's embedded devnet.
// Usage: npm run fund -- <address> <usdc amount, e.g. 250.5>   (DEVNET_RPC_URL, default http://127.0.0.1:8545)

const [address, amount = '1000'] = process.argv.slice(2)
if (!address || !isAddress(address, { strict: false }) || !/^\d+(\.\d{1,6})?$/.test(amount)) {
  process.stderr.write('Usage: npm run fund -- <0x address> [usdc amount, up to 6 decimals; default 1000]\n')
  process.exit(2)
}
const token = getContractAddress({
  from: mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }).address,
  nonce: 0n,
})
const { client, wallet } = await connectDevnet({ expected: { name: 'devnet USDC', address: token } })
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
