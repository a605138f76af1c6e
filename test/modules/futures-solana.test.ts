import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import {
  AuthorityType,
  getApproveInstruction,
  getSetAuthorityInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token'
import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { associatedTokenAccount, solanaFuturesTreasury } from '../../adapters/solana/futures.js'
import { memory } from '../../adapters/store/memory.js'
import * as Futures from '../../core/Futures.js'
import type { Store } from '../../core/Store.js'
import { manifest } from '../../modules/futures/index.js'
import { moduleGateway } from '../support/gateway.js'
import { genesisHash, servedSolana } from '../support/litesvm.js'
import { ok, refused } from '../support/module.js'
import { paidGateway } from '../support/paid.js'

let solana: Awaited<ReturnType<typeof servedSolana>>
let usdc: Address
/** The operator: its address owns the deposit token account, and its key sends refunds from it. */
let operator: { secretKey: string; address: Address }
let treasury: Futures.SolanaTreasury
const network: Futures.SolanaNetwork = `solana:${genesisHash.slice(0, 32)}`

/** The settlement chain's treasury, never asked here: these tests deposit on Solana only. */
const settlement: Futures.Treasury = {
  chainId: 8453,
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  depositAddress: '0x000000000000000000000000000000000000dEaD',
  receipt: async () => undefined,
}

/** A new keypair: its 64 bytes as `solana-keygen` writes them, and its address. */
async function keypair() {
  const seed = crypto.getRandomValues(new Uint8Array(32))
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed)
  const bytes = [...seed, ...getBase58Encoder().encode(signer.address)]
  return { secretKey: JSON.stringify(bytes), address: signer.address }
}

beforeAll(async () => {
  solana = await servedSolana()
  usdc = await solana.mint()
  operator = await keypair()
  solana.svm.airdrop(operator.address, lamports(1_000_000_000n))
  await solana.fund({ mint: usdc, owner: operator.address, amount: 0n })
  treasury = await solanaFuturesTreasury({ url: solana.url, mint: usdc, secretKey: operator.secretKey })
})

afterAll(() => solana.close())

/** A gateway of the futures family whose Solana side is `solanaTreasury`. */
const gatewayOf = (parameters: {
  solanaTreasury?: Futures.SolanaTreasury
  books?: Store
  env?: Record<string, string>
}) =>
  moduleGateway(manifest, {
    ports: { store: parameters.books ?? memory(), futures: settlement, futuresSolana: parameters.solanaTreasury },
    env: parameters.env,
  })

/** A Solana wallet with SOL for fees and `amount` USDC in its associated token account. */
async function depositor(amount = 100_000_000n): Promise<KeyPairSigner> {
  const wallet = await solana.wallet()
  await solana.fund({ mint: usdc, owner: wallet.address, amount })
  return wallet
}

/** The SPL Memo that names `payer` as the wallet to credit. */
function memo(text: string): Instruction {
  return { programAddress: address(Futures.memoPrograms[0]!), data: new TextEncoder().encode(text) }
}

/** A `TransferChecked` of `amount` from `owner`'s associated account (signed by `authority`) to `to`'s. */
async function transfer(parameters: {
  owner: Address
  authority: KeyPairSigner
  to: Address
  amount: bigint
  mint?: Address
}): Promise<Instruction> {
  const mint = parameters.mint ?? usdc
  return getTransferCheckedInstruction({
    source: await associatedTokenAccount({ owner: parameters.owner, mint }),
    mint,
    destination: await associatedTokenAccount({ owner: parameters.to, mint }),
    authority: parameters.authority,
    amount: parameters.amount,
    decimals: 6,
  })
}

