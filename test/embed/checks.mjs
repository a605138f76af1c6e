// The checks the packed package must pass on every runtime (Node, Deno, Bun, a browser), as [name, run] pairs: plain
// JavaScript with no runtime's API but the web's, importing the package by its name only. `expected.mjs` beside it is
// written by test/embed/runtimes.test.ts from the sources: every namespace's exports, and vectors made with viem.
import * as Root from 'agent-pay-gateway'
import * as Core from 'agent-pay-gateway/core'
import * as batch from 'agent-pay-gateway/core/batch'
import * as machines from 'agent-pay-gateway/core/machines'
import * as payment from 'agent-pay-gateway/core/payment'
import expected from './expected.mjs'

/** The namespaces of core and of each subpath, by name. */
const loaded = new Map(Object.entries(Core))
const subpaths = new Map(
  Object.entries({ batch, machines, payment }).map(([name, entry]) => [name, new Map(Object.entries(entry))]),
)

/** Text of a value for a message: bigints as `123n`, sets as arrays. */
function show(value) {
  return JSON.stringify(value, (_, item) =>
    typeof item === 'bigint' ? `${item}n` : item instanceof Set ? [...item] : item,
  )
}

function equal(actual, wanted, what) {
  if (show(actual) !== show(wanted)) throw new Error(`${what}: ${show(actual)}, expected ${show(wanted)}`)
}

/** The error `run` throws, or a failure when it throws none. */
function thrown(run, what) {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error(`${what}: did not throw`)
}

const alice = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const bob = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const usdc = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 }

const namespaces = Object.entries(expected.namespaces).map(([name, members]) => [
  `${name}: the package exports it with the members the sources have`,
  () => equal(Object.keys(loaded.get(name) ?? {}).sort(), members, name),
])

const entries = [
  [
    'agent-pay-gateway and agent-pay-gateway/core: the same namespaces, every one core/index.ts exports',
    () => {
      equal(Object.keys(Core).sort(), Object.keys(expected.namespaces).sort(), 'core')
      equal(Object.keys(Root).sort(), Object.keys(Core).sort(), 'the root export')
    },
  ],
  ...Object.entries(expected.subpaths).map(([name, names]) => [
    `agent-pay-gateway/core/${name}: ${names.join(', ')}, the very namespaces of core`,
    () => {
      const entry = subpaths.get(name)
      equal([...entry.keys()].sort(), names, name)
      for (const namespace of names)
        if (entry.get(namespace) !== loaded.get(namespace)) throw new Error(`${name}: ${namespace} is not core's`)
    },
  ]),
]

