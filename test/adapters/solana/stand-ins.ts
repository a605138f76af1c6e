// Local stand-ins of the Solana vendors, in their documented shapes: Jupiter's Swap API v1 (`/quote` priced by
// constant-product pools it holds, `/swap` answering a real versioned transaction built with @solana/kit), a DAS
// JSON-RPC provider over an in-memory asset table, a Solana node (`getTokenSupply` over a mint table), and Pyth
// Hermes (`/v2/updates/price/latest`, `/v2/price_feeds`). Each checks the key it was given (the node takes none),
// answers the vendor's own error bodies, and answers the faults queued in `faults` one per request (a 429 with
// Retry-After, a 500), oldest first.
import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { formatUnits } from 'viem'
import { das } from '../../../adapters/solana/das.js'
import { hermes } from '../../../adapters/solana/hermes.js'
import { jupiter } from '../../../adapters/solana/jupiter.js'
import { solanaRpc } from '../../../adapters/solana/rpc.js'

/** A fault the next request is answered with instead of its normal answer. */
export type Fault = { status: 429; retryAfter: number } | { status: 500 }

/** A request a stand-in received. */
export type Received = {
  /** Method and path, e.g. `GET /swap/v1/quote`. */
  route: string
  /** The whole URL. */
  url: URL
  /** Request headers. */
  headers: Headers
  /** Body text ('' for none). */
  body: string
}

/** The fault's answer, in `body`'s shape. */
function faultAnswer(fault: Fault, body: unknown): Response {
  if (fault.status === 429)
    return Response.json(body, { status: 429, headers: { 'retry-after': String(fault.retryAfter) } })
  return new Response('upstream connect error', { status: 500 })
}

/** Starts a server on 127.0.0.1 that records every request and answers faults first. */
function serve(
  faults: Fault[],
  received: Received[],
  rateLimited: unknown,
  answer: (request: Received) => Response | Promise<Response>,
) {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url)
      const seen = {
        route: `${request.method} ${url.pathname}`,
        url,
        headers: request.headers,
        body: await request.text(),
      }
      received.push(seen)
      const fault = faults.shift()
      if (fault) return faultAnswer(fault, rateLimited)
      return answer(seen)
    },
  })
}

/** Wrapped SOL's mint. */
export const wsol = 'So11111111111111111111111111111111111111112'
/** USDC's mint on Solana. */
export const usdc = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
/** BONK's mint. */
export const bonk = 'DezXAZ8z7PnrnRJjz3wXBoRgixCaDzvf9Qx3ntyJ4d5X'

/** A constant-product pool the Jupiter stand-in routes through. */
type Pool = {
  /** Pool account. */
  ammKey: string
  /** Venue. */
  label: string
  /** Reserve of the mint sold. */
  reserveIn: bigint
  /** Reserve of the mint bought. */
  reserveOut: bigint
  /** Fee, in basis points of the amount sold. */
  feeBps: bigint
}

/** Jupiter's program, which the stand-in's swap instruction calls. */
const jupiterProgram = address('JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4')

/** Solana's compute budget program. */
const computeBudgetProgram = address('ComputeBudget111111111111111111111111111111')

/**
 * Jupiter's Swap API v1 under `/swap/v1`. Pools: wSOL→USDC on Whirlpool. A quote for a pair without a pool is
 * Jupiter's 400 `COULD_NOT_FIND_ANY_ROUTE`; an amount that is not an integer is its 400 `INVALID_AMOUNT`.
 */
