import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  formatGwei,
  formatUnits,
  getAddress,
  type Hex,
  hexToBigInt,
  isAddress,
  isHex,
  numberToHex,
  parseAbi,
  parseGwei,
  serializeTransaction,
  size,
} from 'viem'
import * as Balances from '../../core/Balances.js'
import * as Batch from '../../core/Batch.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Cache from '../../core/Cache.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Gas from '../../core/Gas.js'
import * as Multicall3 from '../../core/Multicall3.js'
import type { Oracle } from '../../core/Oracle.js'
import type * as Rpc from '../../core/Rpc.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'
import * as Upstream from '../../core/Upstream.js'
import { type BalancesQuery, balanceChains, isChainList, type NonceQuery } from './schema.js'

/** Blocks of fee history the gas levels are drawn from. */
export const historyBlocks = 20

/** Reward percentiles of the three gas levels. */
export const percentiles = { slow: 10, standard: 50, fast: 90 } as const

/** How long a gas answer is served again, in ms. */
export const gasTtlMs = 15_000

/** One chain the module reads: its registry entry and a JSON-RPC client to its node. */
export type Chain = EvmChain.Node

/** What the chain-data module needs from outside. */
export type Deps = {
  /** Every chain of the registry, in its order. */
  chains: readonly Chain[]
  /** Current time, epoch ms. */
  now: () => number
  /** Gas answers of the last {@link gasTtlMs}. */
  cache: Cache.Cache<GasSnapshot>
  /** The gas reading under way, which concurrent calls share. */
  inFlight: { gas?: Promise<GasSnapshot> | undefined }
  /** USD prices (the ETH / USD feed) that price `/api/v1/oracle/gas`'s estimates; without it they have no USD cost. */
  oracle?: Oracle | undefined
  /** The batch-payment contract on `base` (the settlement chain), which `/api/v1/tokens` names; none when not deployed. */
  batchContract?: Address | undefined
}

/**
 * The module's dependencies: `base` reads the settlement chain (unless `urls.base` points it elsewhere), `ethereum`
 * the gateway's Ethereum node, every other chain its URL from `urls` through `connect`.
 */
export function from(parameters: from.Parameters): Deps {
  const { oracle, batchContract, now = Date.now, ...reached } = parameters
  const chains = EvmChain.nodes(reached)
  return {
    chains,
    now,
    cache: Cache.create({ ttlMs: gasTtlMs, maxEntries: 1, now }),
    inFlight: {},
    oracle,
    batchContract,
  }
}

