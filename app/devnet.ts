import { join } from 'node:path'
import { devnetBanner } from './banner.js'
import { type Config, ConfigError, parse } from './config.js'
import { startDevnet } from './settlement.js'
import { assertPortFree, bind, exitOnStartError, StartError } from './startup.js'

// `npm run devnet`: the devnet of `npm start` (same deployments, funding and journal in DATA_DIR) in a process of its
// own, serving JSON-RPC on 127.0.0.1:DEVNET_RPC_PORT. Reads NETWORK (chain id), DEVNET_RPC_PORT, DATA_DIR and
// DEVNET_PERSIST. A gateway uses it with RPC_URL=http://127.0.0.1:8545 (and the same NETWORK).

const config: Config = (() => {
  try {
    return parse(process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${error.message}\n`)
    return process.exit(1)
  }
})()
const port = config.devnetRpcPort
const hint = 'set DEVNET_RPC_PORT to a free port'
try {
  if (port === 0)
    throw new StartError({
      code: 'port_in_use',
      message: 'npm run devnet serves JSON-RPC: set DEVNET_RPC_PORT to a port, not 0.',
    })
  // Before the journal is opened and replayed: a second devnet on the same port stops at once.
  assertPortFree({ port, hostname: '127.0.0.1', variable: 'DEVNET_RPC_PORT', hint })
} catch (error) {
  exitOnStartError(error)
}

const devnet = await startDevnet(config).catch(exitOnStartError)
let server: ReturnType<typeof Bun.serve>
try {
  server = bind({
    port,
    hostname: '127.0.0.1',
    variable: 'DEVNET_RPC_PORT',
    hint,
    start: () =>
      Bun.serve({ hostname: '127.0.0.1', port, reusePort: false, fetch: (request) => devnet.handleJsonRpc(request) }),
  })
} catch (error) {
  await devnet.close()
  exitOnStartError(error)
}
const rpcUrl = `http://127.0.0.1:${server.port}`

process.stdout.write(
  await devnetBanner({
    devnet,
    title: `Devnet (chain id ${devnet.chainId}, network ${config.network}), in a process of its own`,
    rpcUrl,
    journal: config.devnetPersist ? join(config.dataDir, 'devnet.journal') : undefined,
    lines: [
      `  Escrow:    ${devnet.escrow.address}`,
      `  Batch:     ${devnet.batch.address}`,
      `  Uniswap:   SwapRouter02 ${devnet.uniswap.swapRouter02}, QuoterV2 ${devnet.uniswap.quoterV2}`,
      `  Lending:   Aave Pool ${devnet.aave.pool}, Comet (USDC) ${devnet.comet}`,
      `  Agents:    ERC-8004 Identity Registry ${devnet.agentRegistry}`,
      `  EAS:       ${devnet.kyc.eas}, indexer ${devnet.kyc.indexer}`,
    ],
    hints: [
      `Start a gateway on it: RPC_URL=${rpcUrl} NETWORK=${config.network} npm start`,
      `Fund any address:      DEVNET_RPC_URL=${rpcUrl} npm run fund -- <address> <usdc>`,
    ],
  }),
)

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, async () => {
    server.stop(true)
    await devnet.close()
    process.exit(0)
  })
