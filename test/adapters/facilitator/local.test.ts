import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  type BaseError,
  createPublicClient,
  createWalletClient,
  custom,
  decodeErrorResult,
  type Hash,
  type Hex,
  type LocalAccount,
  type PrivateKeyAccount,
  parseAbi,
  parseSignature,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { authorizationSettlerAddress, devnet, multicall3Address } from '../../../adapters/chain/devnet.js'
import { canonicalMulticall3, local } from '../../../adapters/facilitator/local.js'
import { type Domain, type Signed, toTypedData } from '../../../core/Authorization.js'
import type { Facilitator } from '../../../core/Facilitator.js'

const settlerAbi = parseAbi(['error ItemStarved(uint256 item)'])

const erc20Abi = parseAbi([
  'function balanceOf(address account) view returns (uint256)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])

let chain: devnet.Devnet
let facilitator: Facilitator
// Account 9 relays; accounts 1..5 pay; fresh funded keys pay where payers must differ.
const relayerIndex = 9

beforeAll(async () => {
  chain = await devnet()
  facilitator = create()
})

afterAll(async () => {
  await chain.close()
})

function create(overrides: Partial<local.Parameters> = {}): Facilitator {
  return local({
    client: chain.publicClient,
    relayer: { privateKey: chain.accounts[relayerIndex]!.privateKey },
    chain: chain.chain,
    transport: chain.transport,
    ...overrides,
  })
}

function now(): bigint {
  return BigInt(Math.floor(Date.now() / 1000))
}

function payer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

function domain(): Domain {
  return {
    name: chain.token.name,
    version: chain.token.version,
    chainId: chain.chainId,
    verifyingContract: chain.token.address,
  }
}

function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

/** A fresh relayer key with gas money, for a test whose transactions must be told apart from the others'. */
async function fundedRelayer(): Promise<PrivateKeyAccount> {
  const relayer = privateKeyToAccount(generatePrivateKey())
  await chain.request('hardhat_setBalance', [relayer.address, toHex(10n ** 20n)])
  return relayer
}

/** `count` fresh payers each pay `value` to one fresh payee through `through`, all at once. */
async function settleTogether(through: Facilitator, count: number, value: bigint) {
  const payers = await fundedPayers(count)
  const to = randomAddress()
  const authorizations = await Promise.all(payers.map((from) => sign(from, { to, value })))
  const outcomes = await Promise.all(
    authorizations.map((authorization) => through.settle({ authorization, domain: domain() })),
  )
  return { payers, to, outcomes }
}

/** `count` fresh keys, each minted `amount` devnet USDC. */
async function fundedPayers(count: number, amount = 10_000_000n): Promise<PrivateKeyAccount[]> {
  const accounts = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()))
  await Promise.all(accounts.map(({ address }) => chain.fund({ address, amount })))
  return accounts
}

/** An EIP-3009 authorization signed with viem's signTypedData, as x402 clients build it. */
async function sign(
  from: PrivateKeyAccount,
  parameters: { to: Address; value: bigint; validAfter?: bigint; validBefore?: bigint; nonce?: Hex },
  signedDomain: Domain = domain(),
): Promise<Signed> {
  const { to, value, validAfter = now() - 600n, validBefore = now() + 3600n } = parameters
  const authorization = {
    from: from.address,
    to,
    value,
    validAfter,
    validBefore,
    nonce: parameters.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  return { ...authorization, signature: await from.signTypedData(toTypedData(authorization, signedDomain)) }
}

function balanceOf(address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
}

/** Submits `authorization` from account 2, outside any facilitator: a competitor that lands first. */
async function frontRun(authorization: Signed): Promise<void> {
  const { r, s, yParity } = parseSignature(authorization.signature)
  const wallet = createWalletClient({ account: payer(2), chain: chain.chain, transport: chain.transport })
  const { from, to, value, validAfter, validBefore, nonce } = authorization
  const hash = await wallet.writeContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'transferWithAuthorization',
    args: [from, to, value, validAfter, validBefore, nonce, yParity + 27, r, s],
  })
  expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success')
}

