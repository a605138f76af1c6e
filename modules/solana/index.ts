import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import type * as Service from './service.js'

/** The Solana swap endpoints (`/api/v1/solana/aggregator/*`), mounted by the gateway. */
export function swap(deps: Service.SwapDeps) {
  return Routes.swap(deps)
}

/** The Solana asset-index endpoints (`/api/v1/solana/assetindex/*`), mounted by the gateway. */
export function assets(deps: Service.AssetDeps) {
  return Routes.assets(deps)
}

/** The Solana price-feed endpoints (`/api/v1/solana/pricefeed/*`), mounted by the gateway. */
export function prices(deps: Service.PriceDeps) {
  return Routes.prices(deps)
}

/**
 * Swap quotes and unsigned swap transactions through a swap aggregator (Jupiter's Swap API), the quoted amounts
 * formatted with the mints' decimals from a Solana node; unavailable while the aggregator is not configured or not
 * answering (a node that does not answer only leaves the amounts unformatted).
 */
export const swapManifest = Module.define({
  name: 'solana-swap',
  paths: ['/api/v1/solana/aggregator/'],
  needs: ['solanaSwap', 'solanaMints'],
  routes: ({ ports }) => swap({ aggregator: ports.solanaSwap, mints: ports.solanaMints }),
  ready: ({ ports }) => Module.reasonOf(ports.solanaSwap.available()),
})

/** Digital assets by owner and by id through a Digital Asset Standard index (Helius, or any DAS provider). */
export const assetsManifest = Module.define({
  name: 'solana-assets',
  paths: ['/api/v1/solana/assetindex/'],
  needs: ['solanaAssets'],
  routes: ({ ports }) => assets({ index: ports.solanaAssets }),
  ready: ({ ports }) => Module.reasonOf(ports.solanaAssets.available()),
})

/** Pyth prices, one feed or up to 50, through a Hermes server. */
export const pricesManifest = Module.define({
  name: 'solana-prices',
  paths: ['/api/v1/solana/pricefeed/'],
  needs: ['solanaPrices'],
  routes: ({ ports }) => prices({ service: ports.solanaPrices }),
  ready: ({ ports }) => Module.reasonOf(ports.solanaPrices.available()),
})
