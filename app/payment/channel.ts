import {
  decodePaymentRequiredHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { type Address, encodeAbiParameters, getAddress, type Hash, type Hex, isAddress, isHex } from 'viem'
import * as Channel from '../../core/Channel.js'
import type { Refusal } from '../../core/Errors.js'
import type * as Ledger from '../../core/Ledger.js'
import * as Machine from '../../core/Machine.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { type Effect, isRefusal, type Store } from '../../core/Store.js'
import type { Logger } from '../log.js'
import { undo } from './effects.js'
import type { Call, Handled, Outcome, Priced, Refused, Scheme } from './scheme.js'

/** The spec's error codes this gateway answers with (x402 `batch-settlement` EVM). */
const codes = {
  mismatch: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
  busy: 'invalid_batch_settlement_evm_channel_busy',
  signature: 'invalid_batch_settlement_evm_voucher_signature',
  exceeds: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
  config: 'invalid_batch_settlement_evm_receiver_mismatch',
  channelId: 'invalid_batch_settlement_evm_channel_id_mismatch',
  payload: 'invalid_batch_settlement_evm_payload_type',
  deposit: 'invalid_batch_settlement_evm_deposit_transaction_failed',
  minDeposit: 'invalid_batch_settlement_evm_deposit_below_min_deposit',
  missing: 'invalid_batch_settlement_evm_missing_channel',
  refund: 'invalid_batch_settlement_evm_refund_transaction_failed',
  noBalance: 'invalid_batch_settlement_evm_refund_no_balance',
} as const

/** A paid call served over a channel, between `before` and `after`. */
export type Held = {
  /** The verified payer (the channel's payer). */
  payer: Address
  /** The channel. */
  channelId: Hex
  /** The call's price. */
  amount: bigint
  /** The voucher ceiling reserved for it. */
  ceiling: bigint
  /** The deposit transaction of this request, when it carried one. */
  deposit?: Hash | undefined
  /** What the request asks for (the idempotency fingerprint): a retry of it with the same voucher is replayed. */
  fingerprint: string
  /** The writes the handler made, in order: taken back when the call is not charged. */
  effects: Effect[]
}

/**
 * The `batch-settlement` side of the payment guard: the offer's channel terms, per-call voucher checks against the
 * channel state in the store (no chain round trip), deposits and cooperative refunds through the relayer, and the
 * sweep job that claims vouchers in batches and settles them. A call reserves its voucher in the channel's record
 * (one at a time per channel, across processes: the store's update is atomic); success advances the charged amount,
 * failure drops the reservation, so a failed handler charges nothing.
 */
export function channels(parameters: channels.Parameters): channels.ReturnType {
  const {
    terms,
    store,
    chain,
    logger,
    withdrawDelay = 86_400,
    minDepositMultiplier = 10n,
    reservationMs = 120_000,
    claimEverySeconds = 3_600,
    depositMethod = 'eip3009',
  } = parameters
  const receiver = getAddress(terms.payTo)
  const token = getAddress(terms.asset.address)
  // The first batch of claims waits a full interval from the start, as every later one does.
  let lastClaimAt = Date.now()

  function accept(amount: bigint, state?: Channel.State): PaymentRequirements {
    return {
      scheme: Channel.scheme,
      network: terms.network,
      amount: amount.toString(),
      asset: token,
      payTo: receiver,
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
      extra: {
        name: terms.asset.name,
        version: terms.asset.version,
        receiverAuthorizer: chain.authorizer,
        withdrawDelay,
        minDeposit: (amount * minDepositMultiplier).toString(),
        assetTransferMethod: depositMethod,
        ...(state ? { channelState: Channel.channelStateOf(state) } : {}),
        ...(state && Channel.voucherStateOf(state) ? { voucherState: Channel.voucherStateOf(state) } : {}),
      },
    }
  }

  /** The call's 402 with the x402 `error` set to the spec's code and, for a resync, the channel's state. */
  function refusal(
    refuse: Call['refuse'],
    refused: Refused & { code: string },
    amount: bigint,
    state?: Channel.State,
  ): Response {
    const response = refuse(refused)
    const header = response.headers.get('PAYMENT-REQUIRED')
    if (!header) return response
    const required = decodePaymentRequiredHeader(header)
    required.error = refused.code
    required.accepts = required.accepts.map((offer) =>
      offer.scheme === Channel.scheme ? accept(amount, state) : offer,
    )
    response.headers.set('PAYMENT-REQUIRED', encodePaymentRequiredHeader(required))
    return response
  }

  const get = async (channelId: Hex) => (await store.get<Channel.State>(Channel.collection, channelId))?.value

  /** Applies `event` to a channel's record in one atomic update; an event the channel refuses leaves it as it was. */
  const apply = (channelId: Hex, event: Channel.Event, now = new Date()) =>
    store.update<Channel.State>(Channel.collection, channelId, ({ value }) =>
      Machine.refusing(() => Channel.transition(value, event, now)),
    )

  /** The record of a channel, created from the chain when the gateway has none (a deposit, a restart elsewhere). */
  async function sync(config: Channel.Config, channelId: Hex): Promise<Channel.State | undefined> {
    const onChain = await chain.read(channelId)
    const fresh = Channel.from({ channelId, config, onChain })
    const inserted = await store.insert({
      collection: Channel.collection,
      id: channelId,
      owners: [getAddress(config.payer), receiver],
      value: fresh,
      createdAt: new Date(),
    })
    if (!inserted.ok) {
      const updated = await apply(channelId, { type: 'read', onChain })
      return updated.ok ? updated.record.value : undefined
    }
    return onChain.balance > 0n ? fresh : undefined
  }

  /** Reads and checks a batch-settlement payload: config against the offer, channel id, voucher signature. */
  async function parse(raw: unknown): Promise<
    | {
        ok: true
        type: 'deposit' | 'voucher' | 'refund'
        config: Channel.Config
        channelId: Hex
        voucher: Channel.Voucher
        payload: Record<string, unknown>
      }
    | { ok: false; refused: Refused & { code: string } }
  > {
    const fail = (reason: Refusal, code: string, message: string) =>
      ({ ok: false, refused: { reason, code, message } }) as const
    const payload = (raw as { payload?: unknown }).payload as Record<string, unknown> | undefined
    const type = payload?.type
    if (type !== 'deposit' && type !== 'voucher' && type !== 'refund')
      return fail('malformed_payment', codes.payload, 'The payload type is not deposit, voucher or refund.')
    const config = payload!.channelConfig as Channel.Config | undefined
    const voucher = payload!.voucher as Channel.Voucher | undefined
    const addresses = ['payer', 'payerAuthorizer', 'receiver', 'receiverAuthorizer', 'token'] as const
    if (
      !config ||
      !addresses.every((field) => typeof config[field] === 'string' && isAddress(config[field], { strict: false })) ||
      !Number.isInteger(config.withdrawDelay) ||
      !isHex(config.salt) ||
      !voucher ||
      !isHex(voucher.channelId) ||
      !isHex(voucher.signature) ||
      typeof voucher.maxClaimableAmount !== 'string' ||
      !/^\d{1,39}$/.test(voucher.maxClaimableAmount)
    )
      return fail('malformed_payment', codes.payload, 'The payload needs a channelConfig and a signed voucher.')
    if (
      getAddress(config.receiver) !== receiver ||
      getAddress(config.token) !== token ||
      getAddress(config.receiverAuthorizer) !== getAddress(chain.authorizer) ||
      config.withdrawDelay !== withdrawDelay
    )
      return fail(
        'wrong_payee',
        codes.config,
        'The channel config does not match the offer (receiver, token, receiverAuthorizer, withdrawDelay).',
      )
    const channelId = chain.channelId(config)
    if (voucher.channelId.toLowerCase() !== channelId)
      return fail('malformed_payment', codes.channelId, 'The voucher is for another channel than its config.')
    if (!(await chain.verifyVoucher(config, voucher)))
      return fail('invalid_signature', codes.signature, "The voucher is not signed by the channel's payer authorizer.")
    return { ok: true, type, config, channelId, voucher, payload: payload! }
  }

  /**
   * Reserves a call's voucher on its channel: it must be exactly the charged amount plus this call's price. The
   * voucher of the last served call, for the same request, is `served` (its kept answer is replayed). A reservation
   * taken over once expired had its call's writes taken back first.
   */
  async function reserve(channelId: Hex, voucher: Channel.Voucher, amount: bigint, fingerprint: string) {
    const event: Channel.Event = { type: 'reserve', voucher, amount, fingerprint, reservationMs }
    const now = new Date()
    let stale: Effect[] = []
    const reserved = await store.update<Channel.State>(Channel.collection, channelId, ({ value }) => {
      const next = Machine.refusing(() => Channel.transition(value, event, now))
      stale = isRefusal(next) ? [] : (value.pending?.effects ?? [])
      return next
    })
    if (reserved.ok && stale.length > 0) await takeBack(channelId, stale)
    return reserved
  }

  /** Takes back the writes of a call that was not charged; logs the ones that could not be. */
  async function takeBack(channelId: Hex, effects: readonly Effect[]) {
    if (effects.length === 0) return
    const kept = await undo(store, effects)
    if (kept.length > 0) logger.log('error', 'undo_incomplete', { channelId, kept: kept.length })
  }

  /**
   * Records one write of the handler of `held`, durably in its reservation, before the handler goes on. A reservation
   * lost meanwhile (it expired and another call took the channel) throws the channel's refusal: the call fails with a
   * 409 and is not charged.
   */
  async function record(held: Held, effect: Effect) {
    held.effects.push(effect)
    await store.update<Channel.State>(Channel.collection, held.channelId, ({ value }) =>
      Channel.transition(value, { type: 'record', ceiling: held.ceiling, effect }, new Date()),
    )
  }

  /**
   * Ends a reservation: a `charge` advances the charged amount to its voucher and keeps the answer for retries;
   * without one nothing is charged. Refused when the reservation was lost (it expired and another call took it).
   */
  function finish(held: Held, charge: { response: Ledger.StoredResponse | undefined } | undefined) {
    return apply(held.channelId, {
      type: 'finish',
      ceiling: held.ceiling,
      charge: charge && { fingerprint: held.fingerprint, response: charge.response },
    })
  }

  /** The kept answer of the channel's last served call, replayed to a retry of it: nothing more is charged. */
  function replayed(state: Channel.State, payer: Address): Response | undefined {
    const kept = state.voucher?.response
    if (!kept) return undefined
    return new Response(Buffer.from(kept.body, 'base64'), {
      status: kept.status,
      headers: {
        'content-type': kept.contentType,
        'PAYMENT-RESPONSE': encodePaymentResponseHeader({
          success: true,
          transaction: '',
          network: terms.network,
          payer,
          amount: '0',
          extra: { chargedAmount: '0', replayed: true, channelState: Channel.channelStateOf(state) },
        } as never),
      },
    })
  }

  /** Claims what the gateway has charged on each channel in `states` (one transaction), then settles. */
  async function claim(
    states: readonly Channel.State[],
  ): Promise<{ claimed: Hash | undefined; settled: Hash | undefined }> {
    const claims = states
      .filter((state) => state.voucher && BigInt(state.charged) > BigInt(state.totalClaimed))
      .map((state) => ({
        config: state.config,
        maxClaimableAmount: BigInt(state.voucher!.maxClaimableAmount),
        signature: state.voucher!.signature,
        totalClaimed: BigInt(state.voucher!.maxClaimableAmount),
      }))
    let claimed: Hash | undefined
    let landed: typeof claims = []
    if (claims.length > 0) {
      try {
        claimed = await chain.claim(claims)
        landed = claims
      } catch (error) {
        // One channel the contract refuses (refunded or withdrawn meanwhile) must not hold back the others: each
        // is claimed on its own, and what still fails is logged and retried at the next sweep.
        logger.log('warn', 'channel_claim_batch_failed', { channels: claims.length, reason: firstLine(error) })
        for (const item of claims)
          try {
            claimed = await chain.claim([item])
            landed = [...landed, item]
          } catch (single) {
            logger.log('warn', 'channel_claim_failed', {
              channelId: chain.channelId(item.config),
              reason: firstLine(single),
            })
          }
      }
      for (const item of landed)
        await apply(chain.channelId(item.config), { type: 'claimed', totalClaimed: item.totalClaimed })
    }
    const settled = await chain.settle()
    return { claimed, settled }
  }

  /** A cooperative refund: claims what is charged, then returns the rest (or `amount`) to the payer. */
  async function refund(
    request: { config: Channel.Config; channelId: Hex; voucher: Channel.Voucher; amount?: bigint | undefined },
    price: bigint,
    refuse: Call['refuse'],
  ): Promise<Response> {
    const { config, channelId, voucher } = request
    const state = (await get(channelId)) ?? (await sync(config, channelId))
    if (!state)
      return refusal(
        refuse,
        { reason: 'insufficient_funds', code: codes.noBalance, message: 'This channel holds nothing.' },
        price,
      )
    // The refund's voucher charges nothing: its ceiling is the charged amount.
    if (BigInt(voucher.maxClaimableAmount) !== BigInt(state.charged))
      return refusal(
        refuse,
        {
          reason: 'amount_mismatch',
          code: codes.mismatch,
          message: 'The refund voucher must carry the charged amount.',
        },
        price,
        state,
      )
    const locked = await apply(channelId, { type: 'lock', signature: voucher.signature, reservationMs })
    if (!locked.ok) return busy(refuse, price)
    const unlock = () => apply(channelId, { type: 'unlock' })
    try {
      const charged = BigInt(state.charged)
      const onChain = await chain.read(channelId)
      if (charged > onChain.totalClaimed)
        await chain.claim([
          { config, maxClaimableAmount: charged, signature: voucher.signature, totalClaimed: charged },
        ])
      const available = onChain.balance - charged
      const amount = request.amount === undefined || request.amount > available ? available : request.amount
      if (amount <= 0n) {
        await unlock()
        return refusal(
          refuse,
          { reason: 'insufficient_funds', code: codes.noBalance, message: 'Nothing is left to refund.' },
          price,
          state,
        )
      }
      const transaction = await chain.refund({ config, amount, nonce: onChain.refundNonce })
      const updated = await apply(channelId, { type: 'refunded', onChain: await chain.read(channelId) })
      logger.log('info', 'channel_refunded', { channelId, amount: amount.toString(), transaction })
      const channelState = updated.ok ? Channel.channelStateOf(updated.record.value) : undefined
      return Response.json(
        { channelId, refunded: amount.toString(), transaction },
        {
          headers: {
            'PAYMENT-RESPONSE': encodePaymentResponseHeader({
              success: true,
              transaction,
              network: terms.network,
              payer: getAddress(config.payer),
              amount: amount.toString(),
              extra: { channelState },
            } as never),
          },
        },
      )
    } catch (error) {
      await unlock()
      logger.log('warn', 'channel_refund_failed', { channelId, reason: firstLine(error) })
      return refusal(
        refuse,
        { reason: 'settlement_failed', code: codes.refund, message: 'The refund transaction failed; nothing moved.' },
        price,
        state,
      )
    }
  }

  function busy(refuse: Call['refuse'], price: bigint): Response {
    return refusal(
      refuse,
      {
        reason: 'replayed',
        code: codes.busy,
        message: 'Another call is being served on this channel right now; sign the next voucher once it answers.',
      },
      price,
    )
  }

  /** Ends a call that is not charged: its reservation dropped, its writes taken back. */
  async function release(held: Held): Promise<void> {
    await finish(held, undefined).catch((error: Error) =>
      logger.log('error', 'channel_finish_failed', { channelId: held.channelId, reason: error.message }),
    )
    await takeBack(held.channelId, held.effects)
  }

  return {
    name: Channel.scheme,
    offer: ({ amount }) => accept(amount),

    terms: {
      scheme: Channel.scheme,
      receiverAuthorizer: chain.authorizer,
      withdrawDelay,
      assetTransferMethod: depositMethod,
      minDepositCalls: Number(minDepositMultiplier),
    },

    carries({ headers }) {
      const header = headers.get('payment-signature')
      if (header === null) return undefined
      try {
        const raw = decodePaymentSignatureHeader(header) as { accepted?: { scheme?: unknown } }
        return raw?.accepted?.scheme === Channel.scheme ? raw : undefined
      } catch {
        return undefined
      }
    },

    async before(raw, { amount, fingerprint, refuse }) {
      const parsed = await parse(raw)
      if (!parsed.ok) return refusal(refuse, parsed.refused, amount)
      const { type, config, channelId, voucher, payload } = parsed
      if (type === 'refund') {
        const requested = payload.amount
        if (requested !== undefined && (typeof requested !== 'string' || !/^[1-9]\d{0,38}$/.test(requested)))
          return refusal(
            refuse,
            { reason: 'malformed_payment', code: codes.payload, message: 'amount must be a positive integer string.' },
            amount,
          )
        return refund(
          { config, channelId, voucher, ...(requested === undefined ? {} : { amount: BigInt(requested) }) },
          amount,
          refuse,
        )
      }
      let deposit: Hash | undefined
      if (type === 'deposit') {
        const body = payload.deposit as { amount?: unknown; authorization?: unknown } | undefined
        const collected =
          typeof body?.amount === 'string' && /^[1-9]\d{0,38}$/.test(body.amount)
            ? collectorDataOf(body.authorization, { config, channelId, token, amount: body.amount })
            : undefined
        if (!collected || typeof body?.amount !== 'string')
          return refusal(
            refuse,
            {
              reason: 'malformed_payment',
              code: codes.payload,
              message:
                "A deposit needs an amount and the payer's ERC-3009 authorization or Permit2 permit of it, for this channel.",
            },
            amount,
          )
        const known = await get(channelId)
        const minDeposit = amount * minDepositMultiplier
        if (!known && BigInt(body.amount) < minDeposit)
          return refusal(
            refuse,
            {
              reason: 'insufficient_funds',
              code: codes.minDeposit,
              message: `A channel's first deposit is at least ${minDeposit}.`,
            },
            amount,
          )
        try {
          deposit = await chain.deposit({ config, amount: BigInt(body.amount), ...collected })
        } catch (error) {
          logger.log('warn', 'channel_deposit_failed', { channelId, reason: firstLine(error) })
          return refusal(
            refuse,
            {
              reason: 'settlement_failed',
              code: codes.deposit,
              message: 'The deposit transaction failed; nothing moved.',
            },
            amount,
          )
        }
        await sync(config, channelId)
      }

      let reserved = await reserve(channelId, voucher, amount, fingerprint)
      // A channel this gateway has no record of (a restart on another database, a deposit sent directly): the chain
      // knows its deposit.
      if (!reserved.ok && !isRefusal(reserved) && (await sync(config, channelId)))
        reserved = await reserve(channelId, voucher, amount, fingerprint)
      if (!reserved.ok) {
        if (!isRefusal(reserved))
          return refusal(
            refuse,
            {
              reason: 'insufficient_funds',
              code: codes.missing,
              message: 'No deposit is known for this channel; deposit first.',
            },
            amount,
          )
        if (reserved.reason === 'busy') return busy(refuse, amount)
        const state = await get(channelId)
        // A retry of the last served call with its voucher: its answer again, charged once.
        const replay = reserved.reason === 'served' && state ? replayed(state, getAddress(config.payer)) : undefined
        if (replay) return replay
        if (reserved.reason === 'exceeds')
          return refusal(
            refuse,
            {
              reason: 'insufficient_funds',
              code: codes.exceeds,
              message: 'The voucher exceeds the channel balance; top up with a deposit.',
            },
            amount,
            state,
          )
        return refusal(
          refuse,
          {
            reason: 'amount_mismatch',
            code: codes.mismatch,
            message: `The voucher must carry the charged amount plus this call's price (${state ? Channel.expectedCeiling(state, amount) : '?'}).`,
          },
          amount,
          state,
        )
      }
      return {
        payer: getAddress(config.payer),
        channelId,
        amount,
        ceiling: BigInt(voucher.maxClaimableAmount),
        deposit,
        fingerprint,
        effects: [],
      }
    },

    record,
    release,
    payer: (held) => held.payer,
    holding: ({ payer, channelId, ceiling, amount }) => ({
      type: 'channel',
      payer,
      channelId,
      ceiling: ceiling.toString(),
      amount: amount.toString(),
    }),

    async after(held, handled, { refuse }) {
      if (!handled.ok) {
        await release(held)
        return { headers: {} }
      }
      const finished = await finish(held, { response: await handled.keep?.() }).catch((error: Error) => {
        logger.log('error', 'channel_finish_failed', { channelId: held.channelId, reason: error.message })
        return undefined
      })
      // Served but not charged (the reservation expired and was taken over): the answer is withheld, its writes undone.
      if (!finished?.ok) {
        await takeBack(held.channelId, held.effects)
        return {
          withheld: refusal(
            refuse,
            {
              reason: 'settlement_failed',
              code: codes.busy,
              message:
                'This call outlived its channel reservation, so it was not charged: its writes were taken back; retry it.',
            },
            held.amount,
          ),
        }
      }
      const headers = {
        'PAYMENT-RESPONSE': encodePaymentResponseHeader({
          success: true,
          transaction: held.deposit ?? '',
          network: terms.network,
          payer: held.payer,
          amount: held.amount.toString(),
          extra: { chargedAmount: held.amount.toString(), channelState: Channel.channelStateOf(finished.record.value) },
        } as never),
      }
      return { headers }
    },

    async sweep(now = Date.now()) {
      const states = (await store.list<Channel.State>(Channel.collection, { owner: receiver, limit: 10_000 })).map(
        (record) => record.value,
      )
      const unclaimed = states.filter((state) => BigInt(state.charged) > BigInt(state.totalClaimed))
      if (unclaimed.length === 0) return { claimed: undefined, settled: await chain.settle() }
      // A payer who asked to withdraw leaves with what is unclaimed once the delay passes: those are claimed at once;
      // the rest every `claimEverySeconds`, in one batch.
      const withdrawing = new Set<string>()
      for (const state of unclaimed)
        if ((await chain.read(state.channelId)).withdrawRequestedAt > 0) withdrawing.add(state.channelId)
      const due = now - lastClaimAt >= claimEverySeconds * 1000
      const chosen = due ? unclaimed : unclaimed.filter((state) => withdrawing.has(state.channelId))
      if (chosen.length === 0) return { claimed: undefined, settled: undefined }
      if (due) lastClaimAt = now
      return claim(chosen)
    },
  }
}

export declare namespace channels {
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** Where channel states live (atomic updates across processes). */
    store: Store
    /** The channel contract through the relayer and the receiver authorizer. */
    chain: Channel.ChannelChain
    /** Where events go. */
    logger: Logger
    /** The withdraw delay offered, in seconds (900 to 30 days). @default 86_400 */
    withdrawDelay?: number | undefined
    /** A channel's first deposit is at least this many times the call's price. @default 10n */
    minDepositMultiplier?: bigint | undefined
    /** How long a call's reservation holds its channel before another may take it, in ms. @default 120_000 */
    reservationMs?: number | undefined
    /** Claims of channels without a withdrawal request are batched this often, in seconds. @default 3_600 */
    claimEverySeconds?: number | undefined
    /**
     * The deposit method offered (`assetTransferMethod`); deposits of either method are accepted whatever is offered.
     * @default 'eip3009'
     */
    depositMethod?: Channel.DepositMethod | undefined
  }
  /** The `batch-settlement` scheme, whose calls need only what they read of the call, and its claim job. */
  type ReturnType = Omit<Scheme<unknown, Held>, 'offer' | 'before' | 'after' | 'record'> & {
    /** The `batch-settlement` offer of a call of its amount. */
    offer: (priced: Pick<Priced, 'amount'>) => PaymentRequirements
    /** The channel terms every offer carries, as discovery lists them. */
    terms: Channel.Terms
    /**
     * Checks and reserves the call of `amount` (a deposit first, when it carries one); a response answers a refund, a
     * refusal, or a retry of the last served call (its kept answer, charged once).
     */
    before: (raw: unknown, call: Pick<Call, 'amount' | 'fingerprint' | 'refuse'>) => Promise<Response | Held>
    /** Records one write of the call's handler with its reservation (taken back when it is not charged). */
    record: (held: Held, effect: Effect) => Promise<void>
    /**
     * Ends the call: on success charges it and keeps its answer (the `PAYMENT-RESPONSE` header), or withholds the
     * answer when the reservation was lost; otherwise charges nothing. Writes of an uncharged call are taken back.
     */
    after: (
      held: Held,
      handled: Pick<Handled, 'ok'> & Partial<Pick<Handled, 'keep'>>,
      call: Pick<Call, 'refuse'>,
    ) => Promise<Outcome>
    /** The claim-and-settle job: claims due vouchers in one batch, then settles the receiver's claimed funds. */
    sweep: (now?: number) => Promise<{ claimed: Hash | undefined; settled: Hash | undefined }>
  }
}

