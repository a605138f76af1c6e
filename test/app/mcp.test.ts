import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { type CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { privateKeyToAccount } from 'viem/accounts'
import { account } from '../../adapters/chain/devnet.js'
import { mcpServer, type Receipt } from '../../app/mcp.js'
import { manifest as freeFamily } from '../../modules/free/index.js'
import { testGateway } from '../support/gateway.js'
import { origin, paidGateway } from '../support/paid.js'

const token = 'operator-token-for-tests-0001-0123456789'
// Devnet account #1 is funded with USDC at genesis; it is the MCP server's wallet.
const wallet = account({ index: 1 })
const payer = privateKeyToAccount(wallet.privateKey)

let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({
    env: {
      OPERATOR_TOKEN: token,
      MCP_PRIVATE_KEY: wallet.privateKey,
      MCP_MAX_PER_CALL: '0.01',
      // Room for one $0.001 call and not two.
      MCP_SESSION_BUDGET: '0.0015',
    },
  })
})
afterAll(async () => {
  await gateway?.close()
})

/** An SDK client on the gateway's `/mcp`, in process, with the operator's bearer (or none: `null`). */
async function connect(bearer: string | null = token): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      fetch: gateway.fetch,
      requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
    }),
  )
  return client
}

/** The first message of a session. */
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}

/** Posts one JSON-RPC message to `/mcp` as a client without the SDK would, with `headers` (no bearer unless given). */
const raw = (message: object, headers: Record<string, string> = {}) =>
  gateway.fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify(message),
  })

/** Calls a tool. */
const call = (client: Client, name: string, input: Record<string, unknown>) =>
  client.callTool({ name, arguments: input }) as Promise<CallToolResult>

const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n')

describe('MCP over streamable HTTP at /mcp', () => {
  test('behavior: every available catalog entry is a tool with its schema and price; unavailable ones are not offered', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    const chains = tools.find((tool) => tool.name === 'getApiV1RpcChains')!
    expect(chains.title).toBe('GET /api/v1/rpc/chains')
    expect(chains.description).toContain('Price: $0.001000 USDC per call, paid with x402.')
    const call = tools.find((tool) => tool.name === 'postApiV1RpcCall')!
    expect(call.inputSchema.required).toEqual(['body'])
    expect(Object.keys((call.inputSchema.properties as { body: { properties: object } }).body.properties)).toContain(
      'method',
    )
    expect(tools.find((tool) => tool.name === 'getFreeUuid')!.description).toContain('Price: free.')
    // No chat upstream is configured on this gateway: the AI endpoints are unavailable, so they are no tools.
    expect(tools.some((tool) => tool.name === 'postApiV1ChatCompletions')).toBe(false)
    const manifest = (await (await gateway.fetch(`${origin}/.well-known/x402.json`)).json()) as {
      resources: { available: boolean }[]
      free: { available: boolean }[]
    }
    expect(tools.length).toBe([...manifest.resources, ...manifest.free].filter((entry) => entry.available).length)
    await client.close()
  })

  test('behavior: a free tool answers and costs nothing; a paid tool costs exactly its price and returns the receipt', async () => {
    const client = await connect()
    const before = await gateway.balance(payer.address)
    const free = await call(client, 'getFreeUuid', {})
    expect(free.isError).toBe(false)
    expect((free.structuredContent as { status: number }).status).toBe(200)
    expect(await gateway.balance(payer.address)).toBe(before)

    const paid = await call(client, 'getApiV1RpcChains', {})
    expect(paid.isError).toBe(false)
    const { status, body, receipt } = paid.structuredContent as { status: number; body: unknown; receipt: Receipt }
    expect(status).toBe(200)
    expect(body).toMatchObject({ chains: [{ name: 'devnet' }] })
    expect(receipt).toMatchObject({ amount: '1000', amountUsd: '0.001000', payer: payer.address })
    expect(textOf(paid)).toContain(`receipt: ${JSON.stringify(receipt)}`)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    const mined = await gateway.devnet.publicClient.getTransactionReceipt({
      hash: receipt.transaction as `0x${string}`,
    })
    expect(mined.status).toBe('success')

    // The budget ($0.0015) has room for one such call, not two: the second is refused before anything is signed.
    const refused = await call(client, 'getApiV1RpcChains', {})
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain('this session has spent $0.001000 of its $0.001500 budget; nothing was signed.')
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    await client.close()
  })

  test('behavior: each session has its own budget', async () => {
    const client = await connect()
    const before = await gateway.balance(payer.address)
    const paid = await call(client, 'getApiV1RpcChains', {})
    expect(paid.isError).toBe(false)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    await client.close()
  })

  test('security: a session opened without the operator bearer gets the free tools but never the wallet', async () => {
    const client = await connect(null)
    const before = await gateway.balance(payer.address)
    const free = await call(client, 'getFreeTimestamp', {})
    expect(free.isError).toBe(false)
    const paid = await call(client, 'getApiV1RpcChains', {})
    expect(textOf(paid)).toContain('has no wallet')
    expect(paid.isError).toBe(true)
    expect(await gateway.balance(payer.address)).toBe(before)
    await client.close()
  })

  test('security: the session id without the operator bearer is refused, spends nothing and closes nothing', async () => {
    const client = await connect()
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!
    const before = await gateway.balance(payer.address)
    for (const authorization of [undefined, 'Bearer operator-token-for-tests-0001-0123456780']) {
      const paid = await raw(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'getApiV1RpcChains', arguments: {} } },
        { 'mcp-session-id': sessionId, ...(authorization ? { authorization } : {}) },
      )
      expect(paid.status).toBe(401)
      await paid.text()
      const closing = await gateway.fetch(`${origin}/mcp`, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessionId },
      })
      expect(closing.status).toBe(401)
    }
    expect(await gateway.balance(payer.address)).toBe(before)
    // The operator's own requests, with the bearer, still pay from the session's whole budget.
    expect((await call(client, 'getApiV1RpcChains', {})).isError).toBe(false)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    await client.close()
  })

  test("security: 120 sessions opened without the bearer close none of the operator's, and at most 8 of theirs stay", async () => {
    const client = await connect()
    const opened: string[] = []
    for (let index = 0; index < 120; index++) {
      const response = await raw(initialize)
      expect(response.status).toBe(200)
      await response.text()
      opened.push(response.headers.get('mcp-session-id')!)
    }
    const listed = async (sessionId: string) => {
      const response = await raw({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId })
      await response.text()
      return response.status
    }
    expect(await listed(opened[0]!)).toBe(404)
    expect(await listed(opened.at(-9)!)).toBe(404)
    for (const sessionId of opened.slice(-8)) expect(await listed(sessionId)).toBe(200)
    const before = await gateway.balance(payer.address)
    expect((await call(client, 'getApiV1RpcChains', {})).isError).toBe(false)
    expect(await gateway.balance(payer.address)).toBe(before - 1000n)
    await client.close()
  })

  test('error: a call above the per-call cap is refused before anything is signed', async () => {
    const { server } = mcpServer({
      gateway: origin,
      fetch: gateway.fetch,
      payer,
      maxPerCall: 500n,
      sessionBudget: 1_000_000n,
      refreshMs: 0,
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(clientSide)
    const before = await gateway.balance(payer.address)
    const refused = await call(client, 'getApiV1RpcChains', {})
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toBe(
      'GET /api/v1/rpc/chains asks $0.001000, above the per-call cap of $0.000500; nothing was signed.',
    )
    expect(await gateway.balance(payer.address)).toBe(before)
    await client.close()
  })

  test('error: bad input is the gateway’s 400, charged nothing', async () => {
    const client = await connect()
    const before = await gateway.balance(payer.address)
    const bad = await call(client, 'postApiV1RpcCall', { body: { chain: 'devnet' } })
    expect(bad.isError).toBe(true)
    expect((bad.structuredContent as { status: number }).status).toBe(400)
    expect(await gateway.balance(payer.address)).toBe(before)
    await client.close()
  })
})

