import { type Address, type Hex, keccak256, stringToBytes } from 'viem'

/**
 * How a robot operator proves a free request (`robots/register`, `update`, `deregister`, `complete`) is theirs: an
 * EIP-712 signature of {@link types}`.RobotRequest` under {@link domain}, where `body` is the keccak-256 of the
 * request's other fields in {@link canonicalJson} (everything but `nonce`, `expiry` and `signature`, `operator`
 * included). `nonce` is used once per operator; `expiry` bounds how long a signature is good.
 */

/** The EIP-712 domain of the settlement chain `chainId`. */
export function domain(chainId: number) {
  return { name: 'x402 Gateway Robots', version: '1', chainId } as const
}

/** The EIP-712 types. */
export const types = {
  RobotRequest: [
    { name: 'action', type: 'string' },
    { name: 'operator', type: 'address' },
    { name: 'body', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint64' },
  ],
} as const

/** The signed actions, each one endpoint. */
export type Action = 'register' | 'update' | 'deregister' | 'complete'

/** The fields a signed request carries besides its own. */
export const envelope = ['nonce', 'expiry', 'signature'] as const

/** JSON with object keys sorted at every depth and no spaces: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`
  return JSON.stringify(value)
}

/** The `body` a request signs: keccak-256 of its fields but the envelope, in canonical JSON. */
export function bodyHash(request: Record<string, unknown>): Hex {
  const fields = Object.fromEntries(
    Object.entries(request).filter(([key]) => !(envelope as readonly string[]).includes(key)),
  )
  return keccak256(stringToBytes(canonicalJson(fields)))
}

/** The typed data an operator signs for `request` (its fields and the envelope's `nonce` and `expiry`). */
export function typedData(parameters: {
  chainId: number
  action: Action
  request: Record<string, unknown> & { operator: Address; nonce: string; expiry: number }
}) {
  const { chainId, action, request } = parameters
  return {
    domain: domain(chainId),
    types,
    primaryType: 'RobotRequest' as const,
    message: {
      action,
      operator: request.operator,
      body: bodyHash(request),
      nonce: BigInt(request.nonce),
      expiry: BigInt(request.expiry),
    },
  }
}