/** Signs `instructions` with `feePayer` (and any signer they name), sends them to the node; the signature. */
async function send(feePayer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
  const rpc = createSolanaRpc(solana.url)
  const { value: blockhash } = await rpc.getLatestBlockhash().send()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(feePayer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(blockhash, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  )
  const signed = await signTransactionMessageWithSigners(message)
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send()
  return getSignatureFromTransaction(signed)
}

/** A deposit of `amount` by `from` to the operator, its memo naming `payer`; the signature. */
async function deposit(from: KeyPairSigner, payer: LocalAccount, amount: bigint): Promise<string> {
  return send(from, [
    await transfer({ owner: from.address, authority: from, to: operator.address, amount }),
    memo(`compute-futures:${payer.address}`),
  ])
}

const evmWallet = () => privateKeyToAccount(generatePrivateKey())

describe('POST /api/v1/compute-futures/deposit (chain: solana)', () => {
  test('behavior: where Solana deposits go is in the payment manifest before any deposit', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payments = (await (await gateway.fetch('/.well-known/x402.json')).json()) as any
    const resource = payments.resources.find((entry: any) => entry.path === '/api/v1/compute-futures/deposit')
    expect(resource.deposit.solana).toEqual({
      mint: usdc,
      depositAddress: operator.address,
      depositTokenAccount: treasury.depositTokenAccount,
    })
  })

  test('default: credits exactly the USDC a signed, memo-tagged transfer moved, to a separate account, once', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payer = evmWallet()
    const sender = await depositor()
    const before = await solana.balance({ mint: usdc, owner: operator.address })
    const transaction = await deposit(sender, payer, 12_345_678n)
    expect(await solana.balance({ mint: usdc, owner: operator.address })).toBe(before + 12_345_678n)

    const body = await ok(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
    )
    expect(body).toMatchObject({
      credited: '12.345678',
      transaction,
      sequence: 1,
      id: Futures.idOf({ depositor: payer.address, chainId: network }),
      depositor: payer.address,
      chainId: network,
      depositAddress: operator.address,
      solana: {
        depositor: sender.address,
        tokenAccount: await associatedTokenAccount({ owner: sender.address, mint: usdc }),
      },
      balances: { available: '12.345678', deposited: '12.345678' },
      tier: 'builder',
    })
    // Not the payer's account of settlement-chain deposits, which stays the default and does not exist.
    expect(body.id).not.toBe(Futures.idOf({ depositor: payer.address, chainId: settlement.chainId }))
    await refused(await gateway.get('/api/v1/compute-futures/balance', payer), 404)
    const settled = gateway.settled.length

    const again = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
      409,
    )
    expect(again.detail).toContain('credited already')
    expect(gateway.settled.length).toBe(settled)
    const history = await ok(await gateway.get(`/api/v1/compute-futures/history?id=${body.id}`, payer))
    expect(history.entries).toMatchObject([{ kind: 'deposit', amount: '12.345678', transaction }])
  })

  test('security: another payer naming the transaction, or a memo naming another wallet, credits nobody', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const [named, stranger] = [evmWallet(), evmWallet()]
    const transaction = await deposit(await depositor(), named, 1_000_000n)
    const body = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, stranger),
      403,
    )
    expect(body.detail).toContain(named.address)
    expect(gateway.settled.length).toBe(0)
    await refused(await gateway.get(`/api/v1/compute-futures/balance?id=${idOf(stranger)}`, stranger), 404)
    // The wallet the memo names may credit it.
    const credited = await ok(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, named),
    )
    expect(credited.credited).toBe('1.000000')
  })

  test('security: USDC moved by a delegate, not its owner, credits nobody', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const owner = await depositor()
    const delegate = await solana.wallet()
    const payer = evmWallet()
    await send(owner, [
      getApproveInstruction({
        source: await associatedTokenAccount({ owner: owner.address, mint: usdc }),
        delegate: delegate.address,
        owner,
        amount: 5_000_000n,
      }),
    ])
    const transaction = await send(delegate, [
      await transfer({ owner: owner.address, authority: delegate, to: operator.address, amount: 5_000_000n }),
      memo(`compute-futures:${payer.address}`),
    ])
    expect(solana.landed(transaction)).toBe(true)
    const body = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
      403,
    )
    expect(body.detail).toContain('not its signer')
    await refused(await gateway.get(`/api/v1/compute-futures/balance?id=${idOf(payer)}`, payer), 404)
  })

  test('error: a transfer with no memo is a 400 that says a memo is needed', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const sender = await depositor()
    const transaction = await send(sender, [
      await transfer({ owner: sender.address, authority: sender, to: operator.address, amount: 1_000_000n }),
    ])
    const payer = evmWallet()
    const body = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
      400,
    )
    expect(body.code).toBe('validation_failed')
    expect(body.detail).toContain('no SPL Memo "compute-futures:<EVM address>"')
  })

  test('error: another mint, or another destination, is a 409 and credits nothing', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payer = evmWallet()
    const sender = await depositor()
    const other = await solana.mint()
    await solana.fund({ mint: other, owner: sender.address, amount: 5_000_000n })
    await solana.fund({ mint: other, owner: operator.address, amount: 0n })
    const stranger = await depositor(0n)
    for (const instruction of [
      await transfer({ owner: sender.address, authority: sender, to: operator.address, amount: 1n, mint: other }),
      await transfer({ owner: sender.address, authority: sender, to: stranger.address, amount: 1_000_000n }),
    ]) {
      const transaction = await send(sender, [instruction, memo(`compute-futures:${payer.address}`)])
      const body = await refused(
        await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
        409,
      )
      expect(body.detail).toContain(treasury.depositTokenAccount)
    }
    await refused(await gateway.get(`/api/v1/compute-futures/balance?id=${idOf(payer)}`, payer), 404)
  })

  test('error: a failed transaction is a 409; an unknown one a 404', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payer = evmWallet()
    const sender = await depositor(1_000_000n)
    // More than the sender holds: the transfer fails on chain, and its signature is still known.
    const transaction = await deposit(sender, payer, 2_000_000n)
    expect(solana.landed(transaction)).toBe(true)
    const body = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
      409,
    )
    expect(body.detail).toContain('failed')
    const unknown = await refused(
      await gateway.post('/api/v1/compute-futures/deposit', { transaction: '1'.repeat(64), chain: 'solana' }, payer),
      404,
    )
    expect(unknown.code).toBe('not_found')
  })

  test('behavior: a deposit short of the configured commitment is a 409 to retry, then credited', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payer = evmWallet()
    const transaction = await deposit(await depositor(), payer, 3_000_000n)
    solana.commitment('confirmed')
    try {
      const body = await refused(
        await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer),
        409,
      )
      expect(body).toMatchObject({ commitment: 'confirmed', required: 'finalized' })
      expect(gateway.settled.length).toBe(0)
      // An operator who accepts `confirmed` credits it at once.
      const eager = gatewayOf({ solanaTreasury: treasury, env: { FUTURES_SOLANA_COMMITMENT: 'confirmed' } })
      await ok(await eager.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer))
    } finally {
      solana.commitment('finalized')
    }
    await ok(await gateway.post('/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }, payer))
  })

  test('behavior: a second deposit from another Solana wallet is refused: refunds go to the first', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const payer = evmWallet()
    const [first, second] = [await depositor(), await depositor()]
    await ok(
      await gateway.post(
        '/api/v1/compute-futures/deposit',
        { transaction: await deposit(first, payer, 1_000_000n), chain: 'solana' },
        payer,
      ),
    )
    const body = await refused(
      await gateway.post(
        '/api/v1/compute-futures/deposit',
        { transaction: await deposit(second, payer, 1_000_000n), chain: 'solana' },
        payer,
      ),
      409,
    )
    expect(body).toMatchObject({ depositor: first.address, from: second.address })
    // The first wallet's later deposits add up.
    const more = await ok(
      await gateway.post(
        '/api/v1/compute-futures/deposit',
        { transaction: await deposit(first, payer, 500_000n), chain: 'solana' },
        payer,
      ),
    )
    expect(more.balances.available).toBe('1.500000')
  })

  test('error: unconfigured, 503 before payment naming the environment; a signature of the wrong chain, 400', async () => {
    const unconfigured = gatewayOf({})
    const body = await refused(
      await unconfigured.post('/api/v1/compute-futures/deposit', { transaction: '1'.repeat(88), chain: 'solana' }),
      503,
    )
    expect(body.detail).toContain('FUTURES_SOLANA_RPC_URL')
    const gateway = gatewayOf({ solanaTreasury: treasury })
    for (const body of [{ transaction: '1'.repeat(88) }, { transaction: `0x${'ab'.repeat(32)}`, chain: 'solana' }]) {
      const refusal = await refused(await gateway.post('/api/v1/compute-futures/deposit', body), 400)
      expect(refusal.code).toBe('validation_failed')
    }
  })
})

