import {
  type Address,
  BaseError,
  concat,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  hexToBigInt,
  keccak256,
  multicall3Abi,
  numberToHex,
  type PublicClient,
  pad,
  type StateOverride,
  toHex,
} from 'viem'
import type { BatchChain, GasEstimate } from '../../core/BatchChain.js'
import * as BatchPayment from '../../core/BatchPayment.js'

/** Canonical Multicall3 address, the same on every chain (mds1/multicall); the devnet has ours there from genesis. */
const canonicalMulticall3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * The batch port over `BatchPayments.sol` (or the contract on Base with its ABI) through a viem public client.
 *
 * Gas is measured with `eth_estimateGas` at the latest block. When the sender has not approved the batch yet, the
 * estimate carries a state override of the token's allowance slot, which is found once per token with a single
 * `eth_call`: every candidate slot (Solidity and Vyper mapping layouts at slots 0 to 63, and OpenZeppelin v5's
 * namespaced ERC-20 storage) is overridden with a distinct marker, and the marker `allowance()` returns names the
 * slot. Nodes that refuse overrides in `eth_estimateGas` (Hardhat's EDR, older geth) answer `override_unsupported`.
 */
export function batchChain(parameters: batchChain.Parameters): BatchChain {
  const { client, chainId, multicallAddress = canonicalMulticall3 } = parameters
  const address = getAddress(parameters.address)
  const tokens = Object.fromEntries(
    Object.entries(parameters.tokens).map(([symbol, token]) => [symbol.toUpperCase(), getAddress(token)]),
  )
  // Allowance slot layout per token (lowercase address), found once; `null` when no candidate matched.
  const layouts = new Map<string, Promise<Layout | null>>()

  async function layoutOf(token: Address, owner: Address): Promise<Layout | null> {
    const key = token.toLowerCase()
    let found = layouts.get(key)
    if (!found) {
      found = findLayout(client, token, owner, address)
      layouts.set(key, found)
      // A fault (network) is not a verdict: the next request looks again.
      found.catch(() => layouts.delete(key))
    }
    return found
  }

  return {
    chainId,
    address,
    tokens,
    async feeBps() {
      return client.readContract({ address, abi: BatchPayment.abi, functionName: 'feeBps' })
    },
    async codeHash() {
      const code = await client.getCode({ address })
      return code === undefined || code === '0x' ? undefined : keccak256(code)
    },
    async allowance({ token, owner }) {
      return client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, address] })
    },
    async balances({ token, accounts }) {
      if (accounts.length === 0) return []
      const contracts = accounts.map((account) =>
        token === undefined
          ? ({ address: multicallAddress, abi: multicall3Abi, functionName: 'getEthBalance', args: [account] } as const)
          : ({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account] } as const),
      )
      return client.multicall({ contracts, allowFailure: false, multicallAddress }) as Promise<bigint[]>
    },
    async readToken(token) {
      const code = await client.getCode({ address: token })
      if (code === undefined || code === '0x')
        return { ok: false, reason: `${token} has no contract code on chain ${chainId}` }
      try {
        const [symbol, decimals] = await Promise.all([
          client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
          client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
        ])
        return { ok: true, symbol, decimals }
      } catch (error) {
        if (!isCallFailure(error)) throw error
        return { ok: false, reason: `${token} does not answer ERC-20 symbol() and decimals() on chain ${chainId}` }
      }
    },
    async estimateGas({ from, data, value, allowance }) {
      const transaction = { from, to: address, data, ...(value > 0n ? { value: numberToHex(value) } : {}) }
      if (!allowance) return estimate(client, [transaction, 'latest'])
      const layout = await layoutOf(allowance.token, from)
      if (!layout)
        return {
          ok: false,
          reason: 'allowance_slot_unknown',
          message: `the allowance storage slot of ${allowance.token} could not be found, so the estimate cannot assume an approval`,
        }
      const slot = allowanceSlot(layout, from, address)
      const override = { [allowance.token]: { stateDiff: { [slot]: pad(numberToHex(allowance.amount)) } } }
      return estimate(client, [transaction, 'latest', override])
    },
  }
}

export declare namespace batchChain {
  type Parameters = {
    /** Public client of the chain the contract lives on. */
    client: PublicClient
    /** The batch contract. */
    address: Address
    /** EIP-155 chain id of `client`'s chain. */
    chainId: number
    /** ERC-20 addresses by symbol (any case) configured on this chain, e.g. `{ USDC: '0x8335...' }`. */
    tokens: Readonly<Record<string, Address>>
    /** Multicall3 used to read many balances in one call. @default the canonical `0xcA11bde05977b3631167028862bE2a173976CA11` */
    multicallAddress?: Address
  }
}

