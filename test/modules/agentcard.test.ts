import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createWalletClient, type PublicClient } from 'viem'
import { agentIdentityRegistry, registerAgent } from '../../adapters/chain/agents.js'
import { contracts } from '../../adapters/chain/devnet.js'
import * as AgentRegistry from '../../core/AgentRegistry.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
let files: ReturnType<typeof Bun.serve>
/** Paths the local file server was asked for, in order. */
const served: string[] = []

const agentRegistry = () => `eip155:${gateway.devnet.chainId}:${gateway.devnet.agentRegistry}`

/** A registration file of the ERC-8004 shape naming `agentId` in the devnet's registry. */
const goodFile = (agentId: bigint | number) => ({
  type: AgentRegistry.registrationType,
  name: 'Weather bot',
  description: 'Answers forecasts for a fee.',
  image: 'https://example.com/bot.png',
  services: [
    { name: 'A2A', endpoint: 'https://bot.example.com/.well-known/agent-card.json', version: '0.3.0' },
    { name: 'web', endpoint: 'https://bot.example.com/' },
  ],
  x402Support: true,
  active: true,
  registrations: [{ agentId: Number(agentId), agentRegistry: agentRegistry() }],
  supportedTrust: ['reputation'],
})

/** The bodies the local server answers, by path; filled as agents are registered. */
const bodies = new Map<string, string>()

/** Registers an agent owned by mnemonic account `index`, pointing at `agentURI`; its agentId. */
async function register(index: number, agentURI: string): Promise<bigint> {
  const { devnet } = gateway
  const wallet = createWalletClient({
    account: gateway.account(index),
    chain: devnet.chain,
    transport: devnet.transport,
  })
  return registerAgent({
    client: devnet.publicClient as PublicClient,
    wallet,
    registry: devnet.agentRegistry,
    agentURI,
  })
}

const card = (query: string) => gateway.fetch(`${origin}/free/agent-card?${query}`)

beforeAll(async () => {
  // Bound on every interface: a guard-refused URL (127.0.0.2) would reach it, so "not fetched" is a real check.
  files = Bun.serve({
    hostname: '0.0.0.0',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname
      served.push(path)
      const body = bodies.get(path)
      return body === undefined
        ? new Response('not here', { status: 404 })
        : new Response(body, { headers: { 'content-type': 'application/json' } })
    },
  })
  gateway = await paidGateway({
    env: { OUTBOUND_ALLOW: '127.0.0.1', IPFS_GATEWAY_URL: `http://127.0.0.1:${files.port}/` },
  })
})
afterAll(async () => {
  await gateway.close()
  files.stop(true)
})

describe('devnet deployment', () => {
  test('default: the core registry names the devnet contract, deployed there', async () => {
    expect(AgentRegistry.devnet.address).toBe(contracts().agentRegistry)
    expect(gateway.devnet.agentRegistry).toBe(AgentRegistry.devnet.address)
    const code = await gateway.devnet.publicClient.getCode({ address: gateway.devnet.agentRegistry })
    expect(code?.length).toBeGreaterThan(2)
  })
})

