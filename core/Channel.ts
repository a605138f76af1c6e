import { keccak_256 } from '@noble/hashes/sha3'
import { type Address, type Hash, type Hex, hexToBytes } from 'viem'
import { type Domain, domainSeparator } from './Authorization.js'
import { InvalidTransitionError } from './Errors.js'
import type { StoredResponse } from './Ledger.js'
import type { Effect } from './Store.js'

/**
 * Payment channels: x402's `batch-settlement` scheme on EVM. A payer deposits once into a channel of the
 * batch-settlement contract, then pays each call with a cumulative EIP-712 voucher the gateway checks locally;
 * claims and settlements are batched later by a job. This module holds the shapes and the rules (a channel's record
 * changes only through {@link transition}); the chain side is the {@link ChannelChain} port, the state lives in the
 * store.
 */

/** The scheme name in offers and payloads. */
export const scheme = 'batch-settlement'

/** The store collection of channel states, one record per channel id. */
export const collection = 'payment-channels'

/** Shortest and longest withdraw delay the contract accepts, in seconds. */
export const withdrawDelayBounds = { min: 900, max: 30 * 24 * 3600 } as const

/** The channel terms a gateway offers with every paid call, as discovery lists them. */
export type Terms = {
  /** The scheme, `batch-settlement`. */
  scheme: typeof scheme
  /** Who authorizes claims and refunds (the channel config's `receiverAuthorizer`). */
  receiverAuthorizer: Address
  /** The withdraw delay every channel config must carry, in seconds. */
  withdrawDelay: number
  /** How deposits move the payer's tokens (`assetTransferMethod`). */
  assetTransferMethod: DepositMethod
  /** A channel's first deposit covers at least this many calls at the called operation's price (`minDeposit`). */
  minDepositCalls: number
}

/** The immutable terms of a channel, as the client's `channelConfig` and the contract's struct. */
export type Config = {
  payer: Address
  payerAuthorizer: Address
  receiver: Address
  receiverAuthorizer: Address
  token: Address
  withdrawDelay: number
  salt: Hex
}

/** How a deposit moves the payer's tokens: x402's `assetTransferMethod`. */
export type DepositMethod = 'eip3009' | 'permit2'

/** A voucher as it travels: the channel, the cumulative ceiling (decimal string) and the payer's signature. */
export type Voucher = { channelId: Hex; maxClaimableAmount: string; signature: Hex }

/** x402's canonical batch-settlement contract (CREATE2, the same address on every chain). */
export const contractAddress: Address = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003'

/** x402's canonical Permit2 deposit collector: the spender a payer's Permit2 deposit permit names. */
export const permit2CollectorAddress: Address = '0x4020425FAf3B746C082C2f942b4E5159887B0005'

/** The EIP-712 domain of the channel contract on `chainId`. */
export function domainOf(chainId: number): Domain {
  return { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: contractAddress }
}

const voucherTypeHash = keccak_256(new TextEncoder().encode('Voucher(bytes32 channelId,uint128 maxClaimableAmount)'))

/**
 * The EIP-712 digest of `Voucher(channelId, maxClaimableAmount)`, hashed by hand (no typed-data walk): this runs on
 * every paid call. Equals viem's `hashTypedData` of the same voucher (tested).
 */
export function voucherDigest(domain: Domain, channelId: Hex, maxClaimableAmount: bigint): Uint8Array {
  const struct = new Uint8Array(96)
  struct.set(voucherTypeHash, 0)
  struct.set(hexToBytes(channelId), 32)
  const amount = hexToBytes(`0x${maxClaimableAmount.toString(16).padStart(64, '0')}`)
  struct.set(amount, 64)
  const message = new Uint8Array(66)
  message.set([0x19, 0x01], 0)
  message.set(domainSeparator(domain), 2)
  message.set(keccak_256(struct), 34)
  return keccak_256(message)
}

/** The state of one channel as the gateway keeps it (bigints as decimal strings). */
export type State = {
  /** The channel id (lower-case). */
  channelId: Hex
  /** Its config. */
  config: Config
  /** Deposited, less refunds and withdrawals, as last read from the chain. */
  balance: string
  /** What the contract has recorded as claimed. */
  totalClaimed: string
  /** What the gateway has charged, cumulatively: the ceiling of the last voucher of a served call. */
  charged: string
  /**
   * The last voucher of a served call: its ceiling and signature, claimed by the job; with the call's request
   * fingerprint and kept response, so that a retry of that same request with that voucher gets its answer again.
   */
  voucher?:
    | { maxClaimableAmount: string; signature: Hex; fingerprint?: string; response?: StoredResponse | undefined }
    | undefined
  /** The contract's refund nonce. */
  refundNonce: string
  /** When the payer asked to withdraw, in seconds; 0 for never. */
  withdrawRequestedAt: number
  /**
   * A call being served on this channel: its voucher ceiling, price, when it started (ms), and the writes its handler
   * made so far (taken back when it is not charged, by whoever takes the channel over once the reservation expires).
   */
  pending?:
    | { maxClaimableAmount: string; amount: string; signature: Hex; at: number; effects?: Effect[] | undefined }
    | undefined
}

