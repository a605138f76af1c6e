import { type Address, createPublicClient, custom, getAddress, type Hex, isAddressEqual, verifyMessage } from 'viem'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../core/Errors.js'
import * as Messaging from '../../core/Messaging.js'
import type * as Rpc from '../../core/Rpc.js'
import { isRefusal, type Store } from '../../core/Store.js'
import { type Failure, isFailure, toError } from '../../core/Upstream.js'
import type { InboxQuery, KeyBody, KeyParams, SendBody } from './schema.js'

/** Collection of the registered messaging keys, one per address (the checksummed address is the id). */
export const keysCollection = 'msg_keys'

/** Collection of the stored envelopes, each owned by its recipient only. */
export const messagesCollection = 'msg_messages'

/** Collection of each inbox's message count (the `total` of `inbox`), keyed by the recipient's address. */
export const inboxesCollection = 'msg_inboxes'

/** Oldest a registration's `issuedAt` may be when it arrives, in seconds: an old signature cannot be replayed later. */
const keyMaxAgeSeconds = 600

/** Furthest ahead of the gateway's clock a registration's `issuedAt` may be, in seconds (clock skew). */
const keyMaxSkewSeconds = 60

/** What the msg service needs. */
export type Deps = {
  /** Keys, envelopes and inbox counts. */
  store: Store
  /** EIP-155 id of the settlement chain, part of the signed key registration. */
  chainId: number
  /** Checks a signature a wallet's local ECDSA key does not explain (a smart wallet's). @default none: EOAs only */
  verifyContract?: Verify | undefined
}

/** Whether `signature` is `address`'s signature of `message` (EIP-191). */
export type Verify = (parameters: { address: Address; message: string; signature: Hex }) => Promise<boolean>

/**
 * Smart-wallet signatures on the settlement chain, through viem's `verifyMessage`: ERC-1271 `isValidSignature` of a
 * deployed wallet, or ERC-6492 for one not deployed yet (a deployless `eth_call`). A node that does not answer is the
 * upstream's error (503/504), never a refusal of the signature.
 */
export function contractVerifier(endpoint: Rpc.Endpoint): Verify {
  return async (parameters) => {
    let failure: Failure | undefined
    const client = createPublicClient({
      transport: custom(
        {
          async request({ method, params }) {
            const answer = await endpoint.request(method as Rpc.Method, (params as unknown[] | undefined) ?? [])
            if (isFailure(answer)) {
              failure = answer
              throw toError(answer)
            }
            // The node's own error, in EIP-1193 form, so that viem reads a revert as an invalid signature.
            if (!answer.ok) throw Object.assign(new Error(answer.message), { code: answer.code })
            return answer.result
          },
        },
        // The endpoint keeps its own time limit and retries; viem's would multiply them.
        { retryCount: 0 },
      ),
    })
    const valid = await client.verifyMessage(parameters).catch((error: unknown) => {
      throw failure ? toError(failure) : error
    })
    if (failure) throw toError(failure)
    return valid
  }
}

/** A registered messaging key, as stored and as answered: enough for anyone to verify the binding themselves. */
export type Registration = {
  /** The wallet, checksummed. */
  address: Address
  /** Its compressed messaging public key. */
  publicKey: Hex
  /** The wallet's EIP-191 signature of {@link Messaging.keyMessage}. */
  signature: Hex
  /** When the wallet signed, as it wrote it. */
  issuedAt: string
  /** The chain id written in the signed text. */
  chainId: number
}

/** A stored message: only ciphertext; the gateway cannot read it. */
export type Message = {
  /** `msg_` and 32 hex digits. */
  id: string
  /** The verified payer who sent it. */
  from: Address
  /** The recipient. */
  to: Address
  /** The ECIES envelope as sent, or as the gateway made it from plaintext. */
  envelope: string
  /** Who encrypted it: the sender (end to end) or the gateway, from the sender's plaintext. */
  encryption?: 'sender' | 'gateway'
  /** MIME type of the opened content. */
  contentType?: string
  /** The sender's own JSON, in clear. */
  metadata?: Record<string, unknown>
  /** When it was stored, ISO 8601. */
  createdAt: string
}

/** How many messages an inbox holds. */
type Inbox = { count: number }

/**
 * Registers (or replaces) a wallet's messaging key, free: the EIP-191 signature of {@link Messaging.keyMessage} must
 * be `address`'s (an EOA's, or a smart wallet's when `verifyContract` is given), `issuedAt` must be recent, and a
 * registration replaces the stored one only when its `issuedAt` is newer, so a replayed older signature cannot roll a
 * key back.
 */
