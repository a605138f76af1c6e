import { describe, expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { arbitrum, avalanche, bsc, mainnet, optimism, polygon } from 'viem/chains'
import { ConfigError, documentedOperatorTokens, parse, variables } from '../../app/config.js'
import { check, configurationTable, end, path, withConfigurationTable } from '../../app/docs.js'
import { families } from '../../app/modules.js'
import { keyed } from '../../app/providers/shared.js'
import { solanaAssets } from '../../app/providers/solana-assets.js'
import { solanaMints } from '../../app/providers/solana-mints.js'
import { solanaPrices } from '../../app/providers/solana-prices.js'
import { solanaSwap } from '../../app/providers/solana-swap.js'
import { providers } from '../../app/providers.js'
import { terms } from '../../app/terms.js'
import * as Module from '../../core/Module.js'
import { allPages, page } from '../support/docs.js'
import { run } from '../support/processes.js'

describe('parse', () => {
  test('default: embedded defaults need no variable', () => {
    expect(parse({})).toEqual({
      port: 3402,
      host: '127.0.0.1',
      publicUrl: undefined,
      publicHosts: [],
      bodyLimitBytes: 1048576,
      iconUrl: undefined,
      network: 'eip155:84532',
      payTo: undefined,
      logLevel: 'info',
      rpcUrl: undefined,
      ethereumRpcUrl: mainnet.rpcUrls.default.http[0],
      devnetRpcPort: 8545,
      devnetPersist: true,
      relayerPrivateKey: undefined,
      relayerMnemonic: undefined,
      settlementTimeoutMs: 15000,
      channelAuthorizerPrivateKey: undefined,
      receiptPrivateKey: undefined,
      channelWithdrawDelayS: 86400,
      channelDepositMethod: 'eip3009',
      facilitatorUrl: undefined,
      // No node, fee payer or payee: no Solana offer; mainnet USDC once they are set.
      solanaPay: {
        rpcUrl: undefined,
        feePayerSecretKey: undefined,
        payTo: undefined,
        mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      },
      authorizationSettler: undefined,
      settlementWindowMs: undefined,
      mppSecret: undefined,
      sessionSecret: undefined,
      databaseUrl: undefined,
      dataDir: '.data',
      redisUrl: undefined,
      limits: {
        unpaidConcurrencyPerClient: 32,
        freeEndpointsPerMinute: 300,
        failedPaymentChecksPerMinute: 10,
        urlChecksPerMinute: 30,
      },
      operatorToken: undefined,
      mcp: { privateKey: undefined, maxPerCall: 100_000n, sessionBudget: 1_000_000n },
      modules: {
        free: { FREE_RATE_LIMIT_PER_MINUTE: 300 },
        dex: { DEX_RATE_LIMIT_PER_MINUTE: 60 },
        ai: { CHAT_MAX_TOKENS: 1024 },
        decentralized: { DECENTRALIZED_MAX_TOKENS: 1024 },
        // No free model is named: free chat answers 503 until FREE_CHAT_MODELS (and a chat upstream) are set.
        'free-chat': {
          FREE_CHAT_MAX_TOKENS: 256,
          FREE_CHAT_MAX_MESSAGES: 16,
          FREE_CHAT_MAX_CHARACTERS: 4_000,
          FREE_CHAT_PER_DAY: 50,
          FREE_CHAT_BURST: 5,
          FREE_CHAT_DAILY_BUDGET: 1_000,
        },
        compute: { COMPUTE_JOB_TIMEOUT_SECONDS: 1800 },
        gpu: { GPU_JOB_TIMEOUT_SECONDS: 1800 },
        'gpu-direct': {
          GPU_DIRECT_OPERATOR_SHARE_BPS: 10000,
          GPU_DIRECT_RATE_LIMIT_PER_MINUTE: 30,
          GPU_DIRECT_RUN_TIMEOUT_SECONDS: 120,
        },
        images: { IMAGES_MARGIN_PERCENT: 50, IMAGES_JOB_TIMEOUT_SECONDS: 1800 },
        // Keyless public nodes by default (viem's `rpcUrls.default`); `base` is the settlement chain unless set.
        chaindata: {
          CHAIN_RPC_ARBITRUM: arbitrum.rpcUrls.default.http[0],
          CHAIN_RPC_POLYGON: polygon.rpcUrls.default.http[0],
          CHAIN_RPC_OPTIMISM: optimism.rpcUrls.default.http[0],
          CHAIN_RPC_AVALANCHE: avalanche.rpcUrls.default.http[0],
          CHAIN_RPC_BSC: bsc.rpcUrls.default.http[0],
        },
        // The same nodes (one schema per variable, shared with chain-data).
        contract: {
          CHAIN_RPC_ARBITRUM: arbitrum.rpcUrls.default.http[0],
          CHAIN_RPC_POLYGON: polygon.rpcUrls.default.http[0],
          CHAIN_RPC_OPTIMISM: optimism.rpcUrls.default.http[0],
          CHAIN_RPC_AVALANCHE: avalanche.rpcUrls.default.http[0],
          CHAIN_RPC_BSC: bsc.rpcUrls.default.http[0],
        },
        wallet: { WALLET_CREATE_PER_MINUTE: 10, WALLET_MAX_PER_OWNER: 25 },
        // The timeouts are the relay's and the SMS API's too (one schema, read by the family and the provider).
        'notify-email': { NOTIFY_EMAIL_PER_PAYER_PER_HOUR: 60, NOTIFY_EMAIL_TIMEOUT_MS: 10_000 },
        'notify-sms': { NOTIFY_SMS_PER_PAYER_PER_HOUR: 60, NOTIFY_SMS_TIMEOUT_MS: 10_000 },
        msg: { MSG_KEYS_RATE_LIMIT_PER_MINUTE: 30 },
        robots: { ROBOTS_DEPOSIT_WINDOW_SECONDS: 3_600, ROBOTS_RATE_LIMIT_PER_MINUTE: 60 },
        'compute-futures': { FUTURES_CONFIRMATIONS: 1, FUTURES_SOLANA_COMMITMENT: 'finalized' },
        // No model is named, so the family answers 503; Base's explorer is the contract sources' too.
        inference: { INFERENCE_BLOCKSCOUT_URL: 'https://base.blockscout.com' },
        sctp: { SCTP_PRICE_TOLERANCE_BPS: 50 },
        // Keyless public APIs by default.
        bridge: { LIFI_API_URL: 'https://li.quest/v1', ACROSS_API_URL: 'https://app.across.to/api' },
        probe: {
          X402_CHECK_RATE_LIMIT_PER_MINUTE: 30,
          X402_CHECK_TIMEOUT_MS: 5_000,
          X402_CHECK_MAX_BYTES: 2 * 1024 * 1024,
        },
        // A public IPFS gateway for ipfs:// agentURIs.
        agentcard: { IPFS_GATEWAY_URL: 'https://ipfs.io' },
        storage: {
          STORAGE_MAX_BYTES_PER_PAYER: 104_857_600,
          STORAGE_MAX_OBJECT_BYTES: 1_048_576,
          STORAGE_MAX_PINS_PER_PAYER: 1000,
          STORAGE_MAX_READ_BYTES: 1_048_576,
          STORAGE_PROVIDER: 'embedded',
        },
        tax: { TAX_MAX_TRANSACTIONS: 10_000 },
        'search-qna': {},
        webhooks: {
          WEBHOOK_DISABLE_AFTER: 5,
          WEBHOOK_LEASE_MS: 90000,
          WEBHOOK_MAX_ATTEMPTS: 10,
          WEBHOOK_RETRY_BASE_MS: 5000,
          WEBHOOK_RETRY_MAX_MS: 3600000,
          WEBHOOK_TIMEOUT_MS: 10000,
        },
      },
      providers: {
        // Every private range refused.
        outbound: {},
        // No arbiter key: on a devnet the funded account #19 arbitrates; elsewhere the robots family is unavailable.
        escrowArbiter: {},
        // No peaq: batches with chain=peaq are refused.
        batch: {},
        // Read only when the gateway settles on Base; a devnet's history is indexed by the gateway itself.
        history: { BLOCKSCOUT_URL_BASE: 'https://base.blockscout.com' },
        holdings: {
          BLOCKSCOUT_URL_ARBITRUM: 'https://arbitrum.blockscout.com',
          BLOCKSCOUT_URL_BASE: 'https://base.blockscout.com',
          BLOCKSCOUT_URL_ETHEREUM: 'https://eth.blockscout.com',
          BLOCKSCOUT_URL_OPTIMISM: 'https://optimism.blockscout.com',
          BLOCKSCOUT_URL_POLYGON: 'https://polygon.blockscout.com',
        },
        // Keyed: image generation is unavailable until IMAGES_UPSTREAM_KEY (or Replicate's token) is set.
        images: { IMAGES_UPSTREAM_URL: 'https://api.openai.com/v1' },
        // Keyless public APIs by default.
        fxReference: { FX_REFERENCE_URL: 'https://api.frankfurter.dev/v1' },
        historicalPrices: {
          COINGECKO_API_URL: 'https://pro-api.coingecko.com/api/v3',
          DEFILLAMA_COINS_URL: 'https://coins.llama.fi',
        },
        // Jupiter's and Pyth's own URLs need a key, and DAS has no keyless default: all three unavailable; the node
        // the quotes read decimals from is Solana's keyless public one.
        solanaPrices: { HERMES_URL: 'https://hermes.pyth.network' },
        stellar: {},
        xrp: {},
        solanaSwap: { JUPITER_URL: 'https://api.jup.ag/swap/v1' },
        solanaMints: { SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com' },
        solanaAssets: {},
        // No operator key: on a devnet the funded account #17 takes deposits and sends refunds.
        futures: {},
        futuresSolana: { FUTURES_SOLANA_MINT: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
        chat: {},
        decentralized: {},
        computeUpstream: {},
        replicate: { REPLICATE_URL: 'https://api.replicate.com/v1' },
        compute: {},
        aggregator: { ZEROX_API_URL: 'https://api.0x.org' },
        intel: { GOPLUS_URL: 'https://api.gopluslabs.io' },
        dex: { DEXSCREENER_URL: 'https://api.dexscreener.com' },
        research: {
          OPENALEX_URL: 'https://api.openalex.org',
          CROSSREF_URL: 'https://api.crossref.org',
          ARXIV_URL: 'https://export.arxiv.org/api',
          ARXIV_INTERVAL_MS: 3_000,
          ARXIV_MAX_WAIT_MS: 10_000,
          BIORXIV_URL: 'https://api.biorxiv.org',
          NCBI_EUTILS_URL: 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils',
          PUBCHEM_URL: 'https://pubchem.ncbi.nlm.nih.gov/rest/pug',
          CENSUS_URL: 'https://api.census.gov/data',
          DATASETS_URL: 'https://catalog.data.gov/api/3',
          DICTIONARY_URL: 'https://api.dictionaryapi.dev/api/v2',
        },
        predictionMarkets: {
          POLYMARKET_GAMMA_URL: 'https://gamma-api.polymarket.com',
          POLYMARKET_CLOB_URL: 'https://clob.polymarket.com',
          POLYMARKET_DATA_URL: 'https://data-api.polymarket.com',
        },
        // No Finnhub key: Yahoo Finance's keyless endpoints serve the stocks family.
        stocks: {
          STOCKS_SOURCE: 'auto',
          FINNHUB_URL: 'https://finnhub.io/api/v1',
          FINNHUB_CALLS_PER_MINUTE: 60,
          YAHOO_FINANCE_URL: 'https://query1.finance.yahoo.com',
        },
        // Keyed: web search (and so qna) is unavailable until the engine's key is set.
        webSearch: {
          SEARCH_ENGINE: 'tavily',
          TAVILY_URL: 'https://api.tavily.com',
          BRAVE_SEARCH_URL: 'https://api.search.brave.com/res/v1',
          EXA_URL: 'https://api.exa.ai',
        },
        extractor: { EXTRACT_TIMEOUT_MS: 10_000, EXTRACT_MAX_BYTES: 2 * 1024 * 1024, EXTRACT_MAX_CHARS: 50_000 },
        // Keyless public verification services by default (never asked on a devnet).
        contractSources: {
          INFERENCE_SOURCIFY_URL: 'https://sourcify.dev/server',
          INFERENCE_BLOCKSCOUT_URL: 'https://base.blockscout.com',
        },
        // Phantom's API, unused until its organization, app and key are set.
        custodian: { PHANTOM_WALLET_API_URL: 'https://api.phantom.app/v1/wallets' },
        storage: {
          PINATA_API_URL: 'https://api.pinata.cloud/v3',
          PINATA_UPLOAD_URL: 'https://uploads.pinata.cloud/v3',
        },
        // No relay and no SMS account: email and SMS are unavailable until they are set.
        mailer: { NOTIFY_EMAIL_TIMEOUT_MS: 10_000 },
        texter: { NOTIFY_TWILIO_URL: 'https://api.twilio.com', NOTIFY_SMS_TIMEOUT_MS: 10_000 },
      },
    })
  })

  test('behavior: a Solana vendor is configured by its key, or by a URL of its own that needs none', async () => {
    const solana = [solanaSwap, solanaMints, solanaAssets, solanaPrices]
    /** Which of the Solana ports the providers build on `env`, and the slices they read. */
    const built = async (env: Record<string, string>) => {
      const config = parse(env)
      const ports = await Promise.all(
        solana.map((provider) =>
          provider.build({ env: config.providers[provider.port] as never, shared: undefined as never, ports: {} }),
        ),
      )
      return {
        built: Object.fromEntries(solana.map((provider, index) => [provider.port, ports[index] !== undefined])),
        slices: Object.fromEntries(solana.map((provider) => [provider.port, config.providers[provider.port]])),
      }
    }
    // Jupiter's and Pyth's own URLs need a key, and DAS has no keyless default: all three unavailable.
    expect((await built({})).built).toEqual({
      solanaSwap: false,
      solanaMints: true,
      solanaAssets: false,
      solanaPrices: false,
    })
    expect(await built({ JUPITER_API_KEY: 'jup', HELIUS_API_KEY: 'hel', PYTH_API_KEY: 'pyth' })).toEqual({
      built: { solanaSwap: true, solanaMints: true, solanaAssets: true, solanaPrices: true },
      slices: {
        solanaSwap: { JUPITER_URL: 'https://api.jup.ag/swap/v1', JUPITER_API_KEY: 'jup' },
        solanaMints: { SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com' },
        solanaAssets: { HELIUS_API_KEY: 'hel' },
        solanaPrices: { HERMES_URL: 'https://hermes.pyth.network', PYTH_API_KEY: 'pyth' },
      },
    })
    expect(
      await built({
        JUPITER_URL: 'http://jupiter.local',
        SOLANA_RPC_URL: 'http://solana.local',
        DAS_URL: 'http://das.local',
        HERMES_URL: 'http://hermes.local',
      }),
    ).toEqual({
      built: { solanaSwap: true, solanaMints: true, solanaAssets: true, solanaPrices: true },
      slices: {
        solanaSwap: { JUPITER_URL: 'http://jupiter.local' },
        solanaMints: { SOLANA_RPC_URL: 'http://solana.local' },
        solanaAssets: { DAS_URL: 'http://das.local' },
        solanaPrices: { HERMES_URL: 'http://hermes.local' },
      },
    })
    expect(keyed('https://api.jup.ag/swap/v1', 'jup', 'https://api.jup.ag/swap/v1')).toEqual({
      url: 'https://api.jup.ag/swap/v1',
      key: 'jup',
    })
    expect(keyed('http://jupiter.local', undefined, 'https://api.jup.ag/swap/v1')).toEqual({
      url: 'http://jupiter.local',
      key: undefined,
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
    expect(parse({ PUBLIC_HOSTS: ' Pay.Example , pay.example:8443,[::1]:3402 ' }).publicHosts).toEqual([
      'pay.example',
      'pay.example:8443',
      '[::1]:3402',
    ])
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
})

describe('OPERATOR_TOKEN', () => {
  test('behavior: a token of 32 characters or more that no doc prints is the operator token', () => {
    expect(parse({ OPERATOR_TOKEN: 'k'.repeat(32) }).operatorToken).toBe('k'.repeat(32))
  })

  test('error: a token shorter than 32 characters is refused in one line that does not repeat it', () => {
    const short = 'k'.repeat(31)
    expect(() => parse({ OPERATOR_TOKEN: short })).toThrow(
      new ConfigError(
        'OPERATOR_TOKEN is shorter than 32 characters: set a token of your own, e.g. OPERATOR_TOKEN=$(openssl rand -hex 32).',
      ),
    )
    expect(() => parse({ OPERATOR_TOKEN: '' })).toThrow('OPERATOR_TOKEN is shorter than 32 characters')
  })

  test('error: every token printed in the docs is refused, whatever its length', () => {
    expect(documentedOperatorTokens).toContain('change-me-operator-token')
    for (const token of documentedOperatorTokens)
      expect(() => parse({ OPERATOR_TOKEN: token })).toThrow(
        'OPERATOR_TOKEN is an example printed in the docs, which anyone may hold',
      )
  })

  test("error: every literal OPERATOR_TOKEN= example in the README and docs/ is refused (a new one must join the docs' list)", () => {
    const examples = [...allPages.matchAll(/OPERATOR_TOKEN=(\S+)/g)].map((match) => match[1]!)
    // The walkthrough's own: a command that makes a token, not a token.
    expect(examples).toContain('$(openssl')
    for (const example of examples.filter((value) => !value.startsWith('$') && !value.startsWith('<')))
      expect(() => parse({ OPERATOR_TOKEN: example })).toThrow(ConfigError)
  })

  test('error: a start with the docs token exits 1 with the reason on its first line, no stack', async () => {
    const { exitCode, stdout, stderr } = await run({
      script: 'app/main.ts',
      env: { OPERATOR_TOKEN: 'change-me-operator-token', DEVNET_RPC_PORT: '0', PORT: '0' },
    })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.split('\n')[0]).toBe(
      'OPERATOR_TOKEN is an example printed in the docs, which anyone may hold: set a token of your own, e.g. OPERATOR_TOKEN=$(openssl rand -hex 32).',
    )
    expect(stderr).not.toContain('    at ')
  })
})

describe('configurationTable', () => {
  const configuration = page(path)

  test("default: docs/configuration.md's table is the one the schemas generate (else run `npm run docs`)", () => {
    const problem = check(configuration)
    if (problem !== undefined) throw new Error(problem)
  })

  test('behavior: one row per variable of the gateway, every provider and every family, in this order and list order', () => {
    const table = configurationTable()
    const listed = [...table.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1])
    expect(listed).toEqual(variables.map((variable) => variable.name))
    expect(new Set(listed).size).toBe(listed.length)
    const titles = [...table.matchAll(/^\*\*(.+?)\*\*/gm)].map((match) => match[1])
    // A slice whose every variable an earlier one declared (the same schema) has no section of its own.
    const declared = new Set<string>()
    const declares = (env: unknown) => {
      const fresh = Object.keys((env as { properties?: object } | undefined)?.properties ?? {}).filter(
        (name) => !declared.has(name),
      )
      for (const name of fresh) declared.add(name)
      return fresh.length > 0
    }
    expect(titles).toEqual([
      'Gateway',
      ...providers.filter((provider) => declares(provider.env)).map((provider) => `\`${provider.port}\` port`),
      ...families.filter((family) => declares(family.env)).map((family) => `\`${family.name}\` family`),
    ])
  })

  test('behavior: a secret is marked "never logged" from its schema flag, and the default text wins over the default', () => {
    const table = configurationTable()
    for (const variable of variables) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${variable.name}\` |`))!
      expect(row.endsWith('; never logged |')).toBe(variable.secret)
    }
    expect(table).toContain('| `MPP_SECRET` | random per start on the devnet | HMAC key that binds MPP challenge ids;')
    expect(table).toContain('| `PORT` | `3402` | TCP port of the HTTP server |')
    expect(table).toContain('| `RELAYER_MNEMONIC` | none |')
  })

  test("error: editing docs/configuration.md's table alone fails, naming the page, the line and `npm run docs`", () => {
    const edited = configuration.replace('| TCP port of the HTTP server |', '| TCP port |')
    expect(check(edited)).toContain('run `npm run docs`')
    expect(check(edited)).toContain('| `PORT` | `3402` | TCP port |')
    expect(check(edited)).toContain(`of ${path}:`)
  })

  test('error: changing a schema alone fails', () => {
    const extra = Module.define({
      name: 'extra',
      paths: ['/extra/'],
      needs: [],
      env: Type.Object({ EXTRA_LIMIT: Type.Integer({ default: 1, description: 'an extra limit' }) }),
      routes: () => undefined,
    })
    expect(check(configuration, [...families, extra])).toContain('run `npm run docs`')
    expect(withConfigurationTable(configuration, [...families, extra])).toContain(
      '| `EXTRA_LIMIT` | `1` | an extra limit |',
    )
  })

  test('error: a page without the markers is refused, naming it', () => {
    expect(() => withConfigurationTable('# nothing')).toThrow(end)
    expect(() => withConfigurationTable('# nothing')).toThrow(`${path} needs the lines`)
  })
})

describe('terms', () => {
  test('default: the devnet token and the first test account as payee', () => {
    const devnet = terms(parse({}))
    expect(devnet.network).toBe('eip155:84532')
    expect(devnet.payTo).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(devnet.asset).toEqual({
      address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
      name: 'USD Coin',
      version: '2',
      decimals: 6,
    })
  })

  test('behavior: Base uses Circle USDC', () => {
    const base = terms(parse({ NETWORK: 'eip155:8453', PAY_TO: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }))
    expect(base.asset.address).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')
  })

  test('error: Base without PAY_TO refuses to start', () => {
    expect(() => terms(parse({ NETWORK: 'eip155:8453' }))).toThrow('PAY_TO is required')
  })
})
