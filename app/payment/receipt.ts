import { encodePaymentResponseHeader } from '@x402/core/http'
import { evm, Receipt } from 'mppx'
import type { Address, Hash } from 'viem'
import type { Protocol } from '../../core/Ledger.js'
import { chainIdOf, type PaymentTerms } from '../../core/PaymentTerms.js'
import { v1NetworkOf } from './x402.js'

/**
 * The success header of a settled payment, in the protocol it arrived in: `PAYMENT-RESPONSE` (x402 v2),
 * `X-PAYMENT-RESPONSE` (x402 v1) or `Payment-Receipt` (MPP), each carrying the settlement transaction.
 */
export function receipt(parameters: receipt.Parameters): receipt.ReturnType {
  const { protocol, transaction, network, payer, challengeId, now, amount } = parameters
  switch (protocol) {
    case 'x402-v2':
      return {
        'PAYMENT-RESPONSE': encodePaymentResponseHeader({
          success: true,
          transaction,
          network,
          payer,
          ...(amount === undefined ? {} : { amount: amount.toString() }),
        }),
      }
    case 'x402-v1':
      // v1 names the network by its v1 name and shares v2's encoding (standard base64 of the JSON).
      return {
        'X-PAYMENT-RESPONSE': encodePaymentResponseHeader({
          success: true,
          transaction,
          network: (v1NetworkOf(network) ?? network) as PaymentTerms['network'],
          payer,
        }),
      }
    case 'mpp':
      return {
        'Payment-Receipt': Receipt.serialize(
          Receipt.from({
            method: evm.charge.name,
            reference: transaction,
            status: 'success',
            timestamp: now.toISOString(),
            // The evm charge spec adds these two to the core receipt fields.
            chainId: chainIdOf(network),
            ...(challengeId === undefined ? {} : { challengeId }),
          }),
        ),
      }
  }
}

export declare namespace receipt {
  type Parameters = {
    /** Protocol the payment arrived in. */
    protocol: Protocol
    /** Settlement transaction hash; empty when an `upto` call used nothing and no transaction was sent. */
    transaction: Hash | ''
    /** CAIP-2 network it settled on. */
    network: PaymentTerms['network']
    /** Checksummed payer address. */
    payer: Address
    /** Id of the answered MPP challenge (`decode`'s `payment.challengeId`); echoed in the MPP receipt. */
    challengeId?: string | undefined
    /** Settlement time. */
    now: Date
    /** What was charged, when it may be less than authorized (x402 `upto`). */
    amount?: bigint | undefined
  }
  /** Header name to value; one header. */
  type ReturnType = Record<string, string>
}