export declare namespace from {
  type Parameters = EvmChain.nodes.Parameters & {
    /** USD prices, for the USD cost of `/api/v1/oracle/gas`'s estimates. */
    oracle?: Oracle | undefined
    /** The batch-payment contract on `base`. @default none */
    batchContract?: Address | undefined
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** An amount of wei, as a decimal string and in gwei. */
export type Amount = {
  /** Wei, decimal. */
  wei: string
  /** Gwei, decimal. */
  gwei: string
}

/** A fee level of an EIP-1559 transaction. */
export type Level = {
  /** Tip to the block producer per gas. */
  maxPriorityFeePerGas: Amount
  /** Ceiling per gas: twice the next base fee plus the tip, so it survives a few full blocks. */
  maxFeePerGas: Amount
}

/** What an OP-stack chain charges for publishing a typical transfer's data on L1, or why it is not known. */
export type L1DataFee =
  | (Amount & {
      available: true
      /** The transaction priced. */
      transaction: string
    })
  | {
      available: false
      /** Why the chain's GasPriceOracle could not price it. */
      reason: string
    }

/** Who a per-chain entry is about. */
type Named = {
  /** Name callers use. */
  chain: string
  /** The chain's own name. */
  name: string
  chainId: number
}

/** The gas of one chain, or why it could not be read. */
export type GasEntry =
  | (Named & {
      available: true
      /** Newest block of the history, decimal. */
      block: string
      /** Base fee of the next block. */
      baseFeePerGas: Amount
      /** What a transaction at the standard tip pays per gas: the next base fee plus that tip, in wei (the original gateway's name). */
      gasPriceWei: string
      /** The same in gwei, a JSON number (the original gateway's name and type). */
      gasPriceGwei: number
      slow: Level
      standard: Level
      fast: Level
      /** On OP-stack chains only: the L1 data fee of a typical transfer, on top of the L2 gas. */
      l1DataFee?: L1DataFee
    })
  | (Named & {
      available: false
      /** Why it could not be read. */
      reason: string
    })

/** A gas reading of every chain and when it was taken. */
export type GasSnapshot = { gas: Record<string, GasEntry>; takenAt: number }

/** Gas of every chain, from the last {@link gasTtlMs} when there is a reading that recent. */
export async function gas(deps: Deps) {
  const cached = deps.cache.get('gas')
  const snapshot = cached ?? (await shared(deps))
  return {
    gas: snapshot.gas,
    blocks: historyBlocks,
    percentiles,
    updatedAt: new Date(snapshot.takenAt).toISOString(),
    cached: cached !== undefined,
    age: Math.max(0, Math.floor((deps.now() - snapshot.takenAt) / 1000)),
  }
}

/** The JSON of each reading's gas levels, written once: a cached reading answers many calls a second. */
const serializedLevels = new WeakMap<GasSnapshot['gas'], string>()

/**
 * {@link gas} as the JSON response it is served as, byte for byte the same, with the chains' levels (most of it)
 * serialized once per reading rather than once per call.
 */
export async function gasResponse(deps: Deps): Promise<Response> {
  const { gas: levels, ...rest } = await gas(deps)
  let json = serializedLevels.get(levels)
  if (json === undefined) {
    json = JSON.stringify(levels)
    serializedLevels.set(levels, json)
  }
  return new Response(`{"gas":${json},${JSON.stringify(rest).slice(1)}`, {
    headers: { 'content-type': 'application/json;charset=utf-8' },
  })
}

/** The reading under way, or a new one; concurrent callers share it. */
function shared(deps: Deps): Promise<GasSnapshot> {
  if (!deps.inFlight.gas)
    deps.inFlight.gas = readGas(deps).finally(() => {
      deps.inFlight.gas = undefined
    })
  return deps.inFlight.gas
}

/** Reads every chain's fee history at once; a chain that does not answer is reported, never fatal unless all fail. */
async function readGas(deps: Deps): Promise<GasSnapshot> {
  const entries = await Promise.all(deps.chains.map((chain) => gasOf(chain)))
  if (entries.every((entry) => !entry.available))
    throw new UpstreamUnavailableError(
      `No chain answered eth_feeHistory: ${entries.map((entry) => `${entry.chain}: ${(entry as { reason: string }).reason}`).join('; ')}`,
    )
  const snapshot = { gas: Object.fromEntries(entries.map((entry) => [entry.chain, entry])), takenAt: deps.now() }
  deps.cache.set('gas', snapshot)
  return snapshot
}

/** The gas levels of one chain from its last {@link historyBlocks} blocks. */
async function gasOf(chain: Chain): Promise<GasEntry> {
  const named = namedOf(chain)
  const levels = Object.values(percentiles)
  const [answer, l1DataFee] = await Promise.all([
    read(chain, 'eth_feeHistory', [numberToHex(historyBlocks), 'latest', levels]),
    chain.entry.gasPriceOracle ? l1DataFeeOf(chain, chain.entry.gasPriceOracle) : undefined,
  ])
  if (!answer.ok) return { ...named, available: false, reason: answer.reason }
  const { oldestBlock, baseFeePerGas, reward } = fieldsOf(answer.result)
  if (!isHex(oldestBlock) || !isHexList(baseFeePerGas) || baseFeePerGas.length === 0)
    return { ...named, available: false, reason: `${chain.entry.name} answered eth_feeHistory in an unknown shape.` }
  const rewards = Array.isArray(reward) ? reward.filter(isHexList).filter((row) => row.length === levels.length) : []
  const nextBase = hexToBigInt(baseFeePerGas.at(-1)!)
  const levelOf = (index: number): { tip: bigint; level: Level } => {
    const tips = rewards.map((row) => hexToBigInt(row[index]!))
    const tip = tips.length === 0 ? 0n : tips.reduce((sum, value) => sum + value, 0n) / BigInt(tips.length)
    return { tip, level: { maxPriorityFeePerGas: amountOf(tip), maxFeePerGas: amountOf(2n * nextBase + tip) } }
  }
  const standard = levelOf(1)
  // baseFeePerGas holds one entry per block of the history plus the next block's.
  const newest = hexToBigInt(oldestBlock) + BigInt(baseFeePerGas.length - 2)
  return {
    ...named,
    available: true,
    block: (newest < 0n ? 0n : newest).toString(),
    baseFeePerGas: amountOf(nextBase),
    gasPriceWei: (nextBase + standard.tip).toString(),
    gasPriceGwei: Number(formatGwei(nextBase + standard.tip)),
    slow: levelOf(0).level,
    standard: standard.level,
    fast: levelOf(2).level,
    ...(l1DataFee ? { l1DataFee } : {}),
  }
}

/**
 * Gas of the operations `/api/v1/oracle/gas` prices, in gas. `ethTransfer` is the intrinsic gas of a transaction
 * (Yellow Paper G_transaction, {@link Gas.schedule}); the batches come from the batch contract's gas model
 * ({@link Gas.estimate}, every recipient cold, USDC); `erc20Transfer`, `erc20Approve` and `uniswapSwap` are the
 * original gateway's published figures (its oracle.ts), typical of a USDC transfer, an approval and a one-pool
 * Uniswap v3 swap on Base.
 */
export const operations = {
  ethTransfer: { gasUnits: Gas.schedule.intrinsic },
  erc20Transfer: { gasUnits: 65_000n },
  erc20Approve: { gasUnits: 46_000n },
  uniswapSwap: { gasUnits: 185_000n },
  spraayBatch5: {
    gasUnits: Gas.estimate({ recipientCount: 5, isETH: false }).gas,
    note: 'Batch payment to 5 recipients',
  },
  spraayBatch50: {
    gasUnits: Gas.estimate({ recipientCount: 50, isETH: false }).gas,
    note: 'Batch payment to 50 recipients',
  },
} as const satisfies Record<string, { gasUnits: bigint; note?: string }>

/** Decimals of the USD costs `/api/v1/oracle/gas` answers. */
const usdDecimals = 6

/**
 * `/api/v1/oracle/gas`: the original gateway's answer for Base (`gas` with `gasPrice`, `maxFeePerGas`,
 * `maxPriorityFeePerGas` and `baseFee`, each in wei and gwei; `estimates` of common operations in gas units, ETH and
 * USD at that gas price; `ethPriceUSD` from the ETH / USD feed, with its source and age under `ethPrice`), and ours for
 * every chain under `chains`. Without a base reading or an ETH price the answer says why, never a made-up figure.
 */
export async function oracleGas(deps: Deps) {
  const { gas: levels, ...rest } = await gas(deps)
  const base = levels.base
  const quote = deps.oracle ? await deps.oracle.usdPrice('ETH') : undefined
  const ethPrice = quote?.ok
    ? { available: true as const, usd: quote.usd, source: quote.source, observedAt: quote.observedAt.toISOString() }
    : { available: false as const, reason: quote ? quote.message : 'no price oracle is configured on this gateway' }
  const gasPrice = base?.available ? BigInt(base.gasPriceWei) : undefined
  const estimates = Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => {
      const cost =
        gasPrice === undefined
          ? undefined
          : ethPrice.available
            ? Gas.cost({ gas: operation.gasUnits, gasPrice, usdPerEther: ethPrice.usd, usdDecimals })
            : { wei: operation.gasUnits * gasPrice, usd: undefined }
      return [
        name,
        {
          ...operation,
          gasUnits: Number(operation.gasUnits),
          costETH: cost === undefined ? null : formatUnits(cost.wei, 18),
          costUSD: cost?.usd === undefined ? null : formatUnits(cost.usd, usdDecimals),
        },
      ]
    }),
  )
  return {
    gas: base?.available
      ? {
          gasPrice: amountOf(gasPrice!),
          maxFeePerGas: base.standard.maxFeePerGas,
          maxPriorityFeePerGas: base.standard.maxPriorityFeePerGas,
          baseFee: base.baseFeePerGas,
        }
      : null,
    estimates,
    ethPriceUSD: ethPrice.available ? Number(ethPrice.usd) : null,
    ethPrice,
    block: base?.available ? { number: Number(base.block) } : null,
    chain: base?.name ?? 'Base',
    chainId: base?.chainId ?? null,
    chains: levels,
    ...rest,
  }
}

