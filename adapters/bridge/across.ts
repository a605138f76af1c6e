import { type Address, zeroAddress } from 'viem'
import type * as Bridge from '../../core/Bridge.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { fields, messageOf } from './internal/fields.js'

const read = fields('Across')

/** Across's `AcrossApiError` codes (HTTP 400) that mean it cannot move this token or this amount on this route. */
const noRouteCodes = new Set([
  'ROUTE_NOT_ENABLED',
  'AMOUNT_TOO_LOW',
  'AMOUNT_TOO_HIGH',
  'SWAP_LIQUIDITY_INSUFFICIENT',
  'SWAP_QUOTE_UNAVAILABLE',
])

/**
 * Across, an intent-based bridge, through its API: `GET /available-routes` (the token on the destination chain),
 * `GET /swap/approval` with `tradeType=exactInput` (the quote with its `swapTx` and any approval), and
 * `GET /swap/chains`. Across's 400 `AcrossApiError` bodies (`{ type, code, status, message }`) with a code that says
 * the route or amount cannot be served are the port's `no_route`; any other error is an upstream failure, never thrown.
 */
export function across(parameters: across.Parameters): Bridge.Bridge {
  const { url, ...options } = parameters
  const client = vendor({
    id: 'across',
    name: 'Across',
    baseUrl: url,
    timeoutMs: 15_000,
    retries: 1,
    // Routes and chains change rarely; quotes (suggested fees, which Across says never to cache) are never kept.
    cache: { ttlMs: 600_000 },
    errorMessage: ({ status, text }) => `Across answered HTTP ${status}${messageOf(text)}`,
    ...options,
  })

  /** The token to ask for on the destination chain: the one Across pairs with the origin token on this route. */
  async function outputOf(
    request: Bridge.Request,
  ): Promise<{ ok: true; input: Address; output: Address } | Bridge.NoRoute | Upstream.Failure> {
    const { fromChainId, toChainId, token } = request
    const answer = await client.get('/available-routes', {
      query: {
        originChainId: String(fromChainId),
        destinationChainId: String(toChainId),
        ...('address' in token ? { originToken: token.address } : {}),
      },
      label: 'routes',
    })
    if (!answer.ok) return answer
    const routes = client.read(() => {
      if (!Array.isArray(answer.body)) throw new UnreadableAnswerError('Across answered routes that are not a list.')
      return answer.body.map((route) => {
        const entry = fieldsOf(route)
        return {
          input: read.address(entry.originToken, 'routes[].originToken'),
          output: read.address(entry.destinationToken, 'routes[].destinationToken'),
          symbol: read.text(entry.originTokenSymbol, 'routes[].originTokenSymbol').toUpperCase(),
        }
      })
    }, answer.status)
    if (!Array.isArray(routes)) return routes
    const route = routes.find((candidate) =>
      'symbol' in token ? candidate.symbol === token.symbol : candidate.input === token.address,
    )
    if (!route)
      return {
        ok: false,
        reason: 'no_route',
        message: `Across has no route for ${'symbol' in token ? token.symbol : token.address} from chain ${fromChainId} to chain ${toChainId}.`,
      }
    return { ok: true, input: route.input, output: route.output }
  }

  return {
    id: 'across',
    name: 'Across',
    available: () => client.available(),

    async quote(request) {
      const route = await outputOf(request)
      if (!route.ok) return route
      const answer = await client.get('/swap/approval', {
        query: {
          tradeType: 'exactInput',
          amount: request.amount.toString(),
          inputToken: route.input,
          outputToken: route.output,
          originChainId: String(request.fromChainId),
          destinationChainId: String(request.toChainId),
          depositor: request.fromAddress,
        },
        cache: false,
        accept: [400],
        label: 'quote',
      })
      if (!answer.ok) return answer
      if (answer.status === 400) {
        const error = fieldsOf(answer.body)
        const message = `Across cannot quote this transfer${messageOf(JSON.stringify(answer.body))}`
        if (typeof error.code === 'string' && noRouteCodes.has(error.code))
          return { ok: false, reason: 'no_route', message }
        return client.fail('rejected', message, 400)
      }
      return client.read(() => ({ ok: true as const, quote: toQuote(answer.body) }), answer.status)
    },

    async chains() {
      const answer = await client.get('/swap/chains', { label: 'chains' })
      if (!answer.ok) return answer
      return client.read(() => {
        if (!Array.isArray(answer.body)) throw new UnreadableAnswerError('Across answered chains that are not a list.')
        return {
          ok: true as const,
          chainIds: answer.body.map((chain) => read.integer(fieldsOf(chain).chainId, 'chains[].chainId')),
        }
      }, answer.status)
    },
  }
}

