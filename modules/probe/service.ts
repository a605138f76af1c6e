import { decodePaymentRequiredHeader } from '@x402/core/http'
import {
  PaymentRequiredV1Schema,
  PaymentRequiredV2Schema,
  PaymentRequirementsV1Schema,
  PaymentRequirementsV2Schema,
} from '@x402/core/schemas'
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1'
import { Challenge } from 'mppx'
import { PaymentInfo, validate as validateDiscovery } from 'mppx/discovery'
import { formatUnits } from 'viem'
import * as Outbound from '../../core/Outbound.js'
import * as TokenList from '../../core/TokenList.js'
import type { X402CheckBody } from './schema.js'

/** What the probe needs from outside. */
export type Deps = {
  /** The guard every request to the caller's URL goes through. */
  outbound: Outbound.Guard
  /** Time limit of each request, in ms. */
  timeoutMs: number
  /** Largest answer body read from each request, in bytes. */
  maxBytes: number
  /** Current time (MPP challenge expiry). @default the system clock */
  now?: (() => Date) | undefined
}

/** A payment protocol a 402 answer speaks. */
export type Protocol = 'x402-v2' | 'x402-v1' | 'mpp'

/** One way to pay found in a 402 answer. */
export type Offer = {
  /** The protocol of the offer. */
  protocol: Protocol
  /** Where in the answer it was found, e.g. `PAYMENT-REQUIRED header accepts[0]`. */
  where: string
  /** x402 scheme (`exact`, `upto`, ...) or MPP intent (`charge`, `session`, ...). */
  scheme: string
  /** MPP payment method (`evm`, `tempo`, ...); absent for x402. */
  method?: string | undefined
  /** CAIP-2 network (an x402 v1 network name turned into one where the x402 SDK knows it), as stated otherwise. */
  network: string | undefined
  /** Asset (token contract or currency code) the price is in. */
  asset: string | undefined
  /** Who is paid. */
  payTo: string | undefined
  /** Price in the asset's atomic units, as stated. */
  amount: string | undefined
  /** Decimals of the asset, where the offer, the well-known manifest or our token list states them. */
  decimals?: number | undefined
  /** The price in whole units of the asset, where its decimals are known. */
  formatted?: string | undefined
}

/** Something the target publishes that does not parse or breaks its protocol's schema. */
export type Issue = {
  /** Which answer, header or field. */
  where: string
  /** What is wrong, in the parser's words where a parser found it. */
  why: string
}

/** How one of the probe's requests went. */
export type Answer = {
  /** The URL requested. */
  url: string
  /** Its HTTP status; `null` when no answer arrived (refused, unreachable, timed out, too large). */
  status: number | null
  /** Why no answer arrived. */
  error?: string | undefined
}

/** Paths of the discovery documents searched at the URL's origin. */
const documents = {
  wellKnown: '/.well-known/x402.json',
  openapi: '/openapi.json',
  llms: '/llms.txt',
} as const

/** Most paid operations of an OpenAPI document listed in a report. */
const maxOperations = 500

/** What `llms.txt` is searched for, by the name a report gives it. */
const llmsMentions: Record<string, RegExp> = {
  x402: /x402/i,
  mpp: /\bMPP\b|WWW-Authenticate:\s*Payment/i,
  'PAYMENT-REQUIRED': /PAYMENT-REQUIRED/i,
  '/.well-known/x402.json': /\.well-known\/x402\.json/i,
  '/openapi.json': /openapi\.json/i,
}

/**
 * Probes a URL for paid access: requests it (expecting a 402) and its origin's `/.well-known/x402.json`,
 * `/openapi.json` and `/llms.txt`, all through the outbound guard, and reports the protocols, offers (prices,
 * networks, assets, payees) and discovery documents found, and what is malformed or missing, each with where and why.
 * A URL the guard refuses is a 400 naming `url`, before anything is sent.
 */
export async function check(deps: Deps, body: X402CheckBody) {
  const allowed = await deps.outbound.check(body.url)
  if (!allowed.ok) throw Outbound.toError(allowed, { field: 'url' })
  const url = new URL(allowed.url)
  const report = new Report()

  const get = (target: string, accept: string) =>
    deps.outbound.fetch(target, { headers: { accept }, timeoutMs: deps.timeoutMs, maxBytes: deps.maxBytes })
  const at = (path: string) => new URL(path, url.origin).href
  const [probed, wellKnown, openapi, llms] = await Promise.all([
    get(url.href, 'application/json'),
    get(at(documents.wellKnown), 'application/json'),
    get(at(documents.openapi), 'application/json'),
    get(at(documents.llms), 'text/plain, text/markdown'),
  ])

  const discovery = {
    wellKnown: readWellKnown(report, at(documents.wellKnown), wellKnown),
    openapi: readOpenapi(report, at(documents.openapi), openapi),
    llmsTxt: readLlms(report, at(documents.llms), llms),
  }
  const response = readPaymentRequired(report, url.href, probed, (deps.now ?? (() => new Date()))())
  report.formatPrices()
  const unique = (pick: (offer: Offer) => string | undefined) => [
    ...new Set(report.offers.map(pick).filter((value) => value !== undefined)),
  ]
  return {
    url: url.href,
    // The original gateway's names: the URL's HTTP status (null with no answer), and whether it asked for payment.
    status: response.status,
    x402: response.paymentRequired,
    response,
    protocols: [...new Set(report.offers.map((offer) => offer.protocol).concat(report.protocols))],
    offers: report.offers,
    networks: unique((offer) => offer.network),
    assets: unique((offer) => offer.asset),
    payees: unique((offer) => offer.payTo),
    discovery,
    malformed: report.malformed,
    missing: report.missing,
  }
}

