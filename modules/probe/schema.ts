import { type Static, Type } from '@sinclair/typebox'

/** Body of `POST /free/x402-check`. */
export const X402CheckBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'Absolute http(s) URL of a paid resource to probe; its origin is searched for /.well-known/x402.json, ' +
      '/openapi.json and /llms.txt.',
  }),
})
/** Body of `POST /free/x402-check`. */
export type X402CheckBody = Static<typeof X402CheckBody>
