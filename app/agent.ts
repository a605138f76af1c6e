import { createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { registerAgent } from '../adapters/chain/agents.js'
import { account, contracts } from '../adapters/chain/devnet.js'
import { registrationType } from '../core/AgentRegistry.js'
import { connectDevnet } from './devnet-client.js'

// Dev command: registers an ERC-8004 agent in a running devnet's Identity Registry, owned by devnet account #0 (or
// #AGENT_OWNER_INDEX). With a URI, the agentURI is it and `<name>` is the on-chain metadata `name`; without one, the
// agentURI is a data: URI holding a registration file of that name.
// Usage: npm run agent -- <name> [uri]   (DEVNET_RPC_URL, default http://127.0.0.1:${DEVNET_RPC_PORT:-8545})

const [name = '', uri] = process.argv.slice(2)
const index = Number(process.env.AGENT_OWNER_INDEX ?? '0')
if (name === '' || !Number.isInteger(index) || index < 0) {
  process.stderr.write(
    'Usage: [AGENT_OWNER_INDEX=<n>] npm run agent -- <name> [agentURI: https://, ipfs:// or data:]\n',
  )
  process.exit(2)
}
const registry = contracts().agentRegistry
const { url, chain, client } = await connectDevnet({
  expected: { name: 'ERC-8004 Identity Registry', address: registry },
})
const owner = privateKeyToAccount(account({ index }).privateKey)
const wallet = createWalletClient({ account: owner, chain, transport: http(url, { retryCount: 0 }) })
const file = { type: registrationType, name, description: `${name}, registered on the devnet.`, services: [] }
const agentURI = uri ?? `data:application/json;base64,${Buffer.from(JSON.stringify(file)).toString('base64')}`
const agentId = await registerAgent({
  client,
  wallet,
  registry,
  agentURI,
  metadata: uri === undefined ? [] : [{ key: 'name', value: name }],
})
process.stdout.write(
  `Registered agent ${agentId} (${name}) owned by ${owner.address} at registry ${registry}: ${agentURI.slice(0, 96)}\n`,
)