/** What one probe has found so far. */
class Report {
  /** Offers of the 402 answer. */
  readonly offers: Offer[] = []
  /** Protocols a 402 answer speaks though none of its offers could be read. */
  readonly protocols: Protocol[] = []
  /** What does not parse. */
  readonly malformed: Issue[] = []
  /** What the target does not publish. */
  readonly missing: Issue[] = []
  /** Decimals of assets stated anywhere, by `network|asset` (lowercase) and by asset alone. */
  readonly decimals = new Map<string, number>()

  /** Records something malformed. */
  fault(where: string, why: string) {
    this.malformed.push({ where, why })
  }

  /** Records the decimals of an asset some document states. */
  learn(network: string | undefined, asset: string | undefined, decimals: unknown) {
    if (asset === undefined || !isDecimals(decimals)) return
    this.decimals.set(`${network ?? ''}|${asset.toLowerCase()}`, decimals)
    this.decimals.set(`|${asset.toLowerCase()}`, decimals)
  }

  /** Sets every offer's decimals (the offer's own, else a document's, else our token list) and formatted price. */
  formatPrices() {
    for (const offer of this.offers) {
      if (offer.asset === undefined) continue
      const asset = offer.asset.toLowerCase()
      const decimals =
        offer.decimals ??
        this.decimals.get(`${offer.network ?? ''}|${asset}`) ??
        listedDecimals(offer.network, asset) ??
        this.decimals.get(`|${asset}`)
      if (decimals === undefined) continue
      offer.decimals = decimals
      if (offer.amount !== undefined && /^[0-9]{1,78}$/.test(offer.amount))
        offer.formatted = formatUnits(BigInt(offer.amount), decimals)
    }
  }
}

/** Decimals of a token of our curated lists (Base and Ethereum mainnet), by CAIP-2 network and address. */
function listedDecimals(network: string | undefined, asset: string): number | undefined {
  const chainId = /^eip155:([0-9]{1,12})$/.exec(network ?? '')?.[1]
  if (chainId === undefined) return undefined
  // Only the mainnets: any other chain id would read as the embedded devnet's list, which says nothing of it.
  const list = TokenList.of('', Number(chainId))
  return list.find((token) => token.address.toLowerCase() === asset)?.decimals
}

function isDecimals(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 77
}

/** The 402 answer of the URL: its x402 v2 header, x402 v1 body and MPP challenges. */
function readPaymentRequired(report: Report, url: string, fetched: Outbound.Fetched | Outbound.Refusal, now: Date) {
  const where = new URL(url).pathname
  if (!fetched.ok) {
    report.missing.push({ where, why: `no answer: ${fetched.message}` })
    return { ...summary(url, fetched), paymentRequired: false }
  }
  if (fetched.status !== 402) {
    report.missing.push({ where, why: `answered ${fetched.status}, not 402 Payment Required` })
    return { ...summary(url, fetched), paymentRequired: false }
  }
  const header = fetched.headers['payment-required']
  if (header !== undefined) readV2Header(report, header)
  readV1Body(report, fetched)
  const challenges = fetched.headers['www-authenticate']
  if (challenges !== undefined) readMpp(report, challenges, now)
  if (report.offers.length === 0 && report.protocols.length === 0)
    report.missing.push({
      where,
      why: 'answered 402 with no PAYMENT-REQUIRED header, no x402 v1 body and no WWW-Authenticate: Payment challenge',
    })
  return { ...summary(url, fetched), paymentRequired: true }
}

