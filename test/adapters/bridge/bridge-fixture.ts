import { type Address, encodeFunctionData, parseAbi, zeroAddress } from 'viem'

/** A token the stand-ins know, on one chain. */
type Listed = { chainId: number; address: Address; symbol: string; decimals: number }

/**
 * The tokens the stand-ins bridge: USDC on Base, Arbitrum, Optimism and Unichain (their real addresses), and ETH on
 * Base, Arbitrum and Unichain.
 */
export const tokens: readonly Listed[] = [
  { chainId: 8453, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6 },
  { chainId: 42161, address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', symbol: 'USDC', decimals: 6 },
  { chainId: 10, address: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', symbol: 'USDC', decimals: 6 },
  { chainId: 8453, address: zeroAddress, symbol: 'ETH', decimals: 18 },
  { chainId: 42161, address: zeroAddress, symbol: 'ETH', decimals: 18 },
  { chainId: 130, address: '0x078D782b760474a361dDA0AF3839290b0EF57AD6', symbol: 'USDC', decimals: 6 },
  { chainId: 130, address: zeroAddress, symbol: 'ETH', decimals: 18 },
]

/** LI.FI's diamond, the contract its quotes call and the spender they ask to approve. */
export const lifiDiamond: Address = '0x1231DEB6f5749EF6cE6943a275A1D3E7486F4EaE'
/** Across's SpokePool periphery stand-in address the Across quotes call. */
export const acrossSpender: Address = '0x89415a82d909a7238d69094C3Dd1dCC1aCbDa85C'

/** What a stand-in does with the next calls. */
export type Mode =
  /** Quotes: `toAmount = fromAmount - fee`. */
  | 'quote'
  /** The vendor's documented "no route" answer. */
  | 'no_route'
  /** HTTP 429 with `Retry-After: 7200` (LI.FI's 2-hour keyless window). */
  | 'rate_limited'
  /** HTTP 500. */
  | 'server_error'
  /** Never answers (until the server stops). */
  | 'hang'

const bridgeAbi = parseAbi([
  'function bridge(address token, uint256 amount, uint256 destinationChainId, address recipient)',
])

/** Calldata the stand-ins answer: a real ABI encoding of what was asked, so a test can read it back. */
export function calldataOf(token: Address, amount: bigint, toChainId: number, recipient: Address) {
  return encodeFunctionData({ abi: bridgeAbi, args: [token, amount, BigInt(toChainId), recipient] })
}

const find = (chainId: number, symbolOrAddress: string) =>
  tokens.find(
    (token) =>
      token.chainId === chainId &&
      (token.symbol === symbolOrAddress.toUpperCase() || token.address.toLowerCase() === symbolOrAddress.toLowerCase()),
  )

/** A stand-in answer for every call while the mode is not `quote`; `undefined` lets the call through. */
function fault(mode: Mode, noRoute: () => Response): Response | Promise<Response> | undefined {
  switch (mode) {
    case 'quote':
      return undefined
    case 'no_route':
      return noRoute()
    case 'rate_limited':
      return Response.json({ message: 'Too Many Requests' }, { status: 429, headers: { 'retry-after': '7200' } })
    case 'server_error':
      return new Response('Internal Server Error', { status: 500 })
    case 'hang':
      return new Promise<Response>(() => {})
  }
}

/**
 * A LI.FI stand-in on 127.0.0.1 speaking its documented shapes: `GET /v1/quote` (a `LiFiStep`), `GET /v1/token`,
 * `GET /v1/chains`; "no route" is its 404 `{ message, code: 1002 }`. Records every request.
 */
export function startLifi() {
  const state = { mode: 'quote' as Mode, fee: 1_000n, seen: [] as URL[], keys: [] as (string | null)[] }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      state.seen.push(url)
      state.keys.push(request.headers.get('x-lifi-api-key'))
      const q = (name: string) => url.searchParams.get(name) ?? ''
      const refused = fault(state.mode, () =>
        Response.json({ message: 'No available quotes for the requested transfer', code: 1002 }, { status: 404 }),
      )
      if (refused) return refused
      if (url.pathname === '/v1/chains')
        return Response.json({
          chains: [8453, 42161, 10, 1, 130].map((id) => ({
            key: String(id),
            chainType: 'EVM',
            name: `chain ${id}`,
            id,
          })),
        })
      if (url.pathname === '/v1/token') {
        const token = find(Number(q('chain')), q('token'))
        if (!token) return Response.json({ message: 'Token not found', code: 1003 }, { status: 404 })
        return Response.json({ ...token, name: token.symbol, priceUSD: '1' })
      }
      if (url.pathname !== '/v1/quote') return Response.json({ message: 'Not found', code: 1003 }, { status: 404 })
      const fromChainId = Number(q('fromChain'))
      const toChainId = Number(q('toChain'))
      const fromToken = find(fromChainId, q('fromToken'))
      const toToken = find(toChainId, q('toToken'))
      if (!fromToken || !toToken)
        return Response.json({ message: 'No available quotes for the requested transfer', code: 1002 }, { status: 404 })
      const fromAmount = BigInt(q('fromAmount'))
      const fee = state.fee
      const toAmount = fromAmount - fee
      const native = fromToken.address === zeroAddress
      const eth = find(fromChainId, 'ETH')!
      return Response.json({
        type: 'lifi',
        id: crypto.randomUUID(),
        tool: 'stargateV2',
        toolDetails: { key: 'stargateV2', name: 'StargateV2', logoURI: 'https://example.invalid/s.svg' },
        action: {
          fromChainId,
          fromAmount: fromAmount.toString(),
          fromToken: { ...fromToken, name: fromToken.symbol, priceUSD: '1' },
          toChainId,
          toToken: { ...toToken, name: toToken.symbol, priceUSD: '1' },
          slippage: 0.005,
          fromAddress: q('fromAddress'),
          toAddress: q('fromAddress'),
        },
        estimate: {
          tool: 'stargateV2',
          approvalAddress: lifiDiamond,
          toAmountMin: ((toAmount * 995n) / 1000n).toString(),
          toAmount: toAmount.toString(),
          fromAmount: fromAmount.toString(),
          feeCosts: [
            {
              name: 'LP Fee',
              description: 'Liquidity provider fee',
              token: fromToken,
              amount: fee.toString(),
              amountUSD: '0.001',
              percentage: '0.001',
              included: true,
            },
          ],
          gasCosts: [
            {
              type: 'SEND',
              price: '10000000',
              estimate: '200000',
              limit: '260000',
              amount: '2000000000000',
              amountUSD: '0.01',
              token: eth,
            },
          ],
          executionDuration: 52.4,
          fromAmountUSD: '1.00',
          toAmountUSD: '0.99',
        },
        includedSteps: [],
        transactionRequest: {
          value: native ? `0x${fromAmount.toString(16)}` : '0x0',
          to: lifiDiamond,
          data: calldataOf(fromToken.address, fromAmount, toChainId, q('fromAddress') as Address),
          from: q('fromAddress'),
          chainId: fromChainId,
          gasPrice: '0x989680',
          gasLimit: '0x3f7a0',
        },
      })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/v1`, state, stop: () => server.stop(true) }
}

/**
 * An Across stand-in on 127.0.0.1 speaking its documented shapes: `GET /api/available-routes`,
 * `GET /api/swap/approval` and `GET /api/swap/chains`; "no route" is its 400 `AcrossApiError` with
 * `ROUTE_NOT_ENABLED`. Records every request.
 */
export function startAcross() {
  const state = { mode: 'quote' as Mode, fee: 500n, seen: [] as URL[] }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      state.seen.push(url)
      const q = (name: string) => url.searchParams.get(name) ?? ''
      const routeNotEnabled = () =>
        Response.json(
          {
            type: 'AcrossApiError',
            code: 'ROUTE_NOT_ENABLED',
            status: 400,
            message: 'Route is not enabled.',
            id: 'req-1',
          },
          { status: 400 },
        )
      if (url.pathname === '/api/swap/chains') {
        const refused = fault(state.mode === 'no_route' ? 'quote' : state.mode, routeNotEnabled)
        if (refused) return refused
        return Response.json(
          [8453, 42161, 10, 59144].map((chainId) => ({
            chainId,
            name: `chain ${chainId}`,
            publicRpcUrl: '',
            explorerUrl: '',
            logoUrl: '',
          })),
        )
      }
      if (url.pathname === '/api/available-routes') {
        // Routes are served whatever the mode, as Across's cached route list is.
        const origin = Number(q('originChainId'))
        const destination = Number(q('destinationChainId'))
        const routes = tokens
          .filter((token) => token.chainId === origin && token.address !== zeroAddress)
          .flatMap((token) => {
            const output = find(destination, token.symbol)
            return output
              ? [
                  {
                    originChainId: origin,
                    originToken: token.address,
                    destinationChainId: destination,
                    destinationToken: output.address,
                    originTokenSymbol: token.symbol,
                    destinationTokenSymbol: output.symbol,
                  },
                ]
              : []
          })
          .filter((route) => !q('originToken') || route.originToken.toLowerCase() === q('originToken').toLowerCase())
        return Response.json(routes)
      }
      const refused = fault(state.mode, routeNotEnabled)
      if (refused) return refused
      if (url.pathname !== '/api/swap/approval') return new Response('Not Found', { status: 404 })
      const origin = Number(q('originChainId'))
      const destination = Number(q('destinationChainId'))
      const input = find(origin, q('inputToken'))
      const output = find(destination, q('outputToken'))
      if (!input || !output || q('tradeType') !== 'exactInput') return routeNotEnabled()
      const amount = BigInt(q('amount'))
      const fee = state.fee
      const eth = find(origin, 'ETH')!
      const part = (share: bigint) => ({ amount: ((fee * share) / 100n).toString(), pct: '0' })
      return Response.json({
        crossSwapType: 'bridgeableToBridgeable',
        amountType: 'exactInput',
        checks: {
          allowance: { token: input.address, spender: acrossSpender, actual: '0', expected: amount.toString() },
          balance: { token: input.address, actual: '0', expected: amount.toString() },
        },
        approvalTxns: [{ chainId: origin, to: input.address, data: '0x095ea7b3' }],
        steps: {
          bridge: {
            inputAmount: amount.toString(),
            outputAmount: (amount - fee).toString(),
            tokenIn: input,
            tokenOut: output,
            fees: {
              amount: fee.toString(),
              pct: '0',
              token: input,
              details: { type: 'across', lp: part(20n), relayerCapital: part(30n), destinationGas: part(50n) },
            },
            provider: 'across',
          },
        },
        inputToken: input,
        outputToken: output,
        refundToken: input,
        inputAmount: amount.toString(),
        maxInputAmount: amount.toString(),
        expectedOutputAmount: (amount - fee).toString(),
        minOutputAmount: (amount - fee).toString(),
        expectedFillTime: 4,
        swapTx: {
          simulationSuccess: false,
          chainId: origin,
          to: acrossSpender,
          data: calldataOf(input.address, amount, destination, q('depositor') as Address),
          gas: '150000',
        },
        fees: {
          total: { amount: fee.toString(), amountUsd: '0.0005', pct: '0', token: input },
          originGas: { amount: '1500000000000', amountUsd: '0.005', token: eth },
        },
      })
    },
  })
  return { url: `http://127.0.0.1:${server.port}/api`, state, stop: () => server.stop(true) }
}
