import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import postgresJs from 'postgres'
import { postgres } from '../../adapters/store/postgres.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import { boot } from '../../app/boot.js'
import { parse } from '../../app/config.js'
import { silent } from '../../app/log.js'
import { StartError } from '../../app/startup.js'
import { freePort } from '../support/processes.js'

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
    const booted = await boot({ config: parse({ DATA_DIR: directory, DEVNET_RPC_PORT: '0', DEVNET_PERSIST: 'false' }), logger: silent() })
    const genesis = (await booted.devnet!.publicClient.getBlock({ blockNumber: 0n })).hash
    expect((await booted.store.get<{ genesis: Hex; network: string }>('gateway', 'chain'))?.value).toEqual({ genesis, network: 'eip155:84532' })
    await booted.close()
  })

  test('error: records of another chain refuse the start with one line', async () => {
    const directory = dataDir()
    const store = sqlite({ path: join(directory, 'store.sqlite') })
    const gone = `0x${'ab'.repeat(32)}`
    await store.insert({ collection: 'gateway', id: 'chain', owners: [], value: { genesis: gone, network: 'eip155:84532' }, createdAt: new Date() })
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
    const error = await refused({ DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/test`, DATA_DIR: dataDir(), DEVNET_RPC_PORT: '0' })
    expect(error.code).toBe('database_unreachable')
    expect(error.message).toBe(`The database at DATABASE_URL (127.0.0.1:${port}) is unreachable: ECONNREFUSED. Start PostgreSQL or fix DATABASE_URL.`)
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
      await postgres({ sql }).insert({ collection: 'gateway', id: 'chain', owners: [], value: { genesis: gone }, createdAt: new Date() })
      await sql.end()
      const error = await refused({ DATABASE_URL: url, DATA_DIR: dataDir(), DEVNET_RPC_PORT: '0', DEVNET_PERSIST: 'false' })
      expect(error.code).toBe('records_of_other_chain')
      expect(error.message).toStartWith(`DATABASE_URL (${new URL(databaseUrl!).host}) holds records of chain ${gone}, but the chain at the embedded devnet`)
      expect(error.message).toEndWith('set DEVNET_PERSIST=true so that the devnet keeps its chain, or start with another database.')
    } finally {
      await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
      await admin.end()
    }
  })
})
