import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/core/http'
import postgresJs from 'postgres'
import { createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { english, generateMnemonic, generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import {
  account,
  authorizationSettlerAddress,
  contracts,
  mnemonic,
  multicall3Address,
} from '../../adapters/chain/devnet.js'
import { memory } from '../../adapters/ledger/memory.js'
import { postgres } from '../../adapters/store/postgres.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import { boot } from '../../app/boot.js'
import { clients } from '../../app/clients.js'
import { ConfigError, parse } from '../../app/config.js'
import { silent } from '../../app/log.js'
import { StartError } from '../../app/startup.js'
import { freePort, start } from '../support/processes.js'

const origin = 'http://gateway.test'

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'boot-'))
}

/** Boots and expects a refusal; resolves with the start error. */
async function refused(env: Record<string, string>): Promise<StartError> {
  const error = await boot({ config: parse(env), logger: silent() }).then(
    (booted) => booted.close().then(() => undefined),
    (error: unknown) => error,
  )
  expect(error).toBeInstanceOf(StartError)
  expect((error as StartError).message).not.toContain('\n')
  return error as StartError
}

describe('boot: records and their chain', () => {
  test('default: the first start records the genesis hash of its chain beside the records', async () => {
    const directory = dataDir()
    const booted = await boot({
      config: parse({ DATA_DIR: directory, DEVNET_RPC_PORT: '0', DEVNET_PERSIST: 'false' }),
      logger: silent(),
    })
    const genesis = (await booted.devnet!.publicClient.getBlock({ blockNumber: 0n })).hash
    expect((await booted.store.get<{ genesis: Hex; network: string }>('gateway', 'chain'))?.value).toEqual({
      genesis,
      network: 'eip155:84532',
    })
    await booted.close()
  })

  test('error: records of another chain refuse the start with one line', async () => {
    const directory = dataDir()
    const store = sqlite({ path: join(directory, 'store.sqlite') })
    const gone = `0x${'ab'.repeat(32)}`
    await store.insert({
      collection: 'gateway',
      id: 'chain',
      owners: [],
      value: { genesis: gone, network: 'eip155:84532' },
      createdAt: new Date(),
    })
    await store.close()

    const error = await refused({ DATA_DIR: directory, DEVNET_RPC_PORT: '0' })
    expect(error.code).toBe('records_of_other_chain')
    expect(error.message).toMatch(
      new RegExp(
        `^DATA_DIR ${directory} holds records of chain ${gone}, but the chain at the embedded devnet \\(${join(directory, 'devnet.journal')}\\) has genesis 0x[0-9a-f]{64}; restore the devnet journal that held it, or start with an empty DATA_DIR\\.$`,
      ),
    )
    // The refused start let go of the journal: the next start on the same folder gets it.
    const error2 = await refused({ DATA_DIR: directory, DEVNET_RPC_PORT: '0' })
    expect(error2.code).toBe('records_of_other_chain')
  })

  test('error: a second gateway on the same devnet journal is refused', async () => {
    const env = { DATA_DIR: dataDir(), DEVNET_RPC_PORT: '0' }
    const first = await boot({ config: parse(env), logger: silent() })
    const error = await refused(env)
    expect(error.code).toBe('devnet_in_use')
    expect(error.message).toContain(`is in use by process ${process.pid}`)
    await first.close()
  })

  test('error: an unreachable database is one line that names its host, never its password', async () => {
    const port = freePort()
    const error = await refused({
      DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/test`,
      DATA_DIR: dataDir(),
      DEVNET_RPC_PORT: '0',
    })
    expect(error.code).toBe('database_unreachable')
    expect(error.message).toBe(
      `The database at DATABASE_URL (127.0.0.1:${port}) is unreachable: ECONNREFUSED. Start PostgreSQL or fix DATABASE_URL.`,
    )
    expect(error.message).not.toContain('hunter2')
  })
})

const databaseUrl = process.env.DATABASE_URL

describe.if(databaseUrl !== undefined)('boot: records on PostgreSQL', () => {
  test('error: records of another chain in the database refuse the start', async () => {
    const schema = `boot_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
    const admin = postgresJs(databaseUrl!, { max: 1, onnotice: () => {} })
    await admin.unsafe(`CREATE SCHEMA ${schema}`)
    try {
      const url = `${databaseUrl}${databaseUrl!.includes('?') ? '&' : '?'}search_path=${schema}`
      const sql = postgresJs(url, { max: 1, onnotice: () => {} })
      const gone = `0x${'cd'.repeat(32)}`
      await postgres({ sql }).insert({
        collection: 'gateway',
        id: 'chain',
        owners: [],
        value: { genesis: gone },
        createdAt: new Date(),
      })
      await sql.end()
      const error = await refused({
        DATABASE_URL: url,
        DATA_DIR: dataDir(),
        DEVNET_RPC_PORT: '0',
        DEVNET_PERSIST: 'false',
      })
      expect(error.code).toBe('records_of_other_chain')
      expect(error.message).toStartWith(
        `DATABASE_URL (${new URL(databaseUrl!).host}) holds records of chain ${gone}, but the chain at the embedded devnet`,
      )
      expect(error.message).toEndWith(
        'set DEVNET_PERSIST=true so that the devnet keeps its chain, or start with another database.',
      )
    } finally {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    }
  })
})

describe('boot: RPC_URL on a devnet of npm run devnet', () => {
  let devnet: Awaited<ReturnType<typeof start>>
  let rpcUrl: string

  beforeAll(async () => {
    devnet = await start({
      script: 'app/devnet.ts',
      env: { DEVNET_RPC_PORT: String(freePort()), DATA_DIR: dataDir(), DEVNET_PERSIST: 'false' },
      ready: /Start a gateway on it: RPC_URL=(\S+)/,
    })
    rpcUrl = devnet.match[1]!
  })

  afterAll(async () => {
    await devnet?.stop()
  })

  test('default: the banner names the chain, its JSON-RPC, the token and the funded payers with their keys', () => {
    expect(devnet.stdout).toContain('Devnet (chain id 84532, network eip155:84532), in a process of its own')
    expect(devnet.stdout).toContain(`JSON-RPC:  ${rpcUrl}`)
    expect(devnet.stdout).toContain(`USDC:      ${contracts().token}`)
    expect(devnet.stdout).toContain(`Account #1: ${account({ index: 1 }).address} (10000 ETH, 1000000 USDC)`)
    expect(devnet.stdout).toContain(`Private Key: ${account({ index: 1 }).privateKey}`)
  })

  test('behavior: a gateway on NETWORK=eip155:84532 finds the contracts, relays with account #9 and settles a paid call', async () => {
    const booted = await boot({
      config: parse({ RPC_URL: rpcUrl, NETWORK: 'eip155:84532', DATA_DIR: dataDir() }),
      logger: silent(),
    })
    expect(booted.devnet).toBeUndefined()
    expect(booted.terms.asset.address).toBe(contracts().token)
    const chain = createPublicClient({ transport: http(rpcUrl) })
    const payer = privateKeyToAccount(account({ index: 3 }).privateKey)
    const balance = () =>
      chain.readContract({
        address: contracts().token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [payer.address],
      })
    const before = await balance()

    const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      booted.gateway.handle(new Request(input, init))) as typeof globalThis.fetch
    const response = await clients({ terms: booted.terms, fetch }).x402(payer)(`${origin}/api/v1/rpc/chains`)
    expect(response.status).toBe(200)
    const { transaction } = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    const receipt = await chain.getTransactionReceipt({ hash: transaction as Hex })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(account({ index: 9 }).address.toLowerCase() as Hex)
    expect(await balance()).toBeLessThan(before)
    await booted.close()
  })

  test("error: AUTHORIZATION_SETTLER with other code than this version's settler is refused; the settler itself is taken", async () => {
    const env = { RPC_URL: rpcUrl, NETWORK: 'eip155:84532' }
    // Multicall3 has code, but not the settler's: batches sent on a gas budget rely on its ItemStarved check.
    const error = await boot({
      config: parse({ ...env, DATA_DIR: dataDir(), AUTHORIZATION_SETTLER: multicall3Address }),
      logger: silent(),
    }).then(
      (booted) => booted.close().then(() => undefined),
      (error: unknown) => error,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toContain("is not this version's AuthorizationSettler")
    const booted = await boot({
      config: parse({ ...env, DATA_DIR: dataDir(), AUTHORIZATION_SETTLER: authorizationSettlerAddress }),
      logger: silent(),
    })
    await booted.close()
  })

  test("error: the devnet's own mnemonic as RELAYER_MNEMONIC is refused in one line: its slot 0 is the default payee", async () => {
    const error = await refused({
      RPC_URL: rpcUrl,
      NETWORK: 'eip155:84532',
      DATA_DIR: dataDir(),
      RELAYER_MNEMONIC: mnemonic,
    })
    expect(error.code).toBe('relayer_not_own')
    expect(error.message).toBe(
      `RELAYER_MNEMONIC's key for lease slot 0 (m/44'/60'/0'/0/0), ${account({ index: 0 }).address}, is the devnet's default payee (test account #0), which sends transactions of its own: their nonces would collide ("nonce too low"); set RELAYER_MNEMONIC to a mnemonic of the relayers' own (a new one; fund its keys with ETH for gas).`,
    )
  })

  test('error: a slot other than the one taken is checked too: with another PAY_TO, slot 1 of the devnet mnemonic is a payer the banner prints', async () => {
    const error = await refused({
      RPC_URL: rpcUrl,
      NETWORK: 'eip155:84532',
      DATA_DIR: dataDir(),
      RELAYER_MNEMONIC: mnemonic,
      PAY_TO: account({ index: 5 }).address,
    })
    expect(error.message).toStartWith(
      `RELAYER_MNEMONIC's key for lease slot 1 (m/44'/60'/0'/0/1), ${account({ index: 1 }).address}, is a payer the devnet banner prints (test account #1),`,
    )
  })

  test('error: PAY_TO at slot 31 of a mnemonic is refused; at slot 32, beyond the slots checked, it starts', async () => {
    const relayers = generateMnemonic(english)
    const at = (slot: number) => mnemonicToAccount(relayers, { addressIndex: slot }).address
    const env = { RPC_URL: rpcUrl, NETWORK: 'eip155:84532', RELAYER_MNEMONIC: relayers }
    const error = await refused({ ...env, DATA_DIR: dataDir(), PAY_TO: at(31) })
    expect(error.message).toStartWith(
      `RELAYER_MNEMONIC's key for lease slot 31 (m/44'/60'/0'/0/31), ${at(31)}, is the payee (PAY_TO),`,
    )
    const booted = await boot({ config: parse({ ...env, DATA_DIR: dataDir(), PAY_TO: at(32) }), logger: silent() })
    await booted.close()
  })

  test('error: the slot actually taken is checked, beyond the first 32: the 34th live process refuses a slot 33 that is the payee', async () => {
    const relayers = generateMnemonic(english)
    const payee = mnemonicToAccount(relayers, { addressIndex: 33 }).address
    const ledger = memory()
    for (let slot = 0; slot < 33; slot++)
      await ledger.acquire({
        id: `other-${slot}`,
        host: 'elsewhere',
        pid: slot + 1,
        heartbeatAt: new Date(),
        staleBefore: new Date(0),
      })
    const error = await boot({
      config: parse({
        RPC_URL: rpcUrl,
        NETWORK: 'eip155:84532',
        DATA_DIR: dataDir(),
        RELAYER_MNEMONIC: relayers,
        PAY_TO: payee,
      }),
      logger: silent(),
      ledger,
    }).then(
      (booted) => booted.close().then(() => undefined),
      (error: unknown) => error,
    )
    expect((error as StartError).code).toBe('relayer_not_own')
    expect((error as Error).message).toContain(`lease slot 33 (m/44'/60'/0'/0/33), ${payee}, is the payee (PAY_TO)`)
    // The refused start left no lease behind.
    expect((await ledger.leases()).map(({ slot }) => slot)).not.toContain(33)
  })

  test("error: RELAYER_PRIVATE_KEY whose address is PAY_TO is refused, and so is PAY_TO at a devnet relayer's address", async () => {
    const key = generatePrivateKey()
    const own = privateKeyToAccount(key).address
    const env = { RPC_URL: rpcUrl, NETWORK: 'eip155:84532' }
    expect((await refused({ ...env, DATA_DIR: dataDir(), RELAYER_PRIVATE_KEY: key, PAY_TO: own })).message).toStartWith(
      `RELAYER_PRIVATE_KEY's address, ${own}, is the payee (PAY_TO),`,
    )
    expect((await refused({ ...env, DATA_DIR: dataDir(), PAY_TO: account({ index: 8 }).address })).message).toBe(
      `The devnet relayer of lease slot 1 (test account #8), ${account({ index: 8 }).address}, is the payee (PAY_TO), which sends transactions of its own: their nonces would collide ("nonce too low"); set PAY_TO to another address.`,
    )
  })

  test('error: NETWORK and the chain id at RPC_URL differ', async () => {
    const error = await refused({ RPC_URL: rpcUrl, NETWORK: 'eip155:31337', DATA_DIR: dataDir() })
    expect(error.code).toBe('chain_mismatch')
    expect(error.message).toBe(
      `NETWORK is eip155:31337, but the chain at RPC_URL (${new URL(rpcUrl).host}) has chain id 84532: set NETWORK=eip155:84532 or point RPC_URL at a node of eip155:31337.`,
    )
  })
})

describe('boot: RPC_URL elsewhere', () => {
  test('error: a chain without the devnet contracts is refused on a network other than Base', async () => {
    const node = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        const { id, method } = (await request.json()) as { id: number; method: string }
        return Response.json({ jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x14a34' : '0x' })
      },
    })
    const port = node.port
    const error = await refused({ RPC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir() })
    node.stop(true)
    expect(error.code).toBe('devnet_contracts_missing')
    expect(error.message).toBe(
      `The chain at RPC_URL (127.0.0.1:${port}), chain id 84532, has no devnet token (DevUSDC) at ${contracts().token}: on eip155:84532 RPC_URL must be a devnet of \`npm run devnet\`; Base is NETWORK=eip155:8453.`,
    )
  })

  test('error: nothing answers at RPC_URL', async () => {
    const port = freePort()
    const error = await refused({ RPC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir() })
    expect(error.code).toBe('chain_unreachable')
    expect(error.message).toBe(
      `No chain answers at RPC_URL (127.0.0.1:${port}): ECONNREFUSED. Start it (\`npm run devnet\` for a devnet) or fix RPC_URL.`,
    )
  })
})