/** x402 v2: the base64 JSON `PAYMENT-REQUIRED` header, decoded by @x402/core and checked against its schema. */
function readV2Header(report: Report, header: string) {
  const where = 'PAYMENT-REQUIRED header'
  let decoded: unknown
  try {
    decoded = decodePaymentRequiredHeader(header)
  } catch (error) {
    report.fault(where, `not base64-encoded JSON: ${messageOf(error)}`)
    return
  }
  report.protocols.push('x402-v2')
  const parsed = PaymentRequiredV2Schema.safeParse(decoded)
  if (!parsed.success) for (const issue of parsed.error.issues) report.fault(at(where, issue.path), issue.message)
  for (const [index, entry] of arrayAt(decoded, 'accepts').entries()) {
    const requirements = PaymentRequirementsV2Schema.safeParse(entry)
    if (!requirements.success) continue
    const { scheme, network, asset, payTo, amount, extra } = requirements.data
    report.offers.push({
      protocol: 'x402-v2',
      where: `${where} accepts[${index}]`,
      scheme,
      network,
      asset,
      payTo,
      amount,
    })
    report.learn(network, asset, extra?.decimals)
  }
}

/** x402 v1: a JSON 402 body with `x402Version: 1` and `accepts[]`, checked against @x402/core's v1 schema. */
function readV1Body(report: Report, fetched: Outbound.Fetched) {
  const where = '402 body'
  const text = new TextDecoder().decode(fetched.body)
  const looksJson = /json/i.test(fetched.headers['content-type'] ?? '') || /^\s*[{[]/.test(text)
  if (!looksJson) return
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    report.fault(where, `declared or shaped as JSON but does not parse: ${messageOf(error)}`)
    return
  }
  if (!isObject(body) || body.x402Version !== 1) return
  report.protocols.push('x402-v1')
  const parsed = PaymentRequiredV1Schema.safeParse(body)
  if (!parsed.success) for (const issue of parsed.error.issues) report.fault(at(where, issue.path), issue.message)
  for (const [index, entry] of arrayAt(body, 'accepts').entries()) {
    const requirements = PaymentRequirementsV1Schema.safeParse(entry)
    if (!requirements.success) continue
    const { scheme, network, asset, payTo, maxAmountRequired, extra } = requirements.data
    const caip2 = v1Network(network)
    report.offers.push({
      protocol: 'x402-v1',
      where: `${where} accepts[${index}]`,
      scheme,
      network: caip2,
      asset,
      payTo,
      amount: maxAmountRequired,
    })
    report.learn(caip2, asset, extra?.decimals)
  }
}

/** The CAIP-2 id of an x402 v1 network name, from the x402 SDK's table; the name itself when the table lacks it. */
function v1Network(name: string): string {
  const chainId = (EVM_NETWORK_CHAIN_ID_MAP as Record<string, number | undefined>)[name]
  return chainId === undefined ? name : `eip155:${chainId}`
}

/** MPP: the `WWW-Authenticate: Payment` challenges, parsed by mppx. */
function readMpp(report: Report, header: string, now: Date) {
  const where = 'WWW-Authenticate header'
  let challenges: Challenge.Challenge[]
  try {
    challenges = Challenge.deserializeList(header)
  } catch (error) {
    // mppx refuses a header with no Payment scheme at all: another scheme (Bearer, Basic) is no MPP, nothing wrong.
    if (!/payment/i.test(header)) return
    report.protocols.push('mpp')
    report.fault(where, `Payment challenge does not parse: ${messageOf(error)}`)
    return
  }
  for (const [index, challenge] of challenges.entries()) {
    const place = `${where} Payment challenge ${index} (id ${challenge.id.slice(0, 32)})`
    const { request } = challenge
    const details = isObject(request.methodDetails) ? request.methodDetails : {}
    const amount = stringAt(request, 'amount')
    const currency = stringAt(request, 'currency')
    const recipient = stringAt(request, 'recipient')
    const chainId = details.chainId ?? request.chainId
    const network =
      typeof chainId === 'number' || (typeof chainId === 'string' && /^[0-9]+$/.test(chainId))
        ? `eip155:${chainId}`
        : undefined
    if (amount === undefined || !/^[0-9]{1,78}$/.test(amount))
      report.fault(`${place} request.amount`, 'must be a whole number of atomic units, as a string')
    if (currency === undefined) report.fault(`${place} request.currency`, 'missing')
    if (challenge.intent === 'charge' && recipient === undefined)
      report.fault(`${place} request.recipient`, 'missing (a charge names who is paid)')
    if (challenge.expires !== undefined && new Date(challenge.expires).getTime() <= now.getTime())
      report.fault(`${place} expires`, `expired at ${challenge.expires}`)
    const decimals = details.decimals ?? request.decimals
    report.offers.push({
      protocol: 'mpp',
      where: place,
      scheme: challenge.intent,
      method: challenge.method,
      network,
      asset: currency,
      payTo: recipient,
      amount,
      ...(isDecimals(decimals) ? { decimals } : {}),
    })
  }
}

/** `/.well-known/x402.json`: any JSON object; its networks, assets, payees and asset decimals are gathered. */
function readWellKnown(report: Report, url: string, fetched: Outbound.Fetched | Outbound.Refusal) {
  const document = readJson(report, documents.wellKnown, fetched)
  if (document === undefined) return { ...summary(url, fetched), found: false }
  const entries = [document, ...arrayAt(document, 'resources'), ...arrayAt(document, 'items')].filter(isObject)
  const offers = entries.flatMap((entry) => [entry, ...arrayAt(entry, 'accepts').filter(isObject)])
  const networks = new Set<string>()
  const assets = new Set<string>()
  const payees = new Set<string>()
  for (const offer of offers) {
    const network = stringAt(offer, 'network')
    const asset = isObject(offer.asset) ? stringAt(offer.asset, 'address') : stringAt(offer, 'asset')
    const payTo = stringAt(offer, 'payTo')
    if (network !== undefined) networks.add(network)
    if (asset !== undefined) assets.add(asset)
    if (payTo !== undefined) payees.add(payTo)
    if (isObject(offer.asset)) report.learn(network, asset, offer.asset.decimals)
  }
  return {
    ...summary(url, fetched),
    found: true,
    x402Version: document.x402Version ?? null,
    resources: arrayAt(document, 'resources').length + arrayAt(document, 'items').length,
    networks: [...networks],
    assets: [...assets],
    payees: [...payees],
  }
}

/** `/openapi.json`: checked with mppx's discovery validator; its operations' `x-payment-info` listed. */
function readOpenapi(report: Report, url: string, fetched: Outbound.Fetched | Outbound.Refusal) {
  const document = readJson(report, documents.openapi, fetched)
  if (document === undefined) return { ...summary(url, fetched), found: false }
  for (const issue of validateDiscovery(document))
    if (issue.severity === 'error') report.fault(`${documents.openapi} ${issue.path}`, issue.message)
  const operations: { method: string; path: string; paymentInfo: unknown }[] = []
  const paths = isObject(document.paths) ? document.paths : {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || operation['x-payment-info'] === undefined) continue
      const parsed = PaymentInfo.safeParse(operation['x-payment-info'])
      operations.push({
        method: method.toUpperCase(),
        path,
        paymentInfo: parsed.success ? parsed.data : operation['x-payment-info'],
      })
    }
  }
  if (operations.length === 0)
    report.missing.push({ where: documents.openapi, why: 'no operation carries x-payment-info' })
  return {
    ...summary(url, fetched),
    found: true,
    paidOperations: operations.length,
    operations: operations.slice(0, maxOperations),
  }
}

