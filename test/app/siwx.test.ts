import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import {
  createSIWxPayload,
  encodeBase58,
  encodeSIWxHeader,
  type SIWxExtension,
  SOLANA_DEVNET,
  wrapFetchWithSIWx,
} from '@x402/extensions/sign-in-with-x'
import solc from 'solc'
import nacl from 'tweetnacl'
import {
  type Abi,
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  keccak256,
  type LocalAccount,
  serializeErc6492Signature,
  toHex,
} from 'viem'
import { privateKeyToAccount, toAccount } from 'viem/accounts'
import { devnet } from '../../adapters/chain/devnet.js'
import { transfers } from '../../adapters/chain/transfers.js'
import { memory } from '../../adapters/store/memory.js'
import { postgres } from '../../adapters/store/postgres.js'
import { sqlite } from '../../adapters/store/sqlite.js'
import { clients } from '../../app/clients.js'
import { entitlementsCollection, signInWithX, siwx } from '../../app/payment/siwx.js'
import * as Module from '../../core/Module.js'
import type { Store } from '../../core/Store.js'
import { manifest } from '../../modules/invoice/index.js'
import { manifest as msgManifest } from '../../modules/msg/index.js'
import { postgresFixture, sqliteFixture } from '../support/backends.js'
import { stubPayment, testGateway } from '../support/gateway.js'
import { accounts, ok, refused } from '../support/module.js'

const origin = 'http://gateway.test'
let chain: devnet.Devnet

beforeAll(async () => {
  chain = await devnet()
})

afterAll(async () => {
  await chain.close()
})

/**
 * The invoice family in the gateway with the stub payment, on `store` (shared by every gateway a test builds: its
 * processes), answering on `origin`; sign-in messages are checked on the devnet (viem `verifyMessage`).
 * `reaccess` replaces the family's own declaration.
 */
function setup(parameters: { store?: Store; reaccess?: Module.AnyModule['reaccess'] } = {}) {
  const { store = memory(), reaccess } = parameters
  const { payment, settled } = stubPayment()
  const family = reaccess ? Module.define({ ...manifest, reaccess }) : manifest
  const app = testGateway({
    env: { PUBLIC_HOSTS: 'gateway.test' },
    families: [family],
    store,
    onchain: {
      chainId: chain.chainId,
      transfers: transfers({ client: chain.publicClient }),
      tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: chain.token.decimals }],
    },
    payment: { ...payment, verifyMessage: (message) => chain.publicClient.verifyMessage(message) },
  })
  // Every request the official client sends, as sent.
  const sent: Request[] = []
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    sent.push(request.clone())
    return app.handle(request)
  }) as typeof globalThis.fetch
  return {
    app,
    store,
    settled,
    sent,
    fetch,
    /** An invoice created (and paid for) by `creator`, to `recipient`. */
    async invoice(creator: LocalAccount, recipient = creator.address): Promise<string> {
      const body = { creator: creator.address, recipient, token: 'USDC', amount: '1500000' }
      return (await ok(await app.paid('POST', '/api/v1/invoice/create', body, creator))).invoice.id
    },
    /** Reads `path` with the official sign-in client of `signer`: a 402, then the signed retry. */
    signedIn: (signer: LocalAccount, path: string) => wrapFetchWithSIWx(fetch, signer)(`${origin}${path}`),
  }
}

/** The sign-in challenge of a 402. */
function challengeOf(response: Response): SIWxExtension {
  const offer = decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!)
  return offer.extensions![signInWithX] as SIWxExtension
}

/** A signed `SIGN-IN-WITH-X` header for a challenge, on its first chain. */
async function sign(challenge: SIWxExtension, signer: LocalAccount, url: string) {
  const [chainInfo] = challenge.supportedChains
  return createSIWxPayload({ ...challenge.info, chainId: chainInfo!.chainId, type: chainInfo!.type }, signer, url)
}

