import type { Address, Hash, Hex } from 'viem'
import { type Domain, deserialize, type Signed } from '../../core/Authorization.js'
import { InvalidTransitionError } from '../../core/Errors.js'
import type { Emit, Events } from '../../core/Events.js'
import type { Facilitator, Outcome } from '../../core/Facilitator.js'
import type { Entry, Event, EvmEntry, Ledger, Payer, Protocol } from '../../core/Ledger.js'
import type { Also, Store } from '../../core/Store.js'
import type { Logger } from '../log.js'
import { takeBack } from './effects.js'

/** A claimed payment to settle. */
export type Claimed = {
  /** Ledger key: checksummed payer and lower-case nonce. */
  key: { payer: Address; nonce: Hex }
  /** Protocol it arrived in. */
  protocol: Protocol
  /** The signed authorization. */
  authorization: Signed
  /** `"METHOD path"` of the catalog entry paid for. */
  endpoint: string
  /** MPP challenge the credential answered, echoed in the receipt. */
  challengeId: string | undefined
}

/** What a settlement came to within the time the caller waits: `settlement_pending` when undecided by then. */
export type Settled = Outcome<{ transaction: Hash }> & {
  /** Hash of the transaction sent, or signed to be sent, when known. */
  submitted?: Hash | undefined
}

/**
 * The settlement service, one per process, shared by every scheme that settles on the EVM chain, the jobs' payments
 * and reconciliation. It settles claimed payments and records the outcome in the ledger: confirmed; failed (and the
 * call's writes taken back); or, when the outcome is unknown (a fault, or no confirmation within `timeoutMs`), left
 * `settling` with the lease given up, so that a retry or reconciliation finishes it. Sending an authorization again
 * is safe: the token takes each nonce once, so at most one transfer lands.
 */
export function settlement(parameters: settlement.Parameters): settlement.ReturnType {
  const { timeoutMs = 15_000, ...books } = parameters
  const { ledger, domain, lease, store, events, logger } = books

  async function decide(claimed: Claimed, outcome: Outcome<{ transaction: Hash }>): Promise<void> {
    const { key, endpoint } = claimed
    if (outcome.ok) {
      const settled = await settledAlso(events, {
        entry: { ...key, amount: claimed.authorization.value, endpoint },
        domain,
        transaction: outcome.transaction,
      })
      await ledger.apply(key, { type: 'confirmed', transaction: outcome.transaction }, settled).catch(async (error) => {
        // Reconciliation confirms a payment it finds mined, also while its process still waits for the receipt.
        const entry = await ledger.get(key)
        if (entry?.state !== 'settled' || entry.transaction !== outcome.transaction) throw error
      })
      logger.log('info', 'payment_settled', {
        endpoint,
        payer: key.payer,
        protocol: claimed.protocol,
        transaction: outcome.transaction,
      })
    } else if (outcome.reason === 'settlement_pending') {
      // Nobody is sending it any more: the next retry (or reconciliation, once it was sent) finishes it.
      await giveUp(ledger, key, lease.id)
      logger.log('warn', 'settlement_pending', { endpoint, payer: key.payer })
    } else {
      await takeBack({
        store,
        entry: await ledger.apply(key, { type: 'fail', reason: `${outcome.reason}: ${outcome.message}` }),
        logger,
      })
      logger.log('warn', 'settlement_failed', { endpoint, reason: outcome.reason })
    }
  }

  async function settle(claimed: Claimed, facilitator = books.facilitator): Promise<Settled> {
    let signed: Hash | undefined
    let submitted: Hash | undefined
    let recorded: Promise<unknown> = Promise.resolve()
    const outcome = facilitator
      .settle({
        authorization: claimed.authorization,
        domain,
        onSigned: (transaction) => {
          signed = transaction
        },
        // Recorded only once the node has it: a settlement the ledger holds no hash of never left this process, and
        // nobody but a retry of its call sends it (see reconcile).
        onSubmitted: (transaction) => {
          submitted = transaction
          recorded = ledger.apply(claimed.key, { type: 'submitted', transaction }).catch(() => undefined)
        },
      })
      // A fault (a dropped connection, a node that timed out) may have carried the transaction out: unknown.
      .catch((error: unknown) => ({
        ok: false as const,
        reason: 'settlement_pending' as const,
        message: `The settlement's outcome is unknown (${error instanceof Error ? error.name : 'fault'}).`,
      }))
      .then(async (result) => {
        await recorded
        await decide(claimed, result).catch((error: unknown) =>
          logger.log('error', 'settlement_record_failed', { error: error instanceof Error ? error.name : 'unknown' }),
        )
        return result
      })
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs)
    })
    const result = await Promise.race([outcome, late])
    clearTimeout(timer)
    if (result === 'late')
      return {
        ok: false,
        reason: 'settlement_pending',
        message: `No confirmation within ${timeoutMs} ms.`,
        submitted: submitted ?? signed,
      }
    return { ...result, submitted: submitted ?? signed }
  }

  async function move(key: Claimed['key'], event: Event): Promise<Entry> {
    try {
      return await ledger.apply(key, event)
    } catch (error) {
      throw error instanceof InvalidTransitionError
        ? new Error(`The payment ledger refused ${event.type}.`, { cause: error })
        : error
    }
  }

  return {
    ...books,
    settle,
    move,
    async release(key, reason) {
      await takeBack({ store, entry: await move(key, { type: 'release', reason }), logger })
    },
    async finish(held) {
      const adopted = await ledger
        .apply({ payer: held.payer, nonce: held.nonce }, { type: 'adopt', from: held.lease, lease: lease.id })
        .catch(() => undefined)
      if (!adopted) return undefined
      return settle({
        key: { payer: held.payer, nonce: adopted.nonce },
        protocol: adopted.protocol,
        authorization: deserialize(adopted.authorization),
        endpoint: adopted.endpoint,
        challengeId: undefined,
      })
    },
  }
}