/** The payer's account of Solana deposits. */
const idOf = (payer: LocalAccount) => Futures.idOf({ depositor: payer.address, chainId: network })

/**
 * A new EVM payer's account of Solana deposits, funded by a deposit of `deposited` from a new Solana wallet holding
 * `held` (by default exactly what it deposits).
 */
async function solanaFunded(
  gateway: ReturnType<typeof gatewayOf>,
  parameters: { held?: bigint | undefined; deposited: bigint },
) {
  const payer = evmWallet()
  const sender = await depositor(parameters.held ?? parameters.deposited)
  const body = await ok(
    await gateway.post(
      '/api/v1/compute-futures/deposit',
      { transaction: await deposit(sender, payer, parameters.deposited), chain: 'solana' },
      payer,
    ),
  )
  return { payer, sender, id: body.id as string }
}

describe('POST /api/v1/compute-futures/refund (a Solana-funded account)', () => {
  test('default: sends exactly the amount back to the depositor on Solana, recorded with its signature', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const { payer, sender, id } = await solanaFunded(gateway, { held: 10_000_000n, deposited: 4_000_000n })
    expect(await solana.balance({ mint: usdc, owner: sender.address })).toBe(6_000_000n)
    const body = await ok(await gateway.post('/api/v1/compute-futures/refund', { id, amount: '1.5' }, payer))
    expect(body).toMatchObject({ id, status: 'sent', to: sender.address, amount: '1.500000' })
    expect(body.balances).toMatchObject({ available: '2.500000', refunding: '0.000000', refunded: '1.500000' })
    expect(solana.landed(body.transaction)).toBe(true)
    expect(await solana.balance({ mint: usdc, owner: sender.address })).toBe(7_500_000n)

    const history = await ok(await gateway.get(`/api/v1/compute-futures/history?id=${id}`, payer))
    expect(history.entries.map((entry: any) => entry.kind)).toEqual(['deposit', 'hold', 'refund'])
    expect(history.entries[2]).toMatchObject({ transaction: body.transaction, debit: 'refunding', credit: 'usdc' })
    // Another payer cannot refund it.
    await refused(await gateway.post('/api/v1/compute-futures/refund', { id }, evmWallet()), 404)
  })

  test('behavior: a refund the operator cannot send gives the credit back, uncharged', async () => {
    // Deposits go to the funded operator's account; refunds come from a key with no USDC: simulation fails.
    const broke = await keypair()
    solana.svm.airdrop(broke.address, lamports(1_000_000_000n))
    const poor = await solanaFuturesTreasury({
      url: solana.url,
      mint: usdc,
      depositAddress: operator.address,
      secretKey: broke.secretKey,
    })
    const gateway = gatewayOf({ solanaTreasury: poor })
    const { payer, sender, id } = await solanaFunded(gateway, { deposited: 2_000_000n })
    const settled = gateway.settled.length
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', { id }, payer), 502)
    expect(body.detail).toContain('available again')
    expect(gateway.settled.length).toBe(settled)
    expect(await solana.balance({ mint: usdc, owner: sender.address })).toBe(0n)
    const history = await ok(await gateway.get(`/api/v1/compute-futures/history?id=${id}`, payer))
    expect(history.entries.map((entry: any) => entry.kind)).toEqual(['deposit', 'hold', 'reverse'])
    expect(history.entries.at(-1).balances).toMatchObject({ available: '2.000000', refunding: '0.000000' })
  })

  test('behavior: a refund sent but not confirmed in time stays held, never sent twice', async () => {
    const impatient = await solanaFuturesTreasury({
      url: solana.url,
      mint: usdc,
      secretKey: operator.secretKey,
      confirmTimeoutMs: 300,
    })
    const gateway = gatewayOf({ solanaTreasury: impatient })
    const { payer, id } = await solanaFunded(gateway, { deposited: 2_000_000n })
    solana.holdConfirmations(true)
    let body: any
    try {
      body = await refused(await gateway.post('/api/v1/compute-futures/refund', { id }, payer), 504)
    } finally {
      solana.holdConfirmations(false)
    }
    expect(body.detail).toContain('never sent again')
    expect(solana.landed(body.transaction)).toBe(true)
    const balance = await ok(await gateway.get(`/api/v1/compute-futures/balance?id=${id}`, payer))
    expect(balance.balances).toMatchObject({ available: '0.000000', refunding: '2.000000' })
  })

  test('security: a token account its depositor no longer owns is not refunded to; the credit stays', async () => {
    const gateway = gatewayOf({ solanaTreasury: treasury })
    const { payer, sender, id } = await solanaFunded(gateway, { deposited: 3_000_000n })
    // The depositor hands the token account the deposit came from to someone else.
    const buyer = await solana.wallet()
    const source = await associatedTokenAccount({ owner: sender.address, mint: usdc })
    await send(sender, [
      getSetAuthorityInstruction({
        owned: source,
        owner: sender,
        authorityType: AuthorityType.AccountOwner,
        newAuthority: buyer.address,
      }),
    ])
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', { id }, payer), 502)
    expect(body.detail).toContain(`no longer a ${usdc} account of ${sender.address}`)
    const balance = await ok(await gateway.get(`/api/v1/compute-futures/balance?id=${id}`, payer))
    expect(balance.balances).toMatchObject({ available: '3.000000', refunded: '0.000000' })
  })

  test('error: with no Solana operator key, refunds of a Solana account answer 503 before payment', async () => {
    const books = memory()
    const readOnly = await solanaFuturesTreasury({ url: solana.url, mint: usdc, depositAddress: operator.address })
    const gateway = gatewayOf({ solanaTreasury: readOnly, books })
    const { id } = await solanaFunded(gateway, { deposited: 1_000_000n })
    const body = await refused(await gateway.post('/api/v1/compute-futures/refund', { id }), 503)
    expect(body.detail).toContain('FUTURES_SOLANA_OPERATOR_SECRET_KEY')
  })
})

