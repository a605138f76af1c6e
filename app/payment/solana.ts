import { getBase58Decoder, getBase58Encoder, getCompiledTransactionMessageDecoder } from '@solana/kit'
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { PaymentPayloadV2Schema } from '@x402/core/schemas'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { FacilitatorSvmSigner } from '@x402/svm'
import { decodeTransactionFromPayload, getTokenPayerFromTransaction, transactionMessageHash } from '@x402/svm'
import { ExactSvmScheme } from '@x402/svm/exact/facilitator'
import { bytesToHex, type Hash, type Hex, hexToBytes } from 'viem'
import {
  ForbiddenError,
  PaymentInProgressError,
  type Refusal,
  ResponseNotRetainedError,
  SettlementPendingError,
} from '../../core/Errors.js'
import type { FeePayer } from '../../core/FeePayer.js'
import { echo } from '../../core/internal/echo.js'
import type * as Ledger from '../../core/Ledger.js'
import type { Store } from '../../core/Store.js'
import type { Config } from '../config.js'
import type { Logger } from '../log.js'
import { takeBack } from './effects.js'
import {
  type Call,
  type Handled,
  type Outcome,
  type Refused,
  type Scheme,
  serving,
  settlementFailed,
} from './scheme.js'
import { giveUp } from './settlement.js'

/** Why Solana payments are not offered with this configuration; `undefined` when they are. */
export function unconfigured(config: Config['solanaPay']): string | undefined {
  const missing = [
    config.rpcUrl === undefined ? 'SOLANA_PAY_RPC_URL (its node)' : undefined,
    config.feePayerSecretKey === undefined ? 'SOLANA_FEE_PAYER_SECRET_KEY (our fee payer)' : undefined,
    config.payTo === undefined ? 'SOLANA_PAY_TO (who is paid)' : undefined,
  ].filter((name) => name !== undefined)
  return missing.length === 0
    ? undefined
    : `Solana payments are not configured on this gateway: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set.`
}

/**
 * Bounds of what a payer may make our fee payer spend, checked by `@x402/svm` before anything is signed: a compute
 * unit price (the official client asks 1 µlamport), a compute limit (a transfer and a memo use about 20,000; the
 * client asks exactly that) and two signatures (the payer's and ours), 5,000 lamports each.
 */
const limits = { maxPriorityFeeMicroLamports: 50_000, maxComputeUnits: 200_000, maxRequiredSignatures: 2 }

/** A Solana payment claimed in the ledger, between its handler's start and its settlement. */
export type Held = {
  /** Ledger key: the payer as `solana:<genesis>:<address>` and the SHA-256 of the transaction message. */
  key: { payer: Ledger.Payer; nonce: Hex }
  /** The payer's base58 address (the transfer's authority). */
  payer: string
  /** The client's payment. */
  payment: PaymentPayload
  /** Price in atomic units. */
  amount: bigint
  /** `"METHOD path"` of the catalog entry paid for. */
  endpoint: string
}

/** How the paid-call guard answers, so a Solana call is answered as every other one. */
type Answers = Pick<Call, 'refuse' | 'problem'>

/**
 * x402 `exact` on `solana:` (SPL `TransferChecked` of USDC, our relayer as the fee payer), wrapped in the gateway's
 * own guarantees. `@x402/svm`'s facilitator scheme checks the transaction (instruction layout, compute budget within
 * {@link limits}, mint, destination ATA of `payTo`, exact amount, fee payer neither authority nor source, signatures,
 * simulation) and settles it (co-signs, sends, confirms). The ledger, not a process cache, makes one transaction
 * serve one call across processes: it is keyed by the payer and the hash of the transaction's message, as the
 * scheme's own cache is. A call whose handler fails is released and the transaction never co-signed, so it cannot
 * land. A confirmation that does not come within the fee payer's time limit leaves the entry `settling` with its
 * signature: a retry of the same payment, or {@link solana.ReturnType.reconcile}, finishes it.
 */
