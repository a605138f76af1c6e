import { type Address, getAddress, sha256, toHex } from 'viem'
import * as ContentId from '../../core/ContentId.js'
import {
  ConflictError,
  NotFoundError,
  UpstreamFailedError,
  UpstreamUnavailableError,
  ValidationError,
} from '../../core/Errors.js'
import type { Blockstore, PinStatus, Providers } from '../../core/Storage.js'
import { isRefusal, type Store } from '../../core/Store.js'
import * as Upstream from '../../core/Upstream.js'
import type { PinBody } from './schema.js'

/** Collection of the pins: one per payer and CID. */
export const pinsCollection = 'storage_pins'

/** Collection of each payer's usage (pins and bytes), against the per-payer limits. */
export const usageCollection = 'storage_usage'

/** Limits an operator sets. */
export type Limits = {
  /** Largest object one pin takes, in bytes. */
  maxObjectBytes: number
  /** Largest object `get` answers, in bytes. */
  maxReadBytes: number
  /** Most pins (distinct CIDs) one payer holds. */
  maxPinsPerPayer: number
  /** Most bytes one payer's pins hold in all. */
  maxBytesPerPayer: number
}

/** What the storage module needs from outside. */
export type Deps = {
  /** Durable records: pins and usage. */
  store: Store
  /** The embedded blockstore on a store: on `store`, so that a paid pin's blocks go through its call's journal. */
  embedded: (store: Store) => Blockstore
  /** Remote providers by name. */
  remote: Providers['remote']
  /** Provider of a pin that names none. */
  defaultProvider: string
  /** Limits per object and per payer. */
  limits: Limits
  /** Current time, epoch ms. */
  now: () => number
}

/** Where one pin is held. */
export type Placement = {
  /** Provider name. */
  provider: string
  /** The provider's reference of the pin, if it gave one. */
  ref: string | undefined
  /** When it was pinned there (ISO 8601). */
  pinnedAt: string
}

/** A stored pin. */
export type Pin = {
  /** Pin id, `pin_` and 32 hex digits, derived from the payer and the CID. */
  id: string
  /** Root CID, base32 CIDv1. */
  cid: string
  /** Size of the content, in bytes. */
  size: number
  /** How the caller sent the bytes; `get` answers them the same way. */
  encoding: 'utf8' | 'base64'
  /** MIME type the caller declared, if any. */
  contentType: string | null
  /** The provider the caller chose last. */
  provider: string
  /** Every provider holding it, the embedded blockstore first. */
  placements: Placement[]
  /** When it was first pinned (ISO 8601). */
  createdAt: string
  /** The caller's own JSON, when given. */
  metadata?: Record<string, unknown> | undefined
}

/** Why `provider: arweave`, the original gateway's other network, is refused before payment. */
export const arweaveUnavailable =
  'arweave is not available here: this gateway has no Arweave bundler configured and pins to IPFS only (provider `ipfs`, the default). Nothing is charged.'

/** The provider a pin body names, in our words: `ipfs` is the default provider (all of ours are IPFS). */
function providerOf(deps: Deps, provider: string | undefined): string {
  return provider === undefined || provider === 'ipfs' ? deps.defaultProvider : provider
}

/** The bytes the pin body's `data` carries: a string as it is encoded, any other JSON value as its JSON text. */
function bytesOf(data: unknown, encoding: 'utf8' | 'base64'): Uint8Array {
  if (data === null || data === undefined)
    throw new ValidationError({ field: 'data', message: 'required: text, base64, or a JSON value' })
  if (typeof data !== 'string') {
    if (encoding === 'base64')
      throw new ValidationError({ field: 'data', message: 'must be a string when `encoding` is base64' })
    return new TextEncoder().encode(JSON.stringify(data))
  }
  if (encoding === 'base64') {
    if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data))
      throw new ValidationError({ field: 'data', message: 'not base64 (standard alphabet, padded)' })
    return new Uint8Array(Buffer.from(data, 'base64'))
  }
  return new TextEncoder().encode(data)
}

/**
 * The original gateway's address fields of a pin: `ipfsUri`, and `gateway`, a public IPFS gateway URL when a provider
 * that publishes to the IPFS network holds it (null for the embedded blockstore alone, which publishes nothing).
 */
function addressesOf(cid: string, placements: readonly Placement[]) {
  const published = placements.some((placement) => placement.provider !== 'embedded')
  return { ipfsUri: `ipfs://${cid}`, gateway: published ? `https://ipfs.io/ipfs/${cid}` : null }
}

/** A payer's usage. */
type Usage = { pins: number; bytes: number }

/** Every provider name callers may choose now. */
export function providerNames(deps: Deps): string[] {
  return ['embedded', ...Object.keys(deps.remote)]
}

