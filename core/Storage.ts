import type { Block } from './ContentId.js'
import type { Store } from './Store.js'
import type { Availability, Outcome } from './Upstream.js'

/**
 * Where pinned content lives: the gateway's own content-addressed blockstore and the pinning providers an operator
 * configures (Kubo's RPC API, Pinata, any IPFS Pinning Service API). Every provider is handed the CID we computed
 * from the caller's bytes; one that answers another CID has not stored the caller's content and the pin fails.
 */

/** State of one pin at one provider, as the provider reports it (the IPFS Pinning Service API's states). */
export type PinStatus = 'queued' | 'pinning' | 'pinned' | 'failed'

/** What a provider is given to pin. */
export type Content = {
  /** Root CID computed by us (ContentId), base32 CIDv1. */
  cid: string
  /** The caller's bytes. */
  bytes: Uint8Array
  /** Every block of the DAG, root included. */
  blocks: readonly Block[]
  /** Leaf CIDs in content order. */
  leaves: readonly string[]
  /** Name the provider may show, e.g. the pin id. */
  name: string
  /** MIME type the caller declared, if any. */
  contentType: string | undefined
}

/** What a provider answered to a pin. */
export type Pinned = {
  /** The root CID the provider reports for what it stored. */
  cid: string
  /** The provider's own reference of the pin (a request id, a file id), for later status reads. */
  ref: string | undefined
  /** Its state right after the call. */
  status: PinStatus
}

/** One place content is pinned. */
export type Provider = {
  /** Stable name callers choose it by, e.g. `embedded`, `kubo`. */
  name: string
  /** Stores or pins `content`; the answer's `cid` is the provider's, compared with ours by the caller. */
  pin: (content: Content) => Promise<Outcome<Pinned>>
  /** The pin's state now, from the provider. */
  status: (pin: { cid: string; ref: string | undefined }) => Promise<Outcome<{ status: PinStatus }>>
  /** Removes a pin that must not stay (its CID was not ours); best effort. */
  unpin?: (pin: { cid: string; ref: string | undefined }) => Promise<void>
  /** Whether calls may start now. */
  available: () => Availability
}

/** The gateway's own blockstore: a provider that also reads content back. */
export type Blockstore = Provider & {
  /** The content's bytes in order, each block checked against its CID; refused past `maxBytes`. */
  read: (pin: { cid: string; maxBytes: number }) => Promise<Outcome<{ bytes: Uint8Array }>>
}

/** The providers of a gateway: `embedded` always, the others when configured. */
export type Providers = {
  /**
   * The gateway's own blockstore on a store: every pin keeps its blocks here and `get` reads them from here. The
   * module passes the store it was given, so blocks written by a call that is never paid are taken back with it.
   */
  embedded: (store: Store) => Blockstore
  /** Remote providers by name. */
  remote: Readonly<Record<string, Provider>>
}