const behaviour = [
  [
    'Units: a human decimal to atomic units and back, and too many decimals refused',
    () => {
      equal(Core.Units.fromDecimal({ value: '1.5', decimals: 6, field: 'amount' }), 1_500_000n, 'fromDecimal')
      equal(Core.Units.toDecimal(1_500_000n, 6), '1.5', 'toDecimal')
      const error = thrown(
        () => Core.Units.fromDecimal({ value: '0.0000001', decimals: 6, field: 'amount' }),
        'fromDecimal',
      )
      if (!(error instanceof Core.Errors.ValidationError)) throw error
    },
  ],
  [
    'Batch: the fee the contract takes, 30 basis points rounded down',
    () => {
      equal(batch.Batch.fee({ total: 1_000_000n }), { fee: 3_000n, totalWithFee: 1_003_000n }, 'fee')
      equal(batch.Batch.fee({ total: 333n, feeBps: 30n }), { fee: 0n, totalWithFee: 333n }, 'fee')
    },
  ],
  [
    'BatchPayment: the calldata of sprayToken, as viem encodes it',
    () => {
      const { token, recipients, calldata } = expected.calldata
      const built = batch.BatchPayment.calldata({
        token: { ...token, isETH: false },
        recipients: recipients.map(({ address, amount }) => ({ address, amount: BigInt(amount) })),
      })
      equal(built, calldata, 'calldata')
    },
  ],
  [
    'Gas: the estimate of a one-recipient token batch on base',
    () => equal(batch.Gas.estimate({ recipientCount: 1, isETH: false }).gas, 122_028n, 'gas'),
  ],
  [
    'TokenList: USDC on base, from the token list JSON',
    () => equal(batch.TokenList.find({ name: 'base', chainId: 8453, token: 'usdc' }), usdc, 'USDC'),
  ],
  [
    'Address: an EVM address is valid in its family only',
    () => equal(batch.Address.validate({ address: bob }).matches, ['evm'], 'matches'),
  ],
  [
    'PaymentTerms: the chain id of a CAIP-2 network',
    () => equal(payment.PaymentTerms.chainIdOf('eip155:8453'), 8453, 'chainIdOf'),
  ],
  [
    'Authorization: recovers the signer of an EIP-3009 authorization viem signed',
    async () => {
      const { signed, domain, signer } = expected.authorization
      const values = { ...signed, value: BigInt(signed.value), validAfter: BigInt(signed.validAfter) }
      const authorization = { ...values, validBefore: BigInt(signed.validBefore) }
      equal(await payment.Authorization.recover(authorization, domain), signer, 'signer')
      equal((await payment.Authorization.recover({ ...authorization, value: 1n }, domain)) === signer, false, 'other')
    },
  ],
  [
    'Session: an HS256 token, byte for byte, and its verification',
    () => {
      const secret = 'test-secret-of-at-least-thirty-two-bytes!'
      const claims = {
        iss: payment.Session.issuer,
        sub: bob,
        perms: ['read', 'pay'],
        iat: 1_700_000_000,
        exp: 1_700_003_600,
        jti: '00000000-0000-4000-8000-000000000000',
        gen: 0,
      }
      const token = payment.Session.sign({ claims, secret })
      equal(token.split('.')[2], 'PpooCbueaoxZ97rlAWSbzX_iOzeje9j4Nq3wVO99fjY', 'signature')
      equal(
        payment.Session.verify({ token, secret, now: new Date(1_700_000_100_000) }),
        { valid: true, claims },
        'verify',
      )
    },
  ],
  [
    'Escrow: created, then active on funded; released before funding refused with InvalidTransitionError',
    () => {
      const createdAt = new Date('2030-01-01T00:00:00.000Z')
      const later = new Date('2030-01-01T00:05:00.000Z')
      const created = machines.Escrow.from({
        id: `0x${'ab'.repeat(32)}`,
        chainId: 84_532,
        contract: bob,
        depositor: alice,
        beneficiary: bob,
        token: usdc,
        amount: 12_500_000n,
        createdAt,
      })
      equal(machines.Escrow.transition(created, { type: 'funded' }, later).status, 'active', 'funded')
      const error = thrown(() => machines.Escrow.transition(created, { type: 'released' }, later), 'released')
      if (!(error instanceof machines.Errors.InvalidTransitionError)) throw error
      equal(error.code, 'conflict', 'code')
      equal(
        machines.Machine.refusing(() => machines.Escrow.transition(created, { type: 'released' }, later)).refused,
        true,
        'refusing',
      )
    },
  ],
  [
    'Webhooks: a delivery signed as Standard Webhooks, checked with Web Crypto',
    async () => {
      const secret = Core.Webhooks.newSecret()
      const now = new Date('2030-01-01T00:00:00.000Z')
      const event = { id: 'evt_1', type: 'test.ping', timestamp: now.toISOString(), data: { hello: 'world' } }
      const { body, headers } = Core.Webhooks.sign({ secret, id: 'msg_1', event, now })
      const key = Uint8Array.from(atob(secret.slice('whsec_'.length)), (character) => character.charCodeAt(0))
      const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
      const content = new TextEncoder().encode(`msg_1.${headers['webhook-timestamp']}.${body}`)
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, content))
      equal(headers['webhook-signature'], `v1,${btoa(String.fromCharCode(...mac))}`, 'signature')
    },
  ],
  [
    'Webhooks: the questions of one turn of the event loop are answered by one read',
    async () => {
      let reads = 0
      const registered = { url: 'https://example.com/hook', secret: 'whsec_x', status: 'active', events: ['*'] }
      const store = {
        listOwned: async () => {
          reads += 1
          return [{ owners: [alice], value: registered }]
        },
      }
      const subscribed = Core.Webhooks.subscriptions(store)
      const answers = await Promise.all([subscribed(alice, 'test.ping'), subscribed(bob, 'test.ping')])
      equal([answers, reads], [[true, false], 1], 'answers and reads')
    },
  ],
  [
    'Messaging: ECIES on secp256k1, encrypted to a public key and opened by its private key',
    () => {
      const recipient = Core.Messaging.createKeyPair()
      const envelope = Core.Messaging.encrypt({ content: 'gm ✓', publicKey: recipient.publicKey })
      equal(Core.Messaging.decrypt({ envelope, privateKey: recipient.privateKey }), 'gm ✓', 'decrypt')
    },
  ],
  [
    'ContentId: the CID of "hello world", as Kubo computes it',
    async () => {
      const { cid } = await Core.ContentId.compute(new TextEncoder().encode('hello world'))
      equal(cid, 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e', 'cid')
    },
  ],
  [
    'Safety: the selectors a contract pushes, read from its runtime code',
    () => equal(Core.Safety.pushedSelectors('0x63a9059cbb0061aabbccdd'), new Set(['0xa9059cbb']), 'selectors'),
  ],
]

/** Every check, by name. */
export const checks = [...entries, ...namespaces, ...behaviour]
