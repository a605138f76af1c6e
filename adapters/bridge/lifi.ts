import { type Address, zeroAddress } from 'viem'
import type * as Bridge from '../../core/Bridge.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { fields, messageOf } from './internal/fields.js'

const read = fields('LI.FI')

/**
 * LI.FI, an aggregator of bridges and exchanges, through its REST API: `GET /quote` (one step with its
 * `transactionRequest`), `GET /token` (the symbol of a token given by address, so the same token is asked for on the
 * destination chain) and `GET /chains`. LI.FI's 404 (`{ message, code: 1002 }`, "No available quotes for the
 * requested transfer") is the port's `no_route`; any other error is an upstream failure, never thrown.
 */
export function lifi(parameters: lifi.Parameters): Bridge.Bridge {
  const { url, key, ...options } = parameters
  const client = vendor({
    id: 'lifi',
    name: 'LI.FI',
    baseUrl: url,
    auth: key === undefined ? { type: 'none' } : { type: 'header', name: 'x-lifi-api-key', value: key },
    // A quote asks many bridges at once and LI.FI waits for the slow ones.
    timeoutMs: 20_000,
    retries: 1,
    // Chains and token symbols change rarely; quotes are never served again (each quote call says so).
    cache: { ttlMs: 600_000 },
    errorMessage: ({ status, text }) => `LI.FI answered HTTP ${status}${messageOf(text)}`,
    ...options,
  })

  /** LI.FI's symbol of the token at `address` on `chainId`, or its refusal. */
  async function symbolOf(
    chainId: number,
    address: Address,
  ): Promise<{ ok: true; symbol: string } | Bridge.NoRoute | Upstream.Failure> {
    const answer = await client.get('/token', {
      query: { chain: String(chainId), token: address },
      accept: [404],
      label: 'token',
    })
    if (!answer.ok) return answer
    if (answer.status === 404)
      return { ok: false, reason: 'no_route', message: `LI.FI knows no token at ${address} on chain ${chainId}.` }
    return client.read(
      () => ({ ok: true as const, symbol: read.text(fieldsOf(answer.body).symbol, 'token.symbol') }),
      answer.status,
    )
  }

  return {
    id: 'lifi',
    name: 'LI.FI',
    available: () => client.available(),

    async quote(request) {
      const { fromChainId, toChainId, token, amount, fromAddress } = request
      let fromToken: string
      let toToken: string
      if ('symbol' in token) {
        fromToken = token.symbol
        toToken = token.symbol
      } else {
        const found = await symbolOf(fromChainId, token.address)
        if (!found.ok) return found
        fromToken = token.address
        toToken = found.symbol
      }
      const answer = await client.get('/quote', {
        query: {
          fromChain: String(fromChainId),
          toChain: String(toChainId),
          fromToken,
          toToken,
          fromAmount: amount.toString(),
          fromAddress,
        },
        cache: false,
        accept: [404],
        label: 'quote',
      })
      if (!answer.ok) return answer
      if (answer.status === 404)
        return {
          ok: false,
          reason: 'no_route',
          message: `LI.FI found no route${messageOf(JSON.stringify(answer.body))}`,
        }
      return client.read(() => ({ ok: true as const, quote: toQuote(answer.body) }), answer.status)
    },

    async chains() {
      const answer = await client.get('/chains', { query: { chainTypes: 'EVM' }, label: 'chains' })
      if (!answer.ok) return answer
      return client.read(() => {
        const chains = fieldsOf(answer.body).chains
        if (!Array.isArray(chains)) throw new UnreadableAnswerError('LI.FI answered chains without a `chains` list.')
        return { ok: true as const, chainIds: chains.map((chain) => read.integer(fieldsOf(chain).id, 'chains[].id')) }
      }, answer.status)
    },
  }
}

export declare namespace lifi {
  type Parameters = vendor.Options & {
    /** Base URL of the API, e.g. `https://li.quest/v1`; may carry a key, so it is never shown. */
    url: string
    /** API key, sent as `x-lifi-api-key`; keyless calls have a lower rate limit. Never shown. */
    key?: string | undefined
  }
}

/** Our quote from LI.FI's step (`LiFiStep`): `tool`, `action`, `estimate` and `transactionRequest`. */
function toQuote(body: unknown): Bridge.Quote {
  const step = fieldsOf(body)
  const action = fieldsOf(step.action)
  const estimate = fieldsOf(step.estimate)
  const request = fieldsOf(step.transactionRequest)
  const fromToken = read.token(action.fromToken, 'action.fromToken')
  const feeCosts = read.list(estimate.feeCosts, 'estimate.feeCosts').map((fee) => {
    const cost = fieldsOf(fee)
    return {
      name: read.text(cost.name, 'feeCosts[].name'),
      amount: read.amount(cost.amount, 'feeCosts[].amount'),
      token: read.token(cost.token, 'feeCosts[].token'),
      included: cost.included === true,
      kind: 'fee' as const,
    }
  })
  const gasCosts = read.list(estimate.gasCosts, 'estimate.gasCosts').map((gas) => {
    const cost = fieldsOf(gas)
    return {
      name: `gas (${typeof cost.type === 'string' ? cost.type : 'SEND'})`,
      amount: read.amount(cost.amount, 'gasCosts[].amount'),
      token: read.token(cost.token, 'gasCosts[].token'),
      included: false,
      kind: 'gas' as const,
    }
  })
  const native = fromToken.address === zeroAddress
  return {
    source: 'lifi',
    tool: read.text(step.tool, 'tool'),
    fromToken,
    toToken: read.token(action.toToken, 'action.toToken'),
    fromAmount: read.amount(action.fromAmount, 'action.fromAmount'),
    toAmount: read.amount(estimate.toAmount, 'estimate.toAmount'),
    toAmountMin: read.amount(estimate.toAmountMin, 'estimate.toAmountMin'),
    durationSeconds: read.seconds(estimate.executionDuration, 'estimate.executionDuration'),
    approvalAddress: native ? null : read.address(estimate.approvalAddress, 'estimate.approvalAddress'),
    fees: [...feeCosts, ...gasCosts],
    transaction: {
      to: read.address(request.to, 'transactionRequest.to'),
      data: read.hex(request.data, 'transactionRequest.data'),
      value: request.value === undefined ? 0n : read.quantity(request.value, 'transactionRequest.value'),
      gasLimit: request.gasLimit === undefined ? null : read.quantity(request.gasLimit, 'transactionRequest.gasLimit'),
      chainId: read.integer(request.chainId, 'transactionRequest.chainId'),
    },
  }
}
