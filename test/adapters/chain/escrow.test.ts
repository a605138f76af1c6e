import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type AbiEvent,
  type AbiParameter,
  type Address,
  createWalletClient,
  erc20Abi,
  type Hex,
  type PrivateKeyAccount,
  parseEventLogs,
  toHex,
  zeroAddress,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import escrowArtifact from '../../../adapters/chain/contracts/artifacts/Escrow.json' with { type: 'json' }
import { devnet } from '../../../adapters/chain/devnet.js'
import { escrowChain } from '../../../adapters/chain/escrow.js'
import * as Escrow from '../../../core/Escrow.js'
import type { EscrowChain } from '../../../core/EscrowChain.js'

let chain: devnet.Devnet
let port: EscrowChain

beforeAll(async () => {
  chain = await devnet()
  port = escrowChain({ client: chain.publicClient, address: chain.escrow.address, chainId: chain.chainId })
})

afterAll(async () => {
  await chain.close()
})

const depositor = () => signer(1)
const beneficiary = () => signer(2)
const arbiter = () => signer(3)
const outsider = () => signer(4)

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

function randomId(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)))
}

function balanceOf(address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
}

/** The timestamp the next block will carry: the devnet's clock, which follows the wall clock. */
async function nextTimestamp(): Promise<bigint> {
  return (await chain.publicClient.getBlock({ blockTag: 'pending' })).timestamp
}

