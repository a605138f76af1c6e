import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { Receipt as MppReceipt } from 'mppx'
import { Mppx } from 'mppx/client'
import { evm } from 'mppx/evm/client'
import type { LocalAccount } from 'viem'
import type { Endpoints } from './endpoints.js'
import type { Manifest } from './manifest.js'

// agent-pay-gateway/client: a typed client of the gateway that pays for each call with the official clients (x402's
// @x402/fetch, or mppx for MPP), within caps checked before anything is signed. It runs on Node, Deno, Bun and in a
// browser: it uses only fetch, Web Crypto and the clients' own packages.

export type { Endpoints } from './endpoints.js'
export { type Manifest, type ManifestResource, priceTextOf } from './manifest.js'

/** The headers that carry a payment: x402 v2 and v1, and MPP's credential. */
const paymentHeaders = ['payment-signature', 'x-payment', 'authorization'] as const

/** The 503 codes the gateway asks the same payment to be sent again for (docs/payment.md). */
const retriedCodes = new Set(['settlement_pending', 'payment_in_progress'])

/** What the client refuses before signing, as a stable code. */
export class ClientError extends Error {
  override readonly name = 'ClientError'
  /** `max_per_call` (one call asks more than `maxPerCall`), `budget` (the calls so far and this one exceed `budget`). */
  readonly code: 'max_per_call' | 'budget'
  /** What the gateway asked, in atomic units of its asset. */
  readonly amount: bigint
  constructor(code: ClientError['code'], amount: bigint, message: string) {
    super(message)
    this.code = code
    this.amount = amount
  }
}

/** The receipt of a paid call, decoded from `PAYMENT-RESPONSE` (x402) or `Payment-Receipt` (MPP). */
export type Receipt = {
  /** How the call was paid. */
  protocol: 'x402' | 'mpp'
  /** The settlement's transaction hash (x402) or reference (MPP). */
  transaction: string
  /** Who paid, where the receipt says it. */
  payer: string | undefined
  /** CAIP-2 network of the settlement, where the receipt says it. */
  network: string | undefined
}

/** What a call answers: the gateway's status and JSON (or text), its receipt and what it cost. */
export type Answer<output> = {
  /** HTTP status. */
  status: number
  /** Whether the status is 2xx. */
  ok: boolean
  /** The answer: the endpoint's documented output on success, else the problem the gateway answered. */
  data: output
  /** The receipt, when the call was paid and settled. */
  receipt: Receipt | undefined
  /** What the call was charged, in atomic units of the asset; 0n when it was free or not charged. */
  paid: bigint
  /** The idempotency key the call carried (`Idempotency-Key`). */
  idempotencyKey: string
  /** The response's headers. */
  headers: Headers
}

/** What a call of `endpoint` sends, with an optional idempotency key. */
export type CallInput<endpoint extends keyof Endpoints> = Endpoints[endpoint]['input'] & {
  /** The call's idempotency key. @default a fresh UUID */
  idempotencyKey?: string
}

/**
 * A client of the gateway at `url` that pays for each call from `account`: refuses before signing a call that asks
 * more than `maxPerCall` or would take the calls so far past `budget`, sends each call an idempotency key, sends a
 * call the gateway answered 503 `settlement_pending` again with the same payment, and answers with the receipt.
 */