export async function registerKey(deps: Deps, input: KeyBody) {
  const now = Date.now()
  const issuedAt = Date.parse(input.issuedAt)
  if (Number.isNaN(issuedAt)) throw new ValidationError({ field: 'issuedAt', message: 'is not a date' })
  if (issuedAt > now + keyMaxSkewSeconds * 1000)
    throw new ValidationError({ field: 'issuedAt', message: 'is in the future' })
  if (issuedAt < now - keyMaxAgeSeconds * 1000)
    throw new ValidationError({
      field: 'issuedAt',
      message: `is more than ${keyMaxAgeSeconds} s old; sign a fresh registration`,
    })
  if (!Messaging.isPublicKey(input.publicKey))
    throw new ValidationError({ field: 'publicKey', message: 'is not a point on secp256k1' })
  const registration: Registration = {
    address: getAddress(input.address),
    publicKey: input.publicKey.toLowerCase() as Hex,
    signature: input.signature as Hex,
    issuedAt: input.issuedAt,
    chainId: deps.chainId,
  }
  const signed = {
    address: registration.address,
    message: Messaging.keyMessage(registration),
    signature: registration.signature,
  }
  const valid = (await verifyMessage(signed).catch(() => false)) || ((await deps.verifyContract?.(signed)) ?? false)
  if (!valid)
    throw new ForbiddenError(`The registration is not signed by ${registration.address}.`, {
      details: { field: 'signature' },
    })
  const inserted = await deps.store.insert({
    collection: keysCollection,
    id: registration.address,
    owners: [registration.address],
    value: registration,
    createdAt: new Date(),
  })
  if (inserted.ok) return answerOf(registration, 'registered')
  const updated = await deps.store.update<Registration>(keysCollection, registration.address, ({ value }) =>
    Date.parse(value.issuedAt) < issuedAt
      ? registration
      : { refused: true, reason: value.issuedAt === registration.issuedAt ? 'same' : value.issuedAt },
  )
  if (updated.ok) return answerOf(registration, 'registered')
  if (isRefusal(updated) && updated.reason === 'same') {
    const current = await deps.store.get<Registration>(keysCollection, registration.address)
    if (current?.value.signature === registration.signature) return answerOf(current.value, 'unchanged')
  }
  throw new ConflictError(
    `${registration.address} has a registration at least as new as ${registration.issuedAt}; sign a newer one.`,
    { details: { field: 'issuedAt', reason: 'stale_registration' } },
  )
}

function answerOf(registration: Registration, status: 'registered' | 'unchanged') {
  return { ...registration, status }
}

/** A wallet's registered key with its signature and the signed text, so that a sender can check the binding. */
export async function getKey(deps: Deps, input: KeyParams) {
  const registration = await registrationOf(deps, getAddress(input.address), 'address')
  return { ...registration, message: Messaging.keyMessage(registration) }
}

async function registrationOf(deps: Deps, address: Address, field: string): Promise<Registration> {
  const record = await deps.store.get<Registration>(keysCollection, address)
  if (!record)
    throw new NotFoundError(`${address} has registered no messaging key (POST /api/v1/msg/keys).`, {
      details: { field, reason: 'no_messaging_key' },
    })
  return record.value
}

/**
 * What `content` is: an ECIES envelope, or plaintext the gateway is to encrypt. Text that starts as an envelope does
 * (base64 of an uncompressed point's 0x04) and is not one is refused as a broken envelope, never taken for plaintext.
 */
function contentOf(content: string): { kind: 'envelope' } | { kind: 'plaintext' } {
  const parsed = Messaging.parse(content)
  if (parsed.ok) return { kind: 'envelope' }
  if (/^B[A-Za-z0-9+/]{3,}={0,2}$/.test(content) && content.length % 4 === 0)
    throw new ValidationError({ field: 'content', message: `${parsed.reason}: not a well-formed ECIES envelope` })
  const bytes = new TextEncoder().encode(content).length
  if (bytes > Messaging.maxContentBytes)
    throw new ValidationError({
      field: 'content',
      message: `is ${bytes} bytes of plaintext; one message carries at most ${Messaging.maxContentBytes}`,
    })
  return { kind: 'plaintext' }
}

