import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import solc from 'solc'
import { type Abi, type Address, createWalletClient, getAddress, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devnet } from '../../adapters/chain/devnet.js'
import { memory as memoryQueue } from '../../adapters/queue/memory.js'
import { eip1193 } from '../../adapters/rpc/eip1193.js'
import { memory as memoryStore } from '../../adapters/store/memory.js'
import { clients } from '../../app/clients.js'
import * as Catalog from '../../core/Catalog.js'
import * as Messaging from '../../core/Messaging.js'
import type { Onchain } from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import type * as Rpc from '../../core/Rpc.js'
import { manifest } from '../../modules/msg/index.js'
import { keysCollection, type Message, messagesCollection } from '../../modules/msg/service.js'
import { moduleGateway } from '../support/gateway.js'
import { accounts, ok, payers, refused } from '../support/module.js'

const chainId = 8453
const store = memoryStore({ queue: memoryQueue() })
const onchain: Onchain = {
  chainId,
  tokens: [],
  transfers: { find: async () => [] } as unknown as Onchain['transfers'],
}
const gateway = moduleGateway(manifest, { ports: { store, onchain }, env: { MSG_KEYS_RATE_LIMIT_PER_MINUTE: '0' } })

/** A registration body for `account`'s messaging key, signed by `signer` (the account itself unless a forgery). */
async function registration(
  account: LocalAccount,
  publicKey: Hex,
  options: { signer?: LocalAccount; issuedAt?: string } = {},
) {
  const issuedAt = options.issuedAt ?? new Date().toISOString()
  const message = Messaging.keyMessage({ address: account.address, publicKey, chainId, issuedAt })
  const signature = await (options.signer ?? account).signMessage({ message })
  return { address: account.address, publicKey, signature, issuedAt }
}

async function register(account: LocalAccount, keys = Messaging.createKeyPair(), issuedAt?: string) {
  await ok(await gateway.post('/api/v1/msg/keys', await registration(account, keys.publicKey, { issuedAt })))
  return keys
}

const alice = await register(accounts.alice)

describe('msg/keys', () => {
  test('behavior: a registered key is served with its signature and signed text, which verify', async () => {
    const key = await ok(await gateway.get(`/api/v1/msg/keys/${payers.alice}`))
    expect(key).toMatchObject({ address: payers.alice, publicKey: alice.publicKey, chainId })
    expect(key.message).toBe(Messaging.keyMessage(key))
    expect(await accounts.alice.signMessage({ message: key.message })).toBe(key.signature)
  })

  test('error: a registration signed by another key is refused (403); the registered key stays', async () => {
    const forged = await registration(accounts.alice, Messaging.createKeyPair().publicKey, { signer: accounts.carol })
    const problem = await refused(await gateway.post('/api/v1/msg/keys', forged), 403)
    expect(problem.code).toBe('forbidden')
    expect((await ok(await gateway.get(`/api/v1/msg/keys/${payers.alice}`))).publicKey).toBe(alice.publicKey)
  })

  test('error: a signature over other fields than those sent is refused (403)', async () => {
    const signed = await registration(accounts.carol, Messaging.createKeyPair().publicKey)
    const swapped = { ...signed, publicKey: Messaging.createKeyPair().publicKey }
    await refused(await gateway.post('/api/v1/msg/keys', swapped), 403)
    await refused(await gateway.get(`/api/v1/msg/keys/${payers.carol}`), 404)
  })

  test('behavior: a newer registration replaces the key; replaying the older one cannot roll it back (409)', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const first = Messaging.createKeyPair()
    const older = await registration(wallet, first.publicKey, { issuedAt: new Date(Date.now() - 60_000).toISOString() })
    await ok(await gateway.post('/api/v1/msg/keys', older))
    const second = Messaging.createKeyPair()
    const current = await registration(wallet, second.publicKey)
    expect(await ok(await gateway.post('/api/v1/msg/keys', current))).toMatchObject({ status: 'registered' })
    expect(await ok(await gateway.post('/api/v1/msg/keys', current))).toMatchObject({ status: 'unchanged' })
    const replay = await refused(await gateway.post('/api/v1/msg/keys', older), 409)
    expect(replay).toMatchObject({ reason: 'stale_registration' })
    expect((await ok(await gateway.get(`/api/v1/msg/keys/${wallet.address}`))).publicKey).toBe(second.publicKey)
  })

  test('error: a stale or future issuedAt, a key off the curve and an unregistered address', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const { publicKey } = Messaging.createKeyPair()
    const stale = await registration(wallet, publicKey, { issuedAt: new Date(Date.now() - 3_600_000).toISOString() })
    expect(await refused(await gateway.post('/api/v1/msg/keys', stale), 400)).toMatchObject({
      field: 'issuedAt',
    })
    const future = await registration(wallet, publicKey, { issuedAt: new Date(Date.now() + 3_600_000).toISOString() })
    await refused(await gateway.post('/api/v1/msg/keys', future), 400)
    const offCurve = await registration(wallet, `0x02${'f'.repeat(64)}`)
    expect(await refused(await gateway.post('/api/v1/msg/keys', offCurve), 400)).toMatchObject({
      field: 'publicKey',
    })
    const problem = await refused(await gateway.get(`/api/v1/msg/keys/${wallet.address}`), 404)
    expect(problem).toMatchObject({ reason: 'no_messaging_key' })
  })
})