export function createClient(parameters: createClient.Parameters): createClient.ReturnType {
  const { account, maxPerCall, budget, protocol = 'x402', retries = 5, maxRetryDelayMs = 30_000 } = parameters
  const url = parameters.url.replace(/\/+$/, '')
  const transport = parameters.fetch ?? globalThis.fetch.bind(globalThis)
  let spent = 0n
  let terms: Promise<Terms | undefined> | undefined

  /** `fetch` that sends a paid request again, identical, while the gateway says its settlement is undecided. */
  const retrying = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const paid = paymentHeaders.some((name) => request.headers.has(name))
    for (let attempt = 0; ; attempt++) {
      const response = await transport(request.clone())
      if (!paid || response.status !== 503 || attempt >= retries) return response
      const problem = (await response
        .clone()
        .json()
        .catch(() => undefined)) as { code?: string } | undefined
      if (!problem?.code || !retriedCodes.has(problem.code)) return response
      const seconds = Number(response.headers.get('retry-after') ?? '1')
      const delay = Math.min(Number.isFinite(seconds) ? seconds * 1000 : 1000, maxRetryDelayMs)
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }) as typeof globalThis.fetch

  /** Reserves `amount` of the caps for one call, or throws the refusal: before anything is signed. */
  const reserve = (amount: bigint) => {
    if (maxPerCall !== undefined && amount > maxPerCall)
      throw new ClientError('max_per_call', amount, `asks ${amount}, above maxPerCall (${maxPerCall}) in atomic units`)
    if (budget !== undefined && spent + amount > budget)
      throw new ClientError(
        'budget',
        amount,
        `asks ${amount}, which with the ${spent} spent exceeds the budget (${budget}) in atomic units`,
      )
    spent += amount
  }

  /** A `fetch` that pays one call, and the amount it reserved (0n until a 402 asks). */
  const payer = async (state: { amount: bigint; refused: ClientError | undefined }) => {
    terms ??= termsOf(url, transport)
    const known = await terms
    if (protocol === 'mpp') {
      if (!known) throw new Error(`${url}/.well-known/x402.json answers no payment terms, which MPP needs.`)
      return Mppx.create({
        methods: [evm({ account, authorization: { name: known.asset.name, version: known.asset.version } })],
        fetch: retrying,
        polyfill: false,
        onChallenge: async (challenge, { createCredential }) => {
          const amount = BigInt(String(challenge.request.amount))
          try {
            reserve(amount)
          } catch (error) {
            state.refused = error as ClientError
            throw error
          }
          state.amount = amount
          return createCredential()
        },
      }).fetch as typeof globalThis.fetch
    }
    const client = new x402Client()
    registerExactEvmScheme(client, { signer: account })
    // The caps are this client's, in the asset's atomic units; the asset is the gateway's own where it says it.
    client.setSpendControls({
      maxAmountPerPayment: false,
      ...(known
        ? { allowedAssets: [{ network: known.network as `${string}:${string}`, asset: known.asset.address }] }
        : {}),
    })
    client.onBeforePaymentCreation(async ({ selectedRequirements }) => {
      const amount = BigInt(selectedRequirements.amount)
      try {
        reserve(amount)
      } catch (error) {
        state.refused = error as ClientError
        return { abort: true, reason: (error as Error).message }
      }
      state.amount = amount
      return undefined
    })
    return wrapFetchWithPayment(retrying, client) as typeof globalThis.fetch
  }

  return {
    url,
    spent: () => spent,
    async call(endpoint, ...[input]) {
      const { params = {}, query, body, idempotencyKey } = (input ?? {}) as CallShape
      const [method, pattern] = (endpoint as string).split(' ') as [string, string]
      const path = pattern.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
        const value = params[name]
        if (value === undefined) throw new Error(`${endpoint} needs params.${name}.`)
        return encodeURIComponent(value)
      })
      const search = query ? `?${new URLSearchParams(query as Record<string, string>)}` : ''
      return (await this.request({ method, path: `${path}${search}`, body, idempotencyKey })) as Answer<never>
    },
    async request({ method, path, body, idempotencyKey = crypto.randomUUID() }) {
      const headers: Record<string, string> = { 'idempotency-key': idempotencyKey, accept: 'application/json' }
      if (body !== undefined) headers['content-type'] = 'application/json'
      const state: { amount: bigint; refused: ClientError | undefined } = { amount: 0n, refused: undefined }
      const pay = await payer(state)
      let response: Response
      try {
        response = await pay(`${url}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      } catch (error) {
        spent -= state.amount
        throw state.refused ?? error
      }
      const receipt = receiptOf(response)
      // Only a receipt says the call was charged; without one the reservation goes back, except while undecided.
      if (!receipt && response.status !== 503) spent -= state.amount
      const text = await response.text()
      let data: unknown = text
      try {
        data = JSON.parse(text)
      } catch {}
      return {
        status: response.status,
        ok: response.ok,
        data,
        receipt,
        paid: receipt ? state.amount : 0n,
        idempotencyKey,
        headers: response.headers,
      }
    },
  }
}

export declare namespace createClient {
  type Parameters = {
    /** The gateway's origin, e.g. `http://127.0.0.1:3402` (this gateway's paths and the original gateway's). */
    url: string
    /** The account that signs payments (a viem local account, or any with `address` and `signTypedData`). */
    account: LocalAccount
    /** Most one call may pay, in atomic units of the asset; a dearer call is refused before signing. @default none */
    maxPerCall?: bigint
    /** Most all calls of this client may pay together, in atomic units; refused before signing. @default none */
    budget?: bigint
    /** How calls are paid: x402 (`PAYMENT-SIGNATURE`) or MPP (`Authorization: Payment`). @default 'x402' */
    protocol?: 'x402' | 'mpp'
    /** Transport to the gateway. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
    /** How many times a 503 `settlement_pending` is sent again with the same payment. @default 5 */
    retries?: number
    /** Longest wait before sending again, in ms, whatever `Retry-After` says. @default 30_000 */
    maxRetryDelayMs?: number
  }
  type ReturnType = {
    /** The gateway's origin. */
    url: string
    /** What the calls so far were charged, or are reserved for while undecided, in atomic units. */
    spent: () => bigint
    /** Calls `endpoint` (`METHOD path`, the path as the catalog writes it), paying when the gateway asks. */
    call<endpoint extends keyof Endpoints>(
      endpoint: endpoint,
      ...input: {} extends Endpoints[endpoint]['input'] ? [input?: CallInput<endpoint>] : [input: CallInput<endpoint>]
    ): Promise<Answer<Endpoints[endpoint]['output']>>
    /** Sends `method path` (a path with its query, any path the gateway serves), paying when the gateway asks. */
    request(input: {
      /** HTTP method. */
      method: string
      /** Path and query, e.g. `/api/v1/invoice/inv_1`. */
      path: string
      /** JSON body. @default none */
      body?: unknown
      /** The call's idempotency key. @default a fresh UUID */
      idempotencyKey?: string
    }): Promise<Answer<unknown>>
  }
}

/** A call's input as the client reads it, whatever the endpoint. */
type CallShape = {
  params?: Record<string, string>
  query?: Record<string, string>
  body?: unknown
  idempotencyKey?: string
}

/** The part of the gateway's manifest the client pays with. */
type Terms = Pick<Manifest, 'network' | 'asset'>

/** The gateway's payment terms from its manifest, or undefined where it has none (the original gateway). */
async function termsOf(url: string, fetch: typeof globalThis.fetch): Promise<Terms | undefined> {
  const manifest = await manifestOf(url, fetch).catch(() => undefined)
  return manifest?.network && manifest.asset ? manifest : undefined
}

/** The gateway's manifest (`/.well-known/x402.json`); throws, saying why, where it answers none. */
export async function manifestOf(url: string, fetch: typeof globalThis.fetch = globalThis.fetch): Promise<Manifest> {
  const base = url.replace(/\/+$/, '')
  const response = await fetch(`${base}/.well-known/x402.json`).catch(() => undefined)
  if (!response) throw new Error(`No gateway answers at ${base}.`)
  if (!response.ok)
    throw new Error(`${base}/.well-known/x402.json answered HTTP ${response.status}: not a gateway manifest.`)
  return (await response.json()) as Manifest
}

/** The receipt a response carries, decoded; undefined when it carries none or a failed one. */
export function receiptOf(response: Response): Receipt | undefined {
  if (!response.ok) return undefined
  const x402 = response.headers.get('payment-response') ?? response.headers.get('x-payment-response')
  if (x402) {
    const settled = decodePaymentResponseHeader(x402)
    if (!settled.success) return undefined
    return { protocol: 'x402', transaction: settled.transaction, payer: settled.payer, network: settled.network }
  }
  const mpp = response.headers.get('payment-receipt')
  if (!mpp) return undefined
  const settled = MppReceipt.deserialize(mpp)
  return { protocol: 'mpp', transaction: settled.reference, payer: undefined, network: undefined }
}