/**
 * Checks a send before payment: the content must be an ECIES envelope or plaintext that fits one, and the recipient
 * must have a registered key (a 409 saying it must register one: without it nothing can be encrypted to it, and
 * plaintext is never stored). Leaves anything the schema refuses to the schema.
 */
export async function preflightSend(deps: Deps, body: unknown): Promise<void> {
  const input = body as Partial<SendBody> | null
  if (typeof input?.content === 'string' && input.content.length <= Messaging.maxEnvelopeLength)
    contentOf(input.content)
  if (typeof input?.to === 'string' && /^0x[0-9a-fA-F]{40}$/.test(input.to)) await recipientKeyOf(deps, input.to)
}

/** The recipient's registered key, or a 409 that says the recipient must register one first. */
async function recipientKeyOf(deps: Deps, to: string): Promise<Registration> {
  const address = getAddress(to)
  const record = await deps.store.get<Registration>(keysCollection, address)
  if (!record)
    throw new ConflictError(
      `${address} has registered no messaging key, so nothing can be encrypted to it and plaintext is never stored: the recipient must register one first (POST /api/v1/msg/keys).`,
      { details: { field: 'to', reason: 'no_messaging_key' } },
    )
  return record.value
}

/**
 * Stores an envelope from the payer for the recipient's inbox; `stored` is all the gateway can say of it. Plaintext
 * is first encrypted to the recipient's registered key, and only the envelope is kept; the answer says who encrypted.
 */
export async function send(deps: Deps, input: SendBody & { caller: Address }) {
  const { publicKey } = await recipientKeyOf(deps, input.to)
  const encryption = contentOf(input.content).kind === 'envelope' ? 'sender' : 'gateway'
  const now = new Date()
  const to = getAddress(input.to)
  const message: Message = {
    id: `msg_${crypto.randomUUID().replaceAll('-', '')}`,
    from: getAddress(input.caller),
    to,
    envelope: encryption === 'sender' ? input.content : Messaging.encrypt({ content: input.content, publicKey }),
    encryption,
    contentType: input.contentType ?? 'text/plain',
    metadata: input.metadata ?? {},
    createdAt: now.toISOString(),
  }
  await deps.store.insert({
    collection: messagesCollection,
    id: message.id,
    owners: [to],
    value: message,
    createdAt: now,
  })
  await count(deps, to, now)
  return {
    id: message.id,
    status: 'stored' as const,
    from: message.from,
    to,
    createdAt: message.createdAt,
    encryption,
    ...(encryption === 'gateway'
      ? {
          note: "Encrypted by the gateway to the recipient's registered key: the gateway saw the plaintext, so this message is not end to end. Encrypt to the key yourself (GET /api/v1/msg/keys/{address}) for that.",
        }
      : {}),
    contentType: message.contentType,
    metadata: message.metadata,
  }
}

/** Adds one to the recipient's message count. */
async function count(deps: Deps, to: Address, now: Date): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const updated = await deps.store.update<Inbox>(inboxesCollection, to, ({ value }) => ({ count: value.count + 1 }))
    if (updated.ok) return
    const inserted = await deps.store.insert<Inbox>({
      collection: inboxesCollection,
      id: to,
      owners: [to],
      value: { count: 1 },
      createdAt: now,
    })
    if (inserted.ok) return
    // Another send inserted it first: count on that one.
  }
  throw new ConflictError('The inbox is being changed by another call; try again.')
}

/**
 * The payer's own inbox, newest first: the envelopes as sent (only the holder of the messaging key opens them) and
 * how many the inbox holds. Another address's inbox is refused (403), so the call is not charged.
 */
export async function inbox(deps: Deps, input: InboxQuery & { caller: Address }) {
  const address = getAddress(input.address)
  if (!isAddressEqual(address, input.caller))
    throw new ForbiddenError(`Only ${address} may read its inbox; this call was paid by ${getAddress(input.caller)}.`, {
      details: { field: 'address' },
    })
  const limit = Number(input.limit ?? 20)
  if (limit < 1 || limit > 100) throw new ValidationError({ field: 'limit', message: 'must be 1 to 100' })
  const [records, counted] = await Promise.all([
    deps.store.list<Message>(messagesCollection, { owner: address, limit }),
    deps.store.get<Inbox>(inboxesCollection, address),
  ])
  const messages = records.map(({ value }) => value)
  return { address, messages, total: Math.max(counted?.value.count ?? 0, messages.length) }
}