export declare namespace settlement {
  type Parameters = {
    /** Where outcomes are recorded. */
    ledger: Ledger
    /** Sends and confirms. */
    facilitator: Facilitator
    /** The token's EIP-712 domain. */
    domain: Domain
    /** This process's lease: it holds the settlements it sends, and asks whether another claim's process still lives. */
    lease: { readonly id: string; isLive: (id: string) => Promise<boolean> }
    /** The records paid calls write; a failed payment's writes are taken back from it. */
    store?: Store | undefined
    /** The events outbox: a settled payment is the payer's `payment.settled`, committed with the confirmation. */
    events?: Events | undefined
    /** Where events go. */
    logger: Logger
    /** How long `settle` waits before it answers `settlement_pending`, in ms; the settlement goes on. @default 15_000 */
    timeoutMs?: number | undefined
  }
  /** The books the service keeps, and the moves that end a claimed payment. */
  type ReturnType = Omit<Parameters, 'timeoutMs'> & {
    /**
     * Settles a claimed payment (its entry `settling` under this lease) through `facilitator` (`upto` permits go
     * through their own), waiting at most `timeoutMs`. @default the service's facilitator
     */
    settle: (claimed: Claimed, facilitator?: Facilitator) => Promise<Settled>
    /**
     * Applies the gateway's own move to a claim. The ledger refusing it is a fault of the gateway, not a conflict of the
     * caller's: it becomes a plain fault (500), never the 409 an `InvalidTransitionError` would be at the edge.
     */
    move: (key: Claimed['key'], event: Event) => Promise<Entry>
    /** Releases a claim and takes back the writes of its call. */
    release: (key: Claimed['key'], reason: string) => Promise<void>
    /**
     * Takes over an undecided settlement whose holder is gone and sends it again; `undefined` when another
     * process took it first.
     */
    finish: (held: EvmEntry) => Promise<Settled | undefined>
  }
}

/**
 * Gives up this process's hold on an undecided settlement, so that a retry or reconciliation may finish it. Another
 * process may have decided it meanwhile (found it mined) or taken it over: then there is nothing to give up, and
 * nothing is wrong.
 */
export async function giveUp(ledger: Ledger, key: { payer: Payer; nonce: Hex }, lease: string): Promise<void> {
  await ledger.apply(key, { type: 'adopt', from: lease, lease: undefined }).catch(async (error: unknown) => {
    const entry = await ledger.get(key)
    if (entry?.state === 'settling' && entry.lease === lease) throw error
  })
}

/**
 * What commits with a payment's confirmation: the payer's `payment.settled` (recorded once, however often the payment
 * is confirmed), when one of the payer's webhooks listens for it; an event nobody listens for is not recorded, which
 * spares every paid call of a payer without webhooks an outbox item and its fan-out.
 */
export async function settledAlso(
  events: Events | undefined,
  parameters: Parameters<typeof settledEvent>[0],
): Promise<Also | undefined> {
  if (!events || !(await events.wanted(parameters.entry.payer, 'payment.settled'))) return undefined
  return { enqueue: [events.outbox(settledEvent(parameters))] }
}

/**
 * The payer's `payment.settled` event of a confirmed payment. Its id is the ledger key, so a payment confirmed by the
 * settling process and by reconciliation is one event.
 */
export function settledEvent(parameters: {
  /** The payment: ledger key, amount in atomic units and the `"METHOD path"` paid for. */
  entry: Pick<EvmEntry, 'payer' | 'nonce' | 'amount' | 'endpoint'>
  /** The token's EIP-712 domain. */
  domain: Domain
  /** The settlement transaction. */
  transaction: Hash
}): Emit {
  const { entry, domain, transaction } = parameters
  return {
    id: `payment.settled:${entry.payer}:${entry.nonce}`,
    type: 'payment.settled',
    owner: entry.payer,
    data: {
      payer: entry.payer,
      amountRaw: entry.amount.toString(),
      asset: domain.verifyingContract,
      network: `eip155:${domain.chainId}`,
      transaction,
      resource: entry.endpoint,
    },
  }
}
