import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Mppx } from 'mppx/client'
import { evm } from 'mppx/evm/client'
import { type Address, type Hex, type LocalAccount, toHex } from 'viem'
import { createPaymentHeader, selectPaymentRequirements } from 'x402/client'
import { PaymentRequirementsSchema } from 'x402/types'
import { toTypedData } from '../core/Authorization.js'
import { type PaymentTerms, toDomain } from '../core/PaymentTerms.js'

/**
 * The three official clients as an agent sets them up to pay this gateway: the same code drives the demo
 * agent and the end-to-end tests.
 */
export function clients(parameters: clients.Parameters) {
  const { terms, fetch, maxAtomicPerPayment = 1_000_000n } = parameters
  return {
    /**
     * `fetch` that pays with @x402/fetch (x402 v2, exact). `beforePayment` sees each amount asked, in atomic units,
     * before anything is signed, and refuses it by returning the reason (the call then throws).
     */
    x402(payer: LocalAccount, options: { beforePayment?: (amount: bigint) => string | undefined } = {}) {
      const client = new x402Client()
      registerExactEvmScheme(client, { signer: payer })
      // The client only spends assets it knows unless told; the devnet token is not one of them.
      client.setSpendControls({
        allowedAssets: [
          { network: terms.network, asset: terms.asset.address, maxAmountPerPayment: maxAtomicPerPayment.toString() },
        ],
      })
      const { beforePayment } = options
      if (beforePayment)
        client.onBeforePaymentCreation(async ({ selectedRequirements }) => {
          const reason = beforePayment(BigInt(selectedRequirements.amount))
          return reason === undefined ? undefined : { abort: true, reason }
        })
      return wrapFetchWithPayment(fetch, client) as typeof globalThis.fetch
    },
    /** The `X-PAYMENT` header the legacy `x402` client builds for an x402 v1 402 body. */
    async x402v1Header(payer: LocalAccount, unpaid: Response): Promise<string> {
      const { x402Version, accepts } = (await unpaid.json()) as { x402Version: number; accepts: unknown[] }
      const network = accepts.length > 0 ? PaymentRequirementsSchema.parse(accepts[0]).network : undefined
      const selected = selectPaymentRequirements(
        accepts.map((entry) => PaymentRequirementsSchema.parse(entry)),
        network,
        'exact',
      )
      return createPaymentHeader(payer as Parameters<typeof createPaymentHeader>[0], x402Version, selected)
    },
    /**
     * A `PAYMENT-SIGNATURE` (x402 v2) header signed directly, for an exact authorization: what a client
     * library produces, minus the 402 round trip (benchmarks pre-sign; tests send deliberately wrong ones).
     */
    async presigned(options: presigned): Promise<string> {
      const now = BigInt(Math.floor(Date.now() / 1000))
      const authorization = {
        from: options.from ?? options.signer.address,
        to: options.to ?? terms.payTo,
        value: options.value ?? 1000n,
        validAfter: options.validAfter ?? now - 600n,
        validBefore: options.validBefore ?? now + 120n,
        nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
      }
      const domain = { ...toDomain(terms), ...(options.chainId ? { chainId: options.chainId } : {}) }
      const signature = await options.signer.signTypedData(toTypedData(authorization, domain))
      const wire = (value: bigint) => value.toString()
      return encodePaymentSignatureHeader({
        x402Version: 2,
        accepted: {
          scheme: 'exact',
          network: options.network ?? terms.network,
          amount: wire(authorization.value),
          asset: terms.asset.address,
          payTo: authorization.to,
          maxTimeoutSeconds: terms.maxTimeoutSeconds,
          extra: { name: terms.asset.name, version: terms.asset.version },
        },
        payload: {
          signature,
          authorization: {
            ...authorization,
            value: wire(authorization.value),
            validAfter: wire(authorization.validAfter),
            validBefore: wire(authorization.validBefore),
          },
        },
      })
    },
    /** `fetch` that pays with the mppx client (MPP, evm charge). */
    mpp(payer: LocalAccount): typeof globalThis.fetch {
      return Mppx.create({
        // The 402 names the token but not its EIP-712 domain; the agent knows it from the manifest.
        methods: [evm({ account: payer, authorization: { name: terms.asset.name, version: terms.asset.version } })],
        fetch,
        polyfill: false,
      }).fetch as typeof globalThis.fetch
    },
  }
}

/** What a pre-signed authorization differs in from the honest one (every field defaults to it). */
type presigned = {
  /** Key that signs. */
  signer: LocalAccount
  /** Payer named in the authorization. @default the signer */
  from?: Address
  /** Payee. @default the gateway's payTo */
  to?: Address
  /** Amount in atomic units. @default 1000n */
  value?: bigint
  /** Unix seconds. @default now - 600 */
  validAfter?: bigint
  /** Unix seconds. @default now + 120 */
  validBefore?: bigint
  /** CAIP-2 network in the echoed requirements. @default the gateway's */
  network?: `${string}:${string}`
  /** Chain id of the EIP-712 domain. @default the gateway's */
  chainId?: number
  /** 32-byte nonce. @default random */
  nonce?: Hex
}

export declare namespace clients {
  type Parameters = {
    /** The gateway's payment terms (from its manifest). */
    terms: PaymentTerms
    /** Transport to the gateway. */
    fetch: typeof globalThis.fetch
    /** Most a single payment may cost, in atomic USDC. @default 1_000_000n (1 USDC) */
    maxAtomicPerPayment?: bigint
  }
}
