import { Type } from '@sinclair/typebox'
import { frankfurter } from '../../adapters/fx/frankfurter.js'
import { define } from './shared.js'

/** Published reference exchange rates (the ECB's, through Frankfurter): the second opinion on the fiat feeds. */
export const fxReference = define({
  port: 'fxReference',
  description: 'a reference-rate source (FX_REFERENCE_URL)',
  env: Type.Object({
    FX_REFERENCE_URL: Type.String({
      minLength: 1,
      default: 'https://api.frankfurter.dev/v1',
      description:
        'Frankfurter-compatible API (`GET /latest?base=USD&symbols=EUR`, the ECB reference rates) whose rates `/api/v1/oracle/fx` shows beside the feeds as a second opinion (keyless public API unless set)',
    }),
  }),
  build: ({ env }) => frankfurter({ url: env.FX_REFERENCE_URL }),
})