describe('msg/send and msg/inbox', () => {
  test('default: bob sends ciphertext, alice reads her inbox and decrypts; the store holds only ciphertext', async () => {
    const { publicKey } = await ok(await gateway.get(`/api/v1/msg/keys/${payers.alice}`))
    const text = 'Meet at block 1000. ☃'
    const envelope = Messaging.encrypt({ content: text, publicKey })
    const before = gateway.settled.length
    const sent = await ok(await gateway.post('/api/v1/msg/send', { to: payers.alice, content: envelope }, payers.bob))
    expect(sent).toMatchObject({ status: 'stored', from: payers.bob, to: payers.alice })
    expect(sent.id).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(gateway.settled.length).toBe(before + 1)

    const stored = await store.get<Message>(messagesCollection, sent.id)
    expect(stored?.owners).toEqual([payers.alice])
    expect(stored?.value.envelope).toBe(envelope)
    expect(JSON.stringify(stored)).not.toContain('Meet at block')

    const read = await ok(await gateway.get(`/api/v1/msg/inbox?address=${payers.alice}&limit=5`, payers.alice))
    const mine = read.messages.find((message: Message) => message.id === sent.id)
    expect(mine).toMatchObject({ from: payers.bob, to: payers.alice, envelope })
    expect(Messaging.decrypt({ envelope: mine.envelope, privateKey: alice.privateKey })).toBe(text)
    expect(() =>
      Messaging.decrypt({ envelope: mine.envelope, privateKey: Messaging.createKeyPair().privateKey }),
    ).toThrow()
  })

  test('behavior: newest first, limited, with the total the inbox holds', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey())
    const keys = await register(wallet)
    for (const content of ['one', 'two', 'three'])
      await ok(
        await gateway.post(
          '/api/v1/msg/send',
          { to: wallet.address, content: Messaging.encrypt({ content, publicKey: keys.publicKey }) },
          payers.bob,
        ),
      )
    const read = await ok(await gateway.get(`/api/v1/msg/inbox?address=${wallet.address}&limit=2`, wallet))
    expect(read.total).toBe(3)
    expect(
      read.messages.map((message: Message) =>
        Messaging.decrypt({ envelope: message.envelope, privateKey: keys.privateKey }),
      ),
    ).toEqual(['three', 'two'])
  })

  test("security: carol cannot read alice's inbox (403, nothing settled)", async () => {
    const before = gateway.settled.length
    const problem = await refused(await gateway.get(`/api/v1/msg/inbox?address=${payers.alice}`, payers.carol), 403)
    expect(problem.code).toBe('forbidden')
    expect(gateway.settled.length).toBe(before)
    expect((await ok(await gateway.get(`/api/v1/msg/inbox?address=${payers.carol}`, payers.carol))).total).toBe(0)
  })

  test('security: no payment is a 402; a payment used again for another read is refused', async () => {
    const path = `/api/v1/msg/inbox?address=${payers.alice}`
    expect((await gateway.get(path)).status).toBe(402)
    const entry = Catalog.find('GET', '/api/v1/msg/inbox')!
    const header = await clients({ terms: gateway.terms, fetch: globalThis.fetch }).presigned({
      signer: accounts.alice,
      value: Price.quote({ price: entry.price }),
    })
    const paid = { 'PAYMENT-SIGNATURE': header }
    await ok(await gateway.send('GET', path, undefined, undefined, paid))
    const before = gateway.settled.length
    const reused = await gateway.send('GET', `${path}&limit=1`, undefined, undefined, paid)
    expect(reused.status).toBe(402)
    expect(await reused.json()).toMatchObject({ error: 'replayed' })
    expect(gateway.settled.length).toBe(before)
  })

  test('error: a broken envelope, oversized content and a recipient without a key: 400/409 before payment', async () => {
    const before = gateway.settled.length
    const { publicKey } = Messaging.createKeyPair()
    const envelope = Messaging.encrypt({ content: 'hi', publicKey })
    // The ephemeral key's first coordinate bytes zeroed: still base64 starting as an envelope does, no longer a point.
    const bytes = Uint8Array.from(atob(envelope), (char) => char.charCodeAt(0))
    bytes.fill(0, 1, 33)
    const broken = btoa(String.fromCharCode(...bytes))
    const problem = await refused(
      await gateway.post('/api/v1/msg/send', { to: payers.alice, content: broken }, payers.bob),
      400,
    )
    expect(problem).toMatchObject({ code: 'validation_failed', field: 'content' })
    const tooLong = 'A'.repeat(Messaging.maxEnvelopeLength + 4)
    await refused(await gateway.post('/api/v1/msg/send', { to: payers.alice, content: tooLong }, payers.bob), 400)
    const tooMuchText = 'é'.repeat(Messaging.maxContentBytes / 2 + 1)
    expect(
      await refused(
        await gateway.post('/api/v1/msg/send', { to: payers.alice, content: tooMuchText }, payers.bob),
        400,
      ),
    ).toMatchObject({ field: 'content' })
    for (const content of [envelope, 'hello carol, in plain text']) {
      const nobody = await refused(
        await gateway.post('/api/v1/msg/send', { to: payers.carol, content }, payers.bob),
        409,
      )
      expect(nobody).toMatchObject({ field: 'to', reason: 'no_messaging_key' })
      expect(nobody.detail).toContain('must register one')
    }
    expect(gateway.settled.length).toBe(before)
    expect(await store.get(keysCollection, payers.carol)).toBeUndefined()
  })

  test("behavior: the original gateway's plaintext send is encrypted to the recipient's key, and the answer says so", async () => {
    const text = 'Invoice 42 is paid, thanks'
    const sent = await ok(
      await gateway.post(
        '/api/v1/msg/send',
        { to: payers.alice, content: text, contentType: 'text/plain', metadata: { thread: 't1' } },
        payers.bob,
      ),
    )
    expect(sent).toMatchObject({
      status: 'stored',
      from: payers.bob,
      to: payers.alice,
      encryption: 'gateway',
      note: expect.stringContaining('not end to end'),
      contentType: 'text/plain',
      metadata: { thread: 't1' },
    })
    const stored = await store.get<Message>(messagesCollection, sent.id)
    expect(JSON.stringify(stored)).not.toContain('Invoice 42')
    expect(Messaging.decrypt({ envelope: stored!.value.envelope, privateKey: alice.privateKey })).toBe(text)
    const read = await ok(await gateway.get(`/api/v1/msg/inbox?address=${payers.alice}&limit=5`, payers.alice))
    expect(read.messages.find((message: Message) => message.id === sent.id)).toMatchObject({
      encryption: 'gateway',
      contentType: 'text/plain',
      metadata: { thread: 't1' },
    })
    const own = await ok(
      await gateway.post(
        '/api/v1/msg/send',
        { to: payers.alice, content: Messaging.encrypt({ content: 'e2e', publicKey: alice.publicKey }) },
        payers.bob,
      ),
    )
    expect(own).toMatchObject({ encryption: 'sender', contentType: 'text/plain' })
    expect(own.note).toBeUndefined()
  })
})