describe('sign-in-with-x re-access', () => {
  test('default: the official client re-reads what its wallet paid for by signing in, and pays nothing more', async () => {
    const { app, settled, sent, invoice, signedIn } = setup({ reaccess: { 'GET /api/v1/invoice/:id': {} } })
    const id = await invoice(accounts.alice)
    const path = `/api/v1/invoice/${id}`

    const unpaid = await app.fetch(path)
    expect(unpaid.status).toBe(402)
    const challenge = challengeOf(unpaid)
    expect(challenge.supportedChains).toEqual([{ chainId: app.terms.network, type: 'eip191' }])
    expect(challenge.info).toMatchObject({ domain: 'gateway.test', uri: `${origin}${path}`, version: '1' })
    expect(challenge.info.nonce).toMatch(/^[0-9a-f]{64}$/)

    const paid = await ok(await app.paid('GET', path, undefined, accounts.alice))
    expect(settled).toHaveLength(2)

    const reread = await signedIn(accounts.alice, path)
    expect(await ok(reread)).toEqual(paid)
    expect(settled).toHaveLength(2)
    expect(sent.at(-1)!.headers.has(signInWithX)).toBe(true)
    // Nothing to settle, so no receipt.
    expect(reread.headers.get('PAYMENT-RESPONSE')).toBeNull()
  })

  test('behavior: the entitlement covers the very resource paid for, not the same entry on another query', async () => {
    const { app, invoice, signedIn } = setup({ reaccess: { 'GET /api/v1/invoice/:id': {} } })
    const id = await invoice(accounts.alice)
    await ok(await app.paid('GET', `/api/v1/invoice/${id}`, undefined, accounts.alice))
    const other = await refused(await signedIn(accounts.alice, `/api/v1/invoice?id=${id}`), 402)
    expect(other.code).toBe('payment_required')
    expect(other.detail).toContain(`neither paid for GET /api/v1/invoice?id=${id} at $0.010000 nor owns it`)
  })

  test('behavior: an owner re-reads by signing in without ever paying to read', async () => {
    const { settled, invoice, signedIn } = setup()
    const id = await invoice(accounts.alice, accounts.bob.address)
    const read = await ok(await signedIn(accounts.bob, `/api/v1/invoice/${id}`))
    expect(read.invoice).toMatchObject({ id, creator: accounts.alice.address, recipient: accounts.bob.address })
    // Only the creation was paid.
    expect(settled).toHaveLength(1)
  })

  test('behavior: the owner of an inbox re-reads it by signing in; anyone else is asked to pay', async () => {
    const { payment, settled } = stubPayment()
    const app = testGateway({
      env: { PUBLIC_HOSTS: 'gateway.test' },
      families: [msgManifest],
      store: memory(),
      onchain: {
        chainId: chain.chainId,
        transfers: transfers({ client: chain.publicClient }),
        tokens: [{ symbol: 'USDC', address: chain.token.address, decimals: chain.token.decimals }],
      },
      payment: { ...payment, verifyMessage: (message) => chain.publicClient.verifyMessage(message) },
    })
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
      app.handle(new Request(input, init))) as typeof globalThis.fetch
    const path = `/api/v1/msg/inbox?address=${accounts.alice.address}`
    const read = await ok(await wrapFetchWithSIWx(fetch, accounts.alice)(`${origin}${path}`))
    expect(read).toEqual({ address: accounts.alice.address, messages: [], total: 0 })
    expect(settled).toHaveLength(0)
    const other = await refused(await wrapFetchWithSIWx(fetch, accounts.bob)(`${origin}${path}`), 402)
    expect(other.code).toBe('payment_required')
  })

  test('security: a replayed sign-in is refused, on this process and on another sharing the store', async () => {
    const first = setup()
    const id = await first.invoice(accounts.alice)
    const path = `/api/v1/invoice/${id}`
    await ok(await first.signedIn(accounts.alice, path))
    const header = first.sent.at(-1)!.headers.get(signInWithX)!
    const again = await refused(await first.app.fetch(path, { headers: { [signInWithX]: header } }), 402)
    expect(again).toMatchObject({ code: 'replayed', error: 'replayed' })
    const second = setup({ store: first.store })
    const elsewhere = await refused(await second.app.fetch(path, { headers: { [signInWithX]: header } }), 402)
    expect(elsewhere.code).toBe('replayed')
  })

  test('security: another wallet signs in and is asked to pay', async () => {
    const { invoice, signedIn } = setup()
    const id = await invoice(accounts.alice)
    const response = await signedIn(accounts.carol, `/api/v1/invoice/${id}`)
    const problem = await refused(response, 402)
    expect(problem.code).toBe('payment_required')
    expect(problem.detail).toContain(`${accounts.carol.address} signed in, and neither paid for`)
    // The 402 offers payment, and a new challenge.
    expect(decodePaymentRequiredHeader(response.headers.get('PAYMENT-REQUIRED')!).accepts[0]!.amount).toBe('10000')
    expect(challengeOf(response).info.nonce).toMatch(/^[0-9a-f]{64}$/)
  })

  test('security: an expired challenge is refused', async () => {
    const { app, store, invoice } = setup()
    const id = await invoice(accounts.alice)
    const url = `${origin}/api/v1/invoice/${id}`
    // A challenge this gateway issued (its key) ten minutes ago, for five minutes.
    const issuer = siwx({ store, secret: stubPayment().payment.secret, networks: [app.terms.network] })
    const old = issuer.challenge({ uri: url, now: new Date(Date.now() - 600_000) })
    const header = encodeSIWxHeader(await sign(old, accounts.alice, url))
    const problem = await refused(await app.fetch(`/api/v1/invoice/${id}`, { headers: { [signInWithX]: header } }), 402)
    expect(problem.code).toBe('expired')
  })

  test('security: a stretched expiry, another resource, another domain or a forged signature is refused', async () => {
    const { app, invoice } = setup()
    const id = await invoice(accounts.alice)
    const otherId = await invoice(accounts.alice)
    const path = `/api/v1/invoice/${id}`
    const challenge = challengeOf(await app.fetch(path))
    const send = async (payload: Awaited<ReturnType<typeof sign>>, to = path) =>
      (await refused(await app.fetch(to, { headers: { [signInWithX]: encodeSIWxHeader(payload) } }), 402)).code

    const stretched = {
      ...challenge,
      info: { ...challenge.info, expirationTime: new Date(Date.now() + 86_400_000).toISOString() },
    }
    expect(await send(await sign(stretched, accounts.alice, `${origin}${path}`))).toBe('challenge_mismatch')
    expect(await send(await sign(challenge, accounts.alice, `${origin}${path}`), `/api/v1/invoice/${otherId}`)).toBe(
      'challenge_mismatch',
    )
    const elsewhere = { ...challenge, info: { ...challenge.info, domain: 'evil.test', uri: `http://evil.test${path}` } }
    expect(await send(await sign(elsewhere, accounts.alice, `http://evil.test${path}`))).toBe('challenge_mismatch')
    const forged = { ...(await sign(challenge, accounts.carol, `${origin}${path}`)), address: accounts.alice.address }
    expect(await send(forged)).toBe('invalid_signature')
  })

  test('behavior: a smart wallet signs in through the chain: ERC-1271 once deployed, ERC-6492 before', async () => {
    const { invoice, signedIn } = setup()
    const { factory, abi } = await deployWalletFactory()
    const owner = accounts.bob
    const walletOf = async (salt: Hex) =>
      (
        await chain.publicClient.simulateContract({
          address: factory,
          abi,
          functionName: 'create',
          args: [owner.address, salt],
        })
      ).result
    // Deployed: the chain asks the wallet's isValidSignature.
    const deployed = await walletOf(keccak256(toHex('deployed')))
    const hash = await funded().writeContract({
      address: factory,
      abi,
      functionName: 'create',
      args: [owner.address, keccak256(toHex('deployed'))],
    })
    await chain.publicClient.waitForTransactionReceipt({ hash })
    // Not deployed yet: the signature says how to deploy it (ERC-6492), and the chain simulates that.
    const salt = keccak256(toHex('counterfactual'))
    const counterfactual = await walletOf(salt)
    expect(await chain.publicClient.getCode({ address: counterfactual })).toBeUndefined()
    const smart = (address: Address, erc6492: boolean, key = owner) =>
      toAccount({
        address,
        signMessage: async ({ message }) => {
          const signature = await key.signMessage({ message })
          if (!erc6492) return signature
          const data = encodeFunctionData({ abi, functionName: 'create', args: [owner.address, salt] })
          return serializeErc6492Signature({ address: factory, data, signature })
        },
        signTransaction: async () => {
          throw new Error('not used')
        },
        signTypedData: async () => {
          throw new Error('not used')
        },
      })

    for (const [wallet, erc6492] of [
      [deployed, false],
      [counterfactual, true],
    ] as const) {
      const id = await invoice(accounts.alice, wallet)
      const read = await ok(await signedIn(smart(wallet, erc6492), `/api/v1/invoice/${id}`))
      expect(read.invoice.recipient).toBe(wallet)
      const forged = await refused(await signedIn(smart(wallet, erc6492, accounts.carol), `/api/v1/invoice/${id}`), 402)
      expect(forged.code).toBe('invalid_signature')
    }
  })

  test('behavior: a refused sign-in that comes with a payment is served paid', async () => {
    const { app, settled, invoice } = setup()
    const id = await invoice(accounts.alice)
    const path = `/api/v1/invoice/${id}`
    const payload = await sign(challengeOf(await app.fetch(path)), accounts.carol, `${origin}${path}`)
    const paid = await app.handle(
      new Request(`${origin}${path}`, {
        headers: {
          [signInWithX]: encodeSIWxHeader(payload),
          'PAYMENT-SIGNATURE': await presigned(app, accounts.alice),
        },
      }),
    )
    await ok(paid)
    expect(settled).toHaveLength(2)
  })
})

