import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Account,
  type Chain,
  createWalletClient,
  labelhash,
  namehash,
  type PublicClient,
  parseAbi,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { getEnsAddress, getEnsName, toCoinType } from 'viem/ens'
import { account, deployerIndex, devnet } from '../../../adapters/chain/devnet.js'
import { ens, register, setPrimaryName } from '../../../adapters/chain/ens.js'

const baseCoinType = toCoinType(8453)
let chain: devnet.Devnet
let client: PublicClient
let deployer: WalletClient<Transport, Chain, Account>
const walletOf = (index: number) =>
  createWalletClient({
    account: privateKeyToAccount(chain.accounts[index]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })

beforeAll(async () => {
  chain = await devnet({ accountCount: 4 })
  client = chain.publicClient as PublicClient
  deployer = createWalletClient({
    account: privateKeyToAccount(account({ index: deployerIndex }).privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
})

afterAll(() => chain.close())

const [alice, bob, carol] = [0, 1, 2].map((index) => account({ index }).address) as [
  `0x${string}`,
  `0x${string}`,
  `0x${string}`,
]

async function name(label: string, address: `0x${string}`, coinType = 60n) {
  await register({ client, wallet: deployer, contracts: chain.names, name: label, address, coinType })
}

describe('UniversalResolver (viem getEnsAddress / getEnsName with universalResolverAddress)', () => {
  test('default: a registered name resolves to its address, an unknown one to null', async () => {
    await name('alice.eth', alice)
    const at = { universalResolverAddress: chain.names.universalResolver }
    expect(await getEnsAddress(client, { name: 'alice.eth', ...at })).toBe(alice)
    expect(await getEnsAddress(client, { name: 'nobody.eth', ...at })).toBeNull()
  })

  test('behavior: an address per coin type (ENSIP-11); a name without one on that chain has none', async () => {
    await name('bob.base.eth', bob, baseCoinType)
    const at = { universalResolverAddress: chain.names.universalResolver }
    expect(await getEnsAddress(client, { name: 'bob.base.eth', coinType: baseCoinType, ...at })).toBe(
      bob.toLowerCase() as typeof bob,
    )
    expect(await getEnsAddress(client, { name: 'bob.base.eth', ...at })).toBeNull()
  })

  test('behavior: the reverse record of an account, checked forward', async () => {
    await setPrimaryName({
      client,
      wallet: walletOf(0),
      reverseRegistrar: chain.names.reverseRegistrar,
      name: 'alice.eth',
    })
    expect(await getEnsName(client, { address: alice, universalResolverAddress: chain.names.universalResolver })).toBe(
      'alice.eth',
    )
  })
})

describe('ENSRegistry and PublicResolver', () => {
  test('error: only the owner of a node sets its records or its subnodes', async () => {
    await name('owned.eth', alice)
    const stranger = walletOf(1)
    const node = namehash('owned.eth')
    await expect(
      stranger.writeContract({
        address: chain.names.resolver,
        abi: parseAbi([
          'function setAddr(bytes32 node, address a)',
          'error Unauthorised(bytes32 node, address sender)',
        ]),
        functionName: 'setAddr',
        args: [node, bob],
      }),
    ).rejects.toThrow('Unauthorised')
    await expect(
      stranger.writeContract({
        address: chain.names.registry,
        abi: parseAbi([
          'function setSubnodeOwner(bytes32 node, bytes32 label, address owner) returns (bytes32)',
          'error Unauthorised(bytes32 node, address sender)',
        ]),
        functionName: 'setSubnodeOwner',
        args: [namehash('eth'), labelhash('owned'), bob],
      }),
    ).rejects.toThrow('Unauthorised')
    const at = { universalResolverAddress: chain.names.universalResolver }
    expect(await getEnsAddress(client, { name: 'owned.eth', ...at })).toBe(alice)
  })
})

describe('ens', () => {
  const service = () =>
    ens({ client, chainId: chain.chainId, source: 'devnet', universalResolver: chain.names.universalResolver })

  test('default: forward and verified reverse', async () => {
    await name('alice.eth', alice)
    await setPrimaryName({
      client,
      wallet: walletOf(0),
      reverseRegistrar: chain.names.reverseRegistrar,
      name: 'alice.eth',
    })
    expect(await service().address({ name: 'alice.eth', coinType: 60n })).toBe(alice)
    expect(await service().primaryName({ address: alice, coinType: 60n })).toEqual({
      status: 'verified',
      name: 'alice.eth',
    })
  })

  test('behavior: no reverse record is none', async () => {
    expect(await service().primaryName({ address: carol, coinType: 60n })).toEqual({ status: 'none' })
  })

  test('error: a reverse record naming a name that points elsewhere is unverified, with where it points', async () => {
    await name('carol.eth', alice)
    await setPrimaryName({
      client,
      wallet: walletOf(2),
      reverseRegistrar: chain.names.reverseRegistrar,
      name: 'carol.eth',
    })
    expect(await service().primaryName({ address: carol, coinType: 60n })).toEqual({
      status: 'unverified',
      claimed: 'carol.eth',
      resolvesTo: alice,
    })
  })

  test('error: a reverse record naming an unregistered name is unverified', async () => {
    await setPrimaryName({
      client,
      wallet: walletOf(1),
      reverseRegistrar: chain.names.reverseRegistrar,
      name: 'ghost.eth',
    })
    expect(await service().primaryName({ address: bob, coinType: 60n })).toEqual({
      status: 'unverified',
      claimed: 'ghost.eth',
      resolvesTo: null,
    })
  })
})
