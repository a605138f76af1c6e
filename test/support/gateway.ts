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
import * as Price from '../../core/Price.js'

/** A gateway on embedded defaults (plus any overrides), answering in process. */
export function testGateway(
  parameters: {
    env?: Record<string, string>
    oracle?: createGateway.Parameters['oracle']
    /** Durable records; with it the stateful modules validate their input (and answer 503 for want of payments). */
    store?: createGateway.Parameters['store']
    /** The settlement chain's contracts; with a store, invoices and escrows validate their input too. */
    onchain?: createGateway.Parameters['onchain']
    /** Chains for RPC forwarding. */
    chains?: createGateway.Parameters['chains']
    /** OpenAI-compatible upstreams; absent, the AI endpoints are unavailable. */
    inference?: createGateway.Parameters['inference']
    /** The Stellar network; absent, the Stellar endpoints are unavailable. */
    stellar?: createGateway.Parameters['stellar']
    /** The XRP Ledger; absent, the XRP endpoints are unavailable. */
    xrp?: createGateway.Parameters['xrp']
    /** Payment settlement; absent, every paid endpoint is unavailable. */
    payment?: createGateway.Parameters['payment']
    /** The modules to mount instead of the gateway's own. */
    modules?: createGateway.Parameters['modules']
    /** Where events go. @default silent */
    logger?: Logger
  } = {},
) {
  const config = parse(parameters.env ?? {})
  const paymentTerms = terms(config)
  const gateway = createGateway({
    config,
    terms: paymentTerms,
    logger: parameters.logger ?? silent(),
    oracle: parameters.oracle,
    store: parameters.store,
    onchain: parameters.onchain,
    chains: parameters.chains,
    inference: parameters.inference,
    stellar: parameters.stellar,
    xrp: parameters.xrp,
    payment: parameters.payment,
    modules: parameters.modules,
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
