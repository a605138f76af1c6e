import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64urlnopad } from '@scure/base'
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  hexToBytes,
  type PrivateKeyAccount,
  parseEther,
  parseTransaction,
  verifyMessage,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as CustodialWallet from '../../core/CustodialWallet.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'
import { type Seen, vendorServer } from '../support/vendor.js'

// Custodial wallets on a stand-in of Phantom's server-wallet API (its documented KMS RPC: createWallet, getAccounts,
// ethereumSignMessage, signUtf8Message, signTransaction, every request stamped by the organization's Ed25519 key),
// on the devnet: a wallet is created by its owner's EIP-712 signature, is the owner's alone (404 to anyone else),
// signs messages whose signatures check, and sends transactions that are simulated, signed by the vendor, checked and
// sent by the gateway. Unconfigured, the family answers 503 before payment.

/** The organization's key, as Phantom issues it: the 64-byte Ed25519 secret key, Base58. */
const organizationSeed = ed25519.utils.randomPrivateKey()
const organizationPublicKey = ed25519.getPublicKey(organizationSeed)
const organizationKey = base58.encode(new Uint8Array([...organizationSeed, ...organizationPublicKey]))

/** The stand-in's wallets: the keys Phantom would hold. */
const wallets = new Map<string, { evm: PrivateKeyAccount; solana: Uint8Array }>()
/** Requests the stand-in refused for a bad stamp. */
const badStamps: Seen[] = []
/** What the stand-in does instead of signing honestly. */
const mode = { tamper: false, fail: false }

/** Phantom's KMS RPC as its server SDK speaks it: `POST /v1/wallets/kms/rpc`, `{ method, params, timestampMs }`. */
function phantomAnswer(request: Seen): Response {
  if (request.url.pathname !== '/api/v1/wallets/kms/rpc')
    return Response.json({ message: 'Not found' }, { status: 404 })
  const stamp = JSON.parse(
    new TextDecoder().decode(base64urlnopad.decode(request.headers.get('x-phantom-stamp') ?? '')),
  )
  const signed = ed25519.verify(
    base64urlnopad.decode(stamp.signature),
    new TextEncoder().encode(request.body),
    base64urlnopad.decode(stamp.publicKey),
  )
  if (
    !signed ||
    stamp.kind !== 'PKI' ||
    stamp.publicKey !== base64urlnopad.encode(organizationPublicKey) ||
    request.headers.get('x-app-id') !== 'app-1'
  ) {
    badStamps.push(request)
    return Response.json({ type: 'unauthorized', title: 'Unauthorized', detail: 'Invalid stamp' }, { status: 401 })
  }
  if (mode.fail) return Response.json({ message: 'KMS unavailable' }, { status: 503 })
  const { method, params } = JSON.parse(request.body)
  expect(params.organizationId).toBe('org-1')
  const wallet = wallets.get(params.walletId)
  const bytes = (text: string) => base64urlnopad.encode(hexToBytes(text as Hex))
  switch (method) {
    case 'createWallet': {
      const walletId = crypto.randomUUID()
      wallets.set(walletId, {
        evm: privateKeyToAccount(generatePrivateKey()),
        solana: ed25519.utils.randomPrivateKey(),
      })
      return Response.json({ result: { walletId, walletName: params.walletName, tags: [] } })
    }
    case 'getAccounts':
      if (!wallet) return Response.json({ message: 'Wallet not found' }, { status: 404 })
      return Response.json({
        result: [
          {
            derivationPath: "m/44'/501'/0'/0'",
            addressFormat: 'solana',
            address: base58.encode(ed25519.getPublicKey(wallet.solana)),
          },
          { derivationPath: "m/44'/60'/0'/0/0", addressFormat: 'ethereum', address: wallet.evm.address },
        ],
      })
    case 'ethereumSignMessage':
      return wallet!.evm
        .signMessage({ message: { raw: base64urlnopad.decode(params.message) } })
        .then((signature) => Response.json({ result: { signature: bytes(signature), publicKey: '' } })) as never
    case 'signUtf8Message': {
      const signature = ed25519.sign(new TextEncoder().encode(params.message), wallet!.solana)
      return Response.json({ result: { signature: base64urlnopad.encode(signature), publicKey: '' } })
    }
    case 'signTransaction': {
      expect(params.transaction.kind).toBe('RLP_ENCODED')
      expect(params.submissionConfig).toBeUndefined()
      const transaction = parseTransaction(params.transaction.bytes as Hex)
      const signer = mode.tamper ? privateKeyToAccount(generatePrivateKey()) : wallet!.evm
      return signer
        .signTransaction(transaction as never)
        .then((raw) => Response.json({ result: { transaction: bytes(raw) } })) as never
    }
    default:
      return Response.json({ error: { code: -32601, message: `Unknown method ${method}` } })
  }
}