describe('siwx', () => {
  const databases = [
    { name: 'SQLite', fixture: async () => sqliteFixture('siwx', (path) => sqlite({ path })) },
    ...(process.env.DATABASE_URL
      ? [
          {
            name: 'PostgreSQL',
            fixture: () => postgresFixture(process.env.DATABASE_URL!, 'siwx', (sql) => postgres({ sql })),
          },
        ]
      : []),
  ]

  test.each(databases)(
    'security: a nonce is spent once by processes racing on one $name database',
    async ({ fixture }) => {
      const database = await fixture()
      try {
        const secret = 'a-secret-of-at-least-32-characters!!'
        const processes = [database.open(), database.open()].map((store) =>
          siwx({ store, secret, networks: ['eip155:84532'] }),
        )
        const url = `${origin}/api/v1/invoice/inv_1`
        const challenge = processes[0]!.challenge({ uri: url, now: new Date() })
        const header = encodeSIWxHeader(await sign(challenge, accounts.alice, url))
        const verified = await Promise.all(processes.map((process) => process.verify({ header, uri: url })))
        const spent = await Promise.all(
          processes.flatMap((process, index) => {
            const result = verified[index]!
            if (!result.ok) throw new Error(result.message)
            return [1, 2].map(() => process.spend({ signedIn: result.signedIn, uri: url, now: new Date() }))
          }),
        )
        expect(spent.filter(Boolean)).toHaveLength(1)
      } finally {
        await database.teardown()
      }
    },
  )

  test('behavior: a Solana wallet signs in with Ed25519 and is entitled to what it paid for', async () => {
    const store = memory()
    const issuer = siwx({ store, secret: 'a-secret-of-at-least-32-characters!!', networks: [SOLANA_DEVNET] })
    const keys = nacl.sign.keyPair()
    const signer = {
      publicKey: encodeBase58(keys.publicKey),
      signMessage: async (message: Uint8Array) => nacl.sign.detached(message, keys.secretKey),
    }
    const url = `${origin}/api/v1/invoice/inv_1`
    const challenge = issuer.challenge({ uri: url, now: new Date() })
    expect(challenge.supportedChains).toEqual([{ chainId: SOLANA_DEVNET, type: 'ed25519', signatureScheme: 'siws' }])
    const payload = await createSIWxPayload({ ...challenge.info, chainId: SOLANA_DEVNET, type: 'ed25519' }, signer, url)
    const verified = await issuer.verify({ header: encodeSIWxHeader(payload), uri: url })
    expect(verified).toEqual({ ok: true, signedIn: { address: signer.publicKey, nonce: challenge.info.nonce } })

    const scope = { method: 'GET', resource: '/api/v1/invoice/inv_1', priceVersion: '$0.01' }
    expect(await issuer.entitled({ address: signer.publicKey, scope })).toBe(false)
    await issuer.grant({ address: signer.publicKey, scope, transaction: 'solana-signature', now: new Date() })
    expect(await issuer.entitled({ address: signer.publicKey, scope })).toBe(true)
    expect(await issuer.entitled({ address: signer.publicKey, scope: { ...scope, priceVersion: '$0.02' } })).toBe(false)
    expect((await store.list(entitlementsCollection, { owner: accounts.alice.address })).length).toBe(0)

    const tampered = { ...payload, signature: encodeBase58(new Uint8Array(64)) }
    expect(await issuer.verify({ header: encodeSIWxHeader(tampered), uri: url })).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
    })
  })
})