describe('MCP over stdio (npm run mcp)', () => {
  test('behavior: lists the tools of a gateway at GATEWAY_URL and calls a free one', async () => {
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => gateway.gateway.handle(request) })
    try {
      const client = new Client({ name: 'test', version: '1.0.0' })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ['app/mcp-stdio.ts'],
          env: { PATH: process.env.PATH ?? '', GATEWAY_URL: `http://127.0.0.1:${server.port}` },
          stderr: 'ignore',
        }),
      )
      const { tools } = await client.listTools()
      expect(tools.some((tool) => tool.name === 'getApiV1RpcChains')).toBe(true)
      const result = await call(client, 'getFreeTimestamp', {})
      expect(result.isError).toBe(false)
      // No MCP_PRIVATE_KEY in its environment: paid tools are refused before anything is signed.
      const paid = await call(client, 'getApiV1RpcChains', {})
      expect(textOf(paid)).toContain('set MCP_PRIVATE_KEY')
      await client.close()
    } finally {
      server.stop(true)
    }
    // A process of its own: Bun starts and loads the SDK, more than the default 5 s on a busy machine.
  }, 30_000)
})

describe('tools/list_changed', () => {
  test('behavior: when an entry becomes unavailable the server says so and stops offering it', async () => {
    let down = false
    const family = { ...freeFamily, ready: () => (down ? 'switched off by the test.' : undefined) }
    const local = testGateway({ families: [family] })
    const { server, refresh } = mcpServer({
      gateway: 'http://gateway.test',
      fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
        local.handle(new Request(input, init))) as typeof globalThis.fetch,
      payer: undefined,
      maxPerCall: 0n,
      sessionBudget: 0n,
      refreshMs: 0,
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'test', version: '1.0.0' })
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    await client.connect(clientSide)
    expect((await client.listTools()).tools.some((tool) => tool.name === 'getFreeUuid')).toBe(true)
    await refresh()
    expect(changed).toBe(0)
    down = true
    await refresh()
    // The notification travels through the transport; it is delivered once the event loop turns.
    await Bun.sleep(0)
    expect(changed).toBe(1)
    expect((await client.listTools()).tools.some((tool) => tool.name === 'getFreeUuid')).toBe(false)
    await client.close()
  })
})