export function solana(parameters: solana.Parameters): solana.ReturnType {
  const { network, mint, payTo, feePayer, ledger, lease, logger, store, maxTimeoutSeconds } = parameters
  const verifier = new ExactSvmScheme(feePayer.signer, undefined, limits)

  function accept(amount: bigint): PaymentRequirements {
    return {
      scheme: 'exact',
      network,
      amount: amount.toString(),
      asset: mint,
      payTo,
      maxTimeoutSeconds,
      extra: { feePayer: feePayer.address },
    }
  }

  /** The success header of a settled payment: the base58 signature on this network. */
  function receipt(transaction: Hash, payer: string): Record<string, string> {
    return {
      'PAYMENT-RESPONSE': encodePaymentResponseHeader({
        success: true,
        transaction: signatureOf(transaction),
        network,
        payer,
      }),
    }
  }

  function pending(answers: Answers, payer: string, transaction: Hash | undefined): Response {
    const header = encodePaymentResponseHeader({
      success: false,
      errorReason: 'settlement_pending',
      transaction: transaction ? signatureOf(transaction) : '',
      network,
      payer,
    })
    return answers.problem(
      new SettlementPendingError(
        'The transaction was sent and its confirmation has not come yet, so it may be charged. Retry this same request ' +
          'with the same payment after Retry-After seconds: you get the response, charged once.',
        transaction ? { details: { transaction: signatureOf(transaction) } } : {},
      ),
      { 'Retry-After': '5', 'PAYMENT-RESPONSE': header },
    )
  }

  function stored(answers: Answers, entry: Ledger.Entry, payer: string): Response {
    const headers = receipt(entry.transaction!, payer)
    if (!entry.response)
      return answers.problem(
        new ResponseNotRetainedError(
          `This call was paid (transaction ${signatureOf(entry.transaction!)}) and answered, but its response was streamed, too large or past retention.`,
          { details: { transaction: signatureOf(entry.transaction!) } },
        ),
        headers,
      )
    const { status, contentType, body } = entry.response
    return new Response(Buffer.from(body, 'base64'), { status, headers: { ...headers, 'content-type': contentType } })
  }

  /** Records a settlement's outcome: settled; undecided and given up by this process; or failed, its writes taken back. */
  async function decide(held: Pick<Held, 'key' | 'endpoint'>, settled: Settled): Promise<void> {
    const { key, endpoint } = held
    if (settled.ok) {
      await ledger.apply(key, { type: 'confirmed', transaction: settled.transaction })
      logger.log('info', 'payment_settled', { endpoint, payer: key.payer, protocol: 'x402-v2', network })
    } else if (settled.reason === 'settlement_pending') {
      // Nobody is sending it any more: the next retry (or reconciliation) finishes it.
      await giveUp(ledger, key, lease.id)
      logger.log('warn', 'settlement_pending', { endpoint, payer: key.payer })
    } else {
      const failed = await ledger.apply(key, { type: 'fail', reason: `${settled.reason}: ${settled.message}` })
      await takeBack({ store, entry: failed, logger })
      logger.log('warn', 'settlement_failed', { endpoint, reason: settled.reason })
    }
  }

  /**
   * Co-signs, sends and confirms through `@x402/svm`, which verifies once more first. The signature is recorded
   * before the transaction leaves (it is the fee payer's, known once signed), so a crash or a fault while sending
   * leaves something to look up; a fault after signing is `settlement_pending`, never "nothing charged".
   */
  async function settle(held: Pick<Held, 'key' | 'endpoint' | 'payment' | 'amount'>): Promise<Settled> {
    let signed: Hash | undefined
    const signer = {
      ...feePayer.signer,
      async signTransaction(transaction: string, address: Parameters<FacilitatorSvmSigner['signTransaction']>[1]) {
        const full = await feePayer.signer.signTransaction(transaction, address, network)
        signed = firstSignature(full)
        await ledger.apply(held.key, { type: 'submitted', transaction: signed })
        return full
      },
    }
    const settled = await new ExactSvmScheme(signer, undefined, limits).settle(held.payment, accept(held.amount)).catch(
      (error: unknown): SettleResponse => ({
        success: false,
        errorReason: 'settlement_pending',
        errorMessage: error instanceof Error ? error.message : String(error),
        transaction: '',
        network,
      }),
    )
    const outcome = outcomeOf(settled, signed)
    await decide(held, outcome).catch((error: unknown) =>
      logger.log('error', 'settlement_record_failed', { error: error instanceof Error ? error.name : 'unknown' }),
    )
    return outcome
  }

  /**
   * An undecided settlement, looked up: confirmed or failed on chain, recorded so; unknown while its blockhash may
   * still land it; failed once it cannot (nothing moved). One never signed (so never sent, and its answer never left
   * the gateway) and no longer held is sent by a `retry` of its call only; otherwise it waits for one until its
   * blockhash expires, and is then failed.
   */
  async function finish(entry: Ledger.Entry, retry: boolean): Promise<Settled | undefined> {
    const key = { payer: entry.payer, nonce: entry.nonce }
    const payment = JSON.parse(entry.authorization) as PaymentPayload
    const held = { key, endpoint: entry.endpoint, payment, amount: entry.amount }
    if (entry.transaction !== undefined) {
      const found = await feePayer.status(signatureOf(entry.transaction))
      let settled: Settled | undefined
      if (found.state === 'confirmed') settled = { ok: true, transaction: entry.transaction }
      else if (found.state === 'failed')
        settled = {
          ok: false,
          reason: 'settlement_failed',
          message: `The transaction failed on chain: ${found.message}`,
        }
      else if (!(await feePayer.blockhashValid(blockhashOf(payment))))
        settled = { ok: false, reason: 'settlement_failed', message: 'The transaction expired without landing.' }
      if (!settled) return { ok: false, reason: 'settlement_pending', message: 'Not confirmed yet.' }
      if (settled.ok) await ledger.apply(key, { type: 'confirmed', transaction: settled.transaction })
      else await takeBack({ store, entry: await ledger.apply(key, { type: 'fail', reason: settled.message }), logger })
      return settled
    }
    if (entry.lease !== undefined && (await lease.isLive(entry.lease))) return undefined
    if (!retry) {
      if (await feePayer.blockhashValid(blockhashOf(payment)))
        return { ok: false, reason: 'settlement_pending', message: 'Never sent; kept for a retry of its call.' }
      const message = 'Never sent, and its blockhash expired before the call was retried.'
      const failed = await ledger.apply(key, { type: 'fail', reason: message }).catch(() => undefined)
      if (failed) await takeBack({ store, entry: failed, logger })
      return { ok: false, reason: 'settlement_failed', message }
    }
    const adopted = await ledger
      .apply(key, { type: 'adopt', from: entry.lease, lease: lease.id })
      .catch(() => undefined)
    return adopted ? settle(held) : undefined
  }

  /** The answer to a retry of a payment the ledger holds; `retake` when its claim is free again. */
  async function replay(answers: Answers, held: Ledger.Entry, payer: string): Promise<Response | 'retake'> {
    const key = { payer: held.payer, nonce: held.nonce }
    switch (held.state) {
      case 'settled':
        return stored(answers, held, payer)
      case 'settling': {
        const settled = await finish(held, true).catch(() => undefined)
        if (settled?.ok) return stored(answers, (await ledger.get(key))!, payer)
        if (settled && settled.reason !== 'settlement_pending')
          return answers.refuse({ reason: 'settlement_failed', message: settled.message })
        return pending(answers, payer, held.transaction)
      }
      case 'claimed':
        if (held.lease !== undefined && (await lease.isLive(held.lease))) return serving(answers)
        await release(key, 'its process died before answering').catch(() => undefined)
        return 'retake'
      case 'failed':
        return settlementFailed(answers, held.reason)
      case 'released':
        return 'retake'
    }
  }

  async function release(key: Held['key'], reason: string): Promise<void> {
    await takeBack({ store, entry: await ledger.apply(key, { type: 'release', reason }), logger })
  }

  return {
    name: 'exact',
    offer: ({ amount }) => accept(amount),
    terms: { scheme: 'exact', network, asset: mint, payTo, feePayer: feePayer.address },

    carries({ headers }) {
      const header = headers.get('payment-signature')
      if (header === null) return undefined
      try {
        const raw = decodePaymentSignatureHeader(header) as { accepted?: { network?: unknown } }
        return typeof raw?.accepted?.network === 'string' && raw.accepted.network.startsWith('solana:')
          ? raw
          : undefined
      } catch {
        return undefined
      }
    },

    async before(raw, call) {
      const { amount, endpoint, fingerprint } = call
      const parsed = PaymentPayloadV2Schema.safeParse(raw)
      if (!parsed.success)
        return call.refuse({
          reason: 'malformed_payment',
          message: 'PAYMENT-SIGNATURE is not an x402 v2 PaymentPayload.',
        })
      const payment = parsed.data as PaymentPayload
      const { accepted } = payment
      if (accepted.scheme !== 'exact')
        return call.refuse({
          reason: 'malformed_payment',
          message: `Scheme ${echo(accepted.scheme)} is not offered on Solana; pay with exact.`,
        })
      if (accepted.network !== network)
        return call.refuse({
          reason: 'wrong_network',
          message: `The payment is for ${echo(accepted.network)}; this offer is on ${network}.`,
        })
      let nonce: Hex
      let payer: string
      try {
        const transaction = decodeTransactionFromPayload(payment.payload as { transaction: string })
        nonce = bytesToHex(Buffer.from(transactionMessageHash(transaction), 'base64'))
        payer = getTokenPayerFromTransaction(transaction)
      } catch {
        return call.refuse({
          reason: 'malformed_payment',
          message: 'The payload is not a base64 Solana transaction.',
        })
      }
      if (payer === '')
        return call.refuse({ reason: 'malformed_payment', message: 'The transaction carries no token transfer.' })
      const key = { payer: `${network}:${payer}` as Ledger.Payer, nonce }

      // A retry of a payment the ledger holds is answered from the ledger, before the node is asked.
      const existing = await ledger.get(key)
      if (existing && existing.state !== 'released') {
        if (existing.fingerprint !== fingerprint) return call.refuse(replayed)
        const answer = await replay(call, existing, payer)
        if (answer !== 'retake') return answer
      }

      const verified = await verifier.verify(payment, accept(amount))
      if (!verified.isValid) return call.refuse(refusalOf(verified.invalidReason, verified.invalidMessage))
      const claim = await ledger.claim({
        payer: key.payer,
        nonce,
        amount,
        endpoint,
        protocol: 'x402-v2',
        authorization: JSON.stringify(payment),
        fingerprint,
        lease: lease.id,
        claimedAt: new Date(),
      })
      if (!claim.ok) {
        if (claim.reason === 'insufficient_funds' || claim.existing.fingerprint !== fingerprint)
          return call.refuse(replayed)
        const answer = await replay(call, claim.existing, payer)
        return answer === 'retake'
          ? call.problem(new PaymentInProgressError('Retry shortly.'), { 'Retry-After': '1' })
          : answer
      }
      return { key, payer, payment, amount, endpoint }
    },

    async after(held, handled, call) {
      if (!handled.ok) {
        await release(held.key, `handler answered ${handled.status}`)
        return { headers: {} }
      }
      await ledger.apply(held.key, { type: 'settle', response: await handled.keep() })
      const settled = await settle(held)
      if (settled.ok) return { headers: receipt(settled.transaction, held.payer) }
      if (settled.reason === 'settlement_pending') return { withheld: pending(call, held.payer, settled.submitted) }
      return { withheld: call.refuse({ reason: 'settlement_failed', message: settled.message }) }
    },

    release: (held, reason) => release(held.key, reason),
    // The caller is an EVM address wherever a module records what it owns; a Solana payer has none, so a route that
    // reads it refuses the call (403, released: the transaction is never co-signed, nothing is charged).
    payer() {
      throw new ForbiddenError(
        'This endpoint records what you own by your EVM address, so it cannot be paid from Solana: pay it with x402 or MPP on an EVM network.',
      )
    },
    holding: ({ key }) => ({ type: 'ledger', payer: key.payer, nonce: key.nonce }),
    record: async ({ key }, effect) => void (await ledger.apply(key, { type: 'effect', effect })),

    async reconcile() {
      const result = { settled: 0, failed: 0, pending: 0 }
      for (const entry of await ledger.list({ state: 'settling', limit: 1000 })) {
        if (!entry.payer.startsWith(`${network}:`)) continue
        // The node unreachable: it stays undecided until the next round.
        const settled = await finish(entry, false).catch((error: unknown) => {
          logger.log('warn', 'solana_reconcile_failed', { error: error instanceof Error ? error.name : 'unknown' })
          return undefined
        })
        if (settled?.ok) result.settled++
        else if (settled && settled.reason !== 'settlement_pending') result.failed++
        else result.pending++
      }
      // The event of the EVM reconciliation, so the dashboard lists both.
      if (result.settled + result.failed + result.pending > 0)
        logger.log('info', 'ledger_reconciled', { ...result, network })
      return result
    },
  }
}

