import { type Static, Type } from '@sinclair/typebox'
import * as Rpc from '../../core/Rpc.js'

/** Body of `POST /api/v1/rpc/call`; the chain names are those the gateway's configured chains answer to. */
export function CallBody(chains: readonly string[]) {
  return Type.Object(
    {
      chain: Type.Union(
        chains.map((name) => Type.Literal(name)),
        { description: `One of: ${chains.join(', ')}.` },
      ),
      method: Type.Union(
        Rpc.allowedMethods.map((method) => Type.Literal(method)),
        { description: 'A read-only JSON-RPC method; see GET /api/v1/rpc/chains for the list.' },
      ),
      params: Type.Optional(
        Type.Array(Type.Unknown(), { maxItems: Rpc.maxParams, description: 'Positional parameters.' }),
      ),
    },
    { additionalProperties: false },
  )
}
/** Body of `POST /api/v1/rpc/call` (the chain union is built at boot, so its static type is a plain string). */
export type CallBody = Omit<Static<ReturnType<typeof CallBody>>, 'chain'> & { chain: string }
