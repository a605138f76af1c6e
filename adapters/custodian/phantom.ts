import { ed25519 } from '@noble/curves/ed25519'
import { base58, base64urlnopad } from '@scure/base'
import { bytesToHex, getAddress, type Hex, hexToBytes, isAddress, isHex } from 'viem'
import type * as CustodialWallet from '../../core/CustodialWallet.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Upstream from '../../core/Upstream.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** Phantom's derivation of the EVM key (BIP-44, coin type 60), as its server SDK asks for it. */
const ethereum = { derivationPath: "m/44'/60'/0'/0/0", curve: 'secp256k1', addressFormat: 'ethereum' } as const

/** Phantom's derivation of the Solana key (BIP-44, coin type 501). */
const solana = { derivationPath: "m/44'/501'/0'/0'", curve: 'ed25519', addressFormat: 'solana' } as const

/**
 * Phantom's server wallets (the `@phantom/server-sdk` API): one JSON-RPC endpoint, `POST {base}/kms/rpc`, whose body
 * is `{ method, params, timestampMs }` and whose answer is `{ result }`. Every request carries `X-Phantom-Stamp`: the
 * base64url of `{ publicKey, signature, kind: "PKI", algorithm: "Ed25519" }`, the organization key's Ed25519 signature
 * of the body's bytes (the SDK's ApiKeyStamper). Methods used: `createWallet` and `getAccounts` (an EVM and a Solana
 * key), `ethereumSignMessage` (EIP-191), `signUtf8Message` (Solana) and `signTransaction` without a
 * `submissionConfig`, which signs and sends nothing: the gateway sends what it checked. No call is retried (a create
 * is not idempotent).
 */
export function phantom(parameters: phantom.Parameters): CustodialWallet.Custodian {
  const {
    baseUrl = 'https://api.phantom.app/v1/wallets',
    organizationId,
    appId,
    secretKey,
    now = Date.now,
    ...options
  } = parameters
  const seed = seedOf(secretKey)
  const publicKey = base64urlnopad.encode(ed25519.getPublicKey(seed))
  const client = vendor({
    id: 'phantom',
    name: 'Phantom',
    baseUrl,
    timeoutMs: 15_000,
    retries: 0,
    maxResponseBytes: 1024 * 1024,
    headers: { 'x-phantom-sdk-type': 'server', 'x-app-id': appId },
    now,
    ...options,
  })

  /** One KMS call: its `result`, or the failure (an answer without one is Phantom's `error`, rejected). */
  async function rpc(method: string, params: Record<string, unknown>): Promise<Upstream.Outcome<{ result: unknown }>> {
    const body = { method, params: { organizationId, ...params }, timestampMs: now() }
    const signature = ed25519.sign(new TextEncoder().encode(JSON.stringify(body)), seed)
    const stamp = { publicKey, signature: base64urlnopad.encode(signature), kind: 'PKI', algorithm: 'Ed25519' }
    const outcome = await client.post('/kms/rpc', body, {
      label: method,
      auth: {
        type: 'header',
        name: 'X-Phantom-Stamp',
        value: base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(stamp))),
      },
      check: (answer, status) => {
        const fields = fieldsOf(answer)
        if ('result' in fields && (fields.error === undefined || fields.error === null)) return undefined
        const error = fieldsOf(fields.error)
        const message = typeof error.message === 'string' ? error.message : `answered ${method} without a result`
        return client.fail('rejected', `Phantom refused ${method}: ${message}`, status)
      },
    })
    if (!outcome.ok) return outcome
    return { ok: true, result: fieldsOf(outcome.body).result }
  }

  async function addresses(walletId: string): Promise<Upstream.Outcome<{ addresses: CustodialWallet.Addresses }>> {
    const accounts = await rpc('getAccounts', {
      walletId,
      accounts: [solana.derivationPath, ethereum.derivationPath],
    })
    if (!accounts.ok) return accounts
    const read = client.read(() => addressesOf(accounts.result))
    return 'ok' in read ? read : { ok: true, addresses: read }
  }

  /** The `signature` of a signing answer, base64url bytes. */
  function signatureOf(result: unknown): Uint8Array {
    const { signature } = fieldsOf(result)
    if (typeof signature !== 'string') throw new UnreadableAnswerError('Phantom answered no signature')
    return decoded(signature, 'signature')
  }

  return {
    name: 'phantom',

    async create({ name }) {
      const created = await rpc('createWallet', {
        walletName: name,
        accounts: [solana.derivationPath, ethereum.derivationPath],
      })
      if (!created.ok) return created
      const { walletId } = fieldsOf(created.result)
      if (typeof walletId !== 'string' || walletId === '')
        return client.fail('failed', 'Phantom answered createWallet without a walletId.')
      const derived = await addresses(walletId)
      if (!derived.ok) return derived
      return { ok: true, walletId, addresses: derived.addresses }
    },

    addresses: ({ walletId }) => addresses(walletId),

    async signMessage({ walletId, message, family }) {
      const signed =
        family === 'evm'
          ? await rpc('ethereumSignMessage', {
              walletId,
              message: base64urlnopad.encode(new TextEncoder().encode(message)),
              derivationInfo: ethereum,
            })
          : await rpc('signUtf8Message', { walletId, message, algorithm: 'Ed25519', derivationInfo: solana })
      if (!signed.ok) return signed
      const read = client.read(() => signatureOf(signed.result))
      if ('ok' in read) return read
      return { ok: true, signature: family === 'evm' ? bytesToHex(read) : base58.encode(read) }
    },

    async signTransaction({ walletId, transaction }) {
      const signed = await rpc('signTransaction', {
        walletId,
        transaction: { kind: 'RLP_ENCODED', bytes: transaction },
        derivationInfo: ethereum,
      })
      if (!signed.ok) return signed
      const read = client.read((): Hex => {
        const { transaction: raw } = fieldsOf(signed.result)
        if (typeof raw !== 'string') throw new UnreadableAnswerError('Phantom answered no signed transaction')
        return isHex(raw) ? raw : bytesToHex(decoded(raw, 'transaction'))
      })
      return typeof read === 'string' ? { ok: true, signed: read } : read
    },

    available: client.available,
  }
}

