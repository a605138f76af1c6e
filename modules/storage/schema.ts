import { Type } from '@sinclair/typebox'

/** Body of `POST /api/v1/storage/pin`. */
export const PinBody = Type.Object({
  data: Type.Unknown({
    description:
      'The content: text, or base64 when `encoding` is `base64`; any other JSON value (an object, an array, a number) is pinned as its JSON text, as the original gateway takes it, with `contentType` application/json unless given.',
  }),
  encoding: Type.Optional(
    Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
      description:
        'How `data` carries the bytes: `utf8` (the text itself) or `base64` (standard alphabet). @default utf8',
    }),
  ),
  contentType: Type.Optional(
    Type.String({
      maxLength: 255,
      pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*( *;.*)?$',
      description: 'MIME type kept with the pin and answered by `get`, e.g. `application/json`.',
    }),
  ),
  provider: Type.Optional(
    Type.String({
      pattern: '^[a-z-]{1,32}$',
      description:
        "Where to pin: `embedded`, `kubo`, `pinata` or `pinning-service`, when configured; `ipfs` (the original gateway's name) is the default provider, every one of which is IPFS; `arweave` is unavailable (503 before payment): no Arweave bundler is configured here. @default STORAGE_PROVIDER",
    }),
  ),
  metadata: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'Any JSON object of yours, kept with the pin and shown by storage/status; never sent to a provider.',
    }),
  ),
})

/** The pin body, parsed. */
export type PinBody = typeof PinBody.static

/** Query of `GET /api/v1/storage/get`. */
export const GetQuery = Type.Object({
  cid: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'CID of one of your pins (CIDv1, or its CIDv0 form).',
  }),
})

/** Query of `GET /api/v1/storage/status`. */
export const StatusQuery = Type.Object({
  id: Type.String({ pattern: '^pin_[0-9a-f]{32}$', description: 'Pin id `pin/` answered.' }),
})