/**
 * A facilitator on a transport that runs `before` once, just before the relayer's transaction is sent: the chain is
 * real, only the timing of a competitor is arranged.
 */
function withFrontRunner(
  relayerIndex: number,
  before: () => Promise<void>,
  overrides: Partial<local.Parameters> = {},
): Facilitator {
  let pending: (() => Promise<void>) | undefined = before
  const transport = custom(
    {
      async request({ method, params }) {
        if (method === 'eth_sendRawTransaction' && pending) {
          const run = pending
          pending = undefined
          await run()
        }
        return chain.request(method, params)
      },
    },
    { retryCount: 0 },
  )
  return create({
    client: createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 }),
    transport,
    relayer: privateKeyToAccount(chain.accounts[relayerIndex]!.privateKey),
    ...overrides,
  })
}

async function receipts(hashes: Iterable<Hash>) {
  return Promise.all([...new Set(hashes)].map((hash) => chain.publicClient.getTransactionReceipt({ hash })))
}

function transactionOf(outcome: Awaited<ReturnType<Facilitator['settle']>>): Hash {
  if (!outcome.ok) throw new Error(`settlement refused: ${outcome.reason}: ${outcome.message}`)
  return outcome.transaction
}

describe('local.verify', () => {
  test('default', async () => {
    const authorization = await sign(payer(1), { to: randomAddress(), value: 1_000n })
    const balance = await chain.publicClient.readContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [payer(1).address],
    })
    expect(await facilitator.verify({ authorization, domain: domain() })).toEqual({ ok: true, balance })
  })

  test('behavior: the devnet has Multicall3 where the facilitator looks by default', () => {
    expect(canonicalMulticall3).toBe(multicall3Address)
    expect(chain.chain.contracts?.multicall3?.address).toBe(canonicalMulticall3)
  })

  test('error: replayed once the nonce is used on chain', async () => {
    const authorization = await sign(payer(1), { to: randomAddress(), value: 1_000n })
    transactionOf(await facilitator.settle({ authorization, domain: domain() }))
    expect(await facilitator.verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'replayed',
    })
  })

  test('error: insufficient_funds when the balance is below the value', async () => {
    const [poor] = await fundedPayers(1, 999n)
    const authorization = await sign(poor!, { to: randomAddress(), value: 1_000n })
    expect(await facilitator.verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'insufficient_funds',
      message: expect.stringContaining('holds 999'),
    })
  })

  test('error: expired after validBefore, and within the settlement margin before it', async () => {
    const past = await sign(payer(2), { to: randomAddress(), value: 1n, validBefore: now() - 1n })
    expect(await facilitator.verify({ authorization: past, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'expired',
    })
    const tooSoon = await sign(payer(2), { to: randomAddress(), value: 1n, validBefore: now() + 3n })
    expect(await facilitator.verify({ authorization: tooSoon, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'expired',
    })
  })

  test('error: not_yet_valid before validAfter', async () => {
    const authorization = await sign(payer(2), { to: randomAddress(), value: 1n, validAfter: now() + 60n })
    expect(await facilitator.verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'not_yet_valid',
    })
  })

  test('error: invalid_signature when a field differs from what was signed', async () => {
    const signed = await sign(payer(3), { to: randomAddress(), value: 1_000n })
    const redirected = { ...signed, to: randomAddress() }
    expect(await facilitator.verify({ authorization: redirected, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
      message: expect.stringContaining('FiatTokenV2: invalid signature'),
    })
    // Not 65 bytes: the `bytes` overload is simulated, and the token refuses the length.
    expect(
      await facilitator.verify({ authorization: { ...signed, signature: '0x1234' }, domain: domain() }),
    ).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
      message: expect.stringContaining('invalid signature length'),
    })
  })

  test('error: wrong_network for a domain of another chain', async () => {
    const other = { ...domain(), chainId: 8453 }
    const authorization = await sign(payer(3), { to: randomAddress(), value: 1n }, other)
    expect(await facilitator.verify({ authorization, domain: other })).toMatchObject({
      ok: false,
      reason: 'wrong_network',
    })
    expect(await facilitator.settle({ authorization, domain: other })).toMatchObject({
      ok: false,
      reason: 'wrong_network',
    })
  })

  test('error: wrong_asset when the verifying contract is not a token', async () => {
    const notToken = { ...domain(), verifyingContract: randomAddress() }
    const authorization = await sign(payer(3), { to: randomAddress(), value: 1n }, notToken)
    expect(await facilitator.verify({ authorization, domain: notToken })).toMatchObject({
      ok: false,
      reason: 'wrong_asset',
    })
  })

  test('error: malformed_payment for a signature that is not hex', async () => {
    const signed = await sign(payer(3), { to: randomAddress(), value: 1n })
    expect(
      await facilitator.verify({ authorization: { ...signed, signature: '0xnothex' as Hex }, domain: domain() }),
    ).toMatchObject({
      ok: false,
      reason: 'malformed_payment',
    })
  })
})

