import type { Hash, LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { memory } from '../../adapters/ledger/memory.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { createGateway } from '../../app/gateway.js'
import { type Logger, silent } from '../../app/log.js'
import { terms } from '../../app/terms.js'
import type { Signed } from '../../core/Authorization.js'
import * as Catalog from '../../core/Catalog.js'
import type * as Module from '../../core/Module.js'
import * as Price from '../../core/Price.js'

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
    inference?: { chat?: Module.Ports['chat'] | undefined; decentralized?: Module.Ports['decentralized'] | undefined } | undefined
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
  } = {},
) {
  const config = parse(parameters.env ?? {}, parameters.families)
  const paymentTerms = terms(config)
  const { escrow, ...onchain } = parameters.onchain ?? {}
  const gateway = createGateway({
    config,
    terms: paymentTerms,
    logger: parameters.logger ?? silent(),
    ports: {
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
    },
    payment: parameters.payment,
    families: parameters.families,
  })
  const pay = clients({ terms: paymentTerms, fetch: globalThis.fetch })
  return {
    ...gateway,
    /**
     * Sends `method path` with a JSON body (or none), paid at the entry's price by `payer` (a new key by default) with
     * a signed x402 v2 authorization. Only meaningful with {@link stubPayment} or a real facilitator.
     */
    async paid(method: string, path: string, body?: unknown, payer: LocalAccount = privateKeyToAccount(generatePrivateKey())) {
      const route = new URL(path, 'http://gateway.test').pathname
      const entry = Catalog.entries.find((candidate) => candidate.method === method && toPattern(candidate.path).test(route))
      if (!entry) throw new Error(`No catalog entry for ${method} ${route}`)
      const header = await pay.presigned({ signer: payer, value: Price.quote({ price: entry.price }) })
      return gateway.handle(
        new Request(`http://gateway.test${path}`, {
          method,
          headers: { 'PAYMENT-SIGNATURE': header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
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
 * authorization and settles it at once. `settled` lists what it settled, in order.
 */
export function stubPayment() {
  const settled: Signed[] = []
  const payment: NonNullable<createGateway.Parameters['payment']> = {
    ledger: memory(),
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

/** Matches the concrete paths of a catalog path: `/x/:id` as `/x/abc`, and as the bare `/x` that takes `?id=`. */
function toPattern(path: string): RegExp {
  const bare = path.includes('/:') ? `|${path.slice(0, path.indexOf('/:'))}` : ''
  return new RegExp(`^(?:${path.replace(/:[A-Za-z]+/g, '[^/]+')}${bare})$`)
}
