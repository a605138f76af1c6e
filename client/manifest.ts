import type { Address } from 'viem'

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

/** The payment manifest as its readers use it: where and in what a call is paid, and every operation. */
export type Manifest = {
  /** CAIP-2 network. */
  network: string
  /** The asset and its EIP-712 domain. */
  asset: { address: Address; name: string; version: string }
  /** Who is paid. */
  payTo: Address
  /** The paid operations. */
  resources: ManifestResource[]
  /** The free operations. */
  free: ManifestResource[]
}

/** A price from the manifest for people: `free`, `$0.001000`, or the bounds and the rule. */
export function priceTextOf(resource: ManifestResource): string {
  const { price } = resource
  if (price === 'free') return 'free'
  if (price.amount) return `$${price.amount}`
  const bounds = price.minAmount && price.maxAmount ? `$${price.minAmount}-$${price.maxAmount}` : 'varies'
  return `${bounds}${price.rule ? ` by request (${price.rule})` : ' by request'}`
}
