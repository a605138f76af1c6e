import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  formatEther,
  formatUnits,
  getAddress,
  type Hex,
  isHex,
  parseAbi,
  size,
  slice,
  zeroAddress,
} from 'viem'
import * as Balances from '../../core/Balances.js'
import { RpcCallFailedError } from '../../core/Errors.js'
import type * as History from '../../core/History.js'
import * as Multicall3 from '../../core/Multicall3.js'
import * as Rpc from '../../core/Rpc.js'
import * as TokenList from '../../core/TokenList.js'
import * as TxDecode from '../../core/TxDecode.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { defaultLimit, type HistoryQuery, maxLimit, type WalletQuery } from './schema.js'

/** What the analytics module needs from outside. */
export type Deps = {
  /** The settlement chain's history. */
  history: History.History
  /** The settlement chain, read over JSON-RPC (code, nonce, calls). */
  endpoint: Rpc.Endpoint
  /** Current time, epoch ms (wallet age and whether it is active). */
  now: () => number
}

/** Counterparties listed by the wallet classification. */
export const topCounterparties = 5

/** An amount in atomic units and in whole units, both decimal strings; `formatted` is `null` when decimals are unknown. */
export type Amount = Units.Amount<string | null>

/** A transaction as `txhistory` shows it. */
export type Shown = {
  /** Transaction hash. */
  hash: Hex
  /** Block number, decimal. */
  block: string
  /** Block time, ISO 8601 UTC. */
  time: string
  /** Sender. */
  from: Address
  /** Recipient; `null` for a contract creation. */
  to: Address | null
  /** Contract created, if any. */
  created: Address | null
  /** Ether sent: wei and ETH. */
  value: Amount
  /** Whether it succeeded. */
  status: 'success' | 'reverted'
  /** The call's selector, and its name when the selector is one the decoder knows; `null` for a plain transfer. */
  method: { selector: Hex; name: string | null } | null
  /** Fee paid: wei and ETH. */
  fee: Amount
  /** ERC-20 transfers of the address in it. */
  transfers: {
    /** Token contract. */
    token: Address
    /** Symbol, when known. */
    symbol: string | null
    /** Decimals, when known. */
    decimals: number | null
    /** Sender. */
    from: Address
    /** Recipient. */
    to: Address
    /** Amount moved. */
    amount: Amount
  }[]
}

/** The newest transactions of `query.address` on the settlement chain, newest first. */
export async function txhistory(deps: Deps, query: HistoryQuery) {
  const address = getAddress(query.address)
  const limit = query.limit === undefined ? defaultLimit : Number(query.limit)
  const page = Upstream.toValue(await deps.history.transactions(address, limit))
  return {
    address,
    chain: chainOf(deps),
    source: deps.history.source,
    transactions: page.transactions.map(show),
    count: page.transactions.length,
    complete: page.complete,
    indexedTo: page.head === null ? null : page.head.toString(),
  }
}

/** One fact a label rests on: what was read, its value, and where it was read. */
export type Fact = {
  /** What the fact is about, e.g. `code`. */
  fact: string
  /** Its value, as read. */
  value: string | number | boolean | null
  /** Where it was read, e.g. `chain: eth_getCode`. */
  source: string
}