/**
 * The collector data of a deposit's authorization, encoded as the x402 SDK's facilitator does: an ERC-3009
 * `ReceiveWithAuthorization` or a Permit2 witness permit (whose payer, spender, token, amount and channel must be this
 * deposit's; the contract checks the signatures). `undefined` when it is neither.
 */
function collectorDataOf(
  authorization: unknown,
  deposit: { config: Channel.Config; channelId: Hex; token: Address; amount: string },
): { method: Channel.DepositMethod; collectorData: Hex } | undefined {
  const { erc3009Authorization: erc3009, permit2Authorization: permit2 } = (authorization ?? {}) as {
    erc3009Authorization?: Record<string, unknown>
    permit2Authorization?: {
      from?: unknown
      permitted?: { token?: unknown; amount?: unknown }
      spender?: unknown
      nonce?: unknown
      deadline?: unknown
      witness?: { channelId?: unknown }
      signature?: unknown
    }
  }
  const integer = (value: unknown) =>
    (typeof value === 'string' || typeof value === 'number') && /^(\d{1,78}|0x[0-9a-fA-F]{1,64})$/.test(String(value))
  const same = (value: unknown, address: Address) =>
    typeof value === 'string' && isAddress(value, { strict: false }) && getAddress(value) === getAddress(address)
  if (erc3009) {
    const { validAfter, validBefore, salt, signature } = erc3009
    if (!integer(validAfter) || !integer(validBefore) || !integer(salt) || !isHex(signature)) return undefined
    return {
      method: 'eip3009',
      collectorData: encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
        [BigInt(String(validAfter)), BigInt(String(validBefore)), BigInt(String(salt)), signature],
      ),
    }
  }
  if (
    !permit2 ||
    !same(permit2.from, deposit.config.payer) ||
    !same(permit2.spender, Channel.permit2CollectorAddress) ||
    !same(permit2.permitted?.token, deposit.token) ||
    String(permit2.permitted?.amount) !== deposit.amount ||
    String(permit2.witness?.channelId).toLowerCase() !== deposit.channelId.toLowerCase() ||
    !integer(permit2.nonce) ||
    !integer(permit2.deadline) ||
    !isHex(permit2.signature)
  )
    return undefined
  return {
    method: 'permit2',
    collectorData: encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes' }],
      [BigInt(String(permit2.nonce)), BigInt(String(permit2.deadline)), permit2.signature, '0x'],
    ),
  }
}

/** The first line of an error's message, for a log field (viem's messages run to many lines). */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!
}