/** Sends a transaction from `account` and waits for it; throws with the decoded revert when it would revert. */
async function send(account: PrivateKeyAccount, transaction: { to: Address; data: Hex }) {
  const wallet = createWalletClient({ account, chain: chain.chain, transport: chain.transport })
  const hash = await wallet.sendTransaction(transaction)
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

/** Simulates an escrow call from `account`; rejects with viem's decoded contract error when it reverts. */
function simulate(account: PrivateKeyAccount, functionName: 'release' | 'cancel', id: Hex) {
  return chain.publicClient.simulateContract({
    address: chain.escrow.address,
    abi: Escrow.abi,
    functionName,
    args: [id],
    account,
  })
}

type Terms = { id: Hex; amount: bigint; beneficiary: Address; arbiter?: Address; expiry?: bigint; token?: Address }

/** Approves and deposits from `account` with the calldata builders of core. */
async function deposit(account: PrivateKeyAccount, terms: Terms) {
  const { id, amount, beneficiary, arbiter, expiry = 0n, token = chain.token.address } = terms
  await send(account, { to: token, data: Escrow.approve({ spender: chain.escrow.address, amount }) })
  const data = Escrow.deposit({
    id,
    beneficiary,
    arbiter,
    token: { symbol: 'USDC', address: token, decimals: 6 },
    amount,
    expiry: expiry === 0n ? undefined : new Date(Number(expiry) * 1000),
  })
  return send(account, { to: chain.escrow.address, data })
}

async function active(amount = 5_000_000n, overrides: Partial<Terms> = {}): Promise<Hex> {
  const id = randomId()
  await deposit(depositor(), {
    id,
    amount,
    beneficiary: beneficiary().address,
    arbiter: arbiter().address,
    ...overrides,
  })
  return id
}

describe('Escrow.sol', () => {
  test('behavior: the ABI in core matches the compiled contract', () => {
    const signature = (item: (typeof Escrow.abi)[number] | (typeof escrowArtifact.abi)[number]) => {
      const types = (parameters: readonly AbiParameter[]): string =>
        parameters
          .map((parameter) => {
            const type =
              'components' in parameter && parameter.components ? `(${types(parameter.components)})` : parameter.type
            return `${type}${(parameter as { indexed?: boolean }).indexed ? ' indexed' : ''} ${parameter.name ?? ''}`.trim()
          })
          .join(',')
      const outputs = 'outputs' in item && item.outputs ? ` returns (${types(item.outputs as AbiParameter[])})` : ''
      const mutability = 'stateMutability' in item ? ` ${item.stateMutability}` : ''
      return `${item.type} ${(item as AbiEvent).name}(${types(item.inputs as AbiParameter[])})${outputs}${mutability}`
    }
    const compiled = escrowArtifact.abi.map(signature)
    const ours = Escrow.abi.map(signature)
    for (const item of ours) expect(compiled).toContain(item)
    // Every function, event and error of the contract is known to core, so any revert decodes.
    expect([...ours].sort()).toEqual([...compiled].sort())
  })
})

describe('escrowChain.read', () => {
  test('default: an unused id reads as undefined', async () => {
    expect(port.address).toBe(chain.escrow.address)
    expect(port.chainId).toBe(84_532)
    expect(await port.read(randomId())).toBeUndefined()
  })

  test('behavior: a deposit reads back with its terms, arbiter and expiry', async () => {
    const id = randomId()
    const expiry = (await nextTimestamp()) + 3600n
    await deposit(depositor(), {
      id,
      amount: 7_000_000n,
      beneficiary: beneficiary().address,
      arbiter: arbiter().address,
      expiry,
    })
    expect(await port.read(id)).toEqual({
      status: 'active',
      depositor: depositor().address,
      beneficiary: beneficiary().address,
      arbiter: arbiter().address,
      token: chain.token.address,
      amount: 7_000_000n,
      expiry,
    })
  })

  test('behavior: no arbiter and no expiry read as undefined', async () => {
    const id = randomId()
    await deposit(depositor(), { id, amount: 1n, beneficiary: beneficiary().address })
    expect(await port.read(id)).toMatchObject({ status: 'active', arbiter: undefined, expiry: undefined })
  })
})

describe('deposit', () => {
  test('default: pulls exactly the amount from the depositor and emits Deposited', async () => {
    const id = randomId()
    const amount = 12_345_678n
    const [depositorBefore, escrowBefore] = await Promise.all([
      balanceOf(depositor().address),
      balanceOf(chain.escrow.address),
    ])
    const receipt = await deposit(depositor(), {
      id,
      amount,
      beneficiary: beneficiary().address,
      arbiter: arbiter().address,
    })
    expect(await balanceOf(depositor().address)).toBe(depositorBefore - amount)
    expect(await balanceOf(chain.escrow.address)).toBe(escrowBefore + amount)
    expect(
      parseEventLogs({ abi: Escrow.abi, logs: receipt.logs, eventName: 'Deposited' }).map(({ args }) => args),
    ).toEqual([
      {
        id,
        depositor: depositor().address,
        beneficiary: beneficiary().address,
        arbiter: arbiter().address,
        token: chain.token.address,
        amount,
        expiry: 0n,
      },
    ])
  })

  test('error: an id already used reverts with EscrowExists, also for another depositor', async () => {
    const id = await active(1_000_000n)
    await send(outsider(), {
      to: chain.token.address,
      data: Escrow.approve({ spender: chain.escrow.address, amount: 1_000_000n }),
    })
    await expect(
      chain.publicClient.simulateContract({
        address: chain.escrow.address,
        abi: Escrow.abi,
        functionName: 'deposit',
        args: [id, chain.token.address, 1_000_000n, outsider().address, zeroAddress, 0n],
        account: outsider(),
      }),
    ).rejects.toThrow('EscrowExists')
  })

  test.each([
    ['a zero amount', 'ZeroAmount', { amount: 0n }],
    ['a zero beneficiary', 'ZeroAddress', { beneficiary: zeroAddress }],
    ['a zero token', 'ZeroAddress', { token: zeroAddress }],
    ['an expiry in the past', 'ExpiryInPast', { expiry: 1n }],
    ['a token address without code', 'TokenCallFailed', { token: privateKeyToAccount(generatePrivateKey()).address }],
  ] as const)('error: %s reverts with %s', async (_, error, overrides) => {
    const terms = {
      id: randomId(),
      token: chain.token.address,
      amount: 1_000_000n,
      beneficiary: beneficiary().address,
      expiry: 0n,
      ...overrides,
    }
    await expect(
      chain.publicClient.simulateContract({
        address: chain.escrow.address,
        abi: Escrow.abi,
        functionName: 'deposit',
        args: [terms.id, terms.token, terms.amount, terms.beneficiary, zeroAddress, terms.expiry],
        account: depositor(),
      }),
    ).rejects.toThrow(error)
  })

  test("error: without allowance the token's own reason comes through", async () => {
    const poor = signer(5)
    await expect(
      chain.publicClient.simulateContract({
        address: chain.escrow.address,
        abi: Escrow.abi,
        functionName: 'deposit',
        args: [randomId(), chain.token.address, 10n ** 30n, beneficiary().address, zeroAddress, 0n],
        account: poor,
      }),
    ).rejects.toThrow('ERC20: transfer amount exceeds allowance')
  })
})

describe('release', () => {
  test('default: the depositor releases; the beneficiary receives exactly the amount; Released is emitted', async () => {
    const amount = 3_330_000n
    const id = await active(amount)
    const [beneficiaryBefore, escrowBefore] = await Promise.all([
      balanceOf(beneficiary().address),
      balanceOf(chain.escrow.address),
    ])
    const receipt = await send(depositor(), { to: chain.escrow.address, data: Escrow.release({ id }) })
    expect(await balanceOf(beneficiary().address)).toBe(beneficiaryBefore + amount)
    expect(await balanceOf(chain.escrow.address)).toBe(escrowBefore - amount)
    expect(
      parseEventLogs({ abi: Escrow.abi, logs: receipt.logs, eventName: 'Released' }).map(({ args }) => args),
    ).toEqual([{ id, by: depositor().address, beneficiary: beneficiary().address, amount }])
    expect((await port.read(id))?.status).toBe('released')
  })

  test('behavior: the arbiter releases', async () => {
    const id = await active(1_000_000n)
    const before = await balanceOf(beneficiary().address)
    await send(arbiter(), { to: chain.escrow.address, data: Escrow.release({ id }) })
    expect(await balanceOf(beneficiary().address)).toBe(before + 1_000_000n)
  })

  test.each([
    ['the beneficiary', beneficiary],
    ['an outsider', outsider],
  ])('error: %s cannot release (NotAllowed)', async (_, who) => {
    const id = await active(1_000_000n)
    await expect(simulate(who(), 'release', id)).rejects.toThrow('NotAllowed')
  })

  test('error: an escrow settles once: release, then release or cancel reverts with EscrowNotActive', async () => {
    const id = await active(1_000_000n)
    await send(depositor(), { to: chain.escrow.address, data: Escrow.release({ id }) })
    await expect(simulate(depositor(), 'release', id)).rejects.toThrow('EscrowNotActive')
    await expect(simulate(arbiter(), 'cancel', id)).rejects.toThrow('EscrowNotActive')
  })

  test('error: an unknown id reverts with EscrowNotActive', async () => {
    await expect(simulate(depositor(), 'release', randomId())).rejects.toThrow('EscrowNotActive')
  })
})

describe('cancel', () => {
  test('default: the depositor cancels and gets exactly the amount back; Cancelled is emitted', async () => {
    const amount = 2_220_000n
    const before = await balanceOf(depositor().address)
    const id = await active(amount)
    expect(await balanceOf(depositor().address)).toBe(before - amount)
    const receipt = await send(depositor(), { to: chain.escrow.address, data: Escrow.cancel({ id }) })
    expect(await balanceOf(depositor().address)).toBe(before)
    expect(
      parseEventLogs({ abi: Escrow.abi, logs: receipt.logs, eventName: 'Cancelled' }).map(({ args }) => args),
    ).toEqual([{ id, by: depositor().address, depositor: depositor().address, amount }])
    expect((await port.read(id))?.status).toBe('cancelled')
  })

  test('behavior: the arbiter cancels; the refund goes to the depositor, not the arbiter', async () => {
    const id = await active(1_000_000n)
    const [depositorBefore, arbiterBefore] = await Promise.all([
      balanceOf(depositor().address),
      balanceOf(arbiter().address),
    ])
    await send(arbiter(), { to: chain.escrow.address, data: Escrow.cancel({ id }) })
    expect(await balanceOf(depositor().address)).toBe(depositorBefore + 1_000_000n)
    expect(await balanceOf(arbiter().address)).toBe(arbiterBefore)
  })

  test('error: cancelled, then release or cancel reverts with EscrowNotActive', async () => {
    const id = await active(1_000_000n)
    await send(depositor(), { to: chain.escrow.address, data: Escrow.cancel({ id }) })
    await expect(simulate(depositor(), 'cancel', id)).rejects.toThrow('EscrowNotActive')
    await expect(simulate(depositor(), 'release', id)).rejects.toThrow('EscrowNotActive')
  })

  test('behavior: before the expiry only the depositor or arbiter cancels; from the expiry on, anyone', async () => {
    const expiry = (await nextTimestamp()) + 3n
    const id = await active(1_000_000n, { expiry })
    await expect(simulate(outsider(), 'cancel', id)).rejects.toThrow('NotAllowed')
    await expect(simulate(beneficiary(), 'cancel', id)).rejects.toThrow('NotAllowed')
    // The devnet's clock follows wall-clock time, so waiting past the expiry is enough.
    while ((await nextTimestamp()) < expiry) await Bun.sleep(250)
    // Release stays with the depositor and arbiter after the expiry.
    await expect(simulate(outsider(), 'release', id)).rejects.toThrow('NotAllowed')
    const before = await balanceOf(depositor().address)
    await send(outsider(), { to: chain.escrow.address, data: Escrow.cancel({ id }) })
    expect(await balanceOf(depositor().address)).toBe(before + 1_000_000n)
  })
})
