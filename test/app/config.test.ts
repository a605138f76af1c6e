import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, parse, variables } from '../../app/config.js'
import { terms } from '../../app/terms.js'

describe('parse', () => {
  test('default: embedded defaults need no variable', () => {
    expect(parse({})).toEqual({
      port: 3402,
      host: '127.0.0.1',
      publicUrl: undefined,
      publicHosts: [],
      bodyLimitBytes: 1048576,
      network: 'eip155:84532',
      payTo: undefined,
      logLevel: 'info',
      rpcUrl: undefined,
      devnetRpcPort: 8545,
      devnetPersist: true,
      relayerPrivateKey: undefined,
      relayerMnemonic: undefined,
      settlementTimeoutMs: 15000,
      facilitatorUrl: undefined,
      settlementWindowMs: undefined,
      mppSecret: undefined,
      sessionSecret: undefined,
      databaseUrl: undefined,
      dataDir: '.data',
      chatUpstream: undefined,
      decentralizedUpstream: undefined,
      peaq: undefined,
      stellar: undefined,
      rippledUrl: undefined,
      outboundAllow: { hosts: [], networks: [] },
      modules: {
        free: { FREE_RATE_LIMIT_PER_MINUTE: 0 },
        ai: { CHAT_MAX_TOKENS: 1024 },
        decentralized: { DECENTRALIZED_MAX_TOKENS: 1024 },
      },
    })
  })

  test('error: a Horizon URL needs its network passphrase', () => {
    expect(() => parse({ HORIZON_URL: 'https://horizon.example' })).toThrow('STELLAR_NETWORK_PASSPHRASE is required')
  })

  test('error: a bad secret is named but never printed', () => {
    expect(() => parse({ RELAYER_PRIVATE_KEY: '0xdeadbeef-not-a-key' })).toThrow('RELAYER_PRIVATE_KEY=<redacted>')
    try {
      parse({ RELAYER_PRIVATE_KEY: '0xdeadbeef-not-a-key' })
    } catch (error) {
      expect((error as Error).message).not.toContain('deadbeef')
    }
  })

  test('behavior: converts and trims what it reads', () => {
    const config = parse({ PORT: '8080', PUBLIC_URL: 'https://pay.example/', BODY_LIMIT_BYTES: '2048' })
    expect(config.port).toBe(8080)
    expect(config.publicUrl).toBe('https://pay.example')
    expect(config.bodyLimitBytes).toBe(2048)
  })

  test('behavior: PUBLIC_HOSTS is a comma-separated list of host[:port], trimmed and lower-cased', () => {
    expect(parse({ PUBLIC_HOSTS: ' Pay.Example , pay.example:8443,[::1]:3402 ' }).publicHosts).toEqual(['pay.example', 'pay.example:8443', '[::1]:3402'])
  })

  test('error: a PUBLIC_HOSTS entry that is not a host[:port] is refused', () => {
    expect(() => parse({ PUBLIC_HOSTS: 'https://pay.example' })).toThrow('PUBLIC_HOSTS')
    expect(() => parse({ PUBLIC_HOSTS: 'pay.example/path' })).toThrow('PUBLIC_HOSTS')
  })

  test('error: names every bad variable in one message', () => {
    expect(() => parse({ PORT: 'abc', NETWORK: 'base', PAY_TO: '0x12' })).toThrow(ConfigError)
    try {
      parse({ PORT: 'abc', NETWORK: 'base', PAY_TO: '0x12' })
    } catch (error) {
      expect((error as Error).message).toContain('PORT="abc"')
      expect((error as Error).message).toContain('NETWORK="base"')
      expect((error as Error).message).toContain('PAY_TO="0x12"')
    }
  })

  test('behavior: the README documents every variable', () => {
    const readme = readFileSync(join(import.meta.dir, '../../README.md'), 'utf8')
    for (const variable of variables) expect(readme).toContain(`| \`${variable.name}\` |`)
  })

  test('behavior: the README lists no variable that no schema declares (gateway or module manifests)', () => {
    const readme = readFileSync(join(import.meta.dir, '../../README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1))
    const listed = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1])
    expect([...listed].sort()).toEqual(variables.map((variable) => variable.name).sort())
  })
})

describe('terms', () => {
  test('default: the devnet token and the first test account as payee', () => {
    const devnet = terms(parse({}))
    expect(devnet.network).toBe('eip155:84532')
    expect(devnet.payTo).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(devnet.asset).toEqual({ address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9', name: 'USD Coin', version: '2', decimals: 6 })
  })

  test('behavior: Base uses Circle USDC', () => {
    const base = terms(parse({ NETWORK: 'eip155:8453', PAY_TO: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }))
    expect(base.asset.address).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')
  })

  test('error: Base without PAY_TO refuses to start', () => {
    expect(() => terms(parse({ NETWORK: 'eip155:8453' }))).toThrow('PAY_TO is required')
  })
})
