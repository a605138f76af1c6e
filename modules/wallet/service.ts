import { type Address, getAddress, type Hex } from 'viem'
import * as CustodialWallet from '../../core/CustodialWallet.js'
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  UpstreamFailedError,
  ValidationError,
} from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import type * as Rpc from '../../core/Rpc.js'
import * as SignedRequest from '../../core/SignedRequest.js'
import type { Record, Store } from '../../core/Store.js'
import * as Upstream from '../../core/Upstream.js'
import {
  type CreateBody,
  defaultPageSize,
  type ListQuery,
  maxPageSize,
  type SendTransactionBody,
  type SignMessageBody,
} from './schema.js'

/** Longest a create request's signature is good for, in seconds. */
export const maxSignatureSeconds = 3600

/** The network `wallet/sign-message` signs for without `networkId`, as the original gateway. */
export const defaultNetworkId = 'solana-mainnet'

/** What the wallet module needs from outside. */
export type Deps = {
  /** Wallets and the nonces of signed creates. */
  store: Store
  /** The vendor holding the wallets' keys. */
  custodian: CustodialWallet.Custodian
  /** Sends to the settlement chain what a wallet signed. */
  broadcaster: Rpc.Broadcaster
  /** The settlement chain's node: simulations, nonces, fees. */
  endpoint: Rpc.Endpoint
  /** Most wallets one owner may create. */
  maxPerOwner: number
  /** Current time. */
  now: () => Date
}

/**
 * Creates a wallet at the vendor for `owner`, once `owner` signed the request (EIP-712 `CreateWallet`); without a
 * signature, answers the typed data to sign and does nothing. A nonce is spent once (409 again); a vendor failure gives
 * the nonce back, so the same signature may be sent again.
 */
export async function create(deps: Deps, body: CreateBody) {
  const owner = getAddress(body.owner)
  const name = body.name ?? `spraay-agent-${deps.now().getTime()}`
  const label = body.label ?? name
  const nowSeconds = Math.floor(deps.now().getTime() / 1000)
  if (body.signature === undefined) return signatureRequired(deps, { owner, name, label }, nowSeconds)
  for (const field of ['nonce', 'expiry'] as const)
    if (body[field] === undefined)
      throw new ValidationError({ field, message: 'required with signature: send back the one the typed data holds' })
  const request = { owner, name, label, nonce: body.nonce!, expiry: body.expiry! }
  const verified = await SignedRequest.verify({
    typedData: CustodialWallet.createTypedData({ chainId: deps.endpoint.chainId, request }),
    signature: body.signature as Hex,
    signer: owner,
    expiry: request.expiry,
    nowSeconds,
    maxSeconds: maxSignatureSeconds,
  })
  if (!verified.ok) {
    if (verified.reason === 'wrong_signer')
      throw new ForbiddenError(`The request is not signed by ${owner}.`, { details: { field: 'signature' } })
    throw new ValidationError({ field: verified.field, message: verified.message })
  }
  const held = await deps.store.list<CustodialWallet.Wallet>(CustodialWallet.collection, {
    owner,
    limit: deps.maxPerOwner,
  })
  if (held.length >= deps.maxPerOwner)
    throw new ConflictError(`${owner} has ${held.length} wallets, the most this gateway creates for one owner.`, {
      details: { reason: 'wallet_limit', limit: deps.maxPerOwner },
    })
  const nonceId = `${owner.toLowerCase()}:${BigInt(request.nonce)}`
  const spent = await deps.store.insert({
    collection: CustodialWallet.noncesCollection,
    id: nonceId,
    owners: [owner],
    value: { expiry: request.expiry },
    createdAt: deps.now(),
  })
  if (!spent.ok)
    throw new ConflictError(`Nonce ${request.nonce} of ${owner} was already used.`, {
      details: { field: 'nonce', reason: 'replayed' },
    })
  const created = await deps.custodian.create({ name })
  if (!created.ok) {
    await deps.store.remove(CustodialWallet.noncesCollection, nonceId)
    throw Upstream.toError(created)
  }
  const wallet: CustodialWallet.Wallet = {
    walletId: created.walletId,
    vendor: deps.custodian.name,
    owner,
    name,
    label,
    addresses: created.addresses,
    lastActive: null,
    totalTransactions: 0,
  }
  const stored = await deps.store.insert({
    collection: CustodialWallet.collection,
    id: wallet.walletId,
    owners: [owner],
    value: wallet,
    createdAt: deps.now(),
  })
  if (!stored.ok)
    throw new UpstreamFailedError(`${deps.custodian.name} answered wallet id ${wallet.walletId}, which is taken.`)
  return {
    success: true,
    walletId: wallet.walletId,
    addresses: CustodialWallet.addressesOf(wallet.addresses),
    label,
    owner,
    vendor: wallet.vendor,
    note: 'EVM address works across all EVM chains; only payments from the owner list, read, sign or send with it.',
  }
}