/** `/llms.txt`: found or not, its title and which payment terms it mentions. */
function readLlms(report: Report, url: string, fetched: Outbound.Fetched | Outbound.Refusal) {
  if (!fetched.ok || fetched.status !== 200) {
    report.missing.push({ where: documents.llms, why: absence(fetched) })
    return { ...summary(url, fetched), found: false }
  }
  const text = new TextDecoder().decode(fetched.body)
  const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim()
  return {
    ...summary(url, fetched),
    found: true,
    bytes: fetched.body.length,
    title: title ?? null,
    mentions: Object.keys(llmsMentions).filter((name) => llmsMentions[name]!.test(text)),
  }
}

/** A discovery document's JSON object, or `undefined` after recording why there is none. */
function readJson(
  report: Report,
  where: string,
  fetched: Outbound.Fetched | Outbound.Refusal,
): Record<string, unknown> | undefined {
  if (!fetched.ok || fetched.status !== 200) {
    report.missing.push({ where, why: absence(fetched) })
    return undefined
  }
  let document: unknown
  try {
    document = JSON.parse(new TextDecoder().decode(fetched.body))
  } catch (error) {
    report.fault(where, `not JSON: ${messageOf(error)}`)
    return undefined
  }
  if (!isObject(document)) {
    report.fault(where, 'not a JSON object')
    return undefined
  }
  return document
}

function absence(fetched: Outbound.Fetched | Outbound.Refusal): string {
  return fetched.ok ? `answered ${fetched.status}` : `no answer: ${fetched.message}`
}

function summary(url: string, fetched: Outbound.Fetched | Outbound.Refusal): Answer {
  return fetched.ok ? { url, status: fetched.status } : { url, status: null, error: fetched.message }
}

/** `where` followed by a schema issue's path, e.g. `PAYMENT-REQUIRED header accepts[0].payTo`. */
function at(where: string, path: readonly (string | number)[]): string {
  if (path.length === 0) return where
  const text = path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')
  return `${where} ${text.replace(/^\./, '')}`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function arrayAt(value: unknown, key: string): unknown[] {
  const field = isObject(value) ? value[key] : undefined
  return Array.isArray(field) ? field : []
}

function stringAt(value: Record<string, unknown>, key: string): string | undefined {
  const field = value[key]
  return typeof field === 'string' ? field : undefined
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200)
}
