import { decodePaymentRequiredHeader } from '@x402/core/http'
import { type Address, getAddress, type Hash, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../adapters/ledger/memory.js'
import { memory as memoryLimiter } from '../../adapters/limiter/memory.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { createGateway } from '../../app/gateway.js'
import { type Logger, silent } from '../../app/log.js'
import { settlementChainOf } from '../../app/providers/settlement-chain.js'
import { terms } from '../../app/terms.js'
import type { Signed } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import type { Facilitator } from '../../core/Facilitator.js'
import type * as Module from '../../core/Module.js'
import * as Price from '../../core/Price.js'
import type { Queue } from '../../core/Queue.js'
import { accounts } from './module.js'

/** The settlement chain as tests hand it in: transfers and tokens, and the escrow contract where there is one. */
export type Onchain = Module.Onchain & { /** Our escrow contract. */ escrow?: Module.Ports['escrow'] | undefined }

/** A gateway on embedded defaults (plus any overrides), answering in process. */
export function testGateway(
  parameters: {
    env?: Record<string, string>
    oracle?: Module.Ports['oracle'] | undefined
    /** Durable records; with it the stateful modules validate their input (and answer 503 for want of payments). */
    store?: Module.Ports['store'] | undefined
    /** The settlement chain's transfers and tokens, and the escrow contract; with a store, invoices and escrows run. */
    onchain?: Onchain | undefined
    /** Chains for RPC forwarding. */
    chains?: Module.Ports['chains'] | undefined
    /** OpenAI-compatible upstreams; absent, the AI endpoints are unavailable. */
    inference?:
      | { chat?: Module.Ports['chat'] | undefined; decentralized?: Module.Ports['decentralized'] | undefined }
      | undefined
    /** The Stellar network; absent, the Stellar endpoints are unavailable. */
    stellar?: Module.Ports['stellar'] | undefined
    /** The XRP Ledger; absent, the XRP endpoints are unavailable. */
    xrp?: Module.Ports['xrp'] | undefined
    /** Any other port. */
    ports?: createGateway.Parameters['ports']
    /** Payment settlement; absent, every paid endpoint is unavailable. */
    payment?: createGateway.Parameters['payment']
    /** The families to mount instead of the gateway's own. */
    families?: createGateway.Parameters['families']
    /** Where events go. @default silent */
    logger?: Logger
    /** Where per-client limits are counted. @default this process's memory */
    limiter?: createGateway.Parameters['limiter']
  } = {},
) {
  const config = parse(parameters.env ?? {}, parameters.families)
  const paymentTerms = terms(config)
  const { escrow, ...onchain } = parameters.onchain ?? {}
  const ports: createGateway.Parameters['ports'] = {
    oracle: parameters.oracle,
    store: parameters.store,
    onchain: parameters.onchain && (onchain as Module.Onchain),
    escrow,
    chains: parameters.chains,
    chat: parameters.inference?.chat,
    decentralized: parameters.inference?.decentralized,
    stellar: parameters.stellar,
    xrp: parameters.xrp,
    ...parameters.ports,
  }
  const gateway = createGateway({
    config,
    terms: paymentTerms,
    logger: parameters.logger ?? silent(),
    // The settlement chain's node as boot's provider finds it, among the chains passed.
    ports: { ...ports, settlementChain: ports.settlementChain ?? settlementChainOf(ports) },
    payment: parameters.payment,
    families: parameters.families,
    limiter: parameters.limiter ?? memoryLimiter(),
  })
  const pay = clients({ terms: paymentTerms, fetch: globalThis.fetch })
  return {
    ...gateway,
    /** The payment terms every offer names. */
    terms: paymentTerms,
    /**
     * Sends `method path` with a JSON body (or none), paid at the entry's price by `payer` (a new key by default) with
     * a signed x402 v2 authorization. Only meaningful with {@link stubPayment} or a real facilitator.
     */
    async paid(
      method: string,
      path: string,
      body?: unknown,
      payer: LocalAccount = privateKeyToAccount(generatePrivateKey()),
    ) {
      const route = new URL(path, 'http://gateway.test').pathname
      const entry = Catalog.entries.find(
        (candidate) => candidate.method === method && toPattern(candidate.path).test(route),
      )
      if (!entry) throw new Error(`No catalog entry for ${method} ${route}`)
      const header = await pay.presigned({ signer: payer, value: Price.quote({ price: entry.price }) })
      return gateway.handle(
        new Request(`http://gateway.test${path}`, {
          method,
          headers: {
            'PAYMENT-SIGNATURE': header,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      )
    },
    /** Sends a request to the gateway at `http://gateway.test`. */
    fetch: (path: string, init?: RequestInit) => gateway.handle(new Request(`http://gateway.test${path}`, init)),
    /** Sends a JSON body. */
    post: (path: string, body: unknown, method = 'POST') =>
      gateway.handle(
        new Request(`http://gateway.test${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
  }
}

/**
 * Payment settlement with no chain: a memory ledger and a facilitator that accepts every correctly signed
 * authorization and settles it at once. `settled` lists what it settled, in order. With the queue of the events port,
 * a confirmation records its `payment.settled` there.
 */
export function stubPayment(parameters: { queue?: Queue | undefined } = {}) {
  const settled: Signed[] = []
  const payment: NonNullable<createGateway.Parameters['payment']> = {
    ledger: memory({ queue: parameters.queue }),
    lease: { id: 'stub-lease', isLive: async (id) => id === 'stub-lease' },
    secret: 'stub-payment-secret-stub-payment-secret',
    facilitator: {
      verify: async () => ({ ok: true }),
      settle: async ({ authorization }) => {
        settled.push(authorization)
        return { ok: true, transaction: `0x${settled.length.toString(16).padStart(64, '0')}` as Hash }
      },
      status: async () => ({ state: 'unused' }),
    },
  }
  return { payment, settled }
}

/**
 * One family mounted alone in the real gateway (its hooks, validation, error rendering and payment guard), with
 * {@link stubPayment}: `get` and `post` pay for a paid route as the payer `as`, with an x402 v2 authorization that
 * payer's key signs for the amount the gateway offers, and send a free route (or a call with no payer) unpaid.
 * `family` is a manifest (or several, mounted together), or one with its `routes` built by the test (a clock, a limit the
 * manifest does not pass).
 */
export function moduleGateway(
  family: Module.AnyModule | readonly Module.AnyModule[],
  parameters: {
    ports?: createGateway.Parameters['ports']
    env?: Record<string, string>
    logger?: Logger
    /** Who pays a call that names no payer. @default nobody: such a call goes unpaid */
    payer?: Address | LocalAccount
    /** Replaces parts of the stub facilitator (a settlement that waits, or fails). */
    facilitator?: Partial<Facilitator>
  } = {},
) {
  const { payer, facilitator, ...options } = parameters
  const { payment, settled } = stubPayment({ queue: parameters.ports?.queue })
  Object.assign(payment.facilitator, facilitator)
  const gateway = testGateway({ families: Array.isArray(family) ? family : [family], payment, ...options })
  const pay = clients({ terms: gateway.terms, fetch: globalThis.fetch })
  const request = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    new Request(`http://gateway.test${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  /** Sends `method path` with a JSON body (or none) and `headers`, paid by `as` when the route is paid and a payer is named. */
  async function send(
    method: string,
    path: string,
    body?: unknown,
    as: Address | LocalAccount | undefined = payer,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const route = new URL(path, 'http://gateway.test').pathname
    const entry = Catalog.entries.find(
      (candidate) => candidate.method === method && toPattern(candidate.path).test(route),
    )
    if (!entry || Catalog.isFree(entry) || as === undefined) return gateway.handle(request(method, path, body, headers))
    const signer = typeof as === 'string' ? accountOf(as) : as
    // A fixed price is known; any other is what the gateway offers for this very call, as a client reads it off the 402.
    let value: bigint
    if (entry.price.type === 'fixed') value = Price.quote({ price: entry.price })
    else {
      const unpaid = await gateway.handle(request(method, path, body, headers))
      const offer = unpaid.headers.get('PAYMENT-REQUIRED')
      if (unpaid.status !== 402 || !offer) return unpaid
      value = BigInt(decodePaymentRequiredHeader(offer).accepts[0]!.amount)
    }
    const header = await pay.presigned({ signer, value })
    return gateway.handle(request(method, path, body, { ...headers, 'PAYMENT-SIGNATURE': header }))
  }
  return {
    ...gateway,
    /** What the stub facilitator settled, in order. */
    settled,
    send,
    /** GET, paid by `as`. */
    get: (path: string, as?: Address | LocalAccount) => send('GET', path, undefined, as),
    /** POST a JSON body, paid by `as`. */
    post: (path: string, body: unknown, as?: Address | LocalAccount) => send('POST', path, body, as),
  }
}

/** The key of one of the test payers (see `payers` in ./module.ts). */
function accountOf(address: Address): LocalAccount {
  const account = Object.values(accounts).find((candidate) => candidate.address === getAddress(address))
  if (!account) throw new Error(`${address} is not a test payer with a known key; pass its account instead.`)
  return account
}

/** Matches the concrete paths of a catalog path: `/x/:id` as `/x/abc`, and as the bare `/x` that takes `?id=`. */
function toPattern(path: string): RegExp {
  const bare = path.includes('/:') ? `|${path.slice(0, path.indexOf('/:'))}` : ''
  return new RegExp(`^(?:${path.replace(/:[A-Za-z]+/g, '[^/]+')}${bare})$`)
}