/** The payer's wallet `walletId`, as the original gateway answers it; anyone else's is a 404. */
export async function get(deps: Deps, input: { caller: Address; walletId: string }) {
  const record = await CustodialWallet.owned({ store: deps.store, ...input })
  return { success: true, ...summaryOf(record), addresses: CustodialWallet.addressesOf(record.value.addresses) }
}

/** The payer's wallets, newest first, a page at a time (the original's `limit` and `offset`). */
export async function list(deps: Deps, input: ListQuery & { caller: Address }) {
  const asked = Number(input.limit ?? 0)
  const limit = asked === 0 ? defaultPageSize : Math.min(asked, maxPageSize)
  const offset = Number(input.offset ?? 0)
  const records = await deps.store.list<CustodialWallet.Wallet>(CustodialWallet.collection, {
    owner: input.caller,
    limit: deps.maxPerOwner,
  })
  return {
    success: true,
    wallets: records.slice(offset, offset + limit).map((record) => {
      const { walletId, label, created_at, last_active, total_transactions } = summaryOf(record)
      return {
        wallet_id: walletId,
        label,
        solana_address: record.value.addresses.solana,
        evm_address: record.value.addresses.evm,
        created_at,
        last_active,
        total_transactions,
      }
    }),
    pagination: { total: records.length, limit, offset, hasMore: offset + limit < records.length },
  }
}

/** The payer's wallet's addresses, as its vendor derives them now. */
export async function addresses(deps: Deps, input: { caller: Address; walletId: string }) {
  await CustodialWallet.owned({ store: deps.store, ...input })
  const derived = await deps.custodian.addresses({ walletId: input.walletId })
  if (!derived.ok) throw Upstream.toError(derived)
  return { success: true, walletId: input.walletId, addresses: CustodialWallet.addressesOf(derived.addresses) }
}

/** Refuses, before payment, a `networkId` that names no network. */
export function preflightSign(body: unknown): void {
  const { networkId } = (body ?? {}) as { networkId?: unknown }
  if (typeof networkId === 'string') networkOf(networkId)
}

/**
 * Signs `message` with the payer's wallet: the EVM key for an EVM network, the Solana key otherwise. The vendor's
 * signature is checked against the wallet's address before it is answered.
 */
export async function signMessage(deps: Deps, input: SignMessageBody & { caller: Address }) {
  const networkId = input.networkId ?? defaultNetworkId
  const { family } = networkOf(networkId)
  const record = await CustodialWallet.owned({ store: deps.store, caller: input.caller, walletId: input.walletId })
  const signer = record.value.addresses[family]
  if (!signer)
    throw new BadRequestError(`Wallet ${input.walletId} has no ${family} key.`, { details: { field: 'networkId' } })
  const signed = await deps.custodian.signMessage({ walletId: input.walletId, message: input.message, family })
  if (!signed.ok) throw Upstream.toError(signed)
  const valid = await CustodialWallet.verifyMessage({
    family,
    address: signer,
    message: input.message,
    signature: signed.signature,
  })
  if (!valid)
    throw new UpstreamFailedError(`${deps.custodian.name} answered a signature that is not ${signer}'s of the message.`)
  await touch(deps, record, 0)
  return {
    success: true,
    signature: signed.signature,
    walletId: input.walletId,
    networkId,
    signer,
    scheme: family === 'evm' ? 'eip191' : 'ed25519',
  }
}

/** Refuses, before payment, a network other than the settlement chain. */
export function preflightSend(deps: Pick<Deps, 'endpoint'>, body: unknown): void {
  const { networkId } = (body ?? {}) as { networkId?: unknown }
  if (typeof networkId === 'string') settlementNetwork(deps, networkId)
}

/**
 * Sends a transaction from the payer's wallet on the settlement chain: simulated (a revert is a 400), signed by the
 * vendor, checked, then sent; the original's `signature` is its hash. Nothing is charged for a failure.
 */