/** A wallet client of a funded devnet account, which deploys the test's contracts. */
function funded() {
  return createWalletClient({
    account: privateKeyToAccount(chain.accounts[1]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
}

/**
 * Deploys a factory of minimal smart wallets (CREATE2 by owner and salt) whose `isValidSignature` (ERC-1271) accepts
 * their owner's signature of the hash.
 */
async function deployWalletFactory(): Promise<{ factory: Address; abi: Abi }> {
  const source = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OwnedWallet {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
contract OwnedWalletFactory {
    function create(address owner, bytes32 salt) external returns (OwnedWallet) {
        return new OwnedWallet{salt: salt}(owner);
    }
}`
  const input = {
    language: 'Solidity',
    sources: { 'OwnedWallet.sol': { content: source } },
    settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const compiled = output.contracts['OwnedWallet.sol'].OwnedWalletFactory as {
    abi: Abi
    evm: { bytecode: { object: string } }
  }
  const hash = await funded().deployContract({ abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` })
  const { contractAddress } = await chain.publicClient.waitForTransactionReceipt({ hash })
  return { factory: contractAddress!, abi: compiled.abi }
}

/** An x402 v2 payment of one invoice read ($0.01) by `payer`. */
async function presigned(app: ReturnType<typeof testGateway>, payer: LocalAccount): Promise<string> {
  return clients({ terms: app.terms, fetch: globalThis.fetch }).presigned({ signer: payer, value: 10_000n })
}
