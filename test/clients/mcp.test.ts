import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader } from '@x402/core/http'
import axios, { type AxiosInstance, type AxiosResponse } from 'axios'
import { createPublicClient, createWalletClient, type Hex, http } from 'viem'
import { base } from 'viem/chains'
import * as Catalog from '../../core/Catalog.js'
import { payingAxios, replayGateway } from './gateway.js'
import { type Tool, tools } from './mcp-tools.js'

// The original gateway's MCP server, replayed: every tool's request as its handler builds it (./mcp-tools.ts), sent
// through @x402/axios as the server sends it, paid from its wallet on the devnet. Each answers 2xx with the original's
// core answer fields, or, where its vendor's key is missing here, a 503 before any payment; a request the original
// refuses too (its handler cited) is a 400 before payment naming the field.

let replay: Awaited<ReturnType<typeof replayGateway>>
let api: AxiosInstance
/** The replay's `{name}` values, and those kept from answers. */
const values: Record<string, unknown> = {}

beforeAll(async () => {
  replay = await replayGateway()
  Object.assign(values, replay.values)
  // As the MCP server's createPaymentClient builds it. Its signer spreads a wallet client, which has no `address`,
  // so @x402/evm 2.27 (what its ^2.5.0 resolves to) cannot sign an authorization from it; here the signer carries the
  // account's address beside the same wallet client. Nothing here reads a chain: the transports are never called.
  const unused = http('http://127.0.0.1:9')
  const walletClient = createWalletClient({ account: replay.payer, chain: base, transport: unused })
  const publicClient = createPublicClient({ chain: base, transport: unused })
  api = payingAxios(replay.url, {
    ...walletClient,
    address: replay.payer.address,
    readContract: publicClient.readContract,
  })
})
afterAll(async () => {
  await replay?.close()
})

/** `value` with every `{name}` filled in: a whole-string `{name}` becomes the value itself (an array, an object). */
function fill<value>(value: value): value {
  const named = (name: string) => {
    if (values[name] === undefined) throw new Error(`No value for {${name}}: the tool that keeps it did not answer`)
    return values[name]
  }
  if (typeof value === 'string') {
    const whole = /^\{(\w+)\}$/.exec(value)
    if (whole) return named(whole[1]!) as value
    return value.replace(/\{(\w+)\}/g, (_, name: string) => String(named(name))) as value
  }
  if (Array.isArray(value)) return value.map(fill) as value
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)])) as value
  return value
}

/** The value at a dotted path (`items.0.id`). */
function at(answer: unknown, path: string): unknown {
  return path.split('.').reduce<any>((node, key) => (node == null ? undefined : node[key]), answer)
}

/** Sends the tool's request as its handler does; an error status is the answer, as the server's catch reads it. */
async function send(tool: Tool): Promise<AxiosResponse> {
  try {
    return await api.request({
      method: tool.method,
      url: fill(tool.path),
      params: fill(tool.query),
      data: fill(tool.body),
    })
  } catch (error) {
    if (axios.isAxiosError(error) && error.response) return error.response
    throw error
  }
}

/** The catalog entry of a concrete path (an alias, or a path with its identifier filled in), if it has one. */
function entryOf(method: string, path: string): Catalog.Entry | undefined {
  const canonical = Catalog.canonicalPath(path) ?? path
  return Catalog.entries.find(
    (candidate) =>
      candidate.method === method && new RegExp(`^${candidate.path.replace(/:\w+/g, '[^/]+')}$`).test(canonical),
  )
}

/** Whether the request that got this answer carried a payment. */
const paid = (response: AxiosResponse) => response.config.headers.has('PAYMENT-SIGNATURE')

/**
 * The answer to a request the gateway wants signed before it acts (robot writes by their operator, session keys by the
 * wallet's owner): the signer, one of the replay's wallets (the operator named, else the payer), signs the EIP-712
 * typed data and the request is sent again with the signature, as the answer says to do. Any other answer is itself.
 */
async function signedIfAsked(tool: Tool, response: AxiosResponse): Promise<AxiosResponse> {
  if (response.data?.status !== 'signature_required') return response
  const { operator = replay.payer.address, typedData } = response.data
  const key = [1, 2, 3].map((index) => replay.gateway.account(index)).find((account) => account.address === operator)
  if (!key) throw new Error(`${operator} is not a wallet of the replay`)
  // JSON carries the integers as strings (or numbers); the signer takes them as the types declare them.
  const fields: { name: string; type: string }[] = typedData.types[typedData.primaryType]
  const message = Object.fromEntries(
    fields.map(({ name, type }) => {
      const value = typedData.message[name]
      if (!/^u?int\d*(\[\])?$/.test(type)) return [name, value]
      return [name, Array.isArray(value) ? value.map(BigInt) : BigInt(value)]
    }),
  )
  const signature = await key.signTypedData({ ...typedData, message })
  // The request to send again: the one the answer gives, else the one sent.
  const again = response.data.request ?? response.data.next?.body ?? fill(tool.body)
  return send({ ...tool, body: { ...again, signature } })
}