describe('local.settle', () => {
  test('default: moves exactly the value in a direct transferWithAuthorization', async () => {
    const from = payer(4)
    const to = randomAddress()
    const value = 1_234_567n
    const before = await balanceOf(from.address)
    const authorization = await sign(from, { to, value })
    const transaction = transactionOf(await facilitator.settle({ authorization, domain: domain() }))
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: transaction })
    expect(receipt.status).toBe('success')
    expect(receipt.to?.toLowerCase()).toBe(chain.token.address.toLowerCase())
    expect(receipt.from.toLowerCase()).toBe(chain.accounts[relayerIndex]!.address.toLowerCase())
    expect(await balanceOf(from.address)).toBe(before - value)
    expect(await balanceOf(to)).toBe(value)
  })

  test('behavior: 10 concurrent settlements from different payers share one multicall; every balance is exact', async () => {
    const payers = await fundedPayers(10)
    const to = randomAddress()
    const values = payers.map((_, index) => BigInt(index + 1) * 1_000n)
    const authorizations = await Promise.all(payers.map((from, index) => sign(from, { to, value: values[index]! })))
    const outcomes = await Promise.all(
      authorizations.map((authorization) => facilitator.settle({ authorization, domain: domain() })),
    )
    const hashes = outcomes.map(transactionOf)
    const mined = await receipts(hashes)
    expect(mined.length).toBeLessThan(10)
    for (const receipt of mined) {
      expect(receipt.status).toBe('success')
      expect(receipt.to?.toLowerCase()).toBe(multicall3Address.toLowerCase())
    }
    for (const [index, { address }] of payers.entries())
      expect(await balanceOf(address)).toBe(10_000_000n - values[index]!)
    expect(await balanceOf(to)).toBe(values.reduce((sum, value) => sum + value, 0n))
  })

  test('error: a batch with a used nonce settles the others and refuses that one as replayed', async () => {
    const payers = await fundedPayers(5)
    const to = randomAddress()
    const used = await sign(payers[0]!, { to, value: 100n })
    transactionOf(await facilitator.settle({ authorization: used, domain: domain() }))

    const fresh = await Promise.all(payers.slice(1).map((from) => sign(from, { to, value: 100n })))
    const outcomes = await Promise.all(
      [used, ...fresh].map((authorization) => facilitator.settle({ authorization, domain: domain() })),
    )
    expect(outcomes[0]).toMatchObject({
      ok: false,
      reason: 'replayed',
      message: expect.stringContaining('authorization is used or canceled'),
    })
    const hashes = outcomes.slice(1).map(transactionOf)
    expect(new Set(hashes).size).toBe(1)
    expect(await balanceOf(to)).toBe(500n)
    expect(await balanceOf(payers[0]!.address)).toBe(10_000_000n - 100n)
  })

  test('behavior: two copies of one authorization in one window settle once', async () => {
    const [from] = await fundedPayers(1)
    const to = randomAddress()
    const authorization = await sign(from!, { to, value: 700n })
    const outcomes = await Promise.all([
      facilitator.settle({ authorization, domain: domain() }),
      facilitator.settle({ authorization, domain: domain() }),
    ])
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1)
    expect(outcomes.filter((outcome) => !outcome.ok)).toMatchObject([{ reason: 'replayed' }])
    expect(await balanceOf(to)).toBe(700n)
  })

  test('behavior: payments beyond the balance within one batch: the later one is refused, the earlier settles', async () => {
    const [from] = await fundedPayers(1, 1_000n)
    const to = randomAddress()
    const first = await sign(from!, { to, value: 600n })
    const second = await sign(from!, { to, value: 600n })
    const outcomes = await Promise.all(
      [first, second].map((authorization) => facilitator.settle({ authorization, domain: domain() })),
    )
    expect(outcomes[0]!.ok).toBe(true)
    expect(outcomes[1]).toMatchObject({ ok: false, reason: 'insufficient_funds' })
    expect(await balanceOf(to)).toBe(600n)
  })

  test('error: an item used by somebody else after the estimate fails alone inside the shared transaction', async () => {
    const payers = await fundedPayers(4)
    const to = randomAddress()
    const authorizations = await Promise.all(payers.map((from) => sign(from, { to, value: 50n })))
    const raced = withFrontRunner(0, () => frontRun(authorizations[2]!))
    const outcomes = await Promise.all(
      authorizations.map((authorization) => raced.settle({ authorization, domain: domain() })),
    )
    expect(outcomes[2]).toMatchObject({ ok: false, reason: 'replayed' })
    const hashes = [0, 1, 3].map((index) => transactionOf(outcomes[index]!))
    expect(new Set(hashes).size).toBe(1)
    const [receipt] = await receipts(hashes)
    expect(receipt!.status).toBe('success')
    // The competitor's transfer and ours together: each payer paid once.
    expect(await balanceOf(to)).toBe(200n)
    for (const { address } of payers) expect(await balanceOf(address)).toBe(10_000_000n - 50n)
  })

  test('error: a direct transaction that reverts on chain maps to settlement_failed', async () => {
    const [from] = await fundedPayers(1)
    const to = randomAddress()
    const authorization = await sign(from!, { to, value: 50n })
    const raced = withFrontRunner(0, () => frontRun(authorization))
    expect(await raced.settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_failed',
      message: expect.stringContaining('reverted'),
    })
    expect(await balanceOf(to)).toBe(50n)
  })

  test('behavior: 30 concurrent settlements in 3 waves never collide on the relayer nonce', async () => {
    // A separate relayer, so the nonce it counts is its own from the start.
    const relayer = privateKeyToAccount(chain.accounts[8]!.privateKey)
    const small = create({ relayer, maxBatch: 4, batchWindowMs: 2 })
    const payers = await fundedPayers(30)
    const to = randomAddress()
    const authorizations = await Promise.all(payers.map((from) => sign(from, { to, value: 10n })))
    const waves: Promise<Awaited<ReturnType<Facilitator['settle']>>>[] = []
    for (let wave = 0; wave < 3; wave++) {
      for (const authorization of authorizations.slice(wave * 10, wave * 10 + 10))
        waves.push(small.settle({ authorization, domain: domain() }))
      await Bun.sleep(1)
    }
    const hashes = (await Promise.all(waves)).map(transactionOf)
    const transactions = await Promise.all(
      [...new Set(hashes)].map((hash) => chain.publicClient.getTransaction({ hash })),
    )
    expect(transactions.length).toBeGreaterThanOrEqual(8)
    const nonces = transactions.map(({ nonce }) => nonce).sort((a, b) => a - b)
    expect(new Set(nonces).size).toBe(nonces.length)
    expect(transactions.every(({ from }) => from.toLowerCase() === relayer.address.toLowerCase())).toBe(true)
    for (const { address } of payers) expect(await balanceOf(address)).toBe(10_000_000n - 10n)
    expect(await balanceOf(to)).toBe(300n)
  })

  test('behavior: resyncs the relayer nonce after somebody else sent from the relayer', async () => {
    const relayer = privateKeyToAccount(chain.accounts[7]!.privateKey)
    const facilitatorOf7 = create({ relayer })
    const to = randomAddress()
    transactionOf(
      await facilitatorOf7.settle({ authorization: await sign(payer(5), { to, value: 1n }), domain: domain() }),
    )
    // The same key sends outside the facilitator: the counted nonce is now stale.
    const wallet = createWalletClient({ account: relayer, chain: chain.chain, transport: chain.transport })
    await wallet.sendTransaction({ to: randomAddress(), value: 1n })
    transactionOf(
      await facilitatorOf7.settle({ authorization: await sign(payer(5), { to, value: 2n }), domain: domain() }),
    )
    expect(await balanceOf(to)).toBe(3n)
  })
})

