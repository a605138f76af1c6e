import { Type } from '@sinclair/typebox'
import { phantom } from '../../adapters/custodian/phantom.js'
import { ConfigError } from '../../core/Errors.js'
import { define } from './shared.js'

/**
 * The server-wallet vendor holding the custodial wallets' keys: Phantom's server wallets, as the original gateway
 * planned, once its organization, app and key are set; none before (the wallet family answers 503 before payment).
 */
export const custodian = define({
  port: 'custodian',
  description:
    'a server-wallet vendor (PHANTOM_ORGANIZATION_ID, PHANTOM_APP_ID and PHANTOM_PRIVATE_KEY: Phantom server wallets)',
  env: Type.Object({
    PHANTOM_WALLET_API_URL: Type.String({
      minLength: 1,
      default: 'https://api.phantom.app/v1/wallets',
      description: "Phantom's server-wallet API (custodial wallets: `/api/v1/wallet/*`, contract/write `walletId`)",
    }),
    PHANTOM_ORGANIZATION_ID: Type.Optional(
      Type.String({ minLength: 1, description: 'Phantom organization id of the custodial wallets' }),
    ),
    PHANTOM_APP_ID: Type.Optional(Type.String({ minLength: 1, description: 'Phantom app id, sent as `x-app-id`' })),
    PHANTOM_PRIVATE_KEY: Type.Optional(
      Type.String({
        minLength: 1,
        secret: true,
        description: "Phantom organization's Ed25519 private key (Base58), which stamps every request",
      }),
    ),
  }),
  assert: (env) => {
    const set = [env.PHANTOM_ORGANIZATION_ID, env.PHANTOM_APP_ID, env.PHANTOM_PRIVATE_KEY].filter(Boolean).length
    if (set !== 0 && set !== 3)
      throw new ConfigError(
        'PHANTOM_ORGANIZATION_ID, PHANTOM_APP_ID and PHANTOM_PRIVATE_KEY go together: set all three for custodial wallets, or none.',
      )
  },
  build: ({ env }) => {
    const { PHANTOM_ORGANIZATION_ID: organizationId, PHANTOM_APP_ID: appId, PHANTOM_PRIVATE_KEY: secretKey } = env
    if (!organizationId || !appId || !secretKey) return undefined
    try {
      return phantom({ baseUrl: env.PHANTOM_WALLET_API_URL, organizationId, appId, secretKey })
    } catch (error) {
      throw new ConfigError(`PHANTOM_PRIVATE_KEY: ${(error as Error).message}`)
    }
  },
})
