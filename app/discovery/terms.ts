/** Whether an operation can run here; an unavailable one answers 501/503 before any payment. */
export type Availability =
  | { /** It runs. */ available: true }
  | {
      /** It cannot run now. */
      available: false
      /** Stable code: `not_implemented` (not built) or `upstream_unavailable` (missing or failing upstream). */
      code: 'not_implemented' | 'upstream_unavailable'
      /** One sentence for people. */
      reason: string
    }

/** The payment protocols every paid operation accepts, as discovery documents name them. */
export const protocols = [
  { name: 'x402', versions: [2, 1], schemes: ['exact'], headers: ['PAYMENT-SIGNATURE', 'X-PAYMENT'] },
  { name: 'mpp', methods: ['evm'], intents: ['charge'], headers: ['Authorization: Payment'] },
] as const

/** Identifier of this service in discovery documents. */
export const serviceName = 'agent-pay-gateway'

/** One operation as the payment manifest (`/.well-known/x402.json`) lists it, as its readers (MCP, CLI) use it. */
export type ManifestResource = {
  /** HTTP method. */
  method: string
  /** Path as the catalog writes it. */
  path: string
  /** Whether it runs here now. */
  available: boolean
  /** Why not, when it does not. */
  unavailable?: { code: string; reason: string }
  /** Its price: `free`, or a fixed amount, or bounds and the rule, in USD. */
  price: 'free' | { mode: string; amount?: string; minAmount?: string; maxAmount?: string; rule?: string }
}

/** A price from the manifest for people: `free`, `$0.001000`, or the bounds and the rule. */
export function priceTextOf(resource: ManifestResource): string {
  const { price } = resource
  if (price === 'free') return 'free'
  if (price.amount) return `$${price.amount}`
  const bounds = price.minAmount && price.maxAmount ? `$${price.minAmount}-$${price.maxAmount}` : 'varies'
  return `${bounds}${price.rule ? ` by request (${price.rule})` : ' by request'}`
}
