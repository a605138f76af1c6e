import { createReceiptDomain, OFFER_RECEIPT } from '@x402/extensions/offer-receipt'
import type { Address } from 'viem'
import * as Catalog from '../../core/Catalog.js'
import type * as Channel from '../../core/Channel.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import * as Price from '../../core/Price.js'
import type * as RateLimit from '../../core/RateLimit.js'
import * as Callback from '../callback.js'
import { signInWithX } from '../payment/siwx.js'
import type { Offered } from '../payment/solana.js'
import * as Schema from './schema.js'

export type { JsonSchema } from './schema.js'

import { type Availability, protocols, serviceName } from './terms.js'

/** What every discovery document is generated from besides the catalog. */
export type Context = {
  /** Absolute base URL without a trailing slash. */
  baseUrl: string
  /** Network, asset and payee of every paid offer. */
  terms: PaymentTerms
  /** Availability of each entry. */
  availability: (entry: Catalog.Entry) => Availability
  /** The price rule of an entry priced per request, where its module declares one. */
  ruleOf: (entry: Catalog.Entry) => Price.Rule | undefined
  /** The answer's schema of an entry whose shape the spec does not show, where its module documents it. */
  outputOf?: ((entry: Catalog.Entry) => Schema.JsonSchema | undefined) | undefined
  /**
   * The schemas the entry's route validates its query and body with (every name it accepts, with its unit and
   * default), where it has them: OpenAPI documents them beside the catalog's fields.
   */
  inputOf?: ((entry: Catalog.Entry) => Schema.Input | undefined) | undefined
  /** What its module publishes of an entry beside the catalog, by name (OpenAPI `x-<name>`, a manifest field). */
  factsOf?: ((entry: Catalog.Entry) => Readonly<Record<string, unknown>> | undefined) | undefined
  /** The x402 `exact` offer on Solana beside the EVM one: its terms, or why it is not made. */
  solana?:
    | ({ /** Offered. */ offered: true } & Offered)
    | { /** Not offered. */ offered: false /** Why not. */; reason: string }
  /** Whether its payers and owners re-read an entry by signing in (x402 `sign-in-with-x`). @default none */
  reaccess?: ((entry: Catalog.Entry) => boolean) | undefined
  /** Payment channels (x402 `batch-settlement`) beside `exact`: their terms, or why they are not offered. */
  channels?:
    | ({ /** Offered. */ offered: true } & Channel.Terms)
    | { /** Not offered. */ offered: false /** Why not. */; reason: string }
  /** Callbacks of paid calls (`callback_url`): what they deliver and how, or why no call takes one. @default none */
  callbacks?:
    | {
        /** Offered. */ offered: true
        /** The body member that names the URL. */
        field: string
        /** The event a callback is. */
        event: string
        /** What it delivers, and how. */
        description: string
      }
    | { /** Not offered. */ offered: false /** Why not. */; reason: string }
  /**
   * The per-client limit of a free entry, where it has one: the family whose free endpoints share it (one bucket per
   * client) and the bucket. @default none
   */
  limitOf?: ((entry: Catalog.Entry) => { family: string; options: RateLimit.Options } | undefined) | undefined
  /** Current time. */
  now: Date
  /** Address of the key that signs the `offer-receipt` receipts of settled x402 payments, when one does. */
  receiptSigner?: Address | undefined
}

/** The public overview object served at `GET /`, with exactly the interface's fields. */
export function overview(context: Context) {
  const { baseUrl, terms, now } = context
  const counts = Catalog.counts()
  const unavailable = Catalog.entries.filter((entry) => !context.availability(entry).available).length
  return {
    gateway: serviceName,
    version: Catalog.overviewVersion,
    network: terms.network,
    status: 'operational',
    paidEndpoints: Object.fromEntries(
      Catalog.entries
        .filter((entry) => !Catalog.isFree(entry))
        .map((entry) => [Catalog.key(entry), describe(entry, context)]),
    ),
    links: { fullManifest: `${baseUrl}/.well-known/x402.json`, openapi: `${baseUrl}/openapi.json` },
    note:
      `${counts.paid} paid and ${counts.free} free endpoints in ${counts.categories} categories ` +
      `(stated: ${Catalog.stated.machineDescriptionPaid} paid in the machine description; ` +
      `${Catalog.stated.catalogEndpoints} = ${Catalog.stated.catalogPaid} paid + ${Catalog.stated.catalogFree} free ` +
      `in ${Catalog.stated.catalogCategories} categories in the catalog). ${unavailable} not available on this ` +
      'gateway yet: they answer 501 or 503 before any payment is asked for. Pay per call in USDC with x402 or MPP; ' +
      'no API keys.',
    _gateway: { provider: serviceName, version: Catalog.overviewVersion },
    timestamp: now.toISOString(),
  }
}