describe('settlement', () => {
  test('behavior: a send whose payment fails to settle is taken back: no message, no count', async () => {
    const failing = moduleGateway(manifest, {
      ports: { store, onchain },
      env: { MSG_KEYS_RATE_LIMIT_PER_MINUTE: '0' },
      facilitator: {
        settle: async () => ({ ok: false, reason: 'settlement_failed', message: 'The transfer reverted.' }),
      },
    })
    const before = await ok(await gateway.get(`/api/v1/msg/inbox?address=${payers.alice}&limit=100`, payers.alice))
    const envelope = Messaging.encrypt({ content: 'never paid for', publicKey: alice.publicKey })
    const response = await failing.post('/api/v1/msg/send', { to: payers.alice, content: envelope }, payers.bob)
    expect(response.status).toBe(402)
    expect((await response.json()).code).toBe('settlement_failed')
    const after = await ok(await gateway.get(`/api/v1/msg/inbox?address=${payers.alice}&limit=100`, payers.alice))
    expect(after.total).toBe(before.total)
    expect(after.messages.map((message: Message) => message.envelope)).not.toContain(envelope)
  })
})

describe('without a store', () => {
  test('error: the paid paths and the key routes answer 503 with the reason, before any payment', async () => {
    const bare = moduleGateway(manifest, { ports: { onchain } })
    const keys = await refused(await bare.get(`/api/v1/msg/keys/${payers.alice}`), 503)
    expect(keys.detail).toContain('needs a store')
    await refused(await bare.post('/api/v1/msg/keys', await registration(accounts.alice, alice.publicKey)), 503)
    const send = await bare.fetch('/api/v1/msg/send', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: payers.alice, content: 'x' }),
    })
    expect(send.status).toBe(503)
    expect(send.headers.get('payment-required')).toBeNull()
  })
})

