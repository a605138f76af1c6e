import * as Channel from '../../core/Channel.js'
import { isEvmPayer, type Ledger } from '../../core/Ledger.js'
import type { Holding, PaymentOutcome } from '../../core/Module.js'
import type { Store } from '../../core/Store.js'
import { signatureOf } from './solana.js'

/**
 * What became of a paid call's payment, by where it is recorded: paid (with what events say of it), never paid, or not
 * decided yet. A ledger entry is paid once settled and unpaid once failed, released or gone; a channel voucher is paid
 * once the channel's charged amount reaches its ceiling, undecided while it is the channel's pending voucher.
 */
export function paymentOutcome(parameters: {
  /** The store that holds the channels' state. */
  store: Store
  /** The payment ledger. */
  ledger: Pick<Ledger, 'get'>
}): (holding: Holding) => Promise<PaymentOutcome> {
  const { store, ledger } = parameters
  return async (holding) => {
    if (holding.type === 'channel') {
      const { payer, channelId, ceiling, amount: amountRaw } = holding
      const state = (await store.get<Channel.State>(Channel.collection, channelId))?.value
      if (state?.pending?.maxClaimableAmount === ceiling) return { state: 'undecided' }
      // The channel charged up to this voucher's ceiling: its call was served and paid.
      if (state && BigInt(state.charged) >= BigInt(ceiling))
        return { state: 'paid', payment: { payer, amountRaw, transaction: null, channelId } }
      return { state: 'unpaid', reason: 'the voucher was not charged' }
    }
    const entry = await ledger.get({ payer: holding.payer, nonce: holding.nonce })
    if (!entry) return { state: 'unpaid', reason: 'the payment is not in the ledger' }
    if (entry.state === 'settled') {
      const transaction = entry.transaction!
      return {
        state: 'paid',
        payment: {
          payer: entry.payer,
          amountRaw: entry.amount.toString(),
          transaction: isEvmPayer(entry.payer) ? transaction : signatureOf(transaction),
        },
      }
    }
    if (entry.state === 'failed' || entry.state === 'released')
      return { state: 'unpaid', reason: `the payment was ${entry.state}` }
    return { state: 'undecided' }
  }
}