/**
 * The free-tier index served at `GET /free`, in the original gateway's shape (`name`, `description`, `version`,
 * `endpoints` naming what each free endpoint does, `rateLimit` in one sentence, `gateway`, `docs`, `spec`), generated
 * from the catalog's free entries; `free` lists each again with its per-client limit and whether it answers here.
 */
export function freeTier(context: Context) {
  const { baseUrl } = context
  const entries = Catalog.entries.filter((entry) => Catalog.isFree(entry))
  const free = entries.map((entry) => {
    const availability = context.availability(entry)
    const limit = context.limitOf?.(entry)
    return {
      endpoint: Catalog.key(entry),
      description: entry.purpose,
      available: availability.available,
      ...(availability.available ? {} : { reason: availability.reason }),
      rateLimit: limit
        ? {
            text: limitText(limit.options),
            sharedBy: limit.family,
            calls: limit.options.refill,
            perSeconds: limit.options.intervalMs / 1000,
            burst: limit.options.capacity,
          }
        : null,
    }
  })
  return {
    name: `${serviceName} free tier`,
    description: `${entries.length} endpoints that take no payment: no wallet, no payment, no API key.`,
    version: Catalog.overviewVersion,
    endpoints: Object.fromEntries(free.map(({ endpoint, description }) => [endpoint, description])),
    rateLimit: limitsText(free.map(({ rateLimit }) => rateLimit)),
    free,
    gateway: baseUrl,
    docs: `${baseUrl}/llms.txt`,
    spec: `${baseUrl}/openapi.json`,
  }
}

/** A bucket in words: `60 per minute`, `50 per day in bursts of 5`. */
function limitText(options: RateLimit.Options): string {
  const { capacity, refill, intervalMs } = options
  const named = new Map([
    [1_000, 'second'],
    [60_000, 'minute'],
    [3_600_000, 'hour'],
    [86_400_000, 'day'],
  ])
  const per = named.get(intervalMs) ?? `${intervalMs / 1000} s`
  return `${refill} per ${per}${capacity === refill ? '' : ` in bursts of ${capacity}`}`
}

/** The limits of the free endpoints in one sentence: each limit with the families whose endpoints have it. */
function limitsText(limits: readonly ({ text: string; sharedBy: string } | null)[]): string {
  const families = new Map<string, Set<string>>()
  for (const limit of limits)
    if (limit) families.set(limit.text, (families.get(limit.text) ?? new Set()).add(limit.sharedBy))
  if (families.size === 0) return 'no per-client limit'
  const each = [...families].map(([text, names]) => `${text} (${[...names].join(', ')})`)
  return `per client (by source address), each family's endpoints sharing one bucket: ${each.join('; ')}`
}

/** The OpenAPI 3.1 machine description served at `GET /openapi.json`. */
export function openapi(context: Context) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const entry of Catalog.entries) {
    const described = operation(entry, context)
    const path = entry.path.replace(/:([A-Za-z]+)/g, '{$1}')
    paths[path] ??= {}
    paths[path]![entry.method.toLowerCase()] = described
    // An alias is the same operation at the original gateway's path, marked as such: counts stay the catalog's.
    for (const alias of entry.aliases ?? []) {
      paths[alias] ??= {}
      paths[alias]![entry.method.toLowerCase()] = {
        ...described,
        operationId: Catalog.operationId({ method: entry.method, path: alias }),
        'x-alias-of': entry.path,
      }
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pay-per-call payments, DeFi, data and AI gateway',
      version: Catalog.machineDescriptionVersion,
      description:
        'Per-call access for autonomous agents. Paid operations carry their payment in USDC through x402 ' +
        '(PAYMENT-SIGNATURE or X-PAYMENT) or MPP (Authorization: Payment); the paying wallet is the caller.',
    },
    servers: [{ url: context.baseUrl }],
    tags: [...new Set(Catalog.entries.flatMap((entry) => entry.tags))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details with a stable snake_case code.',
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string' },
            instance: { type: 'string' },
          },
          required: ['type', 'title', 'status', 'detail', 'code'],
        },
      },
    },
    'x-service-info': serviceInfo(context),
  }
}

