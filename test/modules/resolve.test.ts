import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createWalletClient, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { toCoinType } from 'viem/ens'
import { account, deployerIndex } from '../../adapters/chain/devnet.js'
import { ens, register, setPrimaryName } from '../../adapters/chain/ens.js'
import { manifest, resolve } from '../../modules/resolve/index.js'
import * as Service from '../../modules/resolve/service.js'
import { moduleGateway } from '../support/gateway.js'
import { paidGateway } from '../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
const [alice, bob, carol, dave] = [1, 2, 3, 4].map((index) => account({ index }).address) as [
  Address,
  Address,
  Address,
  Address,
]

/** Registers `name` on the gateway's devnet, pointing at `address` on the chain of `coinType`. */
async function name(label: string, address: Address, coinType = 60n) {
  const { devnet } = gateway
  const wallet = createWalletClient({
    account: privateKeyToAccount(account({ index: deployerIndex }).privateKey),
    chain: devnet.chain,
    transport: devnet.transport,
  })
  await register({
    client: devnet.publicClient as PublicClient,
    wallet,
    contracts: devnet.names,
    name: label,
    address,
    coinType,
  })
}

/** Sets the primary name of mnemonic account `index`, from that account. */
async function primary(index: number, label: string) {
  const { devnet } = gateway
  const wallet = createWalletClient({
    account: gateway.account(index),
    chain: devnet.chain,
    transport: devnet.transport,
  })
  await setPrimaryName({
    client: devnet.publicClient as PublicClient,
    wallet,
    reverseRegistrar: devnet.names.reverseRegistrar,
    name: label,
  })
}

/** `address` with the case of its first letter flipped: mixed-case with a wrong EIP-55 checksum. */
function brokenChecksum(address: Address): string {
  const index = address.slice(2).search(/[a-fA-F]/) + 2
  const letter = address[index]!
  const flipped = letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()
  return `${address.slice(0, index)}${flipped}${address.slice(index + 1)}`
}

const get = (query: string) => gateway.fetch(`http://gateway.test/free/resolve?${query}`)

beforeAll(async () => {
  gateway = await paidGateway()
  await name('alice.eth', alice)
  await primary(1, 'alice.eth')
  await name('bob.base.eth', bob, toCoinType(8453))
  // Carol's reverse record names alice.eth, which points at Alice: not Carol's primary name.
  await primary(3, 'alice.eth')
  await name('dave.eth', dave)
  await primary(4, 'Dave.eth')
})

afterAll(() => gateway.close())