/** The classification of a wallet from facts only: what was read says what it is; what was not read stays `null`. */
export async function wallet(deps: Deps, query: WalletQuery) {
  const address = getAddress(query.address)
  const source = deps.history.source
  const facts: Fact[] = []
  const listed = TokenList.of('base', deps.endpoint.chainId)
  const [code, nonce, entryPoint, page, known, held, head] = await Promise.all([
    Rpc.result(deps.endpoint, 'eth_getCode', [address, 'latest']),
    Rpc.result(deps.endpoint, 'eth_getTransactionCount', [address, 'latest']),
    call(deps, address),
    deps.history.transactions(address, maxLimit),
    deps.history.account(address),
    Rpc.result(deps.endpoint, 'eth_call', [
      { to: Multicall3.address, data: Balances.calldata({ wallet: address, listed }) },
      'latest',
    ]),
    Rpc.result(deps.endpoint, 'eth_blockNumber', []),
  ])
  const history = Upstream.toValue(page)
  const { account } = Upstream.toValue(known)
  if (!isHex(code)) throw new RpcCallFailedError(`eth_getCode answered ${String(code)} on ${deps.endpoint.name}.`)
  if (!isHex(nonce)) throw new RpcCallFailedError(`eth_getTransactionCount answered ${String(nonce)}.`)
  if (!isHex(head)) throw new RpcCallFailedError(`eth_blockNumber answered ${String(head)}.`)
  const balances = isHex(held) ? Balances.decode({ data: held, listed }) : undefined
  if (!balances) throw new RpcCallFailedError(`${deps.endpoint.name} did not answer the Multicall3 balance read.`)

  // Kind: the code at the address, as the chain holds it now.
  const delegate = delegateOf(code)
  const type = size(code) === 0 ? 'eoa' : delegate ? 'eip7702-delegated' : 'contract'
  facts.push({ fact: 'code size in bytes', value: size(code), source: 'chain: eth_getCode' })
  if (delegate)
    facts.push({ fact: 'EIP-7702 delegation designator (0xef0100) to', value: delegate, source: 'chain: eth_getCode' })
  if (account.isContract !== null) facts.push({ fact: 'is contract', value: account.isContract, source })
  if (account.proxyType !== null) facts.push({ fact: 'proxy type', value: account.proxyType, source })
  for (const implementation of account.implementations)
    facts.push({ fact: 'implementation', value: implementation, source })

  // Smart account: the ERC-4337 test, a contract (or delegated account) whose entryPoint() answers an address.
  const smartAccount = type === 'eoa' ? false : entryPoint.known ? entryPoint.address !== undefined : null
  facts.push({
    fact: 'ERC-4337 entryPoint()',
    value: entryPoint.known ? (entryPoint.address ?? 'no address answered') : null,
    source: 'chain: eth_call',
  })

  // Age and activity: the history read, oldest and newest.
  const transactions = history.transactions
  const newest = transactions[0]
  const oldest = history.complete ? transactions.at(-1) : undefined
  const nonceValue = Number(BigInt(nonce))
  facts.push({ fact: 'nonce', value: nonceValue, source: 'chain: eth_getTransactionCount' })
  facts.push({ fact: 'transactions read', value: transactions.length, source })
  facts.push({ fact: 'history read in full', value: history.complete, source })
  if (account.transactionCount !== null)
    facts.push({ fact: 'transactions counted', value: account.transactionCount, source })
  if (account.transferCount !== null)
    facts.push({ fact: 'token transfers counted', value: account.transferCount, source })
  if (account.creationTransaction)
    facts.push({ fact: 'creation transaction', value: account.creationTransaction, source })
  if (account.creator) facts.push({ fact: 'creator', value: account.creator, source })
  if (oldest) facts.push({ fact: 'first transaction', value: oldest.hash, source })
  if (newest) facts.push({ fact: 'newest transaction', value: newest.hash, source })

  const transfers = transactions.flatMap((transaction) => transaction.transfers)
  const original = originalOf({ balances, txCount: nonceValue, oldest, newest, nowMs: deps.now() })
  return {
    address,
    chain: chainOf(deps),
    chainId: deps.endpoint.chainId,
    currentBlock: Number(BigInt(head)),
    source,
    balances: original.balances,
    classification: {
      ...original.classification,
      type,
      delegate: delegate ?? null,
      smartAccount,
      proxy: account.proxyType === null ? null : { type: account.proxyType, implementations: account.implementations },
    },
    age: {
      firstSeen: oldest ? pointOf(oldest) : null,
      createdBy: account.creationTransaction
        ? { creator: account.creator, transaction: account.creationTransaction }
        : null,
    },
    activity: {
      ...original.activity,
      nonce: nonceValue,
      transactionsRead: transactions.length,
      transactionsCounted: account.transactionCount,
      transfersRead: transfers.length,
      transfersCounted: account.transferCount,
      lastActive: newest ? pointOf(newest) : null,
      historyComplete: history.complete,
      indexedTo: history.head === null ? null : history.head.toString(),
    },
    counterparties: counterpartiesOf(address, transactions),
    tokens: tokenMixOf(address, transfers),
    facts,
  }
}

