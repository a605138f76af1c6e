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