/** The full payment manifest served at `GET /.well-known/x402.json`. */
export function manifest(context: Context) {
  const { baseUrl, terms } = context
  const resource = (entry: Catalog.Entry) => {
    const availability = context.availability(entry)
    const schema = Schema.ofEntry(entry)
    // The module's facts first: they never hide a field of the manifest's own.
    return {
      ...context.factsOf?.(entry),
      method: entry.method,
      path: entry.path,
      url: `${baseUrl}${entry.path}`,
      ...(entry.aliases
        ? { aliases: entry.aliases.map((alias) => ({ path: alias, url: `${baseUrl}${alias}`, aliasOf: entry.path })) }
        : {}),
      description: entry.purpose,
      category: entry.category,
      available: availability.available,
      ...(availability.available ? {} : { unavailable: { code: availability.code, reason: availability.reason } }),
      ...(context.reaccess?.(entry) ? { reaccess: signInWithX } : {}),
      input: {
        ...(schema.query.length > 0 ? { query: Schema.fromFields(schema.query) } : {}),
        ...(schema.path.length > 0 ? { path: Schema.fromFields(schema.path) } : {}),
        ...(schema.body ? { body: schema.body } : {}),
      },
      output: schema.output,
    }
  }
  const paid = Catalog.entries.filter((entry) => !Catalog.isFree(entry))
  const free = Catalog.entries.filter(Catalog.isFree)
  return {
    x402Version: 2,
    service: serviceName,
    version: Catalog.machineDescriptionVersion,
    network: terms.network,
    asset: terms.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    protocols,
    ...(context.solana ? { solana: context.solana } : {}),
    // Where a payer checks, offline, the signed receipt in each x402 settlement response (EIP-712 signer recovery).
    ...(context.receiptSigner
      ? {
          receipts: {
            extension: OFFER_RECEIPT,
            format: 'eip712',
            domain: createReceiptDomain(),
            signer: context.receiptSigner,
          },
        }
      : {}),
    ...(context.channels ? { channels: context.channels } : {}),
    ...(context.callbacks ? { callbacks: context.callbacks } : {}),
    counts: counts(),
    resources: paid.map((entry) => ({
      ...resource(entry),
      price: priceInfo(entry.price, context.ruleOf(entry)),
      ...(entry.catalogPrice ? { catalogPrice: priceInfo(entry.catalogPrice) } : {}),
      ...(entry.originalPrice
        ? { originalPrice: { ...priceInfo(entry.originalPrice), note: originalPriceNote(entry) } }
        : {}),
      network: terms.network,
      asset: terms.asset.address,
      payTo: terms.payTo,
      protocols: protocols.map((protocol) => protocol.name),
      ...channelOffer(entry, context),
    })),
    free: free.map((entry) => ({ ...resource(entry), price: 'free' })),
  }
}

/**
 * The x402 schemes of a paid operation, and with payment channels its `batch-settlement` terms: the channel config
 * it must carry and its first deposit's minimum (at a fixed price; per call otherwise).
 */
function channelOffer(entry: Catalog.Entry, context: Context) {
  const channels = context.channels
  if (!channels?.offered) return { schemes: ['exact'] }
  const { offered: _, minDepositCalls, ...terms } = channels
  return {
    schemes: ['exact', channels.scheme],
    channel: {
      ...terms,
      ...(entry.price.type === 'fixed'
        ? { minDeposit: Price.fromAtomic(Price.quote({ price: entry.price }) * BigInt(minDepositCalls)) }
        : { minDepositCalls }),
    },
  }
}

