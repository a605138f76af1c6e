import { type Static, Type } from '@sinclair/typebox'
import { evmSchema } from '../../core/Address.js'
import * as Messaging from '../../core/Messaging.js'

/** Body of `POST /api/v1/msg/send`. */
export const SendBody = Type.Object(
  {
    to: evmSchema('Recipient wallet; it must have registered a messaging key (`POST /api/v1/msg/keys`)'),
    content: Type.String({
      minLength: 1,
      maxLength: Messaging.maxEnvelopeLength,
      description:
        `The ECIES envelope (base64 of eciesjs output, made by \`Messaging.encrypt\`) encrypted to the recipient's ` +
        `registered key, at most ${Messaging.maxEnvelopeLength} characters: end to end, the gateway never reads it. ` +
        `Or plaintext, as the original gateway's clients send it (at most ${Messaging.maxContentBytes} bytes of UTF-8): ` +
        'the gateway encrypts it to the same key before storing it and says so (`encryption: gateway`); it saw the ' +
        'text, so this is not end to end. Plaintext is never stored.',
    }),
    contentType: Type.Optional(
      Type.String({
        maxLength: 255,
        description: 'MIME type of the content once opened, stored in clear beside it. @default text/plain',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Any JSON object of yours, stored in clear beside the envelope and shown in the inbox: put nothing private in it.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/msg/send`. */
export type SendBody = Static<typeof SendBody>

/** Query of `GET /api/v1/msg/inbox`. */
export const InboxQuery = Type.Object(
  {
    address: evmSchema('The inbox to read; it must be the payer of the call'),
    limit: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,3}$',
        description: 'Most messages to return, newest first: 1 to 100. @default 20',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Query of `GET /api/v1/msg/inbox`. */
export type InboxQuery = Static<typeof InboxQuery>

/** Body of `POST /api/v1/msg/keys`. */
export const KeyBody = Type.Object(
  {
    address: evmSchema('The wallet registering its messaging key; it signs the registration'),
    publicKey: Type.String({
      pattern: '^0x0[23][0-9a-fA-F]{64}$',
      description: 'Compressed secp256k1 messaging public key (33 bytes hex); never the wallet key.',
    }),
    signature: Type.String({
      maxLength: 16_386,
      pattern: '^0x([0-9a-fA-F]{2})+$',
      description:
        "EIP-191 signature of `Messaging.keyMessage` by the address: an EOA's 65 bytes, or a smart wallet's (ERC-1271, ERC-6492) checked on the settlement chain.",
    }),
    issuedAt: Type.String({
      maxLength: 32,
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,3})?Z$',
      description:
        'When it was signed, ISO 8601 in UTC (`2026-11-26T08:00:00.000Z`), within the last 10 minutes; a newer ' +
        'registration replaces an older one.',
    }),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/msg/keys`. */
export type KeyBody = Static<typeof KeyBody>

/** Path of `GET /api/v1/msg/keys/:address`. */
export const KeyParams = Type.Object({ address: evmSchema('The wallet whose messaging key to read') })
/** Path of `GET /api/v1/msg/keys/:address`. */
export type KeyParams = Static<typeof KeyParams>