describe('GET /free/agent-card by agentId', () => {
  test('behavior: an agent registered on the devnet answers its owner, URI, wallet and a valid file from a local server', async () => {
    const owner = gateway.account(1).address
    const uri = `http://127.0.0.1:${files.port}/agents/good.json`
    const agentId = await register(1, uri)
    bodies.set('/agents/good.json', JSON.stringify(goodFile(agentId)))
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.agentId).toBe(agentId.toString())
    expect(body.owner).toBe(owner)
    expect(body.agentWallet).toBe(owner)
    expect(body.tokenURI).toBe(uri)
    expect(body.agentRegistry).toBe(agentRegistry())
    expect(body.registry).toEqual({
      chainId: gateway.devnet.chainId,
      address: gateway.devnet.agentRegistry,
      source: 'devnet',
    })
    expect(body.registration.status).toBe('valid')
    expect(body.registration.problems).toEqual([])
    expect(body.registration.fetchedFrom).toBe(uri)
    expect(body.registration.file.name).toBe('Weather bot')
  })

  test('behavior: a malformed file is reported with each problem, never a crash', async () => {
    const agentId = await register(2, `http://127.0.0.1:${files.port}/agents/bad.json`)
    bodies.set(
      '/agents/bad.json',
      JSON.stringify({
        type: 'https://example.com/not-8004',
        description: 42,
        services: [{ name: 'MCP' }, 'https://x.example'],
        active: 'yes',
        registrations: [{ agentId: Number(agentId) + 1, agentRegistry: agentRegistry() }],
        supportedTrust: 'reputation',
      }),
    )
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration.status).toBe('invalid')
    expect(body.registration.problems.map((problem: { field: string }) => problem.field)).toEqual([
      'type',
      'name',
      'description',
      'services.0.endpoint',
      'services.1',
      'active',
      'supportedTrust',
      'registrations',
    ])
  })

  test('behavior: a file that is not JSON is one problem on the file itself', async () => {
    const agentId = await register(2, `http://127.0.0.1:${files.port}/agents/text.json`)
    bodies.set('/agents/text.json', '{"type": "unfinished')
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration).toMatchObject({ status: 'invalid', file: null, problems: [{ field: '' }] })
  })

  test('behavior: a URI the outbound guard refuses is reported and never fetched', async () => {
    const agentId = await register(3, `http://127.0.0.2:${files.port}/agents/private.json`)
    bodies.set('/agents/private.json', JSON.stringify(goodFile(agentId)))
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration).toMatchObject({ status: 'refused', reason: 'private_address', fetchedFrom: null })
    expect(served).not.toContain('/agents/private.json')
  })

  test('behavior: a server answering 404 leaves the file unreachable, with its status', async () => {
    const agentId = await register(3, `http://127.0.0.1:${files.port}/agents/missing.json`)
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration).toMatchObject({ status: 'unreachable', reason: 'http_404', file: null })
  })

  test('behavior: a data: URI is decoded here, base64 or percent-encoded', async () => {
    const first = await register(4, 'data:application/json;base64,')
    const encoded = Buffer.from(JSON.stringify(goodFile(first + 1n))).toString('base64')
    const agentId = await register(4, `data:application/json;base64,${encoded}`)
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration).toMatchObject({ status: 'valid', fetchedFrom: null, problems: [] })
    const plain = await register(4, `data:application/json,${encodeURIComponent(JSON.stringify({ name: 'x' }))}`)
    const answer = await ok(await card(`agentId=${plain}`))
    expect(answer.registration.status).toBe('invalid')
    expect(answer.registration.file).toEqual({ name: 'x' })
    const empty = await ok(await card(`agentId=${first}`))
    expect(empty.registration).toMatchObject({ status: 'invalid', problems: [{ field: '', message: 'is not JSON' }] })
  })

  test('behavior: an ipfs:// URI is fetched through the configured gateway', async () => {
    const cid = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
    const agentId = await register(5, `ipfs://${cid}`)
    bodies.set(`/ipfs/${cid}`, JSON.stringify(goodFile(agentId)))
    const body = await ok(await card(`agentId=${agentId}`))
    expect(body.registration).toMatchObject({
      status: 'valid',
      fetchedFrom: `http://127.0.0.1:${files.port}/ipfs/${cid}`,
    })
  })

  test('behavior: another scheme is unsupported, an empty agentURI absent', async () => {
    const ftp = await register(5, 'ftp://files.example.com/card.json')
    expect((await ok(await card(`agentId=${ftp}`))).registration.status).toBe('unsupported')
    const none = await register(5, '')
    expect((await ok(await card(`agentId=${none}`))).registration.status).toBe('absent')
  })

  test('error: an unknown agentId is a 404', async () => {
    const problem = await refused(await card('agentId=999999'), 404)
    expect(problem.detail).toContain('999999')
  })
})