export declare namespace across {
  type Parameters = vendor.Options & {
    /** Base URL of the API, e.g. `https://app.across.to/api`; may carry a key, so it is never shown. */
    url: string
  }
}

/**
 * Our quote from Across's `/swap/approval` answer: `inputToken`, `outputToken`, `inputAmount`,
 * `expectedOutputAmount`, `minOutputAmount`, `expectedFillTime`, `swapTx`, `checks.allowance.spender`, the bridge
 * step's fees and the origin gas.
 */
function toQuote(body: unknown): Bridge.Quote {
  const answer = fieldsOf(body)
  const fromToken = read.token(answer.inputToken, 'inputToken')
  const bridge = fieldsOf(fieldsOf(answer.steps).bridge)
  const bridgeFees = fieldsOf(bridge.fees)
  const details = fieldsOf(bridgeFees.details)
  const feeToken = read.token(bridgeFees.token, 'steps.bridge.fees.token')
  const parts = [
    ['lp', 'LP fee'],
    ['relayerCapital', 'relayer capital fee'],
    ['destinationGas', 'destination gas fee'],
  ] as const
  const fees: Bridge.Fee[] =
    details.type === 'across'
      ? parts.map(([key, name]) => ({
          name,
          amount: read.amount(fieldsOf(details[key]).amount, `steps.bridge.fees.details.${key}.amount`),
          token: feeToken,
          included: true,
          kind: 'fee',
        }))
      : [
          {
            name: 'bridge fee',
            amount: read.amount(bridgeFees.amount, 'steps.bridge.fees.amount'),
            token: feeToken,
            included: true,
            kind: 'fee',
          },
        ]
  const originGas = fieldsOf(answer.fees).originGas
  if (originGas !== undefined)
    fees.push({
      name: 'gas (origin)',
      amount: read.amount(fieldsOf(originGas).amount, 'fees.originGas.amount'),
      token: read.token(fieldsOf(originGas).token, 'fees.originGas.token'),
      included: false,
      kind: 'gas',
    })
  const swapTx = fieldsOf(answer.swapTx)
  const native = fromToken.address === zeroAddress
  return {
    source: 'across',
    tool: typeof bridge.provider === 'string' && bridge.provider !== '' ? bridge.provider : 'across',
    fromToken,
    toToken: read.token(answer.outputToken, 'outputToken'),
    fromAmount: read.amount(answer.inputAmount, 'inputAmount'),
    toAmount: read.amount(answer.expectedOutputAmount, 'expectedOutputAmount'),
    toAmountMin: read.amount(answer.minOutputAmount, 'minOutputAmount'),
    durationSeconds: read.seconds(answer.expectedFillTime, 'expectedFillTime'),
    approvalAddress: native
      ? null
      : read.address(fieldsOf(fieldsOf(answer.checks).allowance).spender, 'checks.allowance.spender'),
    fees,
    transaction: {
      to: read.address(swapTx.to, 'swapTx.to'),
      data: read.hex(swapTx.data, 'swapTx.data'),
      value: swapTx.value === undefined ? 0n : read.quantity(swapTx.value, 'swapTx.value'),
      gasLimit: swapTx.gas === undefined ? null : read.quantity(swapTx.gas, 'swapTx.gas'),
      chainId: read.integer(swapTx.chainId, 'swapTx.chainId'),
    },
  }
}