/** The USD stablecoins whose whole-token balances `stablecoinsUSD` adds at face value. */
export const usdStablecoins = ['USDC', 'USDT', 'DAI'] as const

/** Days without a transaction after which a wallet is no longer active, as the original gateway counts them. */
export const activeDays = 30

const dayMs = 86_400_000

/**
 * The original gateway's wallet profile from what was read: `balances` (ETH and each listed token, whole and raw),
 * `classification` by transaction count and holdings, and `activity` from the oldest and newest transactions read
 * (`firstTransaction` only when the history was read in full).
 */
export function originalOf(parameters: originalOf.Parameters) {
  const { balances, txCount, oldest, newest, nowMs } = parameters
  const tokens = balances.listed.flatMap((token) =>
    token.raw === null
      ? []
      : [
          {
            symbol: token.symbol,
            address: token.address,
            balance: formatUnits(token.raw, token.decimals),
            balanceRaw: token.raw.toString(),
            hasBalance: token.raw > 0n,
          },
        ],
  )
  // Face value, exact: each stablecoin scaled to 18 decimals, summed, then shown to the cent (rounded down).
  const stableWei = balances.listed
    .filter((token) => (usdStablecoins as readonly string[]).includes(token.symbol) && token.raw !== null)
    .reduce((sum, token) => sum + token.raw! * 10n ** BigInt(18 - token.decimals), 0n)
  const cents = stableWei / 10n ** 16n
  const stablecoinsUSD = `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`
  const tokenCount = tokens.filter((token) => token.hasBalance).length
  const walletType =
    txCount === 0 ? 'virgin' : txCount < 5 ? 'new' : txCount < 50 ? 'casual' : txCount < 500 ? 'active' : 'power-user'
  const profile =
    stableWei > 10_000n * 10n ** 18n
      ? 'treasury'
      : stableWei > 1_000n * 10n ** 18n
        ? 'stablecoin-holder'
        : balances.native > 10n * 10n ** 18n
          ? 'eth-whale'
          : tokenCount > 5
            ? 'diversified'
            : 'general'
  const pointOfOriginal = (transaction: History.Transaction) => ({
    hash: transaction.hash,
    timestamp: new Date(transaction.timestamp * 1000).toISOString(),
    block: Number(transaction.blockNumber),
  })
  const firstMs = oldest ? oldest.timestamp * 1000 : undefined
  const lastMs = newest ? newest.timestamp * 1000 : undefined
  const ageDays = firstMs === undefined ? undefined : Math.floor((nowMs - firstMs) / dayMs)
  return {
    balances: {
      eth: { balance: formatEther(balances.native), balanceRaw: balances.native.toString() },
      tokens,
      stablecoinsUSD,
    },
    classification: { walletType, profile, txCount, tokenCount },
    activity: {
      firstTransaction: oldest ? pointOfOriginal(oldest) : null,
      lastTransaction: newest ? pointOfOriginal(newest) : null,
      walletAge:
        ageDays === undefined
          ? null
          : { days: ageDays, months: Math.floor(ageDays / 30), firstSeen: new Date(firstMs!).toISOString() },
      isActive: lastMs === undefined ? false : nowMs - lastMs < activeDays * dayMs,
      activeDays: firstMs === undefined || lastMs === undefined ? null : Math.floor((lastMs - firstMs) / dayMs),
    },
  }
}

export declare namespace originalOf {
  type Parameters = {
    /** The balances read. */
    balances: Balances.decode.ReturnType
    /** Transactions sent (the nonce). */
    txCount: number
    /** The oldest transaction, when the history was read in full. */
    oldest: History.Transaction | undefined
    /** The newest transaction read. */
    newest: History.Transaction | undefined
    /** Current time, epoch ms. */
    nowMs: number
  }
}

/** The address a delegation designator (`0xef0100` and 20 bytes, EIP-7702) points to, if `code` is one. */
export function delegateOf(code: Hex): Address | undefined {
  if (size(code) !== 23 || !code.toLowerCase().startsWith('0xef0100')) return undefined
  return getAddress(slice(code, 3))
}

const accountAbi = parseAbi(['function entryPoint() view returns (address)'])