describe('GET /free/agent-card by address', () => {
  test('behavior: lists the agents the address owns, found in Transfer events and confirmed by ownerOf', async () => {
    const owner = gateway.account(6).address
    const ids = [await register(6, 'https://a.example/1.json'), await register(6, 'https://a.example/2.json')]
    const body = await ok(await card(`address=${owner}`))
    expect(body).toMatchObject({ address: owner, balance: '2', method: 'transfer-logs', complete: true, message: null })
    expect(body.agents).toEqual([
      { agentId: ids[0]!.toString(), tokenURI: 'https://a.example/1.json' },
      { agentId: ids[1]!.toString(), tokenURI: 'https://a.example/2.json' },
    ])
  })

  test('behavior: an agent handed to another owner moves with it', async () => {
    const { devnet } = gateway
    const from = gateway.account(7)
    const to = gateway.account(8).address
    const agentId = await register(7, 'https://b.example/card.json')
    const wallet = createWalletClient({ account: from, chain: devnet.chain, transport: devnet.transport })
    const hash = await wallet.writeContract({
      address: devnet.agentRegistry,
      abi: agentIdentityRegistry.abi,
      functionName: 'transferFrom',
      args: [from.address, to, agentId],
    })
    await devnet.publicClient.waitForTransactionReceipt({ hash })
    expect((await ok(await card(`address=${from.address}`))).agents).toEqual([])
    expect((await ok(await card(`address=${to}`))).agents).toEqual([
      { agentId: agentId.toString(), tokenURI: 'https://b.example/card.json' },
    ])
    // The wallet was the old owner's: cleared on transfer.
    expect((await ok(await card(`agentId=${agentId}`))).agentWallet).toBeNull()
  })

  test('behavior: an address without agents has an empty list', async () => {
    const body = await ok(await card(`address=${gateway.account(9).address}`))
    expect(body).toMatchObject({ balance: '0', agents: [], complete: true })
  })
})

describe('GET /free/agent-card: bad input', () => {
  const cases: [string, string][] = [
    ['agentId=1&id=1', 'id'],
    ['id=abc', 'id'],
    ['agentId=1&address=0x0000000000000000000000000000000000000001', 'address'],
    ['agentId=-1', 'agentId'],
    ['agentId=abc', 'agentId'],
    [`agentId=${2n ** 256n}`, 'agentId'],
    ['address=0x1234', 'address'],
  ]
  for (const [query, field] of cases)
    test(`error: ?${query} is a 400 naming ${field}`, async () => {
      const problem = await refused(await card(query), 400)
      expect(JSON.stringify(problem)).toContain(field)
    })

  test('error: a mixed-case address with a broken checksum is a 400', async () => {
    const address = gateway.account(1).address as Address
    const broken = address.replace(/[a-f]/, (letter) => letter.toUpperCase())
    await refused(await card(`address=${broken}`), 400)
  })
})

describe("GET /free/agent-card as the original gateway's clients call it", () => {
  test('behavior: with no agentId, id or address it counts the agents the registry holds (totalAgents)', async () => {
    const before = await ok(await card(''))
    expect(before).toMatchObject({
      chain: 'base',
      method: 'transfer-logs',
      message: null,
      registry: { chainId: gateway.devnet.chainId, address: gateway.devnet.agentRegistry, source: 'devnet' },
    })
    await register(5, `http://127.0.0.1:${files.port}/agents/counted.json`)
    expect((await ok(await card(''))).totalAgents).toBe(before.totalAgents + 1)
  })

  test("behavior: id is agentId, the original gateway's name for it", async () => {
    const agentId = await register(6, `http://127.0.0.1:${files.port}/agents/by-id.json`)
    const byId = await ok(await card(`id=${agentId}`))
    expect(byId).toEqual(await ok(await card(`agentId=${agentId}`)))
    expect(byId.owner).toBe(gateway.account(6).address)
  })
})