const phantom = vendorServer()
let gateway: Awaited<ReturnType<typeof paidGateway>>
let unconfigured: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  phantom.state.answer = phantomAnswer
  gateway = await paidGateway({
    env: {
      PHANTOM_WALLET_API_URL: `${phantom.url}/v1/wallets`,
      PHANTOM_ORGANIZATION_ID: 'org-1',
      PHANTOM_APP_ID: 'app-1',
      PHANTOM_PRIVATE_KEY: organizationKey,
    },
  })
  unconfigured = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
  await unconfigured.close()
  phantom.stop()
})

const owner = () => gateway.account(3)
const stranger = () => gateway.account(4)
const someone = privateKeyToAccount(generatePrivateKey()).address

/** A free POST. */
async function post(path: string, body: unknown, on = gateway) {
  return on.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** A paid call by `payer`: the response and what it cost. */
async function paid(payer: PrivateKeyAccount, method: 'GET' | 'POST', path: string, body?: unknown) {
  const before = await gateway.balance(payer.address)
  const response = await gateway.paid(payer, method, path, body)
  return { response, cost: before - (await gateway.balance(payer.address)) }
}

/** Creates a wallet for `account`: asks for the typed data, signs it, sends it back. */
async function create(account: PrivateKeyAccount, fields: Record<string, unknown> = {}) {
  const asked = await ok(await post('/api/v1/wallet/create', { owner: account.address, ...fields }))
  const { typedData, request } = asked
  const signature = await account.signTypedData({
    ...typedData,
    message: { ...typedData.message, nonce: BigInt(typedData.message.nonce), expiry: BigInt(typedData.message.expiry) },
  })
  return { request, signature, response: await post('/api/v1/wallet/create', { ...request, signature }) }
}

let walletId = ''
let evm: Address

describe('POST /api/v1/wallet/create (free)', () => {
  test('default: the typed data to sign first, then the wallet, owned by the signer, with the vendor’s addresses', async () => {
    const asked = await ok(await post('/api/v1/wallet/create', { owner: owner().address, label: 'trading bot' }))
    expect(asked).toMatchObject({ status: 'signature_required', owner: owner().address })
    expect(asked.typedData.domain).toEqual({
      name: 'x402 Gateway Wallets',
      version: '1',
      chainId: gateway.devnet.chainId,
    })
    expect(asked.request.name).toMatch(/^spraay-agent-\d+$/)
    expect(wallets.size).toBe(0)
    const { response } = await create(owner(), { label: 'trading bot' })
    expect(response.status).toBe(201)
    const body = await response.json()
    walletId = body.walletId
    const keys = wallets.get(walletId)!
    evm = keys.evm.address
    expect(body).toMatchObject({ success: true, label: 'trading bot', owner: owner().address, vendor: 'phantom' })
    expect(body.addresses).toEqual(
      CustodialWallet.addressesOf({ evm, solana: base58.encode(ed25519.getPublicKey(keys.solana)) }),
    )
    expect(body.addresses.base).toBe(evm)
    expect(badStamps).toEqual([])
  })

  test('error: a replayed signature is 409; one by another key is 403; an expired one is 400', async () => {
    const first = await create(stranger())
    expect(first.response.status).toBe(201)
    const again = await refused(
      await post('/api/v1/wallet/create', { ...first.request, signature: first.signature }),
      409,
    )
    expect(again.details?.reason ?? again.reason).toBe('replayed')
    const asked = await ok(await post('/api/v1/wallet/create', { owner: owner().address }))
    const forged = await stranger().signTypedData({
      ...asked.typedData,
      message: {
        ...asked.typedData.message,
        nonce: BigInt(asked.typedData.message.nonce),
        expiry: BigInt(asked.typedData.message.expiry),
      },
    })
    await refused(await post('/api/v1/wallet/create', { ...asked.request, signature: forged }), 403)
    const expired = await refused(
      await post('/api/v1/wallet/create', { ...asked.request, expiry: 1, signature: forged }),
      400,
    )
    expect(expired.details?.field ?? expired.field).toBe('expiry')
  })
})

describe('GET /api/v1/wallet/*', () => {
  test('default: the owner lists, reads and gets the addresses of their wallet, at the original’s prices', async () => {
    const listed = await paid(owner(), 'GET', '/api/v1/wallet/list?limit=10')
    const list = await ok(listed.response)
    expect(listed.cost).toBe(2_000n)
    expect(list.wallets).toHaveLength(1)
    expect(list.wallets[0]).toMatchObject({ wallet_id: walletId, label: 'trading bot', evm_address: evm })
    expect(list.pagination).toEqual({ total: 1, limit: 10, offset: 0, hasMore: false })
    const read = await paid(owner(), 'GET', `/api/v1/wallet/${walletId}`)
    expect(await ok(read.response)).toMatchObject({ walletId, owner: owner().address, total_transactions: 0 })
    expect(read.cost).toBe(1_000n)
    const addresses = await ok((await paid(owner(), 'GET', `/api/v1/wallet/${walletId}/addresses`)).response)
    expect(addresses).toMatchObject({ success: true, walletId, addresses: { ethereum: evm, base: evm } })
    const bare = await ok((await paid(owner(), 'GET', `/api/v1/wallet/addresses?walletId=${walletId}`)).response)
    expect(bare.addresses).toEqual(addresses.addresses)
  })

  test('security: to anyone else the wallet does not exist: 404, not charged; their list does not show it', async () => {
    for (const path of [`/api/v1/wallet/${walletId}`, `/api/v1/wallet/${walletId}/addresses`]) {
      const { response, cost } = await paid(stranger(), 'GET', path)
      await refused(response, 404)
      expect(cost).toBe(0n)
    }
    const theirs = await ok((await paid(stranger(), 'GET', '/api/v1/wallet/list')).response)
    expect(theirs.wallets.map((wallet: { wallet_id: string }) => wallet.wallet_id)).not.toContain(walletId)
  })
})

describe('POST /api/v1/wallet/sign-message', () => {
  test('default: signed with the Solana key (the original’s default network), the Ed25519 signature checks', async () => {
    const { response, cost } = await paid(owner(), 'POST', '/api/v1/wallet/sign-message', { walletId, message: 'gm' })
    const body = await ok(response)
    expect(cost).toBe(5_000n)
    expect(body).toMatchObject({ success: true, walletId, networkId: 'solana-mainnet', scheme: 'ed25519' })
    expect(
      ed25519.verify(base58.decode(body.signature), new TextEncoder().encode('gm'), base58.decode(body.signer)),
    ).toBe(true)
  })

  test('behavior: an EVM network signs with the EVM key (EIP-191)', async () => {
    const body = await ok(
      (
        await paid(owner(), 'POST', '/api/v1/wallet/sign-message', {
          walletId,
          message: 'hello',
          networkId: 'eip155:8453',
        })
      ).response,
    )
    expect(body).toMatchObject({ signer: evm, scheme: 'eip191' })
    expect(await verifyMessage({ address: evm, message: 'hello', signature: body.signature })).toBe(true)
  })

  test('error: an unknown network is a 400 before payment; a stranger’s call is a 404, not charged', async () => {
    const unknown = await refused(
      await post('/api/v1/wallet/sign-message', { walletId, message: 'x', networkId: 'cosmos' }),
      400,
    )
    expect(unknown.details?.field ?? unknown.field).toBe('networkId')
    const { response, cost } = await paid(stranger(), 'POST', '/api/v1/wallet/sign-message', { walletId, message: 'x' })
    await refused(response, 404)
    expect(cost).toBe(0n)
  })
})

describe('POST /api/v1/wallet/send-transaction', () => {
  /** A USDC transfer of `amount` from the wallet to `someone`. */
  const transfer = (amount: bigint) => ({
    walletId,
    networkId: 'base-mainnet',
    transaction: {
      to: gateway.devnet.token.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [someone, amount] }),
    },
  })

  beforeAll(async () => {
    // The wallet holds ETH for gas and USDC to send, from a devnet account.
    const funder = createWalletClient({
      account: gateway.account(6),
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    await funder.sendTransaction({ to: evm, value: parseEther('1') })
    await gateway.devnet.fund({ address: evm, amount: 5_000_000n })
  })

  test('default: simulated, signed by the vendor, checked and sent by the gateway; the transfer lands', async () => {
    const { response, cost } = await paid(owner(), 'POST', '/api/v1/wallet/send-transaction', transfer(1_000_000n))
    const body = await ok(response)
    expect(cost).toBe(20_000n)
    expect(body).toMatchObject({ success: true, walletId, from: evm, nonce: 0, chainId: gateway.devnet.chainId })
    expect(body.signature).toBe(body.hash)
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({ hash: body.hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(evm.toLowerCase())
    expect(await gateway.balance(someone)).toBe(1_000_000n)
    const read = await ok((await paid(owner(), 'GET', `/api/v1/wallet/${walletId}`)).response)
    expect(read.total_transactions).toBe(1)
    expect(read.last_active).not.toBeNull()
  })

  test('error: a transaction the simulation reverts is a 400, never signed, not charged', async () => {
    const signings = () => phantom.seen.filter((request) => request.body.includes('"signTransaction"')).length
    const before = signings()
    const { response, cost } = await paid(owner(), 'POST', '/api/v1/wallet/send-transaction', transfer(10_000_000n))
    const problem = await refused(response, 400)
    expect(problem.details?.reason ?? problem.reason).toBe('simulation_reverted')
    expect(cost).toBe(0n)
    expect(signings()).toBe(before)
  })

  test('error: a vendor that signs another transaction is a 502; nothing is sent, nothing charged', async () => {
    const nonce = await gateway.devnet.publicClient.getTransactionCount({ address: evm })
    mode.tamper = true
    try {
      const { response, cost } = await paid(owner(), 'POST', '/api/v1/wallet/send-transaction', transfer(1n))
      await refused(response, 502)
      expect(cost).toBe(0n)
    } finally {
      mode.tamper = false
    }
    expect(await gateway.devnet.publicClient.getTransactionCount({ address: evm })).toBe(nonce)
  })

  test('error: a vendor that fails is a 5xx, not charged', async () => {
    mode.fail = true
    try {
      const { response, cost } = await paid(owner(), 'POST', '/api/v1/wallet/send-transaction', transfer(1n))
      expect(response.status).toBeGreaterThanOrEqual(502)
      expect(cost).toBe(0n)
    } finally {
      mode.fail = false
    }
  })

  test('error: another chain is a 400 before payment; a stranger is a 404, not charged', async () => {
    const other = await refused(
      await post('/api/v1/wallet/send-transaction', { ...transfer(1n), networkId: 'ethereum' }),
      400,
    )
    expect(other.details?.field ?? other.field).toBe('networkId')
    const { response, cost } = await paid(stranger(), 'POST', '/api/v1/wallet/send-transaction', transfer(1n))
    await refused(response, 404)
    expect(cost).toBe(0n)
  })

  test('behavior: contract/write with walletId sends through the payer’s wallet', async () => {
    const { response, cost } = await paid(owner(), 'POST', '/api/v1/contract/write', {
      address: gateway.devnet.token.address,
      method: 'transfer(address,uint256)',
      args: [someone, '250000'],
      walletId,
    })
    const body = await ok(response)
    expect(cost).toBe(15_000n)
    expect(body).toMatchObject({ from: evm, walletId, explorer: null })
    expect((await gateway.devnet.publicClient.getTransactionReceipt({ hash: body.tx_hash })).status).toBe('success')
    expect(await gateway.balance(someone)).toBe(1_250_000n)
    const theirs = await paid(stranger(), 'POST', '/api/v1/contract/write', {
      address: gateway.devnet.token.address,
      method: 'transfer(address,uint256)',
      args: [someone, '1'],
      walletId,
    })
    await refused(theirs.response, 404)
    expect(theirs.cost).toBe(0n)
  })
})

describe('unconfigured', () => {
  test('error: every route is a 503 before payment naming the variables, and discovery says so', async () => {
    const list = await unconfigured.fetch(`${origin}/api/v1/wallet/list`)
    const problem = await refused(list, 503)
    expect(problem.detail).toContain('PHANTOM_PRIVATE_KEY')
    await refused(await post('/api/v1/wallet/create', { owner: someone }, unconfigured), 503)
    const manifest = await (await unconfigured.fetch(`${origin}/.well-known/x402.json`)).json()
    const resource = manifest.resources.find((entry: { path: string }) => entry.path === '/api/v1/wallet/sign-message')
    expect(resource.available).toBe(false)
    expect(resource.unavailable.reason).toContain('PHANTOM_ORGANIZATION_ID')
  })
})