/** `entryPoint()` called on the address: the address it answers, nothing (it answered no address), or unknown. */
async function call(
  deps: Deps,
  address: Address,
): Promise<{ known: true; address: Address | undefined } | { known: false }> {
  const answer = await deps.endpoint.request('eth_call', [
    { to: address, data: encodeFunctionData({ abi: accountAbi, functionName: 'entryPoint' }) },
    'latest',
  ])
  if (Upstream.isFailure(answer)) return { known: false }
  // A revert is an answer: the address has no such function.
  if (!answer.ok || !isHex(answer.result) || size(answer.result) !== 32) return { known: true, address: undefined }
  try {
    const entryPoint = decodeFunctionResult({ abi: accountAbi, functionName: 'entryPoint', data: answer.result })
    return { known: true, address: entryPoint === zeroAddress ? undefined : getAddress(entryPoint) }
  } catch {
    return { known: true, address: undefined }
  }
}

/** Block, time and hash of a transaction. */
function pointOf(transaction: History.Transaction) {
  return {
    block: transaction.blockNumber.toString(),
    time: new Date(transaction.timestamp * 1000).toISOString(),
    hash: transaction.hash,
  }
}

/**
 * The parties `address` dealt with most in `transactions` (the other side of the call, of each token transfer), by
 * the number of transactions shared with each.
 */
function counterpartiesOf(address: Address, transactions: readonly History.Transaction[]) {
  const counts = new Map<Address, number>()
  for (const transaction of transactions) {
    const parties = new Set([
      transaction.from === address ? (transaction.to ?? transaction.created) : transaction.from,
      ...transaction.transfers.map((transfer) => (transfer.from === address ? transfer.to : transfer.from)),
    ])
    for (const party of parties) if (party && party !== address) counts.set(party, (counts.get(party) ?? 0) + 1)
  }
  return [...counts]
    .sort(([leftParty, left], [rightParty, right]) => right - left || leftParty.localeCompare(rightParty))
    .slice(0, topCounterparties)
    .map(([party, count]) => ({ address: party, transactions: count }))
}

/** Every token `address` moved in `transfers`: in and out, counts and amounts. */
function tokenMixOf(address: Address, transfers: readonly History.TokenTransfer[]) {
  const mix = new Map<
    Address,
    { symbol: string | null; decimals: number | null; in: bigint; out: bigint; transfers: number }
  >()
  for (const transfer of transfers) {
    const entry = mix.get(transfer.token) ?? {
      symbol: transfer.symbol,
      decimals: transfer.decimals,
      in: 0n,
      out: 0n,
      transfers: 0,
    }
    if (transfer.to === address) entry.in += transfer.amount
    if (transfer.from === address) entry.out += transfer.amount
    entry.transfers++
    mix.set(transfer.token, entry)
  }
  return [...mix].map(([token, entry]) => ({
    token,
    symbol: entry.symbol,
    decimals: entry.decimals,
    transfers: entry.transfers,
    received: Units.toAmount(entry.in, entry.decimals),
    sent: Units.toAmount(entry.out, entry.decimals),
  }))
}

function show(transaction: History.Transaction): Shown {
  const call = TxDecode.decodeCall(transaction.input)
  return {
    hash: transaction.hash,
    block: transaction.blockNumber.toString(),
    time: new Date(transaction.timestamp * 1000).toISOString(),
    from: transaction.from,
    to: transaction.to,
    created: transaction.created,
    value: { raw: transaction.value.toString(), formatted: formatEther(transaction.value) },
    status: transaction.status,
    method: call ? { selector: call.selector, name: 'function' in call ? call.function : null } : null,
    fee: { raw: transaction.fee.toString(), formatted: formatEther(transaction.fee) },
    transfers: transaction.transfers.map((transfer) => ({
      token: transfer.token,
      symbol: transfer.symbol,
      decimals: transfer.decimals,
      from: transfer.from,
      to: transfer.to,
      amount: Units.toAmount(transfer.amount, transfer.decimals),
    })),
  }
}

/** The settlement chain as a CAIP-2 network id. */
function chainOf(deps: Deps): string {
  return `eip155:${deps.endpoint.chainId}`
}
