import { encodePaymentResponseHeader } from '@x402/core/http'
import { createEIP712OfferReceiptIssuer, type EIP712SignedReceipt, OFFER_RECEIPT } from '@x402/extensions/offer-receipt'
import { evm, Receipt } from 'mppx'
import type { Address, Hash, LocalAccount } from 'viem'
import type { Protocol } from '../../core/Ledger.js'
import { chainIdOf, type PaymentTerms } from '../../core/PaymentTerms.js'
import { v1NetworkOf } from './x402.js'

/**
 * The success header of a settled payment, in the protocol it arrived in: `PAYMENT-RESPONSE` (x402 v2),
 * `X-PAYMENT-RESPONSE` (x402 v1) or `Payment-Receipt` (MPP), each carrying the settlement transaction.
 */
export function receipt(parameters: receipt.Parameters): receipt.ReturnType {
  const { protocol, transaction, network, payer, challengeId, now, amount, signed } = parameters
  switch (protocol) {
    case 'x402-v2':
      return {
        'PAYMENT-RESPONSE': encodePaymentResponseHeader({
          success: true,
          transaction,
          network,
          payer,
          ...(amount === undefined ? {} : { amount: amount.toString() }),
          ...(signed === undefined ? {} : { extensions: { [OFFER_RECEIPT]: { info: { receipt: signed } } } }),
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
    /** The gateway's signed `offer-receipt` receipt of the payment, carried in the x402 v2 settlement response. */
    signed?: EIP712SignedReceipt | undefined
  }
  /** Header name to value; one header. */
  type ReturnType = Record<string, string>
}

/**
 * Signs the x402 `offer-receipt` receipts (EIP-712, domain `x402 receipt`) of settled payments with the gateway's
 * receipt key: proof, checkable offline against the published signer address, that this gateway was paid for a
 * resource by a payer, with the settlement transaction.
 */
export function receiptSigner(account: LocalAccount): receiptSigner.ReturnType {
  const issuer = createEIP712OfferReceiptIssuer(`did:pkh:eip155:1:${account.address}`, (typed) =>
    account.signTypedData(typed as Parameters<LocalAccount['signTypedData']>[0]),
  )
  return {
    address: account.address,
    async sign({ resource, payer, network, transaction }) {
      return (await issuer.issueReceipt(resource, payer, network, transaction || undefined)) as EIP712SignedReceipt
    },
  }
}

export declare namespace receiptSigner {
  type ReturnType = {
    /** The signer's address, published in the payment manifest. */
    address: Address
    /** The signed receipt of one settled payment. */
    sign: (parameters: {
      /** Absolute URL of the resource paid for. */
      resource: string
      /** Checksummed payer address. */
      payer: Address
      /** CAIP-2 network it settled on. */
      network: PaymentTerms['network']
      /** Settlement transaction; empty when none was sent. */
      transaction: Hash | ''
    }) => Promise<EIP712SignedReceipt>
  }
}