/** A facilitator on a transport that counts the raw transactions sent, whose relayer is asked for with `relayer`. */
function withKeys(relayer: () => Promise<LocalAccount>) {
  const sent: Hex[] = []
  const transport = custom(
    {
      request({ method, params }) {
        if (method === 'eth_sendRawTransaction') sent.push((params as [Hex])[0])
        return chain.request(method, params)
      },
    },
    { retryCount: 0 },
  )
  const through = create({
    client: createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 }),
    transport,
    relayer,
  })
  return { through, sent }
}

describe('local.settle with a relayer asked for before every transaction', () => {
  test("behavior: each transaction is signed by the key answered then, from that key's own nonces", async () => {
    const keys = [await fundedRelayer(), await fundedRelayer()] as const
    let current: LocalAccount = keys[0]
    const { through, sent } = withKeys(async () => current)
    const to = randomAddress()
    const settled: Hash[] = []
    // The key moves 0 -> 1 -> 0, as the key of a lease lost and replaced in another slot would (and back again).
    for (const index of [0, 1, 0] as const) {
      current = keys[index]
      const authorization = await sign(payer(5), { to, value: 1n })
      settled.push(transactionOf(await through.settle({ authorization, domain: domain() })))
    }
    const transactions = await Promise.all(settled.map((hash) => chain.publicClient.getTransaction({ hash })))
    expect(transactions.map(({ from, nonce }) => [from.toLowerCase(), nonce])).toEqual([
      [keys[0].address.toLowerCase(), 0],
      [keys[1].address.toLowerCase(), 0],
      [keys[0].address.toLowerCase(), 1],
    ])
    // One send each: no transaction went out on another key's count and came back "nonce too high" or "too low".
    expect(sent).toHaveLength(3)
    expect(await balanceOf(to)).toBe(3n)
  })

  test('behavior: a key that changes while a transaction is signed is not sent with; the transaction is signed again with the new one', async () => {
    const [before, after] = [await fundedRelayer(), await fundedRelayer()]
    let asked = 0
    // The first ask answers the old key; by the time the signature is done, the key has changed.
    const { through, sent } = withKeys(async () => (asked++ === 0 ? before : after))
    const authorization = await sign(payer(5), { to: randomAddress(), value: 1n })
    const hash = transactionOf(await through.settle({ authorization, domain: domain() }))
    expect((await chain.publicClient.getTransaction({ hash })).from.toLowerCase()).toBe(after.address.toLowerCase())
    expect(sent).toHaveLength(1)
    expect(await chain.publicClient.getTransactionCount({ address: before.address })).toBe(0)
  })

  test('error: no key to sign with is a fault (the outcome is left undecided), never settlement_failed; nothing is sent', async () => {
    const { through, sent } = withKeys(async () => {
      throw new Error('the lease is gone and the ledger does not answer')
    })
    const authorization = await sign(payer(5), { to: randomAddress(), value: 1n })
    await expect(through.settle({ authorization, domain: domain() })).rejects.toThrow('No relayer key to sign with.')
    expect(sent).toHaveLength(0)
  })
})