export declare namespace phantom {
  type Parameters = Omit<vendor.Options, 'retries'> & {
    /** Base URL of Phantom's wallet API. @default 'https://api.phantom.app/v1/wallets' */
    baseUrl?: string
    /** The organization's id. */
    organizationId: string
    /** The app's id (Phantom Portal), sent as `x-app-id`. */
    appId: string
    /** The organization's Ed25519 private key, Base58: the 64-byte secret key Phantom issues, or its 32-byte seed. */
    secretKey: string
  }
}

/** The 32-byte seed of a Base58 Ed25519 secret key (64 bytes: the seed then the public key, checked) or seed. */
function seedOf(secretKey: string): Uint8Array {
  let bytes: Uint8Array
  try {
    bytes = base58.decode(secretKey.trim())
  } catch {
    throw new TypeError('The Phantom organization key is not Base58.')
  }
  if (bytes.length === 32) return bytes
  if (bytes.length === 64) {
    const seed = bytes.slice(0, 32)
    if (bytesToHex(ed25519.getPublicKey(seed)) !== bytesToHex(bytes.slice(32)))
      throw new TypeError('The Phantom organization key is 64 bytes whose second half is not its public key.')
    return seed
  }
  throw new TypeError(
    `The Phantom organization key is ${bytes.length} bytes; an Ed25519 secret key is 64 (or a 32-byte seed).`,
  )
}

/** Bytes of a base64url text (padding tolerated), or a hex one. */
function decoded(text: string, what: string): Uint8Array {
  if (isHex(text)) return hexToBytes(text)
  try {
    return base64urlnopad.decode(text.replace(/=+$/, ''))
  } catch {
    throw new UnreadableAnswerError(`Phantom answered a ${what} that is not base64url`)
  }
}

/** The EVM and Solana addresses of a `getAccounts` result (`[{ addressFormat, address }]`). */
function addressesOf(result: unknown): CustodialWallet.Addresses {
  if (!Array.isArray(result)) throw new UnreadableAnswerError('Phantom answered getAccounts without a list')
  const found: CustodialWallet.Addresses = { evm: null, solana: null }
  for (const account of result) {
    const { addressFormat, address } = fieldsOf(account)
    if (typeof address !== 'string' || typeof addressFormat !== 'string') continue
    const format = addressFormat.toLowerCase()
    if (format === 'ethereum' && isAddress(address, { strict: false })) found.evm = getAddress(address)
    if (format === 'solana' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) found.solana = address
  }
  return found
}
