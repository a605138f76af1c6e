import { Type } from '@sinclair/typebox'
import { horizon } from '../../adapters/stellar/horizon.js'
import { ConfigError } from '../../core/Errors.js'
import { define } from './shared.js'

/** The Stellar network through a Horizon server, once HORIZON_URL is set. */
export const stellar = define({
  port: 'stellar',
  description: 'a Horizon server (HORIZON_URL)',
  env: Type.Object({
    HORIZON_URL: Type.Optional(
      Type.String({
        secret: true,
        pattern: '^https?://',
        defaultText: 'none: Stellar endpoints unavailable',
        description: 'Horizon server for `/api/v1/stellar/*`',
      }),
    ),
    STELLAR_NETWORK_PASSPHRASE: Type.Optional(
      Type.String({
        minLength: 1,
        defaultText: 'none (required with `HORIZON_URL`)',
        description: 'the network passphrase transactions are signed for',
      }),
    ),
  }),
  assert: ({ HORIZON_URL, STELLAR_NETWORK_PASSPHRASE }) => {
    if (HORIZON_URL !== undefined && STELLAR_NETWORK_PASSPHRASE === undefined)
      throw new ConfigError(
        'STELLAR_NETWORK_PASSPHRASE is required with HORIZON_URL (e.g. "Public Global Stellar Network ; September 2015").',
      )
  },
  build: ({ env: { HORIZON_URL: url, STELLAR_NETWORK_PASSPHRASE: networkPassphrase } }) =>
    url && networkPassphrase ? horizon({ url, networkPassphrase }) : undefined,
})