export declare namespace solana {
  type Parameters = {
    /** CAIP-2 network, `solana:<genesis hash>`. */
    network: `solana:${string}`
    /** The token's mint (USDC). */
    mint: string
    /** Owner of the token account that receives payments (its associated token account is the destination). */
    payTo: string
    /** Our relayer: fee payer, co-signer and sender. */
    feePayer: FeePayer<FacilitatorSvmSigner>
    /** Where claims are recorded. */
    ledger: Ledger.Ledger
    /** This process's lease. */
    lease: { readonly id: string; isLive: (id: string) => Promise<boolean> }
    /** The records paid calls write; what a call that is never paid wrote is taken back from it. */
    store?: Store | undefined
    /** How long a signed payment stays valid, in seconds (the offer's `maxTimeoutSeconds`). */
    maxTimeoutSeconds: number
    /** Where events go. */
    logger: Logger
  }
  /** x402 `exact` on `solana:` as a scheme, and its reconciliation. */
  type ReturnType = Omit<Scheme<unknown, Held>, 'offer' | 'before' | 'after'> & {
    /** The offer of a call's amount on this network, beside the EVM ones. */
    offer: (priced: Pick<Call, 'amount'>) => PaymentRequirements
    /** What every Solana offer names, for discovery. */
    terms: Offered
    /** Checks and claims the payment; a response answers a refusal or a retry of a payment already held. */
    before: (
      raw: unknown,
      call: Pick<Call, 'amount' | 'endpoint' | 'fingerprint' | 'refuse' | 'problem'>,
    ) => Promise<Response | Held>
    /** Settles on success (headers to add) or withholds the resource; releases the claim on failure. */
    after: (held: Held, handled: Pick<Handled, 'ok' | 'status' | 'keep'>, call: Answers) => Promise<Outcome>
    /** Finishes the undecided settlements of this network: confirmed, failed or expired on chain, or sent again. */
    reconcile: () => Promise<{
      /** Found confirmed and recorded. */
      settled: number
      /** Failed on chain or expired without landing: recorded failed, nothing moved. */
      failed: number
      /** Still undecided. */
      pending: number
    }>
  }
}