const gasPriceOracleAbi = parseAbi(['function getL1Fee(bytes data) view returns (uint256)'])

/**
 * The transaction an OP-stack `l1DataFee` prices: an EIP-1559 ERC-20 `transfer` of 100 units of a 6-decimal token
 * between two ordinary addresses, unsigned (the oracle adds the signature's bytes), with gas and fee fields at the
 * stand-in values viem's `estimateL1Fee` uses, which move the size by a byte or two at most.
 */
function typicalTransfer(chainId: number): Hex {
  return serializeTransaction({
    chainId,
    type: 'eip1559',
    nonce: 1,
    to: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    data: encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: ['0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97', 100_000_000n],
    }),
    gas: 65_000n,
    maxFeePerGas: parseGwei('5'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

/** `getL1Fee` of the chain's GasPriceOracle for {@link typicalTransfer}; a chain without one answers no fee. */
async function l1DataFeeOf(chain: Chain, oracle: Address): Promise<L1DataFee> {
  const data = encodeFunctionData({
    abi: gasPriceOracleAbi,
    functionName: 'getL1Fee',
    args: [typicalTransfer(chain.endpoint.chainId)],
  })
  const answer = await read(chain, 'eth_call', [{ to: oracle, data }, 'latest'])
  if (!answer.ok) return { available: false, reason: answer.reason }
  if (!isHex(answer.result) || size(answer.result) !== 32)
    return {
      available: false,
      reason: `No GasPriceOracle answered getL1Fee at ${oracle} on ${chain.entry.name}: not an OP-stack chain.`,
    }
  return { available: true, transaction: 'ERC-20 transfer', ...amountOf(hexToBigInt(answer.result)) }
}

/** The status of one chain: its latest block and whether it is live, or why it could not be read. */
export type StatusEntry =
  | (Named & {
      available: true
      /** Number of the latest block. */
      height: number
      /** Seconds since the latest block's timestamp. */
      latestBlockAge: number
      /** Whether the latest block is younger than `liveWithinSeconds`. */
      live: boolean
      /** Threshold of liveness, in seconds. */
      liveWithinSeconds: number
    })
  | (Named & { available: false; live: false; reason: string })

/** Block height, latest block age and liveness of every chain; a chain that does not answer is reported as such. */
export async function chainStatus(deps: Deps) {
  const entries = await Promise.all(deps.chains.map((chain) => statusOf(deps, chain)))
  return {
    chains: Object.fromEntries(entries.map((entry) => [entry.chain, entry])),
    checkedAt: new Date(deps.now()).toISOString(),
  }
}

async function statusOf(deps: Deps, chain: Chain): Promise<StatusEntry> {
  const named = namedOf(chain)
  const answer = await read(chain, 'eth_getBlockByNumber', ['latest', false])
  if (!answer.ok) return { ...named, available: false, live: false, reason: answer.reason }
  const { number, timestamp } = fieldsOf(answer.result)
  if (!isHex(number) || !isHex(timestamp))
    return {
      ...named,
      available: false,
      live: false,
      reason: `${chain.entry.name} answered eth_getBlockByNumber in an unknown shape.`,
    }
  const age = Math.max(0, Math.floor(deps.now() / 1000) - Number(hexToBigInt(timestamp)))
  const { liveWithinSeconds } = chain.entry
  return {
    ...named,
    available: true,
    height: Number(hexToBigInt(number)),
    latestBlockAge: age,
    live: age <= liveWithinSeconds,
    liveWithinSeconds,
  }
}

/**
 * Transaction count of an address, latest and pending (`nonce` is the latest, as the original gateway answers), never
 * cached; the chain defaults to `base` and takes the original's spellings. Throws {@link ValidationError} naming `address`
 * or `chain` before anything is read.
 */
export async function nonce(deps: Deps, query: NonceQuery) {
  if (!isAddress(query.address, { strict: true }))
    throw new ValidationError({
      field: 'address',
      message: 'must be 0x and 40 hex digits, with a valid EIP-55 checksum when it is mixed-case',
    })
  const name = EvmChain.nameOf(query.chain ?? 'base')
  const chain = deps.chains.find((candidate) => candidate.entry.name === name)
  if (!chain)
    throw new ValidationError({
      field: 'chain',
      message: `must be one of: ${EvmChain.names.join(', ')} (or a spelling such as base-mainnet)`,
    })
  const address = getAddress(query.address)
  const [latest, pending] = await Promise.all(
    (['latest', 'pending'] as const).map(async (tag) => {
      const answer = await read(chain, 'eth_getTransactionCount', [address, tag])
      if (!answer.ok) throw new UpstreamUnavailableError(answer.reason)
      if (!isHex(answer.result))
        throw new UpstreamUnavailableError(`${chain.entry.name} answered eth_getTransactionCount in an unknown shape.`)
      return Number(hexToBigInt(answer.result))
    }),
  )
  return { ...namedOf(chain), address, nonce: latest!, latest: latest!, pending: pending! }
}

/** One call to a chain's node: its result, or why there is none (unreachable, timed out, the node's error). */
async function read(
  chain: Chain,
  method: Rpc.Method,
  params: readonly unknown[],
): Promise<{ ok: true; result: unknown } | { ok: false; reason: string }> {
  const answer = await chain.endpoint.request(method, params)
  if (Upstream.isFailure(answer)) return { ok: false, reason: `${answer.reason}: ${answer.message}` }
  if (!answer.ok) return { ok: false, reason: `${method} failed on ${chain.entry.name}: ${answer.message}` }
  return answer
}

function namedOf(chain: Chain): Named {
  return { chain: chain.entry.name, name: chain.entry.title, chainId: chain.endpoint.chainId }
}

function amountOf(wei: bigint): Amount {
  return { wei: wei.toString(), gwei: formatGwei(wei) }
}

function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function isHexList(value: unknown): value is `0x${string}`[] {
  return Array.isArray(value) && value.every((item) => isHex(item) && item !== '0x')
}

/** An amount in atomic units and in whole tokens, both decimal strings. */
export type TokenAmount = Units.Amount

/** The balance of one token, or `null` amounts with the reason when its `balanceOf` failed. */
export type TokenBalance = TokenList.Listed &
  ({ raw: string; formatted: string } | { raw: null; formatted: null; reason: string })

/** The balances of a wallet on one chain, or why the chain could not be read. */
export type BalanceEntry =
  | (Named & {
      available: true
      native: { symbol: string; decimals: number } & TokenAmount
      tokens: TokenBalance[]
    })
  | (Named & { available: false; reason: string })

/** Native currency of the balance chains. */
const native = { symbol: 'ETH', decimals: 18 } as const

/**
 * The curated tokens of every balance chain, with the chain's native currency; beside them the original gateway's
 * `contract` (the batch contract of `base`, `null` where none is deployed; also in `chains.base`), `popularTokens` of
 * `base` (ETH native, each token's address and decimals), batch fee and recipient limit, and `tokens`: every listed
 * token of `base` that swaps and prices take by symbol (the curated ones, then Uniswap's default token list).
 */
export function tokens(deps: Deps) {
  const chains = balanceChainsOf(deps, balanceChains)
  const base = chains.find((chain) => chain.entry.name === 'base')!
  return {
    description: 'Batch payments take any ERC-20 token and native ETH on base; these are the listed ones.',
    contract: deps.batchContract ?? null,
    fee: BatchPayment.feePercent(Batch.defaultFeeBps),
    feeBps: Number(Batch.defaultFeeBps),
    maxRecipients: Batch.maxRecipients,
    tokens: TokenList.known('base', base.endpoint.chainId),
    tokenList: TokenList.keptList,
    popularTokens: {
      ETH: { native: true, decimals: native.decimals },
      ...Object.fromEntries(
        TokenList.of('base', base.endpoint.chainId).map((token) => [
          token.symbol,
          { address: token.address, decimals: token.decimals },
        ]),
      ),
    },
    chains: Object.fromEntries(
      chains.map((chain) => [
        chain.entry.name,
        {
          ...namedOf(chain),
          ...(chain === base ? { contract: deps.batchContract ?? null } : {}),
          native,
          tokens: TokenList.of(chain.entry.name, chain.endpoint.chainId),
        },
      ]),
    ),
  }
}

/**
 * Native and curated-token balances of `query.address` on each chain of `query.chains`, one Multicall3 `aggregate3`
 * `eth_call` per chain. A chain that cannot be read is reported as such; when none can, it throws
 * {@link UpstreamUnavailableError} (503, nothing charged).
 */
export async function balances(deps: Deps, query: BalancesQuery) {
  const address = getAddress(query.address)
  const names = (query.chains ?? balanceChains.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (!isChainList(names.join(',')))
    throw new ValidationError({ field: 'chains', message: `must list distinct chains of: ${balanceChains.join(', ')}` })
  assertTokensOnBase(query)
  const unlisted = tokenAddressesOf(query.tokens)
  const reads = await Promise.all(
    balanceChainsOf(deps, names).map((chain) =>
      balancesOn(chain, address, chain.entry.name === 'base' ? unlisted : []),
    ),
  )
  const entries = reads.map((read) => read.entry)
  if (entries.every((entry) => !entry.available))
    throw new UpstreamUnavailableError(
      `No chain answered the balance read: ${entries.map((entry) => `${entry.chain}: ${(entry as { reason: string }).reason}`).join('; ')}`,
    )
  const base = reads.find((read) => read.entry.chain === 'base')
  const listed = base?.entry.available
    ? originalBalances(base.entry, query.tokens === undefined ? undefined : base.unlisted, query.showAll === 'true')
    : []
  return {
    address,
    network: 'base',
    chainId: base?.entry.chainId ?? null,
    balances: listed,
    tokenCount: listed.length,
    chains: Object.fromEntries(entries.map((entry) => [entry.chain, entry])),
  }
}

/** One balance as the original gateway lists it: `balance` in whole tokens, `balanceRaw` in atomic units. */
export type OriginalBalance =
  | {
      /** Token symbol. */
      symbol: string
      /** ERC-20 address, or `native` for ETH. */
      address: string
      /** Decimals of the token. */
      decimals: number
      /** Whole tokens, decimal string (e.g. "2.5" is 2.5 ETH). */
      balance: string
      /** Atomic units, integer string. */
      balanceRaw: string
    }
  | {
      /** A `tokens` address, EIP-55. */
      address: string
      /** Its balance, symbol or decimals could not be read, in the original gateway's words. */
      error: 'Failed to query token'
    }

/**
 * The original gateway's `balances` of `base`: ETH first, then each listed token read, or each of the `tokens` asked
 * for when the query names them (`unlisted`); a zero balance is left out unless `showAll` (ETH always stays).
 */
function originalBalances(
  entry: Extract<BalanceEntry, { available: true }>,
  unlisted: readonly Balances.Unlisted[] | undefined,
  showAll: boolean,
): OriginalBalance[] {
  const held = (symbol: string, address: string, decimals: number, raw: bigint): OriginalBalance => ({
    symbol,
    address,
    decimals,
    balance: formatUnits(raw, decimals),
    balanceRaw: raw.toString(),
  })
  const tokens: OriginalBalance[] =
    unlisted === undefined
      ? entry.tokens.flatMap((token) =>
          token.raw === null ? [] : [held(token.symbol, token.address, token.decimals, BigInt(token.raw))],
        )
      : unlisted.map((token) =>
          token.ok
            ? held(token.symbol, token.address, token.decimals, token.raw)
            : { address: token.address, error: 'Failed to query token' },
        )
  const all = [held(entry.native.symbol, 'native', entry.native.decimals, BigInt(entry.native.raw)), ...tokens]
  return all.filter(
    (balance, index) => showAll || index === 0 || !('balanceRaw' in balance) || balance.balanceRaw !== '0',
  )
}

/** Refuses a query with `tokens` whose `chains` leave out `base`, naming `tokens`: they are read on base. */
export function assertTokensOnBase(query: Pick<BalancesQuery, 'chains' | 'tokens'>): void {
  if (query.tokens === undefined || query.chains === undefined) return
  if (!query.chains.split(',').some((name) => name.trim() === 'base'))
    throw new ValidationError({ field: 'tokens', message: 'tokens are read on base: chains must include base' })
}

/** The distinct addresses of a `tokens` query (checked by its schema), in their order; none when absent. */
function tokenAddressesOf(tokens: string | undefined): Address[] {
  if (tokens === undefined) return []
  return [...new Set(tokens.split(',').map((token) => getAddress(token.trim())))]
}

function balanceChainsOf(deps: Deps, names: readonly string[]): Chain[] {
  return names.map((name) => deps.chains.find((chain) => chain.entry.name === name)!).filter(Boolean)
}

/**
 * One `aggregate3` call ({@link Balances.calldata}): the native balance, `balanceOf` of every listed token, and of each
 * of `unlisted` its balance, symbol and decimals.
 */
async function balancesOn(
  chain: Chain,
  address: Address,
  unlisted: readonly Address[],
): Promise<{ entry: BalanceEntry; unlisted: Balances.Unlisted[] }> {
  const named = namedOf(chain)
  const listed = TokenList.of(chain.entry.name, chain.endpoint.chainId)
  const data = Balances.calldata({ wallet: address, listed, unlisted })
  const answer = await read(chain, 'eth_call', [{ to: Multicall3.address, data }, 'latest'])
  if (!answer.ok) return { entry: { ...named, available: false, reason: answer.reason }, unlisted: [] }
  const read3 = isHex(answer.result) ? Balances.decode({ data: answer.result, listed, unlisted }) : undefined
  if (!read3) {
    const reason = `${chain.entry.name} did not answer the Multicall3 balance read (aggregate3 and getEthBalance).`
    return { entry: { ...named, available: false, reason }, unlisted: [] }
  }
  const entry: BalanceEntry = {
    ...named,
    available: true,
    native: { ...native, ...Units.toAmount(read3.native, native.decimals) },
    tokens: read3.listed.map(
      ({ raw, ...token }): TokenBalance =>
        raw === null
          ? { ...token, raw: null, formatted: null, reason: 'balanceOf failed' }
          : { ...token, ...Units.toAmount(raw, token.decimals) },
    ),
  }
  return { entry, unlisted: read3.unlisted }
}