/** The bytes of a pin body, checked against the object limit and the provider list; throws a 400 naming the field. */
export function decode(deps: Deps, body: PinBody): Uint8Array {
  const { data, encoding = 'utf8' } = body
  if (body.provider === 'arweave') throw new UpstreamUnavailableError(arweaveUnavailable)
  const provider = providerOf(deps, body.provider)
  if (!providerNames(deps).includes(provider))
    throw new ValidationError({
      field: 'provider',
      message: `no provider ${provider} is configured; this gateway pins to ipfs (${providerNames(deps).join(', ')})`,
    })
  const bytes = bytesOf(data, encoding)
  if (bytes.length > deps.limits.maxObjectBytes)
    throw new ValidationError({
      field: 'data',
      message: `${bytes.length} bytes; one object may hold at most ${deps.limits.maxObjectBytes}`,
    })
  return bytes
}

/** `cid` in canonical form; throws a 400 when it is not a CID. */
export function cidOf(cid: string): string {
  const normalized = ContentId.normalize(cid)
  if (!normalized) throw new ValidationError({ field: 'cid', message: 'not a CID' })
  return normalized
}

/** The id of `owner`'s pin of `cid`: one pin per payer and content. */
export function pinIdOf(owner: Address, cid: string): string {
  return `pin_${sha256(toHex(`${owner.toLowerCase()}:${cid}`)).slice(2, 34)}`
}

/**
 * Pins the caller's bytes: computes their CID, keeps the blocks in the embedded blockstore, then pins them at the
 * chosen provider, whose CID must equal ours (otherwise it is unpinned there and the call fails, charging nothing).
 * A payer's first pin of a CID counts against their limits; pinning it again (elsewhere) does not.
 */
export async function pin(deps: Deps, caller: Address, body: PinBody) {
  const bytes = decode(deps, body)
  const provider = providerOf(deps, body.provider)
  const contentType = body.contentType ?? (typeof body.data === 'string' ? undefined : 'application/json')
  const dag = await ContentId.compute(bytes)
  const id = pinIdOf(caller, dag.cid)
  const existing = await deps.store.get<Pin>(pinsCollection, id)
  if (!existing) await reserve(deps, caller, bytes.length)
  const content = {
    cid: dag.cid,
    bytes,
    blocks: dag.blocks,
    leaves: dag.leaves,
    name: id,
    contentType,
  }
  const placements: Placement[] = []
  const pinnedAt = new Date(deps.now()).toISOString()
  const local = await deps.embedded(deps.store).pin(content)
  if (!local.ok) throw Upstream.toError(local)
  placements.push({ provider: 'embedded', ref: undefined, pinnedAt })
  let status: PinStatus = local.status
  if (provider !== 'embedded') {
    const remote = deps.remote[provider]!
    const available = remote.available()
    if (!available.ok) throw new UpstreamUnavailableError(`${available.reason} Nothing is charged.`)
    const pinned = await remote.pin(content)
    if (!pinned.ok) throw Upstream.toError(pinned)
    if (ContentId.normalize(pinned.cid) !== dag.cid) {
      await remote.unpin?.({ cid: pinned.cid, ref: pinned.ref }).catch(() => {})
      throw new UpstreamFailedError(
        `${provider} answered CID ${pinned.cid} for the content, not ${dag.cid}: it did not store these bytes as we address them; the pin was removed there and nothing is charged.`,
        { details: { provider, expected: dag.cid, answered: pinned.cid } },
      )
    }
    placements.push({ provider, ref: pinned.ref, pinnedAt })
    status = pinned.status
  }
  const record: Pin = existing
    ? {
        ...existing.value,
        provider,
        ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
        placements: [
          ...existing.value.placements.filter((kept) => !placements.some((fresh) => fresh.provider === kept.provider)),
          ...placements,
        ],
      }
    : {
        id,
        cid: dag.cid,
        size: bytes.length,
        encoding: body.encoding ?? 'utf8',
        contentType: contentType ?? null,
        provider,
        placements,
        createdAt: pinnedAt,
        metadata: body.metadata ?? {},
      }
  if (existing) await deps.store.update<Pin>(pinsCollection, id, () => record)
  else
    await deps.store.insert<Pin>({
      collection: pinsCollection,
      id,
      owners: [getAddress(caller)],
      value: record,
      createdAt: new Date(deps.now()),
    })
  return {
    id,
    cid: dag.cid,
    status,
    provider,
    size: bytes.length,
    contentType: record.contentType,
    profile: ContentId.profile.name,
    providers: record.placements.map((placement) => placement.provider),
    pinnedAt,
    ...addressesOf(dag.cid, record.placements),
  }
}