export async function sendTransaction(deps: Deps, input: SendTransactionBody & { caller: Address }) {
  settlementNetwork(deps, input.networkId)
  const record = await CustodialWallet.owned({ store: deps.store, caller: input.caller, walletId: input.walletId })
  const { to, data, value, gas } = input.transaction
  const sent = await CustodialWallet.send({
    custodian: deps.custodian,
    broadcaster: deps.broadcaster,
    endpoint: deps.endpoint,
    wallet: record.value,
    call: {
      to: getAddress(to),
      data: (data ?? '0x') as Hex,
      value: value === undefined ? 0n : BigInt(value),
      gas: gas === undefined ? undefined : BigInt(gas),
    },
  })
  await touch(deps, record, 1)
  const entry = EvmChain.registry.find((candidate) => candidate.chainId === deps.endpoint.chainId)
  return {
    success: true,
    signature: sent.hash,
    hash: sent.hash,
    walletId: input.walletId,
    networkId: input.networkId,
    chainId: deps.endpoint.chainId,
    from: sent.from,
    to: getAddress(to),
    nonce: sent.nonce,
    gasLimit: sent.gasLimit.toString(),
    gasEstimate: sent.gasEstimate.toString(),
    maxFeePerGas: sent.maxFeePerGas.toString(),
    maxPriorityFeePerGas: sent.maxPriorityFeePerGas.toString(),
    simulation: { ok: true, returnData: sent.returnData },
    explorer: entry ? `${entry.explorer}/tx/${sent.hash}` : null,
  }
}

/** The fields of a wallet the original gateway answers, by its names. */
function summaryOf(record: Record<CustodialWallet.Wallet>) {
  const { walletId, label, name, owner, vendor, lastActive, totalTransactions } = record.value
  return {
    walletId,
    label,
    name,
    owner,
    vendor,
    created_at: record.createdAt.toISOString(),
    last_active: lastActive,
    total_transactions: totalTransactions,
  }
}

/** Records a wallet's use: now is its last activity, and `sent` more transactions went out. */
async function touch(deps: Deps, record: Record<CustodialWallet.Wallet>, sent: number): Promise<void> {
  const lastActive = deps.now().toISOString()
  await deps.store.update<CustodialWallet.Wallet>(CustodialWallet.collection, record.id, (current) => ({
    ...current.value,
    lastActive,
    totalTransactions: current.value.totalTransactions + sent,
  }))
}

/** The network `networkId` names; anything else is refused naming it. */
function networkOf(networkId: string): CustodialWallet.Network {
  const network = CustodialWallet.networkOf(networkId)
  if (!network)
    throw new ValidationError({
      field: 'networkId',
      message: 'unknown network: give an EVM chain (`base-mainnet`, `eip155:8453`) or Solana (`solana-mainnet`)',
    })
  return network
}

/**
 * Checks that `networkId` is the settlement chain, where the gateway simulates and sends: `base` (any spelling of it,
 * the settlement chain as the chain-data endpoints read it) or its `eip155:` id.
 */
function settlementNetwork(deps: Pick<Deps, 'endpoint'>, networkId: string): void {
  const network = networkOf(networkId)
  const chainId = deps.endpoint.chainId
  // A name (`base`, `base-mainnet`) means the settlement chain, as the chain-data endpoints read it; an id means its id.
  const named = !/^eip155:/i.test(networkId.trim()) && network.family === 'evm' && network.name === 'base'
  if (named || (network.family === 'evm' && network.chainId === chainId)) return
  throw new ValidationError({
    field: 'networkId',
    message: `transactions are sent on the settlement chain only: \`base\` or \`eip155:${chainId}\``,
  })
}

/** The answer to a create sent without a signature: the typed data to sign and the request to send back with it. */
function signatureRequired(deps: Deps, fields: { owner: Address; name: string; label: string }, nowSeconds: number) {
  const request = { ...fields, ...SignedRequest.envelope({ nowSeconds, seconds: maxSignatureSeconds }) }
  const typed = CustodialWallet.createTypedData({ chainId: deps.endpoint.chainId, request })
  return {
    status: 'signature_required',
    owner: fields.owner,
    typedData: {
      ...typed,
      message: { ...typed.message, nonce: typed.message.nonce.toString(), expiry: typed.message.expiry.toString() },
    },
    request,
    instructions: [
      `Sign typedData with the key of ${fields.owner} (EIP-712, eth_signTypedData_v4).`,
      'Send request again, unchanged, with the signature added as `signature`.',
      `Before ${new Date(request.expiry * 1000).toISOString()}; nothing was created yet.`,
    ],
  }
}
