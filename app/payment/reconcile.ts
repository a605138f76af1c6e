import type { Domain } from '../../core/Authorization.js'
import type { Facilitator } from '../../core/Facilitator.js'
import type { Ledger } from '../../core/Ledger.js'
import type { Logger } from '../log.js'
import { deserialize } from './guard.js'

/**
 * Settles the books after a crash: a payment left `settling` is matched with the chain (settled there: recorded
 * as settled; still unused once its authorization has expired: failed, nothing moved), and a payment left
 * `claimed` longer than `staleAfterMs` (its handler never finished) is released. A still-valid unused
 * authorization stays `settling`: a transaction may still be in flight, so a later run decides.
 */
export async function reconcile(parameters: reconcile.Parameters): Promise<reconcile.ReturnType> {
  const { ledger, facilitator, domain, logger, now = new Date(), staleAfterMs = 10 * 60_000 } = parameters
  const result = { settled: 0, failed: 0, released: 0, pending: 0 }

  for (const entry of await ledger.list({ state: 'settling', limit: 1000 })) {
    const key = { payer: entry.payer, nonce: entry.nonce }
    const status = await facilitator.status({ ...key, domain, ...(entry.transaction ? { transaction: entry.transaction } : {}) })
    if (status.state === 'settled' && status.transaction) {
      await ledger.apply(key, { type: 'confirmed', transaction: status.transaction })
      result.settled++
    } else if (deserialize(entry.authorization).validBefore * 1000n <= BigInt(now.getTime())) {
      await ledger.apply(key, { type: 'fail', reason: 'not settled before the authorization expired' })
      result.failed++
    } else result.pending++
  }

  for (const entry of await ledger.list({ state: 'claimed', limit: 1000 })) {
    if (now.getTime() - entry.claimedAt.getTime() < staleAfterMs) continue
    await ledger.apply({ payer: entry.payer, nonce: entry.nonce }, { type: 'release', reason: 'handler never finished' })
    result.released++
  }

  if (result.settled + result.failed + result.released + result.pending > 0) logger.log('info', 'ledger_reconciled', result)
  return result
}

export declare namespace reconcile {
  type Parameters = {
    /** The payment ledger. */
    ledger: Ledger
    /** Reads what the chain says of an authorization. */
    facilitator: Facilitator
    /** The token's EIP-712 domain. */
    domain: Domain
    /** Where events go. */
    logger: Logger
    /** Current time. @default new Date() */
    now?: Date
    /** Age after which a `claimed` payment's handler is taken as dead, in ms. @default 600_000 */
    staleAfterMs?: number
  }
  type ReturnType = {
    /** Found settled on chain and recorded. */
    settled: number
    /** Expired unused: recorded as failed. */
    failed: number
    /** Stale claims released. */
    released: number
    /** Still undecided (unused and valid). */
    pending: number
  }
}