/** A plain-text guide for agents served at `GET /llms.txt`. */
export function llmsText(context: Context): string {
  const { baseUrl, terms } = context
  const counts = Catalog.counts()
  const lines = [
    `# ${serviceName}`,
    '',
    `> Pay-per-call HTTP gateway for autonomous agents: ${counts.paid} paid and ${counts.free} free endpoints.`,
    '> No API keys. Each paid call carries its own USDC payment; the wallet that signs it is the caller.',
    '',
    '## How to pay',
    `1. Call the endpoint. A paid endpoint answers 402 with every offer at once (network ${terms.network},`,
    `   asset ${terms.asset.address} "${terms.asset.name}" v${terms.asset.version}, payTo ${terms.payTo}):`,
    '   - x402 v2: the PAYMENT-REQUIRED header (base64 JSON); retry with PAYMENT-SIGNATURE.',
    '   - x402 v1: the JSON body (x402Version 1, accepts[]); retry with X-PAYMENT.',
    '   - MPP: the WWW-Authenticate: Payment challenge; retry with Authorization: Payment.',
    '2. The gateway verifies the payment, runs the call, settles only if the call succeeded, and answers with',
    '   PAYMENT-RESPONSE, X-PAYMENT-RESPONSE or Payment-Receipt carrying the transaction hash.',
    '3. A failed call (4xx/5xx) charges nothing. Bad input is refused with 400 before any payment is asked for.',
    '4. Errors are application/problem+json (RFC 9457) with a stable `code`.',
    ...(context.callbacks?.offered ? [`5. ${context.callbacks.description}`] : []),
    '',
    '## Discovery',
    `- Payment manifest: ${baseUrl}/.well-known/x402.json`,
    `- OpenAPI 3.1: ${baseUrl}/openapi.json`,
    `- Overview: ${baseUrl}/`,
    `- Free tier (every free endpoint and its limit): ${baseUrl}/free`,
    '',
  ]
  for (const category of [...new Set(Catalog.entries.map((entry) => entry.category))]) {
    lines.push(`## ${category}`)
    for (const entry of Catalog.entries.filter((candidate) => candidate.category === category))
      lines.push(`- ${Catalog.key(entry)}: ${describe(entry, context)}`)
    lines.push('')
  }
  return lines.join('\n')
}

function operation(entry: Catalog.Entry, context: Context) {
  const availability = context.availability(entry)
  const rule = context.ruleOf(entry)
  const schema = Schema.withInput(Schema.ofEntry(entry), context.inputOf?.(entry))
  const body = withCallback(entry, schema.body, context)
  const parameter = (location: 'query' | 'path') => (field: Schema.Parameter) => ({
    name: field.name,
    in: location,
    required: location === 'path' ? true : field.required,
    schema: field.schema ?? { type: 'string' },
    ...(field.description ? { description: field.description } : {}),
  })
  const paid = !Catalog.isFree(entry)
  const problem = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  })
  return {
    // The module's facts first: they never hide a field of the operation's own.
    ...Object.fromEntries(Object.entries(context.factsOf?.(entry) ?? {}).map(([name, fact]) => [`x-${name}`, fact])),
    operationId: Catalog.operationId(entry),
    tags: entry.tags,
    summary: entry.purpose,
    description: `${priceText(entry.price, rule)} per call.${
      entry.originalPrice ? ` ${originalPriceNote(entry)}` : ''
    }${aliasNote(entry)}${context.reaccess?.(entry) ? ` ${reaccessText}` : ''}${
      availability.available ? '' : ` Unavailable: ${availability.reason}`
    }`,
    ...(entry.aliases ? { 'x-aliases': entry.aliases } : {}),
    parameters: [...schema.path.map(parameter('path')), ...schema.query.map(parameter('query'))],
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses: {
      '200': {
        description: 'Success.',
        content: { 'application/json': { schema: context.outputOf?.(entry) ?? schema.output } },
      },
      '400': problem('Invalid input; nothing was charged.'),
      ...(paid
        ? {
            '402': {
              description:
                'Payment required: x402 v2 offer in the PAYMENT-REQUIRED header, x402 v1 offer in the body, ' +
                'MPP challenge in WWW-Authenticate; or the payment was refused, with the reason.',
              headers: {
                'PAYMENT-REQUIRED': { schema: { type: 'string' }, description: 'Base64 JSON x402 v2 offer.' },
                'WWW-Authenticate': { schema: { type: 'string' }, description: 'MPP Payment challenge.' },
              },
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          }
        : {}),
      ...(availability.available
        ? {}
        : { [availability.code === 'not_implemented' ? '501' : '503']: problem(availability.reason) }),
    },
    ...(paid
      ? {
          // MPP discovery: `offers` as its validator reads them; the rest is ours, which it ignores.
          'x-payment-info': {
            offers: [
              {
                intent: 'charge',
                method: 'evm',
                // A price per request has no amount until the request is known: `null`, as the spec says.
                amount: entry.price.type === 'fixed' ? Price.quote({ price: entry.price }).toString() : null,
                currency: context.terms.asset.address,
                description: entry.purpose,
              },
            ],
            price: priceInfo(entry.price, rule),
            ...(entry.catalogPrice ? { catalogPrice: priceInfo(entry.catalogPrice) } : {}),
            ...(entry.originalPrice ? { originalPrice: priceInfo(entry.originalPrice) } : {}),
            protocols: ['mpp', 'x402'],
          },
        }
      : {}),
    'x-available': availability.available,
  }
}

