import { Type } from '@sinclair/typebox'
import { goplus } from '../../adapters/vendor/goplus.js'
import { define } from './shared.js'

/** GoPlus, the second opinion of the safety screens on tokens and addresses. */
export const intel = define({
  port: 'intel',
  description: 'a security-intelligence source (GOPLUS_URL)',
  env: Type.Object({
    GOPLUS_URL: Type.String({
      minLength: 1,
      default: 'https://api.gopluslabs.io',
      description:
        'GoPlus Security API (`/api/v1/token_security/{chainId}`, `/api/v1/address_security/{address}`), the second opinion of `/api/v1/token/safety` and `/api/v1/address/safety` (keyless public API unless set); unreachable, its checks are reported as not checked',
    }),
  }),
  build: ({ env }) => goplus({ baseUrl: env.GOPLUS_URL }),
})
