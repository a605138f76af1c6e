import { type Address, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex, hexToBigInt, size } from 'viem'
import type { BatchChain } from './BatchChain.js'
import * as Multicall3 from './Multicall3.js'
import type * as TokenList from './TokenList.js'
import * as Units from './Units.js'

/** The balance of one listed token, or `null` when its `balanceOf` failed. */
export type Listed = TokenList.Listed & {
  /** Atomic units; `null` when `balanceOf` failed. */
  raw: bigint | null
}

/** One token read by address alone: its balance with the symbol and decimals it answers, or that it did not answer. */
export type Unlisted =
  | {
      /** Answered. */
      ok: true
      /** ERC-20 address, as asked. */
      address: Address
      /** What `symbol()` answered. */
      symbol: string
      /** What `decimals()` answered. */
      decimals: number
      /** Atomic units. */
      raw: bigint
    }
  | {
      /** `balanceOf`, `symbol()` or `decimals()` failed: not an ERC-20 token, or none at the address. */
      ok: false
      /** ERC-20 address, as asked. */
      address: Address
    }

/**
 * The Multicall3 `aggregate3` calldata that reads, in one `eth_call` to {@link Multicall3.address}, the native balance
 * of `wallet`, `balanceOf` of each `listed` token, and `balanceOf`, `symbol()` and `decimals()` of each `unlisted`
 * address; every call is allowed to fail.
 */
export function calldata(parameters: calldata.Parameters): Hex {
  const { wallet, listed, unlisted = [] } = parameters
  const balanceOf = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [wallet] })
  const symbol = encodeFunctionData({ abi: erc20Abi, functionName: 'symbol' })
  const decimals = encodeFunctionData({ abi: erc20Abi, functionName: 'decimals' })
  const call = (target: Address, callData: Hex): Multicall3.Call3 => ({ target, allowFailure: true, callData })
  return Multicall3.encodeAggregate3([
    call(
      Multicall3.address,
      encodeFunctionData({ abi: Multicall3.abi, functionName: 'getEthBalance', args: [wallet] }),
    ),
    ...listed.map((token) => call(token.address, balanceOf)),
    ...unlisted.flatMap((address) => [call(address, balanceOf), call(address, symbol), call(address, decimals)]),
  ])
}

export declare namespace calldata {
  type Parameters = {
    /** The wallet read. */
    wallet: Address
    /** Tokens whose symbol and decimals are known. */
    listed: readonly TokenList.Listed[]
    /** Token addresses whose symbol and decimals are read too. @default [] */
    unlisted?: readonly Address[] | undefined
  }
}

/**
 * The balances in the return data of {@link calldata}'s call; `undefined` when the data is not its answer (another
 * shape or count) or `getEthBalance` failed, which means no Multicall3 at the address.
 */
export function decode(parameters: decode.Parameters): decode.ReturnType | undefined {
  const { data, listed, unlisted = [] } = parameters
  let results: Multicall3.Result[]
  try {
    results = Multicall3.decodeAggregate3(data)
  } catch {
    return undefined
  }
  if (results.length !== 1 + listed.length + unlisted.length * 3) return undefined
  const native = uintOf(results[0]!)
  if (native === undefined) return undefined
  return {
    native,
    listed: listed.map((token, index) => ({ ...token, raw: uintOf(results[1 + index]!) ?? null })),
    unlisted: unlisted.map((address, index): Unlisted => {
      const at = 1 + listed.length + index * 3
      const raw = uintOf(results[at]!)
      const symbol = textOf(results[at + 1]!, 'symbol')
      const places = uintOf(results[at + 2]!)
      // An ERC-20 has at most 255 decimals (uint8); anything else is not one.
      if (raw === undefined || symbol === undefined || places === undefined || places > 255n)
        return { ok: false, address }
      return { ok: true, address, symbol, decimals: Number(places), raw }
    }),
  }
}

export declare namespace decode {
  type Parameters = {
    /** Return data of the `eth_call`. */
    data: Hex
    /** The listed tokens, as given to {@link calldata}. */
    listed: readonly TokenList.Listed[]
    /** The unlisted addresses, as given to {@link calldata}. @default [] */
    unlisted?: readonly Address[] | undefined
  }
  type ReturnType = {
    /** Native balance, in wei. */
    native: bigint
    /** Each listed token, in its order. */
    listed: Listed[]
    /** Each unlisted address, in its order. */
    unlisted: Unlisted[]
  }
}

/**
 * One account's balance of one token, read as advice beside an answer (the original gateway's `onChainCheck` of an
 * invoice, `balanceCheck` of an escrow): `null` when there is no reader or the chain did not answer, which leaves the
 * check out rather than failing the call, as the original does.
 */
export async function check(parameters: check.Parameters): Promise<check.ReturnType> {
  const { read, token, account } = parameters
  const [raw] = read ? await read({ token: token.address, accounts: [account] }).catch(() => []) : []
  if (raw === undefined) return null
  return { balance: Units.toDecimal(raw, token.decimals), balanceRaw: raw.toString(), token: token.symbol }
}

export declare namespace check {
  type Parameters = {
    /** Reads balances of a token on the token's chain; none: no check. */
    read: BatchChain['balances'] | undefined
    /** The token. */
    token: { symbol: string; address: Address; decimals: number }
    /** Whose balance. */
    account: Address
  }
  type ReturnType = {
    /** HUMAN decimal of the token. */
    balance: string
    /** Atomic units. */
    balanceRaw: string
    /** The token's symbol. */
    token: string
  } | null
}

/** The uint256 a successful call returned, or `undefined`. */
function uintOf(result: Multicall3.Result): bigint | undefined {
  if (!result.success || size(result.returnData) !== 32) return undefined
  return hexToBigInt(result.returnData)
}

/** The string a successful call of `functionName` returned, or `undefined`. */
function textOf(result: Multicall3.Result, functionName: 'symbol'): string | undefined {
  if (!result.success) return undefined
  try {
    return decodeFunctionResult({ abi: erc20Abi, functionName, data: result.returnData })
  } catch {
    return undefined
  }
}