/**
 * A paid POST operation's body with `callback_url` beside the route's own members, where this gateway delivers
 * callbacks; a route that reads a `callback_url` of its own (a cron job's) keeps its own.
 */
function withCallback(entry: Catalog.Entry, body: Schema.JsonSchema | undefined, context: Context) {
  if (!context.callbacks?.offered || !body || entry.method !== 'POST' || Catalog.isFree(entry)) return body
  const properties = (body.properties as Record<string, Schema.JsonSchema> | undefined) ?? {}
  if (body.type !== 'object' || Object.hasOwn(properties, Callback.field)) return body
  return { ...body, properties: { ...properties, [Callback.field]: Callback.property } }
}

/** A price as discovery documents state it; a price per request with its rule shows the bounds and the rule. */
function priceInfo(price: Price.Price, rule?: Price.Rule) {
  const ruled = rule && (price.type === 'range' || price.type === 'varies') ? Price.boundsOf(price, rule) : undefined
  switch (price.type) {
    case 'fixed':
      return { mode: 'fixed', amount: price.amount, currency: 'USD' }
    case 'range':
      return {
        mode: 'range',
        minAmount: price.min,
        maxAmount: price.max,
        currency: 'USD',
        ...(rule ? { rule: rule.description } : {}),
      }
    case 'varies':
      return {
        mode: 'varies',
        ...(ruled ? { minAmount: Price.fromAtomic(ruled.min), maxAmount: Price.fromAtomic(ruled.max) } : {}),
        currency: 'USD',
        ...(rule ? { rule: rule.description } : {}),
      }
    case 'free':
      return { mode: 'free', currency: 'USD' }
  }
}

/** A price for people: as stated, and for a price per request with a rule, the bounds and the rule. */
function priceText(price: Price.Price, rule: Price.Rule | undefined): string {
  if (!rule || (price.type !== 'range' && price.type !== 'varies')) return Price.toText(price)
  const { min, max } = Price.boundsOf(price, rule)
  return `$${Price.fromAtomic(min)}-$${Price.fromAtomic(max)} by request (${rule.description})`
}

function describe(entry: Catalog.Entry, context: Context): string {
  const availability = context.availability(entry)
  const catalogPrice = entry.catalogPrice ? ` (catalog: ${Price.toText(entry.catalogPrice)})` : ''
  const unavailable = availability.available ? '' : ` [unavailable: ${availability.code}]`
  const notes = `${aliasNote(entry)}${entry.originalPrice ? ` ${originalPriceNote(entry)}` : ''}`
  return `${priceText(entry.price, context.ruleOf(entry))}${catalogPrice} - ${entry.purpose}${notes ? `.${notes}` : ''}${unavailable}`
}

/** What discovery says of an entry's aliases: the original gateway's paths that answer as its own. */
export function aliasNote(entry: Catalog.Entry): string {
  if (!entry.aliases) return ''
  return ` Also at ${entry.aliases.join(', ')} (the original gateway's path; same call, price and payment).`
}

/** What discovery says of a price the original gateway states otherwise: the spec's price stands. */
function originalPriceNote(entry: Catalog.Entry): string {
  return (
    `The original gateway charged ${Price.toText(entry.originalPrice!)}; this gateway charges the interface's ` +
    `stated ${Price.toText(entry.price)}.`
  )
}

function counts() {
  return { computed: Catalog.counts(), stated: Catalog.stated }
}

/** The MPP discovery categories of the service (at most 5, from the spec's suggested list). */
const categories = ['data', 'compute', 'search', 'storage', 'developer-tools']

/** What an operation's description says of re-access by signing in. */
const reaccessText =
  'Whoever paid for this very call (method, path and query, at this price) or owns what it names re-reads it ' +
  'without paying again, by signing the `sign-in-with-x` challenge of the 402 (SIGN-IN-WITH-X header).'

function serviceInfo(context: Context) {
  return {
    categories,
    docs: {
      apiReference: `${context.baseUrl}/openapi.json`,
      homepage: `${context.baseUrl}/`,
      llms: `${context.baseUrl}/llms.txt`,
    },
    name: serviceName,
    overviewVersion: Catalog.overviewVersion,
    machineDescriptionVersion: Catalog.machineDescriptionVersion,
    network: context.terms.network,
    asset: context.terms.asset,
    payTo: context.terms.payTo,
    protocols,
    counts: counts(),
    links: { manifest: `${context.baseUrl}/.well-known/x402.json`, llms: `${context.baseUrl}/llms.txt` },
  }
}
