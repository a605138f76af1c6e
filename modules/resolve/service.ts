import { Value } from '@sinclair/typebox/value'
import { type Address, getAddress, isAddress } from 'viem'
import { normalize, toCoinType } from 'viem/ens'
import * as Cache from '../../core/Cache.js'
import { NotFoundError, UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import type { NameService } from '../../core/NameService.js'
import { ResolveQuery } from './schema.js'

/** How long a free answer is served again, in ms. */
export const ttlMs = 5 * 60_000

/** EIP-155 id of Base, whose names (Basenames) live under {@link basenamesParent}. */
const baseChainId = 8453

/** The parent of Basenames: `alice.base.eth` has an address on Base. */
export const basenamesParent = 'base.eth'

/** What the resolve module needs from outside. */
export type Deps = {
  /** The name service. */
  names: NameService
  /** Current time, epoch ms. */
  now: () => number
  /** Free answers of the last {@link ttlMs}, by lookup. */
  cache: Cache.Cache<Timed>
}

/** The module's dependencies on `names`. */
export function from(parameters: from.Parameters): Deps {
  const { names, now = Date.now } = parameters
  return { names, now, cache: Cache.create({ ttlMs, maxEntries: 1_000, now }) }
}

export declare namespace from {
  type Parameters = {
    /** The name service. */
    names: NameService
    /** Current time, epoch ms. @default Date.now */
    now?: () => number
  }
}

/** The chain an address record is read for: Ethereum (coin type 60), or Base for a Basename. */
type Target = {
  /** `ethereum` or `base`. */
  chain: 'ethereum' | 'base'
  /** ENSIP-11 coin type, decimal. */
  coinType: string
}

/** What to look up, validated. */
export type Lookup =
  | {
      /** A name to its address. */
      direction: 'forward'
      /** ENSIP-15 normalized name. */
      name: string
    }
  | {
      /** An address to its primary name. */
      direction: 'reverse'
      /** Checksummed address. */
      address: Address
    }

/**
 * The lookup `query` asks for: `name` (normalized by ENSIP-15) or `address`, exactly one. A `name` that is an address
 * (0x and 40 hex digits) is a reverse lookup, as the original gateway reads it. Throws {@link ValidationError} naming
 * the field otherwise.
 */
export function lookupOf(query: ResolveQuery): Lookup {
  const { name, address } = query
  if (name !== undefined && address !== undefined)
    throw new ValidationError({ field: 'address', message: 'give `name` (forward) or `address` (reverse), not both' })
  const reverse = address ?? (name !== undefined && /^0x[0-9a-fA-F]{40}$/.test(name) ? name : undefined)
  if (reverse !== undefined) {
    if (!isAddress(reverse, { strict: true }))
      throw new ValidationError({
        field: address === undefined ? 'name' : 'address',
        message: 'must be 0x and 40 hex digits, with a valid EIP-55 checksum when it is mixed-case',
      })
    return { direction: 'reverse', address: getAddress(reverse) }
  }
  if (name === undefined)
    throw new ValidationError({ field: 'name', message: 'give `name` (forward) or `address` (reverse)' })
  let normalized: string
  try {
    normalized = normalize(name)
  } catch (error) {
    throw new ValidationError({
      field: 'name',
      message: `is not a valid name under ENSIP-15 normalization (${error instanceof Error ? error.message.split('\n')[0] : 'invalid'})`,
    })
  }
  if (normalized === '' || normalized.split('.').includes(''))
    throw new ValidationError({ field: 'name', message: 'must be labels separated by dots, none of them empty' })
  return { direction: 'forward', name: normalized }
}

/** Refuses, before payment, a query {@link lookupOf} would refuse; one the schema refuses is left to it, which names the field. */
export function preflight(query: unknown): void {
  if (Value.Check(ResolveQuery, query)) lookupOf(query)
}

/** A name and the address it resolves to, or an address and its verified primary name. */
export type Answer = Target & {
  /** Which way the lookup went. */
  direction: 'forward' | 'reverse'
  /** The normalized name. */
  name: string
  /** The checksummed address. */
  address: Address
  /** The name's forward address is the address: always true in an answer (an unverified primary name is a 404). */
  verified: true
  /** Where names are read: `ens`, or `devnet` on embedded defaults. */
  source: string
  /** EIP-155 id of the chain holding the registry. */
  registryChainId: number
}

/** An answer and when it was read. */
export type Timed = {
  /** The answer. */
  answer: Answer
  /** When it was read, epoch ms. */
  takenAt: number
}

/**
 * Resolves `lookup` now. A name without an address, or an address without a verified primary name, throws
 * {@link NotFoundError} (a 404, nothing charged); a reverse record whose name resolves elsewhere is reported in the
 * 404's details, never answered as the primary name. A chain that does not answer throws
 * {@link UpstreamUnavailableError}.
 */
export async function resolve(deps: Deps, lookup: Lookup): Promise<Answer> {
  const { names } = deps
  const about = { source: names.source, registryChainId: names.chainId, verified: true as const }
  if (lookup.direction === 'forward') {
    const target = targetOf(lookup.name)
    const address = await read(() => names.address({ name: lookup.name, coinType: BigInt(target.coinType) }))
    if (address === null)
      throw new NotFoundError(`${lookup.name} has no ${target.chain} address (coin type ${target.coinType}).`, {
        details: { name: lookup.name, ...target },
      })
    return { direction: 'forward', name: lookup.name, address, ...target, ...about }
  }
  const target = { chain: 'ethereum', coinType: toCoinType(1).toString() } as const
  const primary = await read(() => names.primaryName({ address: lookup.address, coinType: BigInt(target.coinType) }))
  if (primary.status === 'none')
    throw new NotFoundError(`${lookup.address} has no primary name.`, { details: { address: lookup.address } })
  // A reverse record is anyone's claim; only a normalized name that resolves back is the primary name.
  const claimed = primary.status === 'verified' ? primary.name : primary.claimed
  if (primary.status === 'unverified' || !isNormalized(claimed))
    throw new NotFoundError(
      `${lookup.address} has no verified primary name: its reverse record names ${claimed}, which ${primary.status === 'unverified' ? (primary.resolvesTo ? `resolves to ${primary.resolvesTo}` : 'resolves to no address') : 'is not a normalized name'}.`,
      {
        details: {
          address: lookup.address,
          claimed,
          verified: false,
          claimedResolvesTo: primary.status === 'unverified' ? primary.resolvesTo : null,
        },
      },
    )
  return { direction: 'reverse', name: claimed, address: lookup.address, ...target, ...about }
}

/**
 * {@link resolve}, served from the last {@link ttlMs} when this lookup was answered then; says whether and how old,
 * and `resolved: true`. A name without an address is a 200 with `resolved: false` and `address: null`, as the original
 * gateway's `/free/resolve` answers it; a reverse lookup (ours alone) keeps its 404 and the claim it found.
 */
export async function resolveCached(deps: Deps, lookup: Lookup) {
  const key = lookup.direction === 'forward' ? `name:${lookup.name}` : `address:${lookup.address.toLowerCase()}`
  const cached = deps.cache.get(key)
  let timed: Timed
  try {
    timed = cached ?? { answer: await resolve(deps, lookup), takenAt: deps.now() }
  } catch (error) {
    if (!(error instanceof NotFoundError) || lookup.direction === 'reverse') throw error
    return { direction: lookup.direction, name: lookup.name, address: null, source: null, resolved: false }
  }
  if (!cached) deps.cache.set(key, timed)
  return {
    ...timed.answer,
    resolved: true,
    cached: cached !== undefined,
    age: Math.max(0, Math.floor((deps.now() - timed.takenAt) / 1000)),
  }
}

/** Base's coin type for a Basename (`*.base.eth`), Ethereum's for any other name (ENSIP-11). */
function targetOf(name: string): Target {
  return name.endsWith(`.${basenamesParent}`)
    ? { chain: 'base', coinType: toCoinType(baseChainId).toString() }
    : { chain: 'ethereum', coinType: toCoinType(1).toString() }
}

function isNormalized(name: string): boolean {
  try {
    return normalize(name) === name
  } catch {
    return false
  }
}

/** Runs one read of the name service; a failure of the chain is a 503, nothing charged. */
async function read<result>(run: () => Promise<result>): Promise<result> {
  try {
    return await run()
  } catch (error) {
    throw new UpstreamUnavailableError('The chain holding the name registry did not answer; nothing is charged.', {
      cause: error,
    })
  }
}