/** A channel's first record, from the chain: nothing charged beyond what the contract has claimed. */
export function from(parameters: { channelId: Hex; config: Config; onChain: OnChain }): State {
  const { channelId, config, onChain } = parameters
  return { channelId, config, ...chainFieldsOf(onChain), charged: onChain.totalClaimed.toString() }
}

/** What happens to a channel's record. */
export type Event =
  | {
      /** The chain was read: balance, claims, refund nonce and withdrawal request as they are now. */
      type: 'read'
      /** What the contract holds. */
      onChain: OnChain
    }
  | {
      /** A call reserves the channel with its voucher, whose ceiling must be the charged amount plus `amount`. */
      type: 'reserve'
      /** The call's voucher. */
      voucher: Voucher
      /** The call's price, atomic units. */
      amount: bigint
      /** What the call asks for (its idempotency fingerprint): a retry of the last served call is `served`. */
      fingerprint: string
      /** How long a reservation holds the channel before another call may take it over, in ms. */
      reservationMs: number
    }
  | {
      /** The reserved call of voucher ceiling `ceiling` wrote a record, kept so that it can be taken back. */
      type: 'record'
      /** The ceiling of the call's voucher. */
      ceiling: bigint
      /** The write. */
      effect: Effect
    }
  | {
      /** The reserved call of voucher ceiling `ceiling` ends: charged, keeping its answer, or not (`charge` absent). */
      type: 'finish'
      /** The ceiling of the call's voucher. */
      ceiling: bigint
      /** The charge: the call's fingerprint and kept answer, replayed to a retry of it. */
      charge?: { fingerprint: string; response: StoredResponse | undefined } | undefined
    }
  | {
      /** A cooperative refund takes the channel, charging nothing, until `refunded` or `unlock`. */
      type: 'lock'
      /** The refund voucher's signature. */
      signature: Hex
      /** How long a reservation holds the channel, in ms. */
      reservationMs: number
    }
  | { /** A refund that failed, or left nothing to refund, frees the channel. */ type: 'unlock' }
  | {
      /** A refund went through: the chain as read after it; the channel is free again. */
      type: 'refunded'
      /** What the contract holds now. */
      onChain: OnChain
    }
  | {
      /** Vouchers up to `totalClaimed` were claimed on chain. */
      type: 'claimed'
      /** The cumulative claimed total of the claim. */
      totalClaimed: bigint
    }

/** Why a channel refuses an event, in `details.reason` of its {@link InvalidTransitionError}. */
export type Refusal = 'served' | 'busy' | 'mismatch' | 'exceeds' | 'lost'

/**
 * The next state of a channel (`Machine.Transition`). Pure, so a store may run it again after a lost race. One call
 * at a time holds the channel (its reservation, until it ends or `reservationMs` passes); only the reserving call
 * records writes or ends; a voucher must be exactly the charged amount plus the call's price and within the balance.
 * Throws {@link InvalidTransitionError} with `details.reason` a {@link Refusal}: `served` (the voucher of the last
 * served call, for the same request: its kept answer is the reply), `busy`, `mismatch`, `exceeds`, or `lost` (the
 * reservation expired and another call took the channel).
 */
