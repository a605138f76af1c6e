import { expect } from 'bun:test'
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { LocalAccount } from 'viem'
import * as Catalog from '../../core/Catalog.js'
import * as Price from '../../core/Price.js'
import type { paidGateway } from './paid.js'

/** A gateway booted on the devnet. */
type Gateway = Awaited<ReturnType<typeof paidGateway>>

/**
 * A GET paid by `payer` on a devnet gateway at its catalog price: its status, JSON body, and what it cost the payer
 * (atomic USDC, read off the chain before and after), so that a test sees a failure charge nothing.
 */
export async function paidGet(
  gateway: Gateway,
  payer: LocalAccount,
  path: string,
): Promise<{ status: number; body: any; cost: bigint }> {
  const before = await gateway.balance(payer.address)
  const response = await gateway.paid(payer, 'GET', path)
  const body = await response.json()
  return { status: response.status, body, cost: before - (await gateway.balance(payer.address)) }
}

/** The catalog entry of a concrete GET path (`/x/abc` calls `/x/:id`; so does the bare `/x`). */
function entryOf(path: string): Catalog.Entry {
  const route = path.split('?')[0]!
  const entry = Catalog.entries.find((candidate) => {
    if (candidate.method !== 'GET') return false
    const bare = candidate.path.includes('/:') ? `|${candidate.path.slice(0, candidate.path.indexOf('/:'))}` : ''
    return new RegExp(`^(?:${candidate.path.replace(/:[A-Za-z]+/g, '[^/]+')}${bare})$`).test(route)
  })
  if (!entry) throw new Error(`No catalog entry for GET ${route}`)
  return entry
}

/** A paid GET that must answer 200 at its catalog price, its body valid against `schema`; the body. */
export async function served(gateway: Gateway, payer: LocalAccount, path: string, schema: TSchema): Promise<any> {
  const result = await paidGet(gateway, payer, path)
  if (result.status !== 200) throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`)
  expect(result.cost).toBe(Price.quote({ price: entryOf(path).price }))
  expect([...Value.Errors(schema, result.body)].map((error) => `${error.path}: ${error.message}`)).toEqual([])
  return result.body
}

/** A paid GET that must fail with `status` and cost nothing; the problem it answered. */
export async function uncharged(gateway: Gateway, payer: LocalAccount, path: string, status: number): Promise<any> {
  const result = await paidGet(gateway, payer, path)
  expect({ path, status: result.status }).toEqual({ path, status })
  expect(result.cost).toBe(0n)
  return result.body
}
