import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { LocalAccount } from 'viem'
import { priceTextOf, type ManifestResource as Resource } from '../client/manifest.js'
import * as Catalog from '../core/Catalog.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import * as Price from '../core/Price.js'
import { clients } from './clients.js'
import { aliasNote } from './discovery/documents.js'
import * as Schema from './discovery/schema.js'

/** The parts of the payment manifest the MCP server reads. */
type Manifest = PaymentTerms & {
  resources: Resource[]
  free: Resource[]
}

/** What a paid call reports about its payment. */
export type Receipt = {
  /** Settlement transaction hash. */
  transaction: string
  /** Amount paid, in atomic USDC units. */
  amount: string
  /** Amount paid, in USD. */
  amountUsd: string
  /** CAIP-2 network it settled on. */
  network: string
  /** Address that paid. */
  payer: string
}

/**
 * An MCP server (the SDK's low-level `Server`) whose tools are the gateway's catalog entries that are available now:
 * each tool's input schema comes from its catalog entry (path and query parameters, and `body`), its description is the
 * entry's purpose and price. Paid tools pay with the official x402 client from `payer`, refused before anything is
 * signed when the amount exceeds `maxPerCall` or what is left of `sessionBudget`; their results carry the receipt.
 * Availability is read from the gateway's manifest at every listing and every `refreshMs`; when it changes, the server
 * sends `notifications/tools/list_changed`. One server is one session: its budget is its own.
 */
export function mcpServer(parameters: mcpServer.Parameters): mcpServer.ReturnType {
  const { gateway, fetch, payer, maxPerCall, sessionBudget, refreshMs = 10_000 } = parameters
  const base = gateway.replace(/\/+$/, '')
  const server = new Server(
    { name: 'agent-pay-gateway', version: Catalog.overviewVersion },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Every tool is one operation of a pay-per-call gateway. Paid tools pay in USDC with x402 from the wallet this ' +
        `server is configured with, at most $${Price.fromAtomic(maxPerCall)} per call and ` +
        `$${Price.fromAtomic(sessionBudget)} per session; each paid result carries its receipt.`,
    },
  )
  let spent = 0n
  let reserved = 0n
  let offered: string | undefined
  let manifest: Manifest | undefined

  async function readManifest(): Promise<Manifest> {
    const response = await fetch(`${base}/.well-known/x402.json`)
    if (!response.ok) throw new Error(`The gateway's manifest answered HTTP ${response.status}.`)
    manifest = (await response.json()) as Manifest
    return manifest
  }

  /** Every available entry with what the manifest says of it, by tool name. */
  async function available(): Promise<Map<string, { entry: Catalog.Entry; resource: Resource }>> {
    const read = await readManifest()
    const tools = new Map<string, { entry: Catalog.Entry; resource: Resource }>()
    for (const resource of [...read.resources, ...read.free]) {
      const entry = Catalog.find(resource.method, resource.path)
      if (entry && resource.available) tools.set(Catalog.operationId(entry), { entry, resource })
    }
    const names = [...tools.keys()].sort().join(',')
    // The first listing sets what was offered; a later change is announced.
    if (offered !== undefined && names !== offered) await server.sendToolListChanged().catch(() => undefined)
    offered = names
    return tools
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...(await available()).values()].map(({ entry, resource }) => toTool(entry, resource)),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tools = await available()
    const tool = tools.get(request.params.name)
    if (!tool) return failure(`No tool ${request.params.name} is available on this gateway now.`)
    const { entry } = tool
    const input = (request.params.arguments ?? {}) as Record<string, unknown>
    const url = urlOf(base, entry, input)
    const init: RequestInit = { method: entry.method }
    if (entry.method !== 'GET' && input.body !== undefined) {
      init.headers = { 'content-type': 'application/json' }
      init.body = JSON.stringify(input.body)
    }
    if (Catalog.isFree(entry)) return answer(await fetch(url, init), undefined)
    if (!payer) return failure(`${Catalog.key(entry)} is paid, and this MCP server has no wallet: set MCP_PRIVATE_KEY.`)

    // The hook runs after the 402 and before anything is signed: the one place the amount is known and nothing spent.
    let amount: bigint | undefined
    let refusal: string | undefined
    const paying = clients({
      terms: manifest!,
      fetch,
      // The client's own cap is the wider bound; the hook refuses with the reason.
      maxAtomicPerPayment: maxPerCall > sessionBudget ? maxPerCall : sessionBudget,
    }).x402(payer, {
      beforePayment: (asked) => {
        if (asked > maxPerCall)
          refusal = `${Catalog.key(entry)} asks $${Price.fromAtomic(asked)}, above the per-call cap of $${Price.fromAtomic(maxPerCall)}; nothing was signed.`
        else if (spent + reserved + asked > sessionBudget)
          refusal =
            `${Catalog.key(entry)} asks $${Price.fromAtomic(asked)}; this session has spent $${Price.fromAtomic(spent)} ` +
            `of its $${Price.fromAtomic(sessionBudget)} budget${reserved > 0n ? ` with $${Price.fromAtomic(reserved)} in flight` : ''}; nothing was signed.`
        if (refusal) return refusal
        amount = asked
        reserved += asked
        return undefined
      },
    })
    try {
      const response = await paying(url, init)
      const header = response.headers.get('payment-response')
      const settled = header && response.ok ? decodePaymentResponseHeader(header) : undefined
      if (settled?.success && amount !== undefined) spent += amount
      return answer(
        response,
        settled?.success && amount !== undefined
          ? {
              transaction: settled.transaction,
              amount: amount.toString(),
              amountUsd: Price.fromAtomic(amount),
              network: settled.network,
              payer: settled.payer ?? payer.address,
            }
          : undefined,
      )
    } catch (error) {
      if (refusal) return failure(refusal)
      return failure(`The call could not be paid: ${error instanceof Error ? error.message : 'unknown error'}.`)
    } finally {
      if (amount !== undefined) reserved -= amount
    }
  })

  const timer = refreshMs > 0 ? setInterval(() => void available().catch(() => undefined), refreshMs) : undefined
  timer?.unref?.()
  server.onclose = () => clearInterval(timer)

  return {
    server,
    spent: () => spent,
    refresh: async () => {
      await available()
    },
  }
}