export function jupiterStandIn(options: { key?: string } = {}) {
  const faults: Fault[] = []
  const received: Received[] = []
  const pools = new Map<string, Pool>([
    [
      `${wsol}>${usdc}`,
      {
        ammKey: 'Czfq3xZZDmsdGdUyrNLtRhGc47cXcZtLG4crryfu44zE',
        label: 'Whirlpool',
        reserveIn: 50_000n * 10n ** 9n,
        reserveOut: 7_500_000n * 10n ** 6n,
        feeBps: 4n,
      },
    ],
  ])
  const state = {
    /** Fee payer of the transactions `/swap` builds instead of `userPublicKey` (a misbehaving aggregator). */
    feePayer: undefined as string | undefined,
    /** Builds legacy transactions instead of versioned ones. */
    legacy: false,
    /** Answers this instead of a transaction. */
    swapTransaction: undefined as string | undefined,
  }
  /** Every transaction `/swap` answered, in order. */
  const transactions: string[] = []
  let height = 279_000_000

  function quote(url: URL): Response {
    const inputMint = url.searchParams.get('inputMint') ?? ''
    const outputMint = url.searchParams.get('outputMint') ?? ''
    const amountText = url.searchParams.get('amount') ?? ''
    const slippageBps = BigInt(url.searchParams.get('slippageBps') ?? '50')
    if (!/^[0-9]+$/.test(amountText))
      return Response.json({ error: 'Invalid amount', errorCode: 'INVALID_AMOUNT' }, { status: 400 })
    const pool = pools.get(`${inputMint}>${outputMint}`)
    if (!pool)
      return Response.json(
        { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' },
        { status: 400 },
      )
    const amount = BigInt(amountText)
    const feeAmount = (amount * pool.feeBps) / 10_000n
    const net = amount - feeAmount
    const outAmount = (net * pool.reserveOut) / (pool.reserveIn + net)
    const spot = (amount * pool.reserveOut) / pool.reserveIn
    const impact = spot === 0n ? 0n : ((spot - outAmount) * 10n ** 18n) / spot
    return Response.json({
      inputMint,
      inAmount: amount.toString(),
      outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: ((outAmount * (10_000n - slippageBps)) / 10_000n).toString(),
      swapMode: 'ExactIn',
      slippageBps: Number(slippageBps),
      platformFee: null,
      priceImpactPct: formatUnits(impact, 18),
      routePlan: [
        {
          swapInfo: {
            ammKey: pool.ammKey,
            label: pool.label,
            inputMint,
            outputMint,
            inAmount: amount.toString(),
            outAmount: outAmount.toString(),
            feeAmount: feeAmount.toString(),
            feeMint: inputMint,
          },
          percent: 100,
          bps: 10_000,
        },
      ],
      contextSlot: 299_283_763,
      timeTaken: 0.0121,
    })
  }

  function swap(body: string): Response {
    const request = JSON.parse(body) as { quoteResponse?: Record<string, unknown>; userPublicKey?: string }
    const quoteResponse = request.quoteResponse
    if (typeof quoteResponse?.inputMint !== 'string' || typeof quoteResponse.outputMint !== 'string')
      return Response.json({ error: 'Invalid quoteResponse', errorCode: 'INVALID_QUOTE_RESPONSE' }, { status: 400 })
    if (typeof request.userPublicKey !== 'string')
      return Response.json({ error: 'Invalid userPublicKey', errorCode: 'INVALID_USER_PUBLIC_KEY' }, { status: 400 })
    height += 1
    const transaction =
      state.swapTransaction ??
      swapTransaction({
        feePayer: address(state.feePayer ?? request.userPublicKey),
        user: address(request.userPublicKey),
        mints: [address(quoteResponse.inputMint), address(quoteResponse.outputMint)],
        lastValidBlockHeight: BigInt(height),
        legacy: state.legacy,
      })
    transactions.push(transaction)
    return Response.json({
      swapTransaction: transaction,
      lastValidBlockHeight: height,
      prioritizationFeeLamports: 5_000,
      computeUnitLimit: 180_000,
      prioritizationType: { computeBudget: { microLamports: 27_777, estimatedMicroLamports: 27_777 } },
      dynamicSlippageReport: null,
      simulationError: null,
    })
  }

  const server = serve(faults, received, { code: 429, message: 'Rate limit exceeded' }, (request) => {
    if (options.key !== undefined && request.headers.get('x-api-key') !== options.key)
      return Response.json({ code: 401, message: 'Unauthorized' }, { status: 401 })
    if (request.route === 'GET /swap/v1/quote') return quote(request.url)
    if (request.route === 'POST /swap/v1/swap') return swap(request.body)
    return new Response('Not Found', { status: 404 })
  })
  return {
    /** Base URL of the Swap API. */
    url: `http://127.0.0.1:${server.port}/swap/v1`,
    faults,
    received,
    state,
    transactions,
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/**
 * An unsigned swap transaction as Jupiter builds one: a compute budget instruction and a call of Jupiter's program
 * over the user's account and both mints, fee paid by `feePayer`; base64 of the wire format, signatures empty.
 */
export function swapTransaction(parameters: {
  feePayer: Address
  user: Address
  mints: Address[]
  lastValidBlockHeight: bigint
  legacy?: boolean
}): string {
  const message = pipe(
    // Typed as v0 either way: kit's builders take one version literal, and a legacy message is built the same way.
    createTransactionMessage({ version: (parameters.legacy ? 'legacy' : 0) as 0 }),
    (draft) => setTransactionMessageFeePayer(parameters.feePayer, draft),
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: blockhash('4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi'),
          lastValidBlockHeight: parameters.lastValidBlockHeight,
        },
        draft,
      ),
    // SetComputeUnitLimit(180_000).
    (draft) =>
      appendTransactionMessageInstruction(
        { programAddress: computeBudgetProgram, data: new Uint8Array([2, 0xe0, 0xbf, 0x02, 0x00]) },
        draft,
      ),
    (draft) =>
      appendTransactionMessageInstruction(
        {
          programAddress: jupiterProgram,
          accounts: [
            { address: parameters.user, role: AccountRole.WRITABLE_SIGNER },
            ...parameters.mints.map((mint) => ({ address: mint, role: AccountRole.READONLY })),
          ],
          data: new Uint8Array([0xe5, 0x17, 0xcb, 0x97, 0x7a, 0xe3, 0xad, 0x2a]),
        },
        draft,
      ),
  )
  return getBase64EncodedWireTransaction(compileTransaction(message))
}

/** An asset of the DAS stand-in, in the DAS asset shape (abridged to the fields a wallet view reads). */
export function dasAsset(id: string, owner: string, name: string, kind = 'V1_NFT') {
  return {
    interface: kind,
    id,
    content: {
      $schema: 'https://schema.metaplex.com/nft1.0.json',
      json_uri: `https://arweave.net/${id}`,
      files: [],
      metadata: { name, symbol: 'TEST', token_standard: 'NonFungible' },
      links: {},
    },
    authorities: [],
    compression: { compressed: false, tree: '', leaf_id: 0 },
    grouping: [],
    royalty: { royalty_model: 'creators', percent: 0.05, basis_points: 500 },
    creators: [],
    ownership: { owner, ownership_model: 'single', frozen: false, delegated: false },
    mutable: true,
    burnt: false,
  }
}

/**
 * A Digital Asset Standard JSON-RPC provider: `getAssetsByOwner` (`ownerAddress`, `page` from 1, `limit` at most
 * 1000) and `getAsset` (`id`) over `assets`; a missing asset is the reference implementation's -32000 "Asset Not
 * Found". With `key`, the `api-key` query parameter must carry it (Helius's 401 otherwise).
 */
export function dasStandIn(options: { key?: string } = {}) {
  const faults: Fault[] = []
  const received: Received[] = []
  const assets = new Map<string, ReturnType<typeof dasAsset>>()
  const lamportsOf = new Map<string, number>()
  const rpcError = (id: unknown, code: number, message: string) =>
    Response.json({ jsonrpc: '2.0', error: { code, message }, id })

  const server = serve(
    faults,
    received,
    { jsonrpc: '2.0', error: { code: -32429, message: 'rate limited' }, id: 1 },
    (request) => {
      if (options.key !== undefined && request.url.searchParams.get('api-key') !== options.key)
        return Response.json(
          { jsonrpc: '2.0', error: { code: -32401, message: 'invalid api key provided' }, id: null },
          { status: 401 },
        )
      const call = JSON.parse(request.body) as { id?: unknown; method?: string; params?: Record<string, unknown> }
      const params = call.params ?? {}
      if (call.method === 'getAsset') {
        const asset = assets.get(String(params.id))
        if (!asset) return rpcError(call.id, -32000, 'Database Error: RecordNotFound Error: Asset Not Found')
        return Response.json({ jsonrpc: '2.0', result: asset, id: call.id })
      }
      if (call.method === 'getAssetsByOwner') {
        const page = Number(params.page ?? 1)
        const limit = Number(params.limit ?? 1000)
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          return rpcError(call.id, -32602, 'Invalid params: limit must be between 1 and 1000')
        const display = (params.displayOptions ?? {}) as { showFungible?: boolean; showNativeBalance?: boolean }
        // Helius lists fungible tokens only when asked to, and the owner's SOL only when asked to.
        const owned = [...assets.values()].filter(
          (asset) =>
            asset.ownership.owner === params.ownerAddress &&
            (display.showFungible === true || !asset.interface.startsWith('Fungible')),
        )
        const items = owned.slice((page - 1) * limit, page * limit)
        const lamports = lamportsOf.get(String(params.ownerAddress)) ?? 0
        const nativeBalance = display.showNativeBalance === true ? { nativeBalance: { lamports } } : {}
        return Response.json({
          jsonrpc: '2.0',
          result: { total: items.length, limit, page, items, ...nativeBalance },
          id: call.id,
        })
      }
      return rpcError(call.id, -32601, 'Method not found')
    },
  )
  return {
    /** JSON-RPC URL. */
    url: `http://127.0.0.1:${server.port}/`,
    assets,
    /** SOL of each owner, in lamports (0 when absent). */
    lamportsOf,
    faults,
    received,
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/** Pyth's SOL/USD feed id. */
export const solUsd = '0xef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d'
/** Pyth's BTC/USD feed id. */
export const btcUsd = '0xe62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43'

/** A price of the Hermes stand-in, in Hermes' fixed point. */
type Quoted = {
  /** Symbol in the feed list. */
  symbol: string
  /** Price as Hermes writes it (a decimal integer string). */
  price: string
  /** Confidence, likewise. */
  conf: string
  /** Exponent. */
  expo: number
  /** Publish time, seconds since the epoch. */
  publishTime: number
  /** Moving-average price, likewise; the price when absent. */
  emaPrice?: string
}

/**
 * Pyth Hermes: `GET /v2/updates/price/latest?ids[]=...&parsed=true` (ids with or without `0x`; an unknown one is a
 * 404 text body, or left out with `ignore_invalid_price_ids=true`) and `GET /v2/price_feeds`. With `key`, the price
 * route needs `Authorization: Bearer <key>` (401 `unauthorized` otherwise); the feed list does not.
 */
export function hermesStandIn(options: { key?: string } = {}) {
  const faults: Fault[] = []
  const received: Received[] = []
  const feeds = new Map<string, Quoted>([
    [
      solUsd.slice(2),
      { symbol: 'Crypto.SOL/USD', price: '14836012300', conf: '7012345', expo: -8, publishTime: 1_763_900_000 },
    ],
    [
      btcUsd.slice(2),
      {
        symbol: 'Crypto.BTC/USD',
        price: '9876543210987',
        conf: '3210000000',
        expo: -8,
        publishTime: 1_763_899_990,
        emaPrice: '9870000000000',
      },
    ],
  ])
  const state = { feedListFails: false }

  const server = serve(faults, received, { message: 'Too Many Requests' }, (request) => {
    if (request.route === 'GET /v2/price_feeds') {
      if (state.feedListFails) return new Response('internal error', { status: 500 })
      return Response.json(
        [...feeds].map(([id, feed]) => ({
          id,
          attributes: { asset_type: 'Crypto', base: feed.symbol.split(/[./]/)[1], symbol: feed.symbol },
        })),
      )
    }
    if (request.route === 'GET /v2/updates/price/latest') {
      if (options.key !== undefined && request.headers.get('authorization') !== `Bearer ${options.key}`)
        return new Response('unauthorized', { status: 401 })
      const ids = request.url.searchParams.getAll('ids[]').map((id) => id.replace(/^0x/, '').toLowerCase())
      const unknown = ids.filter((id) => !feeds.has(id))
      if (unknown.length > 0 && request.url.searchParams.get('ignore_invalid_price_ids') !== 'true')
        return new Response(`Price ids not found: ${unknown.map((id) => `0x${id}`).join(', ')}`, { status: 404 })
      const known = ids.filter((id) => feeds.has(id))
      const parsed = known.map((id) => {
        const feed = feeds.get(id)!
        const price = { price: feed.price, conf: feed.conf, expo: feed.expo, publish_time: feed.publishTime }
        return {
          id,
          price,
          ema_price: { ...price, price: feed.emaPrice ?? feed.price },
          metadata: {
            slot: 224_000_000,
            proof_available_time: feed.publishTime + 1,
            prev_publish_time: feed.publishTime - 1,
          },
        }
      })
      return Response.json({ binary: { encoding: 'hex', data: known.map(() => '504e4155') }, parsed })
    }
    return new Response('Not Found', { status: 404 })
  })
  return {
    /** Base URL. */
    url: `http://127.0.0.1:${server.port}`,
    feeds,
    faults,
    received,
    state,
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/** A token mint of the Solana node stand-in. */
type Mint = {
  /** Digits after the decimal point. */
  decimals: number
  /** Total supply, in base units. */
  supply: bigint
}

/**
 * A Solana JSON-RPC node answering `getTokenSupply` (`params: [mint]`) over `mints`: wSOL with 9 decimals and USDC
 * with 6. An account that is not a mint it knows is the node's -32602 "Invalid param: not a Token mint"; any other
 * method is -32601. `state.decimals` answers a mint's decimals as given (a misbehaving node).
 */
export function solanaRpcStandIn() {
  const faults: Fault[] = []
  const received: Received[] = []
  const mints = new Map<string, Mint>([
    [wsol, { decimals: 9, supply: 0n }],
    [usdc, { decimals: 6, supply: 8_719_003_217_123_456n }],
  ])
  const state = { decimals: undefined as unknown }
  const rpcError = (id: unknown, code: number, message: string) =>
    Response.json({ jsonrpc: '2.0', error: { code, message }, id })

  const server = serve(
    faults,
    received,
    { jsonrpc: '2.0', error: { code: 429, message: 'Too many requests for a specific RPC call' }, id: 1 },
    (request) => {
      const call = JSON.parse(request.body) as { id?: unknown; method?: string; params?: unknown[] }
      if (call.method !== 'getTokenSupply') return rpcError(call.id, -32601, 'Method not found')
      const mint = mints.get(String(call.params?.[0]))
      if (!mint) return rpcError(call.id, -32602, 'Invalid param: not a Token mint')
      const ui = formatUnits(mint.supply, mint.decimals)
      return Response.json({
        jsonrpc: '2.0',
        result: {
          context: { apiVersion: '2.2.14', slot: 381_245_117 },
          value: {
            amount: mint.supply.toString(),
            decimals: state.decimals ?? mint.decimals,
            uiAmount: Number(ui),
            uiAmountString: ui,
          },
        },
        id: call.id,
      })
    },
  )
  return {
    /** JSON-RPC URL. */
    url: `http://127.0.0.1:${server.port}/`,
    mints,
    faults,
    received,
    state,
    /** Stops the server. */
    stop: () => server.stop(true),
  }
}

/**
 * The four Solana vendors' stand-ins with the keys they expect and one NFT of `owner` indexed, and the gateway's ports
 * on them (retries off; the mints read from `rpcUrl`, the RPC stand-in by default). `stop` stops all four.
 */
export function solanaStandIns() {
  const keys = { jupiter: 'jup-key-0123456789', helius: 'helius-key-0123456789', pyth: 'pyth-key-0123456789' }
  const jupiterServer = jupiterStandIn({ key: keys.jupiter })
  const dasServer = dasStandIn({ key: keys.helius })
  const hermesServer = hermesStandIn({ key: keys.pyth })
  const rpcServer = solanaRpcStandIn()
  const owner = '86xCnPeV69n6t3DnyGvkKobf9FdN2H9oiVDdaMpo2MMY'
  const nft = dasAsset('F9Lw3ki3hJ7PF9HQXsBzoY8GyE6sPoEZZdXJBsTTD2rk', owner, 'Mad Lad #8420')
  dasServer.assets.set(nft.id, nft)
  return {
    keys,
    jupiterServer,
    dasServer,
    hermesServer,
    rpcServer,
    owner,
    nft,
    ports: (rpcUrl = rpcServer.url) => ({
      solanaSwap: jupiter({ url: jupiterServer.url, key: keys.jupiter, retries: 0 }),
      solanaMints: solanaRpc({ url: rpcUrl, retries: 0 }),
      solanaAssets: das({ url: dasServer.url, key: keys.helius, retries: 0 }),
      solanaPrices: hermes({ url: hermesServer.url, key: keys.pyth, retries: 0 }),
    }),
    stop() {
      for (const server of [jupiterServer, dasServer, hermesServer, rpcServer]) server.stop()
    },
  }
}
