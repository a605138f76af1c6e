import * as Ledger from '../../core/Ledger.js'
import type { Deferred, Settled } from '../../core/Module.js'
import type { PaymentTerms } from '../../core/PaymentTerms.js'
import { receipt } from './receipt.js'
import type { settlement } from './settlement.js'

/**
 * Payments of asynchronous jobs: a paid call hands its claim to its job (`paid.defer`, the ledger's `defer` event:
 * the entry stays `claimed`, held by `job:<id>` instead of a process lease, so no process death releases it);
 * the job's worker later settles it exactly like the guard settles a call (claimed -> settling, then sent under this
 * process's lease), or releases it while it is still `claimed`. Both are ledger transitions, atomic across processes:
 * of two workers that settle the same job, one moves it to `settling` and the other finds it there.
 */
export function deferred(parameters: deferred.Parameters): Deferred {
  const { settlements, terms } = parameters
  const { ledger, lease, logger } = settlements

  /** The answer for an entry the chain has decided, or that is on its way there. */
  async function outcomeOf(entry: Ledger.Entry): Promise<Settled | undefined> {
    switch (entry.state) {
      case 'settled':
        return {
          ok: true,
          transaction: entry.transaction!,
          receipt: receipt({
            protocol: entry.protocol,
            transaction: entry.transaction!,
            network: terms.network,
            payer: Ledger.asEvm(entry).payer,
            now: entry.updatedAt,
          }),
        }
      case 'failed':
        return { ok: false, reason: 'failed', message: entry.reason ?? 'The settlement failed; nothing moved.' }
      case 'released':
        return { ok: false, reason: 'released', message: entry.reason ?? 'The payment was released; nothing moved.' }
      default:
        return undefined
    }
  }

  /** Sends an entry that is `settling` and nobody's (or this process's own after `adopt`), and reads the outcome. */
  async function send(entry: Ledger.Entry): Promise<Settled> {
    const sent = await settlements.finish(Ledger.asEvm(entry))
    if (!sent) return { ok: false, reason: 'pending', message: 'Another process is settling it.' }
    const decided = await outcomeOf((await ledger.get({ payer: entry.payer, nonce: entry.nonce }))!)
    if (decided) return decided
    return { ok: false, reason: 'pending', message: sent.ok ? 'Confirmed; recording.' : sent.message }
  }

  return {
    async settle(held) {
      const key = { payer: held.payer, nonce: held.nonce }
      const entry = await ledger.get(key)
      if (!entry) return { ok: false, reason: 'released', message: 'No such payment is in the ledger.' }
      const decided = await outcomeOf(entry)
      if (decided) return decided
      if (entry.state === 'settling') {
        // Still undecided: whoever sends it is on it; nobody is (a crash, a fault): send it again, the nonce lands once.
        if (entry.lease !== undefined && !Ledger.isDeferred(entry) && (await lease.isLive(entry.lease)))
          return { ok: false, reason: 'pending', message: 'The settlement was sent; its outcome is not known yet.' }
        return send(entry)
      }
      if (!Ledger.isDeferred(entry))
        return { ok: false, reason: 'released', message: 'The payment is not held by a job.' }
      // Only one process moves it out of `claimed`; the others find it settling, held by the job, and send it too.
      const moved = await ledger.apply(key, { type: 'settle', response: undefined }).catch(() => undefined)
      return send(moved ?? (await ledger.get(key))!)
    },

    async release(held, reason) {
      const key = { payer: held.payer, nonce: held.nonce }
      const entry = await ledger.get(key)
      if (entry?.state !== 'claimed' || !Ledger.isDeferred(entry)) return false
      const released = await ledger.apply(key, { type: 'release', reason }).catch(() => undefined)
      if (released) logger.log('info', 'payment_released', { endpoint: entry.endpoint, payer: entry.payer, reason })
      return released !== undefined
    },
  }
}

export declare namespace deferred {
  type Parameters = {
    /** The settlement service, which settles them as it settles every call. */
    settlements: settlement.ReturnType
    /** Network, asset and payee of every offer: the network of their receipts. */
    terms: PaymentTerms
  }
}
