import { join } from 'node:path'
import { cron } from '@elysiajs/cron'
import { devnetBanner } from './banner.js'
import { boot } from './boot.js'
import { type Config, ConfigError, parse } from './config.js'
import { jobRunner } from './jobs.js'
import { stdout } from './log.js'
import { assertPortFree, bind, StartError } from './startup.js'
import { workerRunner } from './workers.js'

/** Configuration and start-up errors stop the start with a readable message; anything else is a fault. */
function stop(error: unknown): never {
  if (error instanceof StartError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n\nSee docs/configuration.md.\n`)
  process.exit(1)
}

const config: Config = (() => {
  try {
    return parse(process.env)
  } catch (error) {
    return stop(error)
  }
})()
const servesDevnetRpc = config.rpcUrl === undefined && config.devnetRpcPort > 0
const devnetRpcHint = `set DEVNET_RPC_PORT to a free port (0 turns the devnet's JSON-RPC off), or RPC_URL=http://127.0.0.1:${config.devnetRpcPort} to use the devnet there`
// Before the slow part of the start: a second gateway on the same ports stops at once, before it opens DATA_DIR.
try {
  assertPortFree({ port: config.port, hostname: config.host, variable: 'PORT' })
  if (servesDevnetRpc)
    assertPortFree({
      port: config.devnetRpcPort,
      hostname: '127.0.0.1',
      variable: 'DEVNET_RPC_PORT',
      hint: devnetRpcHint,
    })
} catch (error) {
  stop(error)
}
const logger = stdout(config.logLevel)
const booted = await boot({ config, logger }).catch(stop)
const { gateway, devnet, terms } = booted

// The runner claims each tick in the shared store, so that one process runs it.
const runner = jobRunner({ store: booted.store, logger: gateway.metrics.observing(logger) })
gateway.metrics.gauge('gateway_job_queue_depth', 'Ticks of each background job running in this process now.', () =>
  booted.jobs.map((job) => [{ job: job.name }, runner.running().get(job.name) ?? 0]),
)
gateway.metrics.gauge(
  'gateway_queue_pending',
  'Items pending in each durable queue (webhook deliveries, cron runs, robot tasks), across every process.',
  async () => Object.entries(await booted.queue.pending()).map(([queue, count]) => [{ queue }, count]),
)
for (const job of booted.jobs)
  gateway.app.use(cron({ name: job.name, pattern: job.schedule, run: () => runner.tick(job) }))
// Queue workers poll the shared store; each due item goes to one process.
const workers = workerRunner({ queue: booted.queue, workers: booted.workers, logger })
workers.start()
let rpcServer: ReturnType<typeof Bun.serve> | undefined
try {
  // Without reusePort (Elysia turns it on): a second process on the same port must fail, not share it.
  bind({
    port: config.port,
    hostname: config.host,
    variable: 'PORT',
    start: () => gateway.app.listen({ port: config.port, hostname: config.host, reusePort: false }),
  })
  if (devnet && servesDevnetRpc)
    rpcServer = bind({
      port: config.devnetRpcPort,
      hostname: '127.0.0.1',
      variable: 'DEVNET_RPC_PORT',
      hint: devnetRpcHint,
      start: () =>
        Bun.serve({
          hostname: '127.0.0.1',
          port: config.devnetRpcPort,
          reusePort: false,
          fetch: (request) => devnet.handleJsonRpc(request),
        }),
    })
} catch (error) {
  await gateway.app.stop()
  await booted.close()
  stop(error)
}

logger.log('info', 'gateway_listening', {
  url: `http://${config.host}:${config.port}`,
  network: terms.network,
  asset: terms.asset.address,
  payTo: terms.payTo,
})

if (devnet)
  process.stdout.write(
    await devnetBanner({
      devnet,
      title: `Embedded devnet (chain id ${devnet.chainId}, network ${terms.network})`,
      rpcUrl: rpcServer ? `http://127.0.0.1:${rpcServer.port}` : undefined,
      journal: config.devnetPersist ? join(config.dataDir, 'devnet.journal') : undefined,
      lines: [`  payTo:     ${terms.payTo}`],
      hints: ['Fund any address: npm run fund -- <address> <usdc>', 'Pay for calls:    npm run demo'],
    }),
  )

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, async () => {
    await gateway.app.stop()
    rpcServer?.stop(true)
    await workers.stop()
    await booted.close()
    process.exit(0)
  })