/** The terms of the Solana offer, as discovery publishes them. */
export type Offered = {
  /** Always `exact`. */
  scheme: 'exact'
  /** CAIP-2 network. */
  network: string
  /** Mint paid in. */
  asset: string
  /** Owner of the receiving token account. */
  payTo: string
  /** Our fee payer: `extra.feePayer`. */
  feePayer: string
}

/** What a settlement came to; `submitted` is the signature once the fee payer signed. */
type Settled =
  | { /** Confirmed. */ ok: true /** The signature, as the ledger keeps it. */; transaction: Hash }
  | {
      /** Not confirmed. */
      ok: false
      /** Undecided (it may still land), or failed (nothing moved). */
      reason: 'settlement_pending' | 'settlement_failed'
      /** Why, with `@x402/svm`'s own code where it gave one. */
      message: string
      /** The fee payer's signature, once it signed. */
      submitted?: Hash | undefined
    }

/** The message of every replay refusal. */
const replayed = {
  reason: 'replayed',
  message: 'This payment transaction was already used for another request.',
} as const

/**
 * What `@x402/svm`'s settle response comes to. A send that failed after the fee payer signed may have reached the
 * node all the same (its signature is known): undecided, not failed.
 */
function outcomeOf(settled: SettleResponse, signed: Hash | undefined): Settled {
  if (settled.success) return { ok: true, transaction: hashOf(settled.transaction) }
  const message = `${settled.errorReason}${settled.errorMessage ? `: ${settled.errorMessage}` : ''}`
  const sendFailed = settled.errorReason === 'invalid_exact_svm_transaction_failed' && settled.transaction === ''
  const undecided = settled.errorReason === 'settlement_pending' || (signed !== undefined && sendFailed)
  return { ok: false, reason: undecided ? 'settlement_pending' : 'settlement_failed', message, submitted: signed }
}