describe('local.status', () => {
  test('default: unused before, settled with the transaction after', async () => {
    const authorization = await sign(payer(5), { to: randomAddress(), value: 5n })
    const query = { payer: authorization.from, nonce: authorization.nonce, domain: domain() }
    expect(await facilitator.status(query)).toEqual({ state: 'unused' })
    const transaction = transactionOf(await facilitator.settle({ authorization, domain: domain() }))
    expect(await facilitator.status({ ...query, transaction })).toEqual({ state: 'settled', transaction })
  })

  test('behavior: finds the transaction by its AuthorizationUsed log when no hash is given, or a wrong one', async () => {
    const authorization = await sign(payer(5), { to: randomAddress(), value: 5n })
    const transaction = transactionOf(await facilitator.settle({ authorization, domain: domain() }))
    // Later blocks, so the search must look past the newest one.
    const other = transactionOf(
      await facilitator.settle({
        authorization: await sign(payer(5), { to: randomAddress(), value: 1n }),
        domain: domain(),
      }),
    )
    const query = { payer: authorization.from, nonce: authorization.nonce, domain: domain() }
    expect(await facilitator.status(query)).toEqual({ state: 'settled', transaction })
    expect(await facilitator.status({ ...query, transaction: other })).toEqual({ state: 'settled', transaction })
  })
})