export function transition(state: State, event: Event, now: Date): State {
  const refuse = (reason: Refusal, message: string) =>
    new InvalidTransitionError(message, { details: { channelId: state.channelId, reason } })
  const busy = () =>
    refuse('busy', 'Another call is being served on this channel right now; sign the next voucher once it answers.')
  const held = (reservationMs: number) =>
    state.pending !== undefined && now.getTime() - state.pending.at < reservationMs
  const ownPending = (ceiling: bigint) => {
    if (state.pending?.maxClaimableAmount !== ceiling.toString())
      throw refuse('lost', 'The channel reservation of this call expired while it ran; it is not charged.')
    return state.pending
  }
  switch (event.type) {
    case 'read':
      return { ...state, ...chainFieldsOf(event.onChain) }
    case 'reserve': {
      const { voucher, amount, fingerprint, reservationMs } = event
      const ceiling = BigInt(voucher.maxClaimableAmount)
      const last = state.voucher
      if (
        last?.fingerprint === fingerprint &&
        last.maxClaimableAmount === ceiling.toString() &&
        last.signature.toLowerCase() === voucher.signature.toLowerCase()
      )
        throw refuse('served', 'This voucher paid the last call, which answered already.')
      if (held(reservationMs)) throw busy()
      if (ceiling !== expectedCeiling(state, amount))
        throw refuse('mismatch', "The voucher must carry the charged amount plus this call's price.")
      if (ceiling > BigInt(state.balance)) throw refuse('exceeds', 'The voucher exceeds the channel balance.')
      const pending = {
        maxClaimableAmount: ceiling.toString(),
        amount: amount.toString(),
        signature: voucher.signature,
      }
      return { ...state, pending: { ...pending, at: now.getTime() } }
    }
    case 'record': {
      const pending = ownPending(event.ceiling)
      return { ...state, pending: { ...pending, effects: [...(pending.effects ?? []), event.effect] } }
    }
    case 'finish': {
      const pending = ownPending(event.ceiling)
      if (!event.charge) return { ...state, pending: undefined }
      const { maxClaimableAmount, signature } = pending
      const { fingerprint, response } = event.charge
      return {
        ...state,
        charged: maxClaimableAmount,
        voucher: { maxClaimableAmount, signature, fingerprint, response },
        pending: undefined,
      }
    }
    case 'lock':
      if (held(event.reservationMs)) throw busy()
      return {
        ...state,
        pending: { maxClaimableAmount: state.charged, amount: '0', signature: event.signature, at: now.getTime() },
      }
    case 'unlock':
      return { ...state, pending: undefined }
    case 'refunded':
      return { ...state, ...chainFieldsOf(event.onChain), pending: undefined }
    case 'claimed':
      return BigInt(state.totalClaimed) >= event.totalClaimed
        ? state
        : { ...state, totalClaimed: event.totalClaimed.toString() }
  }
}

/** The fields of a channel's record that the chain decides. */
function chainFieldsOf(onChain: OnChain) {
  return {
    balance: onChain.balance.toString(),
    totalClaimed: onChain.totalClaimed.toString(),
    refundNonce: onChain.refundNonce.toString(),
    withdrawRequestedAt: onChain.withdrawRequestedAt,
  }
}

/** The channel state the spec's `extra.channelState` carries. */
export function channelStateOf(state: State) {
  return {
    channelId: state.channelId,
    balance: state.balance,
    totalClaimed: state.totalClaimed,
    withdrawRequestedAt: state.withdrawRequestedAt,
    refundNonce: state.refundNonce,
    chargedCumulativeAmount: state.charged,
  }
}

/** The spec's `extra.voucherState`: the last voucher the gateway holds, for a client to resync from. */
export function voucherStateOf(state: State) {
  return state.voucher
    ? { signedMaxClaimable: state.voucher.maxClaimableAmount, signature: state.voucher.signature }
    : undefined
}

/** The charge a voucher must carry on top of the charged amount; the only accepted ceiling for a call of `amount`. */
export function expectedCeiling(state: Pick<State, 'charged'>, amount: bigint): bigint {
  return BigInt(state.charged) + amount
}

/** One claim of a batch: a channel, its last voucher, and the new cumulative claimed total. */
export type Claim = { config: Config; maxClaimableAmount: bigint; signature: Hex; totalClaimed: bigint }

/** What the contract holds for a channel. */
export type OnChain = { balance: bigint; totalClaimed: bigint; refundNonce: bigint; withdrawRequestedAt: number }

/** The channel contract, through the gateway's relayer and receiver-authorizer keys. */
export type ChannelChain = {
  /** Address that authorizes claims and refunds (offered as `receiverAuthorizer`). */
  authorizer: Address
  /** The channel id of a config on this chain. */
  channelId: (config: Config) => Hex
  /** Whether `signature` is the payer authorizer's over `Voucher(channelId, maxClaimableAmount)`. */
  verifyVoucher: (config: Config, voucher: Voucher) => Promise<boolean>
  /** Reads a channel. */
  read: (channelId: Hex) => Promise<OnChain>
  /**
   * Deposits through the collector of `method`: the payer's ERC-3009 authorization or Permit2 witness permit, as
   * collector data the way the client's SDK encodes it; confirmed.
   */
  deposit: (parameters: { config: Config; amount: bigint; method: DepositMethod; collectorData: Hex }) => Promise<Hash>
  /** Claims vouchers in one `claimWithSignature`, the batch signed by the authorizer; confirmed. */
  claim: (claims: readonly Claim[]) => Promise<Hash>
  /** Settles what the receiver has claimed of the token; `undefined` when nothing is claimed and unsettled. */
  settle: () => Promise<Hash | undefined>
  /** Refunds `amount` of the unclaimed balance to the payer with the authorizer's signature over `nonce`; confirmed. */
  refund: (parameters: { config: Config; amount: bigint; nonce: bigint }) => Promise<Hash>
}
