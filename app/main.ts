import { ConfigError, parse } from './config.js'
import { createGateway } from './gateway.js'
import { stdout } from './log.js'
import { terms } from './terms.js'

let config: ReturnType<typeof parse>
try {
  config = parse(process.env)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n\nSee the README's "Configuration" section.\n`)
  process.exit(1)
}

const logger = stdout(config.logLevel)
const gateway = createGateway({ config, terms: terms(config), logger })
gateway.app.listen({ port: config.port, hostname: config.host })
logger.log('info', 'gateway_listening', { url: `http://${config.host}:${config.port}`, network: config.network })

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, async () => {
    await gateway.app.stop()
    process.exit(0)
  })