describe('local.settle through AuthorizationSettler', () => {
  const settled = () =>
    create({ relayer: privateKeyToAccount(chain.accounts[7]!.privateKey), settler: authorizationSettlerAddress })

  test('default: 10 concurrent settlements share one packed settle call; every balance is exact', async () => {
    const through = settled()
    const payers = await fundedPayers(10)
    const to = randomAddress()
    const values = payers.map((_, index) => BigInt(index + 1) * 1_000n)
    const authorizations = await Promise.all(payers.map((from, index) => sign(from, { to, value: values[index]! })))
    const outcomes = await Promise.all(
      authorizations.map((authorization) => through.settle({ authorization, domain: domain() })),
    )
    const mined = await receipts(outcomes.map(transactionOf))
    expect(mined.length).toBeLessThan(10)
    for (const receipt of mined) {
      expect(receipt.status).toBe('success')
      if (receipt.logs.length > 2) expect(receipt.to?.toLowerCase()).toBe(authorizationSettlerAddress.toLowerCase())
    }
    for (const [index, { address }] of payers.entries())
      expect(await balanceOf(address)).toBe(10_000_000n - values[index]!)
    expect(await balanceOf(to)).toBe(values.reduce((sum, value) => sum + value, 0n))
  })

  test('error: an item used by somebody else after verification fails alone; the others settle in the same call', async () => {
    const payers = await fundedPayers(4)
    const to = randomAddress()
    const authorizations = await Promise.all(payers.map((from) => sign(from, { to, value: 50n })))
    const racedSettler = withFrontRunner(8, () => frontRun(authorizations[1]!), {
      settler: authorizationSettlerAddress,
    })
    const outcomes = await Promise.all(
      authorizations.map((authorization) => racedSettler.settle({ authorization, domain: domain() })),
    )
    expect(outcomes[1]).toMatchObject({ ok: false, reason: 'replayed' })
    const hashes = [0, 2, 3].map((index) => transactionOf(outcomes[index]!))
    expect(new Set(hashes).size).toBe(1)
    const [receipt] = await receipts(hashes)
    expect(receipt!.status).toBe('success')
    expect(receipt!.to?.toLowerCase()).toBe(authorizationSettlerAddress.toLowerCase())
    expect(await balanceOf(to)).toBe(200n)
    for (const { address } of payers) expect(await balanceOf(address)).toBe(10_000_000n - 50n)
  })

  test('behavior: a shared batch goes out on a gas budget: no estimate, one transaction', async () => {
    const methods: string[] = []
    const transport = custom(
      {
        request({ method, params }) {
          methods.push(method)
          return chain.request(method, params)
        },
      },
      { retryCount: 0 },
    )
    const through = create({
      client: createPublicClient({ chain: chain.chain, transport, pollingInterval: 50 }),
      transport,
      relayer: await fundedRelayer(),
      settler: authorizationSettlerAddress,
    })
    const { to, outcomes } = await settleTogether(through, 5, 70n)
    expect(new Set(outcomes.map(transactionOf)).size).toBe(1)
    expect(methods).not.toContain('eth_estimateGas')
    expect(methods.filter((method) => method === 'eth_sendRawTransaction')).toHaveLength(1)
    expect(await balanceOf(to)).toBe(350n)
  })

  test('error: a budget too small starves an item; the call reverts whole and the batch settles again on an estimate', async () => {
    const relayer = await fundedRelayer()
    const through = create({
      relayer,
      settler: authorizationSettlerAddress,
      // Less than one transferWithAuthorization needs: the first item runs out of gas.
      gasBudget: { base: 30_000n, perItem: 20_000n },
    })
    const before = await chain.publicClient.getBlockNumber()
    const { payers, to, outcomes } = await settleTogether(through, 3, 9n)
    const [settled] = await receipts(outcomes.map(transactionOf))
    expect(settled!.status).toBe('success')
    // The starved call was mined, reverted with ItemStarved(0), and moved nothing.
    const reverted = []
    for (let number = before + 1n; number < settled!.blockNumber; number++) {
      const block = await chain.publicClient.getBlock({ blockNumber: number, includeTransactions: true })
      for (const transaction of block.transactions)
        if (transaction.from.toLowerCase() === relayer.address.toLowerCase()) reverted.push(transaction)
    }
    expect(reverted).toHaveLength(1)
    expect((await chain.publicClient.getTransactionReceipt({ hash: reverted[0]!.hash })).status).toBe('reverted')
    // Run again on the state it met, it names the item it starved.
    const replay = await chain.publicClient
      .call({
        account: relayer.address,
        to: authorizationSettlerAddress,
        data: reverted[0]!.input,
        gas: reverted[0]!.gas,
        blockNumber: reverted[0]!.blockNumber! - 1n,
      })
      .then(
        () => undefined,
        (error: BaseError) => error.walk((cause) => 'data' in (cause as object)) as { data?: Hex } | null,
      )
    expect(decodeErrorResult({ abi: settlerAbi, data: replay!.data! })).toMatchObject({
      errorName: 'ItemStarved',
      args: [0n],
    })
    expect(await balanceOf(to)).toBe(27n)
    for (const { address } of payers) expect(await balanceOf(address)).toBe(10_000_000n - 9n)
  })

  test('error: a budget the node refuses (past the block gas limit) sends nothing; the batch settles on an estimate', async () => {
    const relayer = await fundedRelayer()
    const through = create({
      relayer,
      settler: authorizationSettlerAddress,
      gasBudget: { base: 50_000n, perItem: 1_000_000_000n },
    })
    const { to, outcomes } = await settleTogether(through, 3, 11n)
    const [receipt] = await receipts(outcomes.map(transactionOf))
    expect(receipt!.status).toBe('success')
    // The refused send used no nonce: the settling transaction is the relayer's first.
    expect(await chain.publicClient.getTransactionCount({ address: relayer.address })).toBe(1)
    expect(await balanceOf(to)).toBe(33n)
  })

  test('behavior: a batch with a smart-wallet signature goes through Multicall3 instead', async () => {
    const payers = await fundedPayers(3)
    const to = randomAddress()
    const authorizations = await Promise.all(payers.map((from) => sign(from, { to, value: 10n })))
    // A 66-byte signature cannot be packed; it fails on the token, alone, and the batch takes the general path.
    const odd = { ...authorizations[0]!, signature: `${authorizations[0]!.signature}00` as Hex }
    const through = settled()
    const outcomes = await Promise.all(
      [odd, ...authorizations.slice(1)].map((authorization) => through.settle({ authorization, domain: domain() })),
    )
    expect(outcomes[0]!.ok).toBe(false)
    const [receipt] = await receipts([1, 2].map((index) => transactionOf(outcomes[index]!)))
    expect(receipt!.status).toBe('success')
    expect(await balanceOf(to)).toBe(20n)
  })
})

