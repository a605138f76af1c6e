import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RedisClient } from 'bun'
import postgresJs from 'postgres'
import { type Server, startGateways } from '../../bench/processes.js'
import { redisUrl } from '../support/backends.js'
import { servedDevnet } from '../support/chain.js'

// Three gateway processes on one shared engine, as the README configures them: a client's free-endpoint allowance is
// the same however its calls are spread over the processes (each process alone would admit it whole: 60 of 90).

const databaseUrl = process.env.DATABASE_URL
const perMinute = 20
const calls = 90
let chain: Awaited<ReturnType<typeof servedDevnet>> | undefined

/** An engine the processes share, and what it takes to start them on it (made in the test, not while collecting). */
const engines = [
  {
    name: 'Redis',
    skip: redisUrl === undefined,
    async open() {
      // Every client of this machine is one (loopback): a run within a minute of another must start with a full bucket.
      const client = new RedisClient(redisUrl)
      await client.connect()
      await client.send('DEL', ['limit:free loopback'])
      client.close()
      return {
        env: { REDIS_URL: redisUrl!, DATA_DIR: mkdtempSync(join(tmpdir(), 'limits-')) },
        teardown: async () => {},
      }
    },
  },
  {
    name: 'PostgreSQL',
    skip: databaseUrl === undefined,
    async open() {
      const schema = `limits_test_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`
      const admin = postgresJs(databaseUrl!, { max: 1, onnotice: () => {} })
      await admin.unsafe(`CREATE SCHEMA ${schema}`)
      return {
        env: {
          DATABASE_URL: `${databaseUrl}${databaseUrl!.includes('?') ? '&' : '?'}search_path=${schema}`,
          DATA_DIR: mkdtempSync(join(tmpdir(), 'limits-')),
        },
        teardown: async () => {
          await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`)
          await admin.end()
        },
      }
    },
  },
]

beforeAll(async () => {
  if (engines.some((engine) => !engine.skip)) chain = await servedDevnet()
})
afterAll(async () => {
  await chain?.close()
})

describe.each(engines)('three gateway processes sharing limits on $name', ({ skip, open }) => {
  test.skipIf(skip)(
    `behavior: with a limit of ${perMinute} a minute, ${calls} free calls spread over the three let exactly ${perMinute} through`,
    async () => {
      const { env: engineEnv, teardown } = await open()
      const env = {
        RPC_URL: chain!.url,
        NETWORK: 'eip155:84532',
        LOG_LEVEL: 'warn',
        FREE_RATE_LIMIT_PER_MINUTE: String(perMinute),
        ...engineEnv,
      }
      const gateways: Server[] = []
      try {
        gateways.push(...(await startGateways({ names: ['first', 'second', 'third'], env, readyPath: '/' })))
        const statuses: number[] = []
        // Three at a time, one to each process.
        for (let round = 0; round < calls / 3; round++)
          statuses.push(
            ...(await Promise.all(
              gateways.map(async (gateway) => {
                const response = await fetch(`${gateway.origin}/free/timestamp`)
                await response.arrayBuffer()
                return response.status
              }),
            )),
          )
        const through = statuses.filter((status) => status === 200).length
        expect(through).toBe(perMinute)
        expect(statuses.filter((status) => status === 429)).toHaveLength(calls - perMinute)
      } finally {
        for (const gateway of gateways) await gateway.stop()
        await teardown()
      }
    },
    120_000,
  )
})