export declare namespace mcpServer {
  type Parameters = {
    /** Base URL of the gateway, e.g. `http://127.0.0.1:3402`. */
    gateway: string
    /** Transport to the gateway. */
    fetch: typeof globalThis.fetch
    /** Wallet that pays paid tools; absent: paid tools are refused. */
    payer: LocalAccount | undefined
    /** Most one call may pay, in atomic USDC. */
    maxPerCall: bigint
    /** Most this session may pay in all, in atomic USDC. */
    sessionBudget: bigint
    /** How often availability is read again, in ms; 0: only when tools are listed or called. @default 10_000 */
    refreshMs?: number
  }
  type ReturnType = {
    /** The MCP server; connect it to a transport. */
    server: Server
    /** What this session has paid, in atomic USDC. */
    spent: () => bigint
    /** Reads availability now, announcing a change. */
    refresh: () => Promise<void>
  }
}

/** The MCP tool of a catalog entry. */
export function toTool(entry: Catalog.Entry, resource: Resource): Tool {
  const schema = Schema.ofEntry(entry)
  const properties: Record<string, object> = {}
  const required: string[] = []
  for (const field of [...schema.path, ...schema.query]) {
    properties[field.name] = Schema.fromField(field)
    if (field.required || field.in === 'path') required.push(field.name)
  }
  if (schema.body) {
    properties.body = { ...schema.body, description: 'JSON body of the request.' }
    required.push('body')
  }
  return {
    name: Catalog.operationId(entry),
    title: Catalog.key(entry),
    description: `${entry.purpose.replace(/\.?$/, '.')} Price: ${
      resource.price === 'free' ? 'free' : `${priceTextOf(resource)} USDC per call, paid with x402`
    }.${aliasNote(entry)}`,
    inputSchema: { type: 'object', properties, required },
    annotations: { readOnlyHint: entry.method === 'GET', openWorldHint: true },
  }
}

/** The URL of a call: path parameters put in, query parameters added. */
function urlOf(base: string, entry: Catalog.Entry, input: Record<string, unknown>): string {
  const path = entry.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(String(input[name] ?? '')))
  const url = new URL(`${base}${path}`)
  for (const field of Schema.ofEntry(entry).query)
    if (input[field.name] !== undefined) url.searchParams.set(field.name, String(input[field.name]))
  return url.href
}

async function answer(response: Response, receipt: Receipt | undefined): Promise<CallToolResult> {
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  return {
    content: [
      { type: 'text', text },
      ...(receipt ? [{ type: 'text' as const, text: `receipt: ${JSON.stringify(receipt)}` }] : []),
    ],
    structuredContent: { status: response.status, body, ...(receipt ? { receipt } : {}) },
    isError: !response.ok,
  }
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}