/** Our refusals for the reasons of `@x402/svm` that have one of their own; any other is `malformed_payment`. */
const refusals: Record<string, Refusal> = {
  invalid_exact_svm_payload_amount_mismatch: 'amount_mismatch',
  invalid_exact_svm_payload_mint_mismatch: 'wrong_asset',
  invalid_exact_svm_payload_recipient_mismatch: 'wrong_payee',
  invalid_exact_svm_network_mismatch: 'wrong_network',
  invalid_exact_svm_payload_signature_invalid: 'invalid_signature',
}

/** Our refusal for `@x402/svm`'s reason; the message keeps the scheme's own code. */
function refusalOf(reason: string | undefined, message: string | undefined): Refused {
  const said = `${reason ?? 'invalid'}${message ? `: ${message}` : ''}`
  // A simulation fails for many reasons; the token program's own words tell a short balance apart.
  const short = reason === 'invalid_exact_svm_transaction_simulation_failed' && /insufficient/i.test(said)
  return { reason: short ? 'insufficient_funds' : (refusals[reason ?? ''] ?? 'malformed_payment'), message: said }
}

/** A base58 transaction signature as the ledger keeps it: its 64 bytes in hex. */
function hashOf(signature: string): Hash {
  return bytesToHex(new Uint8Array(getBase58Encoder().encode(signature)))
}

/** The base58 signature of a ledger transaction. */
export function signatureOf(transaction: Hash): string {
  return getBase58Decoder().decode(hexToBytes(transaction))
}

/** The fee payer's signature (the first) of a fully signed base64 transaction, as the ledger keeps it. */
function firstSignature(transaction: string): Hash {
  const decoded = decodeTransactionFromPayload({ transaction })
  const first = Object.values(decoded.signatures)[0]
  if (!first) throw new Error('The signed transaction has no signature.')
  return bytesToHex(first)
}

/** The recent blockhash a payment's transaction was built on. */
function blockhashOf(payment: PaymentPayload): string {
  const decoded = decodeTransactionFromPayload(payment.payload as { transaction: string })
  return getCompiledTransactionMessageDecoder().decode(decoded.messageBytes).lifetimeToken
}
