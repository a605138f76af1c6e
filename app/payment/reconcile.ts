import { deserialize } from '../../core/Authorization.js'
import { asEvm, isDeferred, isEvmPayer, type Ledger } from '../../core/Ledger.js'
import type { UptoChain } from '../../core/Upto.js'
import { takeBack } from './effects.js'
import { settledAlso, type settlement } from './settlement.js'
import * as Upto from './upto.js'

/**
 * Settles the books after a crash: a payment left `settling` is matched with the chain (settled there: recorded
 * as settled; still unused once its authorization has expired: failed, nothing moved), and a payment left
 * `claimed` by a process that is dead (its lease lapsed, or gone) is released at once; a claim without a lease
 * (written by an older version) is released after `staleAfterMs`. Released and failed payments have their
 * writes taken back; a payment found settled is the payer's `payment.settled` event, committed with its confirmation.
 * A still-valid unused authorization stays `settling` while a live process is sending it; one that was sent and that
 * nobody sends any more (its process died, or met a fault) is sent again from here. One that was never sent (no node
 * took a transaction of it: its process died or failed between the handler and the send) is not sent from here: its
 * answer never left the gateway, so only a retry of the same call sends it, and gets that answer; unretried, it
 * expires unused and is failed, its writes taken back. Kept responses older than `retentionMs` are dropped.
 */
export async function reconcile(parameters: reconcile.Parameters): Promise<reconcile.ReturnType> {
  const { settlements, upto, now = new Date(), staleAfterMs = 10 * 60_000, retentionMs = 60 * 60_000 } = parameters
  const { ledger, facilitator, domain, logger, store, events, lease } = settlements
  const result = { settled: 0, failed: 0, released: 0, pending: 0, unsent: 0 }
  // Another process may decide the same entry first; its move wins and this one is skipped.
  const apply = (...args: Parameters<Ledger['apply']>) => ledger.apply(...args).catch(() => undefined)

  for (const settling of await ledger.list({ state: 'settling', limit: 1000 })) {
    // Solana payments are looked up on their own chain (`solana.ts`'s reconcile).
    if (!isEvmPayer(settling.payer)) continue
    const entry = asEvm(settling)
    const key = { payer: entry.payer, nonce: entry.nonce }
    // An `upto` permit is no EIP-3009 authorization: Permit2 and the transaction recorded with it say what happened.
    if (Upto.isUpto(entry.authorization)) {
      const found = upto
        ? await upto.outcome(Upto.deserialize(entry.authorization), entry.transaction, now)
        : { state: 'unknown' as const }
      if (found.state === 'settled') {
        const { transaction } = found
        const settled = await settledAlso(events, { entry, domain, transaction })
        if (await apply(key, { type: 'confirmed', transaction }, settled)) result.settled++
      } else if (found.state === 'expired') {
        const failed = await apply(key, { type: 'fail', reason: 'not settled before the permit expired' })
        if (failed) {
          await takeBack({ store, entry: failed, logger })
          result.failed++
        }
      } else result.pending++
      continue
    }
    const status = await facilitator.status({
      ...key,
      domain,
      ...(entry.transaction ? { transaction: entry.transaction } : {}),
    })
    if (status.state === 'settled' && status.transaction) {
      const { transaction } = status
      const settled = await settledAlso(events, { entry, domain, transaction })
      if (await apply(key, { type: 'confirmed', transaction }, settled)) result.settled++
    } else if (deserialize(entry.authorization).validBefore * 1000n <= BigInt(now.getTime())) {
      const failed = await apply(key, { type: 'fail', reason: 'not settled before the authorization expired' })
      if (failed) {
        await takeBack({ store, entry: failed, logger })
        result.failed++
      }
    } else if (entry.transaction === undefined) {
      // It never left its process (no node took a transaction of it), and its answer never left either: only a retry
      // of the same call sends it, and gets that answer. Unretried, it expires unused and is failed above.
      result.unsent++
    } else if (entry.lease === undefined || !(await lease.isLive(entry.lease))) {
      // Sent, and nobody is sending it any more (its process died, or gave up on a fault): send it again; the nonce
      // lands once.
      const settled = await settlements.finish(entry)
      if (settled?.ok) result.settled++
      else if (settled && settled.reason !== 'settlement_pending') result.failed++
      else result.pending++
    } else result.pending++
  }

  for (const entry of await ledger.list({ state: 'claimed', limit: 1000 })) {
    // A claim held by an asynchronous job is its job's to settle or release; once its authorization expired it can
    // never be settled, so it is released here should the job never have come to its end.
    if (isDeferred(entry)) {
      if (deserialize(entry.authorization).validBefore * 1000n > BigInt(now.getTime())) continue
      const expired = await apply(
        { payer: entry.payer, nonce: entry.nonce },
        { type: 'release', reason: 'its job did not end before the authorization expired' },
      )
      if (expired) result.released++
      continue
    }
    const dead =
      entry.lease === undefined
        ? now.getTime() - entry.claimedAt.getTime() >= staleAfterMs
        : !(await lease.isLive(entry.lease))
    if (!dead) continue
    const released = await apply(
      { payer: entry.payer, nonce: entry.nonce },
      { type: 'release', reason: 'its process died before answering' },
    )
    if (released) {
      await takeBack({ store, entry: released, logger })
      result.released++
    }
  }

  await ledger.forget({ before: new Date(now.getTime() - retentionMs) })
  if (result.settled + result.failed + result.released + result.pending + result.unsent > 0)
    logger.log('info', 'ledger_reconciled', result)
  return result
}

export declare namespace reconcile {
  type Parameters = {
    /**
     * The settlement service, with its books: the ledger, the facilitator that reads what the chain says of an
     * authorization, the store whose writes a payment never made takes back, the events outbox (a payment found
     * settled is the payer's `payment.settled`) and this process's lease.
     */
    settlements: settlement.ReturnType
    /** Reads what became of an `upto` settlement (Permit2's nonce, its transaction); without it they stay pending. */
    upto?: Pick<UptoChain, 'outcome'> | undefined
    /** Current time. @default new Date() */
    now?: Date
    /** Age after which a `claimed` payment without a lease is taken as dead, in ms. @default 600_000 */
    staleAfterMs?: number
    /** How long a decided payment's response is kept for retries, in ms. @default 3_600_000 */
    retentionMs?: number
  }
  type ReturnType = {
    /** Found settled on chain and recorded. */
    settled: number
    /** Expired unused: recorded as failed. */
    failed: number
    /** Claims of dead processes released. */
    released: number
    /** Sent and still undecided (unused and valid). */
    pending: number
    /** Never sent, kept for a retry of its call until its authorization expires (unused and valid). */
    unsent: number
  }
}
