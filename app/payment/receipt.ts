import { keccak_256 } from '@noble/hashes/sha3'
import { encodePaymentResponseHeader } from '@x402/core/http'
import {
  createReceiptDomain,
  createReceiptEIP712,
  type EIP712SignedReceipt,
  OFFER_RECEIPT,
  RECEIPT_TYPES,
} from '@x402/extensions/offer-receipt'
import { evm, Receipt } from 'mppx'
import { type Address, domainSeparator, type Hash, type Hex, hexToBytes, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { SignDigest } from '../../core/Authorization.js'
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
 * resource by a payer, with the settlement transaction. The payload is the extension's own; the typed-data digest
 * is computed from the precomputed domain separator and type hash (the one `Receipt` struct, its strings hashed as
 * EIP-712 says, the repeating ones once), so that a paid call pays for the signature and three hashes, not for viem's
 * generic encoder.
 */
export function receiptSigner(parameters: receiptSigner.Parameters): receiptSigner.ReturnType {
  const { privateKey, native } = parameters
  const account = privateKeyToAccount(privateKey)
  const key = hexToBytes(privateKey)
  // libsecp256k1 when it is installed (the same signature, RFC 6979 and low s, as the account's own, faster).
  const sign = native
    ? (digest: Uint8Array): Hex => {
        const { signature, recovery } = native({ digest, privateKey: key })
        return `${toHex(signature)}${recovery === 1 ? '1c' : '1b'}`
      }
    : (digest: Uint8Array) => account.sign({ hash: toHex(digest) })
  const prefix = new Uint8Array(34)
  prefix.set([0x19, 0x01])
  prefix.set(hexToBytes(domainSeparator({ domain: createReceiptDomain() })), 2)
  const typeHash = keccak_256(`Receipt(${RECEIPT_TYPES.Receipt.map(({ type, name }) => `${type} ${name}`).join(',')})`)
  // The network, the resource and the payer repeat from call to call: their hashes are kept (a bounded few).
  const hashes = new Map<string, Uint8Array>()
  const hashOf = (text: string) => {
    let known = hashes.get(text)
    if (!known) {
      if (hashes.size >= 4_096) hashes.clear()
      known = keccak_256(text)
      hashes.set(text, known)
    }
    return known
  }
  const signDigest = async (typed: { message: Record<string, unknown> }) => {
    const { version, network, resourceUrl, payer, issuedAt, transaction } = typed.message as ReceiptMessage
    const struct = new Uint8Array(32 * 7)
    struct.set(typeHash, 0)
    struct.set(word(version), 32)
    struct.set(hashOf(network), 64)
    struct.set(hashOf(resourceUrl), 96)
    struct.set(hashOf(payer), 128)
    struct.set(word(issuedAt), 160)
    struct.set(keccak_256(transaction), 192)
    const digest = new Uint8Array(66)
    digest.set(prefix, 0)
    digest.set(keccak_256(struct), 34)
    return sign(keccak_256(digest))
  }
  return {
    address: account.address,
    async sign({ resource, payer, network, transaction }) {
      return (await createReceiptEIP712(
        { resourceUrl: resource, payer, network, transaction: transaction || undefined },
        signDigest,
      )) as EIP712SignedReceipt
    },
  }
}

/** The `Receipt` message as the extension prepares it for EIP-712. */
type ReceiptMessage = {
  version: bigint
  network: string
  resourceUrl: string
  payer: string
  issuedAt: bigint
  transaction: string
}

/** A uint256 as its 32-byte big-endian word. */
function word(value: bigint): Uint8Array {
  return hexToBytes(toHex(value, { size: 32 }))
}

export declare namespace receiptSigner {
  type Parameters = {
    /** The receipt key. Never logged. */
    privateKey: Hex
    /** libsecp256k1's signer, when the native addon is installed. */
    native?: SignDigest | undefined
  }
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