describe('on the gateway `npm start` boots', () => {
  test('default: FUTURES_SOLANA_* configured, a Solana deposit paid for over x402 is credited and refunded on Solana', async () => {
    const booted = await paidGateway({
      env: {
        FUTURES_SOLANA_RPC_URL: solana.url,
        FUTURES_SOLANA_OPERATOR_SECRET_KEY: operator.secretKey,
        FUTURES_SOLANA_MINT: usdc,
      },
    })
    try {
      const payer = booted.account(4)
      const sender = await depositor(5_000_000n)
      const transaction = await deposit(sender, payer, 5_000_000n)
      const credited = await ok(
        await booted.paid(payer, 'POST', '/api/v1/compute-futures/deposit', { transaction, chain: 'solana' }),
      )
      expect(credited).toMatchObject({
        credited: '5.000000',
        chainId: network,
        depositAddress: operator.address,
        solana: { depositor: sender.address },
      })
      const refunded = await ok(
        await booted.paid(payer, 'POST', '/api/v1/compute-futures/refund', { id: credited.id, amount: '2' }),
      )
      expect(refunded).toMatchObject({ status: 'sent', to: sender.address, amount: '2.000000' })
      expect(await solana.balance({ mint: usdc, owner: sender.address })).toBe(2_000_000n)
    } finally {
      await booted.close()
    }
  })
})