/** What an agent does between tools with the answer of one: here, sign and send the deposits escrows ask of their depositor. */
const afterwards: Record<string, (answer: any) => Promise<void>> = {
  // The robot's task is paid into its escrow; the operator can then complete it.
  spraay_robots_task: deposit,
  // The transfer it answers is signed and sent, then credited by its hash, as the answer's afterDeposit says.
  async spraay_compute_futures_deposit(answer) {
    const hash = await sendSigned(answer.transactions[0])
    const credited = await api.post('/api/v1/compute-futures/deposit', { transaction: hash })
    expect(credited.data).toMatchObject({ credited: '25.000000', address: replay.payer.address })
  },
  // Its tool cannot make a purchase order (the original refuses its lineItems too, wanting items and total): one is
  // made through the HTTP API as the original takes it, for the tools that read it.
  async spraay_sctp_po() {
    const made = await api.post('/api/v1/sctp/po', { supplierId: values.supplierId, ...bearings, currency: 'USDC' })
    values.poId = made.data.poId
  },
  // Nor an invoice (the original wants items and total there too): the supplier submits one the same way.
  async spraay_sctp_invoice() {
    const made = await api.post('/api/v1/sctp/invoice', {
      poId: values.poId,
      supplierId: values.supplierId,
      ...bearings,
      currency: 'USDC',
    })
    values.sctpInvoiceId = made.data.invoiceId
  },
  // The first escrow is deposited and funded; a second, made the same way, is funded too, for the cancel.
  async spraay_escrow_fund(answer) {
    expect(answer.status).toBe('awaiting_deposit')
    await deposit(answer)
    const funded = await send(escrowTool('spraay_escrow_fund'))
    expect(funded.data.escrow.status).toBe('active')
    const created = await send(escrowTool('spraay_escrow_create'))
    values.cancelledEscrowId = created.data.escrow.id
    const second = await send({ ...escrowTool('spraay_escrow_fund'), body: { escrowId: created.data.escrow.id } })
    expect(second.data.status).toBe('awaiting_deposit')
    await deposit(second.data)
    const fundedSecond = await send({ ...escrowTool('spraay_escrow_fund'), body: { escrowId: created.data.escrow.id } })
    expect(fundedSecond.data.escrow.status).toBe('active')
  },
}

/** The escrow tool named. */
const escrowTool = (name: string) => tools.find((tool) => tool.name === name)!

/** The items of the purchase order and invoice made through the API: 10 bearings at 2.50 USDC, as the tool's lineItems. */
const bearings = { items: [{ description: 'Bearings', quantity: 10, unitPrice: '2.50' }], total: '25' }

/** Sends, from the payer's wallet, a transaction an answer gives to sign, and waits for it; its hash. */
async function sendSigned({ to, data }: { to: Hex; data: Hex }): Promise<Hex> {
  const { devnet } = replay.gateway
  const wallet = createWalletClient({ account: replay.payer, chain: devnet.chain, transport: devnet.transport })
  const hash = await wallet.sendTransaction({ to, data })
  await devnet.publicClient.waitForTransactionReceipt({ hash })
  return hash
}

/** Sends, from the payer's wallet, the approval and deposit an answer gives to sign, and waits for them. */
async function deposit(answer: { transactions: Record<string, { to: Hex; data: Hex }> }) {
  for (const name of ['approve', 'deposit']) await sendSigned(answer.transactions[name]!)
}

describe('the original MCP server, paid through @x402/axios', () => {
  test('behavior: the table names every tool once: the 76 of src/index.ts and the 86 of src/auto-tools.ts', () => {
    const names = tools.map((tool) => tool.name)
    expect(new Set(names).size).toBe(names.length)
    expect(tools.filter((tool) => tool.source === 'src/index.ts')).toHaveLength(76)
    expect(tools.filter((tool) => tool.source === 'src/auto-tools.ts')).toHaveLength(86)
  })

  for (const tool of tools) {
    if (tool.refused) {
      // A request of the tool that fails on the original too, where its handler cites: the same refusal, before payment.
      const { field, original } = tool.refused
      test(`behavior: ${tool.name} (${tool.method} ${tool.path}) is a 400 naming ${field}, unpaid, as the original refuses it (${original})`, async () => {
        const response = await send(tool)
        expect({ status: response.status, paid: paid(response), field: response.data.field }).toEqual({
          status: 400,
          paid: false,
          field,
        })
        await afterwards[tool.name]?.(response.data)
      })
      continue
    }
    if (tool.needsKey) {
      test(`behavior: ${tool.name} (${tool.method} ${tool.path}) is a 503 before payment without ${tool.needsKey}`, async () => {
        const response = await send(tool)
        expect({ status: response.status, paid: paid(response) }).toEqual({ status: 503, paid: false })
        expect(JSON.stringify(response.data)).toContain(tool.needsKey!)
      })
      continue
    }
    test(`behavior: ${tool.name} (${tool.method} ${tool.path}) answers 2xx with the original's fields`, async () => {
      const response = await signedIfAsked(tool, await send(tool))
      if (response.status >= 300) throw new Error(`${response.status}: ${JSON.stringify(response.data)}`)
      const answer = response.data
      const missing = (tool.fields ?? []).filter((field) => at(answer, field) === undefined)
      if (missing.length > 0) throw new Error(`${missing.join(', ')} missing from ${JSON.stringify(answer)}`)
      const entry = entryOf(tool.method, fill(tool.path))
      if (entry && !Catalog.isFree(entry)) {
        expect(paid(response)).toBe(true)
        // A job that runs on (202) holds its payment until it succeeds; any other answer is settled with it.
        if (response.status === 202) expect(answer.payment.state).toBe('held')
        else {
          const settled = decodePaymentResponseHeader(response.headers['payment-response'])
          expect(settled).toMatchObject({ success: true, payer: replay.payer.address })
          values.settlement = settled.transaction
        }
      } else expect(paid(response)).toBe(false)
      for (const [name, path] of Object.entries(tool.keeps ?? {})) values[name] = at(answer, path)
      await afterwards[tool.name]?.(answer)
    })
  }
})
