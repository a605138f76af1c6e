import { Elysia } from 'elysia'
import { FxQuery } from './schema.js'
import * as Service from './service.js'

/**
 * Exchange rates: of the original gateway's stablecoins from Uniswap v3 pools (USDC and its kin, USDC the default), or
 * of currencies from the fiat feeds (an ISO 4217 base). `base` is checked in `transform`, so an unknown one is a 400
 * before payment.
 */
export function routes(deps: Service.Deps) {
  return new Elysia({ name: 'fx' }).get(
    '/api/v1/oracle/fx',
    ({ query }) => {
      const base = Service.baseOf(deps, query.base)
      return base.kind === 'fiat' ? Service.rates(deps, base.code) : Service.stablecoinRates(deps, base)
    },
    {
      query: FxQuery,
      transform: ({ query }) => {
        Service.baseOf(deps, query.base)
      },
    },
  )
}