describe('local (measure)', () => {
  test('behavior: gas per settled payment and settlements per second, one at a time and shared, Multicall3 and AuthorizationSettler', async () => {
    const to = randomAddress()
    // A payee that already holds tokens, as a gateway's payTo does: its balance slot is not created by the first payment.
    await chain.fund({ address: to, amount: 1n })
    const payers = await fundedPayers(2 * (10 + 10 + 50 + 200))
    let next = 0
    /** Settles `count` payments from fresh payers, `rounds` waves one after another; reads gas from the receipts. */
    async function run(measured: Facilitator, count: number, rounds = 1) {
      const authorizations = await Promise.all(
        payers.slice(next, next + count * rounds).map((from) => sign(from, { to, value: 1_000n })),
      )
      next += count * rounds
      const hashes: Hash[] = []
      const start = performance.now()
      for (let round = 0; round < rounds; round++) {
        const wave = authorizations.slice(round * count, (round + 1) * count)
        hashes.push(
          ...(await Promise.all(wave.map((authorization) => measured.settle({ authorization, domain: domain() })))).map(
            transactionOf,
          ),
        )
      }
      const ms = performance.now() - start
      const mined = await receipts(hashes)
      const gas = mined.reduce((sum, receipt) => sum + receipt.gasUsed, 0n)
      return {
        count,
        rounds,
        transactions: mined.length,
        gasPerPayment: gas / BigInt(count * rounds),
        perSecond: ((count * rounds) / ms) * 1000,
      }
    }
    const paths = {
      Multicall3: create({ relayer: privateKeyToAccount(chain.accounts[6]!.privateKey) }),
      AuthorizationSettler: create({
        relayer: privateKeyToAccount(chain.accounts[6]!.privateKey),
        settler: authorizationSettlerAddress,
      }),
    }
    const measured: Record<string, Awaited<ReturnType<typeof run>>[]> = {}
    for (const [name, facilitator] of Object.entries(paths)) {
      const figures = [
        await run(facilitator, 1, 10),
        await run(facilitator, 10),
        await run(facilitator, 50),
        await run(facilitator, 200),
      ]
      measured[name] = figures
      for (const { count, rounds, transactions, gasPerPayment, perSecond } of figures)
        console.info(
          `${name}: ${count} concurrent x ${rounds}: ${transactions} tx, ${gasPerPayment} gas per payment, ${perSecond.toFixed(0)} settlements/s`,
        )
      expect(figures[0]!.transactions).toBe(10)
      expect(figures[1]!.gasPerPayment).toBeLessThan(figures[0]!.gasPerPayment)
      expect(figures[2]!.transactions).toBe(1)
      expect(figures[3]!.transactions).toBe(2)
    }
    // Packed authorizations cost less per payment than aggregate3 at every shared size.
    for (const index of [1, 2, 3])
      expect(measured.AuthorizationSettler![index]!.gasPerPayment).toBeLessThan(
        measured.Multicall3![index]!.gasPerPayment,
      )
    expect(await balanceOf(to)).toBe(1n + 2n * 270n * 1_000n)
  })
})