describe('GET /free/resolve', () => {
  test('default: a name to its address on the devnet registry', async () => {
    const response = await get('name=alice.eth')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      direction: 'forward',
      name: 'alice.eth',
      address: alice,
      chain: 'ethereum',
      coinType: '60',
      verified: true,
      source: 'devnet',
      registryChainId: gateway.devnet.chainId,
      resolved: true,
      cached: false,
      age: 0,
    })
  })

  test('behavior: names are normalized (ENSIP-15): an uppercase name is the same name', async () => {
    const response = await get('name=ALICE.Eth')
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ name: 'alice.eth', address: alice })
  })

  test('behavior: a Basename resolves to its Base address (coin type 0x80000000 | 8453)', async () => {
    const response = await get('name=bob.base.eth')
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      name: 'bob.base.eth',
      address: bob,
      chain: 'base',
      coinType: '2147492101',
    })
  })

  test('default: an address to its primary name, checked forward', async () => {
    const response = await get(`address=${alice.toLowerCase()}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      direction: 'reverse',
      address: alice,
      name: 'alice.eth',
      verified: true,
    })
  })

  test('error: a reverse record naming a name that resolves elsewhere is refused, never the primary name', async () => {
    const response = await get(`address=${carol}`)
    expect(response.status).toBe(404)
    const body = (await response.json()) as Record<string, unknown>
    expect(JSON.stringify(body)).toContain(`resolves to ${alice}`)
    expect(body).toMatchObject({ claimed: 'alice.eth', verified: false, claimedResolvesTo: alice })
  })

  test('error: a reverse record that is not a normalized name is refused', async () => {
    const response = await get(`address=${dave}`)
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ claimed: 'Dave.eth', verified: false })
  })

  test("behavior: an unknown name is a 200 with resolved: false, as the original gateway's clients read it", async () => {
    const response = await get('name=nobody.eth')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      direction: 'forward',
      name: 'nobody.eth',
      address: null,
      source: null,
      resolved: false,
    })
  })

  test('error: an address without a reverse record is 404', async () => {
    expect((await get(`address=${account({ index: 5 }).address}`)).status).toBe(404)
  })

  test.each([
    ['name', ''],
    ['name', 'name=alice..eth'],
    ['name', 'name=al%20ice.eth'],
    ['address', `name=alice.eth&address=${alice}`],
    ['address', 'address=0x1234'],
    ['address', `address=${brokenChecksum(alice)}`],
  ])('error: 400 naming `%s` for ?%s', async (field, query) => {
    const response = await get(query)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'validation_failed', field })
  })
})

describe('GET /api/v1/resolve', () => {
  test('default: paid through the normal flow, 0.002 USDC', async () => {
    const payer = gateway.account(6)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/resolve?name=alice.eth')
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ name: 'alice.eth', address: alice, verified: true })
    expect(before - (await gateway.balance(payer.address))).toBe(2_000n)
  })

  test("behavior: an address given as `name` is a reverse lookup, as the original gateway's clients send it", async () => {
    const payer = gateway.account(6)
    const response = await gateway.paid(payer, 'GET', `/api/v1/resolve?name=${alice}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ direction: 'reverse', name: 'alice.eth', address: alice })
    const broken = await gateway.paid(payer, 'GET', `/api/v1/resolve?name=${brokenChecksum(alice)}`)
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ field: 'name' })
  })

  test('error: an unknown name is 404 and charges nothing', async () => {
    const payer = gateway.account(7)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/resolve?name=nobody.eth')
    expect(response.status).toBe(404)
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: a bad address is 400 naming `address` and charges nothing', async () => {
    const payer = gateway.account(7)
    const before = await gateway.balance(payer.address)
    const response = await gateway.paid(payer, 'GET', '/api/v1/resolve?address=0xnothex')
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ field: 'address' })
    expect(await gateway.balance(payer.address)).toBe(before)
  })
})

describe('cache', () => {
  test('behavior: a free answer is served again for 5 minutes of the clock, then read again', async () => {
    let time = 1_000_000
    const { devnet } = gateway
    const names = ens({
      client: devnet.publicClient as PublicClient,
      chainId: devnet.chainId,
      source: 'devnet',
      universalResolver: devnet.names.universalResolver,
    })
    const deps = Service.from({ names, now: () => time })
    const module = moduleGateway({ ...manifest, routes: () => resolve(deps) }, { ports: { names } })
    await name('moving.eth', alice)
    expect(await (await module.get('/free/resolve?name=moving.eth')).json()).toMatchObject({
      address: alice,
      cached: false,
      age: 0,
    })
    await name('moving.eth', bob)
    time += 299_999
    expect(await (await module.get('/free/resolve?name=MOVING.eth')).json()).toMatchObject({
      address: alice,
      cached: true,
      age: 299,
    })
    time += 1
    expect(await (await module.get('/free/resolve?name=moving.eth')).json()).toMatchObject({
      address: bob,
      cached: false,
      age: 0,
    })
  })

  test('behavior: the paid endpoint always reads now', async () => {
    const deps = Service.from({ names: countingNames(), now: () => 0 })
    await Service.resolve(deps, Service.lookupOf({ name: 'x.eth' }))
    await Service.resolve(deps, Service.lookupOf({ name: 'x.eth' }))
    expect(calls).toBe(2)
  })
})

let calls = 0
function countingNames(): Service.Deps['names'] {
  return {
    chainId: 1,
    source: 'count',
    address: async () => {
      calls++
      return alice
    },
    primaryName: async () => ({ status: 'none' }),
  }
}
