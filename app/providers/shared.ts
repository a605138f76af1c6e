import type { TObject } from '@sinclair/typebox'
import { health } from '../../adapters/vendor/vendor.js'
import type * as Module from '../../core/Module.js'
import type { Provider } from '../../core/Provider.js'
import type * as Upstream from '../../core/Upstream.js'
import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import type { Settlement } from '../settlement.js'

/** What boot shares with every provider: what it chose (the settlement chain) and what several providers read. */
export type Shared = {
  /** The settlement chain boot chose: its clients, its contracts, whether it is a devnet of ours. */
  settlement: Settlement
  /** Where events go (a port left absent at start says why here). */
  logger: Logger
  /** The gateway's own settings (its public URL, Ethereum's node). */
  config: Config
}

/** How the vendor clients the providers built have fared in this process: each records its calls there. */
export const vendorHealth: () => readonly Upstream.Health[] = health

/** Declares one of the gateway's providers; typed so that `build` sees its own slice and what boot shares. */
export function define<const port extends Module.Port, env extends TObject = TObject<{}>>(
  provider: Provider<port, env, Shared>,
): Provider<port, env, Shared> {
  return provider
}

/**
 * A vendor whose own URL (`ownUrl`) needs a key: its URL and key, or `undefined` on its own URL without a key; any
 * other URL (a self-hosted one) is used as it is.
 */
export function keyed(
  url: string,
  key: string | undefined,
  ownUrl: string,
): { url: string; key: string | undefined } | undefined {
  return key === undefined && url === ownUrl ? undefined : { url, key }
}