/** Where a token keeps `allowance[owner][spender]`. */
type Layout =
  /** `mapping(address => mapping(address => uint256))` declared at storage slot `slot` (Solidity layout). */
  | { kind: 'solidity'; slot: bigint }
  /** `HashMap[address, HashMap[address, uint256]]` at slot `slot` (Vyper layout: slot before key). */
  | { kind: 'vyper'; slot: bigint }

/** OpenZeppelin v5 `ERC20Upgradeable` namespaced storage (ERC-7201 `openzeppelin.storage.ERC20`); `_allowances` is its second field. */
const openZeppelinAllowances = 0x52c63247e1f47db19d5ce0460030c497f067ca4cebf71ba98eeadabe20bace01n

/** Candidate layouts, tried at once; a token's allowance mapping sits in one of the first 64 slots in practice. */
const candidates: readonly Layout[] = [
  ...Array.from({ length: 64 }, (_, slot) => ({ kind: 'solidity', slot: BigInt(slot) }) as const),
  ...Array.from({ length: 64 }, (_, slot) => ({ kind: 'vyper', slot: BigInt(slot) }) as const),
  { kind: 'solidity', slot: openZeppelinAllowances },
]

/** The storage key of `allowance[owner][spender]` under `layout`. */
function allowanceSlot(layout: Layout, owner: Address, spender: Address): Hex {
  if (layout.kind === 'solidity') {
    const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, layout.slot]))
    return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, inner]))
  }
  const inner = keccak256(concat([pad(toHex(layout.slot)), pad(owner)]))
  return keccak256(concat([inner, pad(spender)]))
}

/** Marker written to candidate `index`: far above any real allowance a test could meet, and distinct per candidate. */
const markerBase = 1n << 200n

/** Finds the allowance layout of `token` with one `eth_call` that overrides every candidate slot with its own marker. */
async function findLayout(
  client: PublicClient,
  token: Address,
  owner: Address,
  spender: Address,
): Promise<Layout | null> {
  const stateOverride: StateOverride = [
    {
      address: token,
      stateDiff: candidates.map((layout, index) => ({
        slot: allowanceSlot(layout, owner, spender),
        value: pad(numberToHex(markerBase + BigInt(index))),
      })),
    },
  ]
  let data: Hex | undefined
  try {
    ;({ data } = await client.call({
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'allowance', args: [owner, spender] }),
      stateOverride,
    }))
  } catch (error) {
    if (isCallFailure(error)) return null
    throw error
  }
  if (data === undefined || data === '0x') return null
  const value = decodeFunctionResult({ abi: erc20Abi, functionName: 'allowance', data })
  const index = value - markerBase
  return index >= 0n && index < BigInt(candidates.length) ? candidates[Number(index)]! : null
}

/** `eth_estimateGas` with raw params; a revert or a refused override comes back as data, a network fault throws. */
async function estimate(client: PublicClient, params: readonly unknown[]): Promise<GasEstimate> {
  try {
    // Raw request: viem's estimateGas would also fill fees and nonce, and hides whether the node refused the override.
    const gas = await client.request({ method: 'eth_estimateGas', params: params as never })
    return { ok: true, gas: hexToBigInt(gas as Hex) }
  } catch (error) {
    const { code, message } = rpcErrorOf(error)
    if (
      params.length > 2 &&
      (code === -32602 || /trailing characters|too many arguments|invalid params/i.test(message))
    )
      return {
        ok: false,
        reason: 'override_unsupported',
        message: `the node refuses state overrides in eth_estimateGas: ${message}`,
      }
    if (isCallFailure(error)) return { ok: false, reason: 'reverted', message }
    throw error
  }
}

/** The innermost JSON-RPC code and message of a viem error (or of a raw EIP-1193 error). */
function rpcErrorOf(error: unknown): { code: number | undefined; message: string } {
  let code: number | undefined
  let message = error instanceof Error ? error.message : String(error)
  if (error instanceof BaseError)
    error.walk((cause) => {
      const candidate = cause as { code?: unknown; details?: unknown; shortMessage?: unknown }
      if (typeof candidate.code === 'number' && code === undefined) code = candidate.code
      if (typeof candidate.details === 'string' && candidate.details !== '') message = candidate.details
      return false
    })
  else if (typeof (error as { code?: unknown })?.code === 'number') code = (error as { code: number }).code
  return { code, message }
}

/** True when the node executed the call and it failed (a revert, insufficient funds), as opposed to a transport fault. */
function isCallFailure(error: unknown): boolean {
  const { code, message } = rpcErrorOf(error)
  if (code === 3) return true
  return (
    /revert|insufficient funds|exceeds|invalid opcode|out of gas|returned no data/i.test(message) ||
    (code !== undefined && code <= -32000 && code >= -32099)
  )
}