describe('rate limit of the key routes', () => {
  test('behavior: past MSG_KEYS_RATE_LIMIT_PER_MINUTE a client gets a 429 with Retry-After', async () => {
    const limited = moduleGateway(manifest, { ports: { store, onchain }, env: { MSG_KEYS_RATE_LIMIT_PER_MINUTE: '2' } })
    const path = `/api/v1/msg/keys/${payers.alice}`
    await ok(await limited.get(path))
    await ok(await limited.get(path))
    const refusedCall = await refused(await limited.get(path), 429)
    expect(refusedCall.code).toBe('rate_limited')
  })
})

describe('smart wallets (ERC-1271) on the settlement chain', () => {
  let chain: devnet.Devnet
  let wallet: Address
  let onDevnet: ReturnType<typeof moduleGateway>
  const owner = accounts.bob

  beforeAll(async () => {
    chain = await devnet()
    const source = readFileSync(join(import.meta.dir, '../fixtures/OwnedWallet.sol'), 'utf8')
    const input = {
      language: 'Solidity',
      sources: { 'OwnedWallet.sol': { content: source } },
      settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
    }
    const output = JSON.parse(solc.compile(JSON.stringify(input)))
    const compiled = output.contracts['OwnedWallet.sol'].OwnedWallet as {
      abi: Abi
      evm: { bytecode: { object: string } }
    }
    const deployer = createWalletClient({
      account: privateKeyToAccount(chain.accounts[5]!.privateKey),
      chain: chain.chain,
      transport: chain.transport,
    })
    const hash = await deployer.deployContract({
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      args: [owner.address],
    })
    wallet = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!)
    const endpoint = eip1193({
      name: 'devnet',
      chainId: chain.chainId,
      request: (method, params) => chain.request(method, params),
    })
    onDevnet = moduleGateway(manifest, {
      ports: {
        store: memoryStore({ queue: memoryQueue() }),
        onchain: { ...onchain, chainId: chain.chainId },
        chains: [endpoint],
      },
    })
  }, 20_000)
  afterAll(() => chain?.close())

  async function walletRegistration(signer: LocalAccount) {
    const publicKey = Messaging.createKeyPair().publicKey
    const issuedAt = new Date().toISOString()
    const message = Messaging.keyMessage({ address: wallet, publicKey, chainId: chain.chainId, issuedAt })
    return { address: wallet, publicKey, signature: await signer.signMessage({ message }), issuedAt }
  }

  test("behavior: a wallet contract registers with its owner's signature, checked by isValidSignature", async () => {
    const body = await walletRegistration(owner)
    expect(await ok(await onDevnet.post('/api/v1/msg/keys', body))).toMatchObject({
      address: wallet,
      status: 'registered',
    })
    expect((await ok(await onDevnet.get(`/api/v1/msg/keys/${wallet}`))).publicKey).toBe(body.publicKey)
  })

  test('error: a signature the wallet contract refuses is a 403', async () => {
    const problem = await refused(
      await onDevnet.post('/api/v1/msg/keys', await walletRegistration(accounts.carol)),
      403,
    )
    expect(problem.code).toBe('forbidden')
  })

  test('error: a settlement node that does not answer is a 504, not a refused signature', async () => {
    const silentNode: Rpc.Endpoint = {
      name: 'devnet',
      chainId: chain.chainId,
      request: async () => ({ ok: false, reason: 'timeout', status: undefined, message: 'no answer in 4 s' }),
    }
    const down = moduleGateway(manifest, {
      ports: {
        store: memoryStore({ queue: memoryQueue() }),
        onchain: { ...onchain, chainId: chain.chainId },
        chains: [silentNode],
      },
    })
    const problem = await refused(await down.post('/api/v1/msg/keys', await walletRegistration(owner)), 504)
    expect(problem.code).toBe('upstream_timeout')
  })

  test('error: without the settlement chain the same registration is refused (EOAs only)', async () => {
    const body = await walletRegistration(owner)
    const eoaOnly = moduleGateway(manifest, {
      ports: { store: memoryStore({ queue: memoryQueue() }), onchain: { ...onchain, chainId: chain.chainId } },
    })
    await refused(await eoaOnly.post('/api/v1/msg/keys', body), 403)
  })
})
