import {
  type Address,
  type Hash,
  type Hex,
  isAddressEqual,
  type Log,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  toFunctionSelector,
} from 'viem'
import type { Authorization, Domain } from '../../../core/Authorization.js'
import type { Refusal, Status } from '../../../core/Facilitator.js'

/** The EIP-3009 subset of the token that facilitators call; signatures match Circle's FiatToken v2.2. */
export const abi = parseAbi([
  'function balanceOf(address account) view returns (uint256)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
])

/**
 * The token calls a payment makes, encoded by hand from selectors computed once: each is static words only, so the
 * calldata is the selector and the arguments as 32-byte words, byte for byte what `encodeFunctionData` writes
 * (a test compares them), without its per-call ABI lookup and selector hashing. A malformed argument throws.
 */
export const encode = {
  balanceOf: (account: Address): Hex => `${selectors.balanceOf}${addressWord(account)}`,
  authorizationState: (authorizer: Address, nonce: Hex): Hex =>
    `${selectors.authorizationState}${addressWord(authorizer)}${bytes32Word(nonce)}`,
  /** `transferWithAuthorization` in its (v, r, s) form. */
  transferWithAuthorization: (parameters: Authorization & { v: number; r: Hex; s: Hex }): Hex => {
    const { from, to, value, validAfter, validBefore, nonce, v, r, s } = parameters
    return `${selectors.transferWithAuthorization}${addressWord(from)}${addressWord(to)}${uintWord(value)}${uintWord(validAfter)}${uintWord(validBefore)}${bytes32Word(nonce)}${uintWord(BigInt(v), 8)}${bytes32Word(r)}${bytes32Word(s)}`
  },
}

const selectors = {
  balanceOf: toFunctionSelector(abi[0]),
  authorizationState: toFunctionSelector(abi[1]),
  transferWithAuthorization: toFunctionSelector(abi[2]),
}

function addressWord(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`${address} is not an address.`)
  return address.slice(2).toLowerCase().padStart(64, '0')
}

function bytes32Word(value: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new TypeError(`${value} is not 32 bytes of hex.`)
  return value.slice(2).toLowerCase()
}

function uintWord(value: bigint, bits = 256): string {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`${value} is not a uint${bits}.`)
  return value.toString(16).padStart(64, '0')
}

/** `AuthorizationUsed(authorizer, nonce)`, emitted once per used nonce; both arguments are indexed topics. */
export const authorizationUsed = abi[4]

/** FiatToken revert strings (and @x402/evm's wording of them) and the refusal each one means. */
export const revertReasons: readonly [pattern: RegExp, reason: Refusal][] = [
  [/invalid signature|invalid_exact_evm_signature/i, 'invalid_signature'],
  [/authorization is used or canceled|nonce_already_used/i, 'replayed'],
  [/authorization is expired/i, 'expired'],
  [/authorization is not yet valid/i, 'not_yet_valid'],
  [/transfer amount exceeds balance|insufficient_balance/i, 'insufficient_funds'],
]

/** The refusal a revert message means; `settlement_failed` when it names none. */
export function toRefusal(message: string): Refusal {
  return revertReasons.find(([pattern]) => pattern.test(message))?.[1] ?? 'settlement_failed'
}

/** Whether an `AuthorizationUsed` log is the one of `payer`'s `nonce` on `token`. */
export function matches(log: Log<bigint, number, false, typeof authorizationUsed, true>, used: Used): boolean {
  return (
    isAddressEqual(log.address, used.token) &&
    isAddressEqual(log.args.authorizer, used.payer) &&
    log.args.nonce.toLowerCase() === used.nonce.toLowerCase()
  )
}

/** A nonce of a payer on a token. */
export type Used = {
  /** Token contract. */
  token: Address
  /** Authorizer. */
  payer: Address
  /** 32-byte authorization nonce. */
  nonce: Hex
}

// Most public RPC providers cap eth_getLogs at 10,000 blocks per request.
const logRangeBlocks = 10_000n

/**
 * Reads whether `payer`'s `nonce` is used on chain and, if so, in which transaction: the given one when its receipt
 * succeeded and carries the `AuthorizationUsed` log, else the newest matching log within `lookbackBlocks`.
 */
export async function status(parameters: status.Parameters): Promise<Status> {
  const { client, payer, nonce, domain, transaction, lookbackBlocks } = parameters
  const used: Used = { token: domain.verifyingContract, payer, nonce }
  const spent = await client.readContract({
    address: used.token,
    abi,
    functionName: 'authorizationState',
    args: [payer, nonce],
  })
  if (!spent) return { state: 'unused' }
  if (transaction) {
    const receipt = await client.getTransactionReceipt({ hash: transaction }).catch(() => undefined)
    if (
      receipt?.status === 'success' &&
      parseEventLogs({ abi, eventName: 'AuthorizationUsed', logs: receipt.logs }).some((log) => matches(log, used))
    )
      return { state: 'settled', transaction }
  }
  // The node filters by both topics; newest ranges first, since reconciliation looks for recent settlements.
  // viem caches the block number for a polling interval; a settlement just mined must be in range.
  const latest = await client.getBlockNumber({ cacheTime: 0 })
  const oldest = latest > lookbackBlocks ? latest - lookbackBlocks : 0n
  for (let toBlock = latest; toBlock >= oldest; toBlock -= logRangeBlocks) {
    const fromBlock = toBlock - oldest >= logRangeBlocks ? toBlock - logRangeBlocks + 1n : oldest
    const logs = await client.getLogs({
      address: used.token,
      event: authorizationUsed,
      args: { authorizer: payer, nonce },
      fromBlock,
      toBlock,
    })
    const hash = logs.at(-1)?.transactionHash
    if (hash) return { state: 'settled', transaction: hash }
    if (fromBlock === oldest) break
  }
  // Used but no log in the window: settled before it, or canceled by the payer (cancelAuthorization).
  return { state: 'settled', transaction: undefined }
}

export declare namespace status {
  type Parameters = {
    /** Reads the chain. */
    client: PublicClient
    /** Authorizer. */
    payer: Address
    /** 32-byte authorization nonce. */
    nonce: Hex
    /** The token's EIP-712 domain; its verifying contract is read. */
    domain: Domain
    /** Transaction believed to have settled it. */
    transaction?: Hash | undefined
    /** How far back to search logs, in blocks. */
    lookbackBlocks: bigint
  }
}
