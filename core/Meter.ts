import { ConfigError } from './Errors.js'
import type * as Price from './Price.js'

/**
 * How a call priced by usage is charged (x402 `upto`): the payer authorizes the most its input could cost, the
 * handler runs, and what it actually used is charged, never more than the authorized maximum.
 */
export type Meter = {
  /** The most a call with this input may cost, in atomic units; `undefined` when it cannot be metered (then only the fixed price is offered). */
  max: (input: Price.Input) => bigint | undefined
  /** What the handler's answer to this input used, in atomic units; `undefined` when it does not say (then the maximum is charged). */
  cost: (answer: unknown, input: Price.Input) => bigint | undefined
}

/** Meters of the served entries, by catalog key (`POST /path`). */
export type Meters = Readonly<Record<string, Meter>>

/** `units × pricePerMillion / 1_000_000`, rounded up to the next atomic unit. */
export function perMillion(units: bigint, pricePerMillion: bigint): bigint {
  return (units * pricePerMillion + 999_999n) / 1_000_000n
}

/** A model's token prices, in atomic USDC per million tokens. */
export type TokenPrice = {
  /** Per million prompt tokens. */
  input: bigint
  /** Per million completion tokens. */
  output: bigint
}

/**
 * Reads `model=inPerMTok:outPerMTok, ...` (atomic USDC per million tokens) into prices by model; throws at boot on a
 * malformed pair or a model outside `models`.
 */
export function parsePrices(
  text: string | undefined,
  models: readonly string[],
  variable: string,
): Map<string, TokenPrice> {
  const prices = new Map<string, TokenPrice>()
  for (const pair of (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')) {
    const match = /^([^=\s]+)\s*=\s*(\d{1,18})\s*:\s*(\d{1,18})$/.exec(pair)
    if (!match)
      throw new ConfigError(
        `${variable}: "${pair}" is not model=inPerMTok:outPerMTok (atomic USDC per million tokens).`,
      )
    const [, model, input, output] = match
    if (!models.includes(model!)) throw new ConfigError(`${variable}: ${model} is not an allowed model.`)
    prices.set(model!, { input: BigInt(input!), output: BigInt(output!) })
  }
  return prices
}

/** The fields of a chat completion body a meter reads. */
type Body = { model?: unknown; stream?: unknown; max_tokens?: number; max_completion_tokens?: number } | undefined

/**
 * The meter of a chat completion (or a text inference) priced by tokens. Its maximum is what the call could cost: every byte of the request
 * body as a prompt token (a token is at least one byte, so no prompt has more) plus the completion's token limit; the
 * charge is the upstream's `usage`. A streamed completion is not metered: its usage arrives after the answer is sent.
 */
export function chatMeter(parameters: chatMeter.Parameters): Meter {
  const { prices, maxTokens } = parameters
  const priceOf = (body: Body) => (typeof body?.model === 'string' ? prices.get(body.model) : undefined)
  return {
    max(input: Price.Input) {
      const body = input.body as Body
      const price = priceOf(body)
      if (!body || !price || body.stream === true) return undefined
      const prompt = BigInt(new TextEncoder().encode(JSON.stringify(body)).byteLength)
      const limit = typeof maxTokens === 'number' ? maxTokens : maxTokens(body.model as string)
      const completion = BigInt(body.max_completion_tokens ?? body.max_tokens ?? limit)
      return perMillion(prompt, price.input) + perMillion(completion, price.output)
    },
    // The requested model's prices: an upstream may answer with a dated variant of the name.
    cost(answer: unknown, input: Price.Input) {
      const { usage } = (answer ?? {}) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
      const price = priceOf(input.body as Body)
      const prompt = usage?.prompt_tokens
      const completion = usage?.completion_tokens
      if (!price || !Number.isSafeInteger(prompt) || !Number.isSafeInteger(completion)) return undefined
      if ((prompt as number) < 0 || (completion as number) < 0) return undefined
      return perMillion(BigInt(prompt as number), price.input) + perMillion(BigInt(completion as number), price.output)
    },
  }
}

export declare namespace chatMeter {
  type Parameters = {
    /** Token prices by model; a model without one is offered at its fixed price only. */
    prices: ReadonlyMap<string, TokenPrice>
    /** The completion token limit sent when the caller gives none (per model where it differs). */
    maxTokens: number | ((model: string) => number)
  }
}

/** The fields of an embeddings body a meter reads. */
type EmbeddingsBody = { model?: unknown; input?: unknown } | undefined

/**
 * The meter of an embeddings call priced by input tokens: its maximum counts every byte of the input as a token, the
 * charge is the upstream's `usage.prompt_tokens` at the model's input price.
 */
export function embeddingsMeter(parameters: { prices: ReadonlyMap<string, TokenPrice> }): Meter {
  const { prices } = parameters
  const priceOf = (body: EmbeddingsBody) => (typeof body?.model === 'string' ? prices.get(body.model) : undefined)
  return {
    max(input: Price.Input) {
      const body = input.body as EmbeddingsBody
      const price = priceOf(body)
      if (!body || !price || body.input === undefined) return undefined
      return perMillion(BigInt(new TextEncoder().encode(JSON.stringify(body.input)).byteLength), price.input)
    },
    cost(answer: unknown, input: Price.Input) {
      const { usage } = (answer ?? {}) as { usage?: { prompt_tokens?: unknown } }
      const price = priceOf(input.body as EmbeddingsBody)
      const tokens = usage?.prompt_tokens
      if (!price || !Number.isSafeInteger(tokens) || (tokens as number) < 0) return undefined
      return perMillion(BigInt(tokens as number), price.input)
    },
  }
}