/** Counts a new pin of `size` bytes against `caller`'s limits, atomically; throws a 409 past either. */
async function reserve(deps: Deps, caller: Address, size: number): Promise<void> {
  const { maxPinsPerPayer, maxBytesPerPayer } = deps.limits
  const id = caller.toLowerCase()
  for (let attempt = 0; attempt < 3; attempt++) {
    const updated = await deps.store.update<Usage>(usageCollection, id, ({ value }) =>
      value.pins + 1 > maxPinsPerPayer
        ? { refused: true, reason: `you hold ${value.pins} pins; a payer may hold ${maxPinsPerPayer}` }
        : value.bytes + size > maxBytesPerPayer
          ? {
              refused: true,
              reason: `your pins hold ${value.bytes} bytes; with ${size} more they would pass the ${maxBytesPerPayer} a payer may hold`,
            }
          : { pins: value.pins + 1, bytes: value.bytes + size },
    )
    if (updated.ok) return
    if (isRefusal(updated)) throw new ConflictError(`Storage limit reached: ${updated.reason}.`)
    if (size > maxBytesPerPayer)
      throw new ConflictError(`Storage limit reached: ${size} bytes pass the ${maxBytesPerPayer} a payer may hold.`)
    const inserted = await deps.store.insert<Usage>({
      collection: usageCollection,
      id,
      owners: [getAddress(caller)],
      value: { pins: 1, bytes: size },
      createdAt: new Date(deps.now()),
    })
    if (inserted.ok) return
    // Another call inserted it first: count against that one.
  }
  throw new ConflictError('Storage usage is being changed by another call; try again.')
}

/** The caller's pin of `id`; someone else's, or none, is a 404. */
async function owned(deps: Deps, caller: Address, id: string): Promise<Pin> {
  const record = await deps.store.get<Pin>(pinsCollection, id)
  if (!record?.owners.includes(getAddress(caller))) throw new NotFoundError(`No pin ${id} of yours.`)
  return record.value
}

/**
 * The caller's pinned content, read from the embedded blockstore (every block checked against its CID) and its root
 * CID computed again from the bytes before any is answered.
 */
export async function get(deps: Deps, caller: Address, cid: string) {
  const pinned = await owned(deps, caller, pinIdOf(caller, cid))
  if (pinned.size > deps.limits.maxReadBytes)
    throw new ConflictError(
      `The content is ${pinned.size} bytes; this gateway answers at most ${deps.limits.maxReadBytes} per read.`,
    )
  const read = await deps.embedded(deps.store).read({ cid, maxBytes: deps.limits.maxReadBytes })
  if (!read.ok) throw Upstream.toError(read)
  const computed = (await ContentId.compute(read.bytes)).cid
  if (computed !== cid)
    throw new UpstreamFailedError(`The stored bytes hash to ${computed}, not ${cid}; nothing is answered or charged.`)
  const text = pinned.encoding === 'utf8' ? utf8(read.bytes) : undefined
  return {
    cid,
    status: 'pinned' as const,
    verified: true,
    provider: pinned.provider,
    pinnedAt: pinnedAtOf(pinned),
    ...addressesOf(cid, pinned.placements),
    size: read.bytes.length,
    contentType: pinned.contentType,
    encoding: text === undefined ? ('base64' as const) : ('utf8' as const),
    data: text ?? Buffer.from(read.bytes).toString('base64'),
  }
}

/**
 * The state of the caller's pin at every provider holding it, each asked now. The pin's `status` is that of the
 * provider the caller chose; when that one cannot be asked the call fails (nothing charged), while another provider
 * that cannot be asked is listed with its error.
 */
export async function status(deps: Deps, caller: Address, id: string) {
  const pinned = await owned(deps, caller, id)
  const providers = await Promise.all(
    pinned.placements.map(async (placement) => {
      const provider = placement.provider === 'embedded' ? deps.embedded(deps.store) : deps.remote[placement.provider]
      if (!provider)
        return { provider: placement.provider, status: null, error: 'This provider is no longer configured.' }
      const answer = await provider.status({ cid: pinned.cid, ref: placement.ref })
      if (!answer.ok) return { provider: placement.provider, status: null, error: answer.message, failure: answer }
      return { provider: placement.provider, status: answer.status, pinnedAt: placement.pinnedAt }
    }),
  )
  const chosen = providers.find((entry) => entry.provider === pinned.provider)!
  if (chosen.status === null)
    throw 'failure' in chosen && chosen.failure
      ? Upstream.toError(chosen.failure)
      : new UpstreamUnavailableError(`${pinned.provider}: ${chosen.error}`)
  return {
    id,
    cid: pinned.cid,
    status: chosen.status,
    provider: pinned.provider,
    size: pinned.size,
    createdAt: pinned.createdAt,
    pinnedAt: pinnedAtOf(pinned),
    ...addressesOf(pinned.cid, pinned.placements),
    metadata: pinned.metadata ?? {},
    providers: providers.map(({ provider, status, ...rest }) =>
      status === null ? { provider, status, error: 'error' in rest ? rest.error : undefined } : { provider, status },
    ),
    checkedAt: new Date(deps.now()).toISOString(),
  }
}

/** When the provider the caller chose last pinned it (ISO 8601). */
function pinnedAtOf(pinned: Pin): string {
  return (pinned.placements.find((placement) => placement.provider === pinned.provider) ?? pinned.placements[0]!)
    .pinnedAt
}

/** `bytes` as text when they are valid UTF-8, else `undefined`. */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}
