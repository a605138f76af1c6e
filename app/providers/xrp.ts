import { Type } from '@sinclair/typebox'
import { rippled } from '../../adapters/xrp/rippled.js'
import { define } from './shared.js'

/** The XRP Ledger through a rippled server, once RIPPLED_URL is set. */
export const xrp = define({
  port: 'xrp',
  description: 'a rippled server (RIPPLED_URL)',
  env: Type.Object({
    RIPPLED_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: XRP endpoints unavailable',
        description: 'rippled JSON-RPC for `/api/v1/xrp/*`',
      }),
    ),
  }),
  build: ({ env }) => (env.RIPPLED_URL ? rippled({ url: env.RIPPLED_URL }) : undefined),
})
