import { decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import {
  declareEip2612GasSponsoringExtension,
  extractEip2612GasSponsoringInfo,
  validateEip2612GasSponsoringInfo,
} from '@x402/extensions'
import { type Address, getAddress, type Hex, isAddress, recoverTypedDataAddress, size, toHex } from 'viem'
import type * as Catalog from '../../core/Catalog.js'
import { Permit2AllowanceRequiredError, type Refusal } from '../../core/Errors.js'
import type { Facilitator } from '../../core/Facilitator.js'
import { echo } from '../../core/internal/echo.js'
import * as Ledger from '../../core/Ledger.js'
import type { Meter } from '../../core/Meter.js'
import { chainIdOf, type PaymentTerms } from '../../core/PaymentTerms.js'
import * as Permit2 from '../../core/Permit2.js'
import * as Upto from '../../core/Upto.js'
import type { Logger } from '../log.js'
import type { answers } from './answers.js'
import { readV2 } from './decode.js'
import { replayed } from './exact.js'
import { type Scheme, serving, settlementFailed } from './scheme.js'
import type { Claimed, settlement } from './settlement.js'

/** Seconds a permit must still be valid for when it is checked, so that its settlement can land. */
const settlementMarginSeconds = 6n

/** The x402 v2 `upto` requirements of one offer: `max` is the most the call may cost. */
export function requirements(parameters: requirements.Parameters): PaymentRequirements {
  const { terms, max, facilitator } = parameters
  return {
    scheme: Upto.scheme,
    network: terms.network,
    amount: max.toString(),
    asset: getAddress(terms.asset.address),
    payTo: getAddress(terms.payTo),
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: {
      name: terms.asset.name,
      version: terms.asset.version,
      facilitatorAddress: getAddress(facilitator),
      assetTransferMethod: 'permit2',
    },
  }
}

export declare namespace requirements {
  type Parameters = {
    /** Network, asset and payee. */
    terms: PaymentTerms
    /** The most the call may cost, in atomic units. */
    max: bigint
    /** The address that settles, named in the permit's witness. */
    facilitator: Address
  }
}

/** The 402 extensions an `upto` offer adds: EIP-2612 gas sponsoring, so a payer needs no approval transaction. */
export function extensions(): Record<string, unknown> {
  return declareEip2612GasSponsoringExtension()
}

/** Whether the request carries an x402 v2 payment in the `upto` scheme. */
export function carries(headers: Headers): boolean {
  const header = headers.get('payment-signature')
  if (!header) return false
  try {
    const raw = decodePaymentSignatureHeader(header) as { accepted?: { scheme?: unknown } }
    return raw.accepted?.scheme === Upto.scheme
  } catch {
    return false
  }
}

/** A checked `upto` payment, or why it is refused. */
export type Decoded = { ok: true; permit: Upto.Permit } | { ok: false; reason: Refusal; message: string }

/**
 * Reads an `upto` `PAYMENT-SIGNATURE` and checks it without the chain: network, token, payee, spender (the proxy),
 * facilitator (ours), permitted amount (the offered maximum), time window and, for a 65-byte signature, that it
 * recovers to the owner under Permit2's domain. An EIP-2612 permit for Permit2 (gas sponsoring) must be the owner's,
 * for this token and the maximum.
 */
export async function decode(parameters: decode.Parameters): Promise<Decoded> {
  const { header, terms, max, facilitator, now } = parameters
  const refuse = (reason: Refusal, message: string): Decoded => ({ ok: false, reason, message })
  const read = readV2(header)
  if (!read.ok) return read
  const { accepted, payload } = read.data
  if (accepted.network !== terms.network)
    return refuse('wrong_network', `The payment is for ${echo(accepted.network)}; this offer is on ${terms.network}.`)
  const wire = payload as { signature?: unknown; permit2Authorization?: Record<string, unknown> }
  const authorization = wire.permit2Authorization
  const permitted = authorization?.permitted as Record<string, unknown> | undefined
  const witness = authorization?.witness as Record<string, unknown> | undefined
  const addresses = [authorization?.from, authorization?.spender, permitted?.token, witness?.to, witness?.facilitator]
  const integers = [permitted?.amount, authorization?.nonce, authorization?.deadline, witness?.validAfter]
  if (
    !addresses.every((value) => typeof value === 'string' && isAddress(value, { strict: false })) ||
    !integers.every((value) => typeof value === 'string' && /^\d{1,78}$/.test(value)) ||
    typeof wire.signature !== 'string' ||
    !/^0x([0-9a-fA-F]{2})+$/.test(wire.signature)
  )
    return refuse('malformed_payment', 'The payload is not an upto Permit2 authorization with its signature.')
  const permit: Upto.Permit = {
    owner: getAddress(authorization!.from as string),
    token: getAddress(permitted!.token as string),
    max: BigInt(permitted!.amount as string),
    nonce: BigInt(authorization!.nonce as string),
    deadline: BigInt(authorization!.deadline as string),
    to: getAddress(witness!.to as string),
    facilitator: getAddress(witness!.facilitator as string),
    validAfter: BigInt(witness!.validAfter as string),
    signature: wire.signature as Hex,
  }
  if (permit.token !== getAddress(terms.asset.address))
    return refuse(
      'wrong_asset',
      `The permit moves ${permit.token}; this offer is in ${getAddress(terms.asset.address)}.`,
    )
  if (permit.to !== getAddress(terms.payTo))
    return refuse('wrong_payee', `The permit pays ${permit.to}; this offer pays ${getAddress(terms.payTo)}.`)
  if (getAddress(authorization!.spender as string) !== Upto.proxyAddress)
    return refuse('malformed_payment', `The permit's spender must be the upto proxy ${Upto.proxyAddress}.`)
  if (permit.facilitator !== getAddress(facilitator))
    return refuse(
      'malformed_payment',
      `The permit names facilitator ${permit.facilitator}; this gateway settles as ${getAddress(facilitator)}.`,
    )
  if (permit.max !== max)
    return refuse('amount_mismatch', `The permit authorizes ${permit.max}; this call's maximum is ${max}.`)
  const seconds = BigInt(Math.floor(now.getTime() / 1000))
  if (permit.validAfter > seconds)
    return refuse('not_yet_valid', `The permit is valid only after ${permit.validAfter} (unix seconds).`)
  if (permit.deadline < seconds + settlementMarginSeconds)
    return refuse('expired', `The permit expired at ${permit.deadline} (unix seconds).`)
  // A longer window would let a crashed settlement stay undecided for that long.
  if (permit.deadline > seconds + BigInt(terms.maxTimeoutSeconds) + 60n)
    return refuse(
      'malformed_payment',
      `The deadline is more than maxTimeoutSeconds (${terms.maxTimeoutSeconds}) ahead.`,
    )
  const chainId = chainIdOf(terms.network)
  // A 65-byte signature is an EOA's and recovers here; anything else (EIP-1271) is for the simulation to judge.
  if (size(permit.signature) === 65) {
    const signer = await recoverTypedDataAddress({ ...Upto.typedData(permit, chainId), signature: permit.signature })
    if (signer !== permit.owner)
      return refuse('invalid_signature', `The signature does not recover to ${permit.owner} under Permit2's domain.`)
  }
  const info = extractEip2612GasSponsoringInfo(read.data as never)
  if (!info) return { ok: true, permit }
  if (
    !validateEip2612GasSponsoringInfo(info) ||
    getAddress(info.from) !== permit.owner ||
    getAddress(info.asset) !== permit.token ||
    getAddress(info.spender) !== Permit2.address ||
    BigInt(info.amount) !== permit.max ||
    BigInt(info.deadline) < seconds + settlementMarginSeconds ||
    size(info.signature as Hex) !== 65
  )
    return refuse(
      'malformed_payment',
      `The eip2612GasSponsoring permit must be ${permit.owner}'s, for Permit2, of ${permit.max} and still valid.`,
    )
  return {
    ok: true,
    permit: { ...permit, approval: { deadline: BigInt(info.deadline), signature: info.signature as Hex } },
  }
}

export declare namespace decode {
  type Parameters = {
    /** The `PAYMENT-SIGNATURE` header. */
    header: string
    /** Network, asset and payee. */
    terms: PaymentTerms
    /** The most this call may cost: the permit must authorize exactly this. */
    max: bigint
    /** The address that settles: the permit's witness must name it. */
    facilitator: Address
    /** Current time. */
    now: Date
  }
}

/** The ledger key nonce of a permit: its Permit2 nonce as 32 bytes. */
export function nonceOf(permit: Upto.Permit): Hex {
  return toHex(permit.nonce, { size: 32 })
}

/**
 * A permit as the ledger keeps it. The fields of an EIP-3009 authorization are there too (`value` the maximum,
 * `validBefore` the deadline), so that what reads any entry's window reads this one's.
 */
export function serialize(permit: Upto.Permit): string {
  return JSON.stringify({
    scheme: Upto.scheme,
    from: permit.owner,
    to: permit.to,
    value: permit.max.toString(),
    validAfter: permit.validAfter.toString(),
    validBefore: permit.deadline.toString(),
    nonce: nonceOf(permit),
    signature: permit.signature,
    token: permit.token,
    facilitator: permit.facilitator,
    ...(permit.approval
      ? { approval: { deadline: permit.approval.deadline.toString(), signature: permit.approval.signature } }
      : {}),
  })
}

/** Whether a ledger entry's authorization is an `upto` permit. */
export function isUpto(authorization: string): boolean {
  try {
    return (JSON.parse(authorization) as { scheme?: unknown }).scheme === Upto.scheme
  } catch {
    return false
  }
}

/** Reads back a permit written by {@link serialize}. */
export function deserialize(text: string): Upto.Permit {
  const parsed = JSON.parse(text) as Record<string, string> & { approval?: { deadline: string; signature: Hex } }
  return {
    owner: parsed.from as Address,
    token: parsed.token as Address,
    max: BigInt(parsed.value!),
    nonce: BigInt(parsed.nonce!),
    deadline: BigInt(parsed.validBefore!),
    to: parsed.to as Address,
    facilitator: parsed.facilitator as Address,
    validAfter: BigInt(parsed.validAfter!),
    signature: parsed.signature as Hex,
    ...(parsed.approval
      ? { approval: { deadline: BigInt(parsed.approval.deadline), signature: parsed.approval.signature } }
      : {}),
  }
}

/**
 * The `upto` contracts as the settlement machinery's facilitator: `settle` sends the ledger's permit for the amount
 * the ledger says is charged, from the relayer the permit names; `status` asks Permit2 whether the nonce is used. Verification happens before the claim (`chain.check`), so `verify` is never asked.
 */
export function facilitatorOf(parameters: facilitatorOf.Parameters): Facilitator {
  const { chain, entryOf } = parameters
  return {
    verify: () =>
      Promise.resolve({
        ok: false,
        reason: 'malformed_payment',
        message: 'upto permits are checked before the claim.',
      }),
    // The amount is the ledger's (what the meter charged), never the authorization's: a settlement taken over from a
    // dead process reads its authorization back from the ledger, where `value` is the permit's maximum.
    async settle({ authorization, onSubmitted }) {
      const held = await entryOf({ payer: authorization.from, nonce: authorization.nonce })
      if (!held) return { ok: false, reason: 'settlement_failed', message: 'The ledger holds no upto permit for it.' }
      return chain.settle(held.permit, held.amount, onSubmitted)
    },
    async status({ payer, nonce, transaction }) {
      return (await chain.used(payer, BigInt(nonce))) ? { state: 'settled', transaction } : { state: 'unused' }
    },
  }
}

export declare namespace facilitatorOf {
  type Parameters = {
    /** The contracts, through the relayer. */
    chain: Upto.UptoChain
    /** The permit of a ledger entry and the amount it settles for. */
    entryOf: (key: { payer: Address; nonce: Hex }) => Promise<{ permit: Upto.Permit; amount: bigint } | undefined>
  }
}

/**
 * x402 `upto` on the EVM chain, offered beside `exact` for the entries with a meter: checked without the chain, then
 * on it (nonce, allowance or EIP-2612 approval, balance, a simulation of the whole maximum), then claimed in the
 * ledger for the maximum within the payer's balance. Once the handler succeeds it settles what the answer used (its
 * meter), never more than the authorized maximum; the maximum when the answer does not say. Nothing used: no
 * transaction, and the claim is released.
 */
export function upto(parameters: upto.Parameters): Scheme<true, upto.Held> {
  const { terms, chain, ledger, settlements, answers, meterOf, logger } = parameters
  const { lease } = settlements
  // `upto` settlements go through the settlement service, sent by the proxy's named facilitator (the relayer) itself.
  const facilitator = facilitatorOf({
    chain,
    entryOf: async (key) => {
      const entry = await ledger.get(key)
      return entry && isUpto(entry.authorization)
        ? { permit: deserialize(entry.authorization), amount: entry.amount }
        : undefined
    },
  })

  return {
    name: Upto.scheme,
    offer: ({ max }) =>
      max !== undefined && max > 0n ? requirements({ terms, max, facilitator: chain.facilitator }) : undefined,
    extensions: declareEip2612GasSponsoringExtension(),
    carries: ({ headers }) => (carries(headers) ? true : undefined),

    async before(_, call) {
      const { request, max, fingerprint } = call
      if (max === undefined || max === 0n)
        return call.refuse({
          reason: 'malformed_payment',
          message: 'This call is not offered priced by usage; pay it with exact.',
        })
      const now = new Date()
      const decoded = await decode({
        header: request.headers.get('payment-signature')!,
        terms,
        max,
        facilitator: chain.facilitator,
        now,
      })
      if (!decoded.ok) return call.refuse(decoded)
      const { permit } = decoded
      const key = { payer: permit.owner, nonce: nonceOf(permit) }
      const held = async (existing: Ledger.Entry): Promise<Response> => {
        if (existing.fingerprint !== fingerprint || !isUpto(existing.authorization)) return call.refuse(replayed)
        if (existing.state === 'settled') return answers.stored(request, Ledger.asEvm(existing))
        if (existing.state === 'failed') return settlementFailed(call, existing.reason)
        return serving(call)
      }
      const existing = await ledger.get(key)
      if (existing && existing.state !== 'released') return held(existing)

      const balanceAt = new Date()
      const checked = await chain.check(permit)
      if (!checked.ok) {
        const { reason, message } = checked
        if (reason === 'allowance_required')
          return call.problem(
            new Permit2AllowanceRequiredError(message, {
              details: { error: 'PERMIT2_ALLOWANCE_REQUIRED', token: permit.token, spender: Permit2.address },
            }),
          )
        return call.refuse({ reason, message })
      }
      const claim = await ledger.claim({
        ...key,
        amount: max,
        endpoint: call.endpoint,
        protocol: 'x402-v2',
        authorization: serialize(permit),
        fingerprint,
        lease: lease.id,
        balance: checked.balance,
        balanceAt,
        claimedAt: now,
      })
      if (!claim.ok) {
        if (claim.reason === 'insufficient_funds')
          return call.refuse({
            reason: 'insufficient_funds',
            message: `${key.payer} holds ${checked.balance} atomic units; its calls in progress take ${claim.outstanding}, and this one may take ${max} more.`,
          })
        return held(claim.existing)
      }
      return { key, max, permit }
    },

    async after(held, handled, call) {
      const { key, max, permit } = held
      const { request, endpoint } = call
      if (!handled.ok) {
        await settlements.release(key, `handler answered ${handled.status}`)
        return { headers: {} }
      }
      const used = meterOf(call.entry)?.cost(handled.response, call.input)
      if (used === undefined) logger.log('warn', 'usage_unreported', { endpoint })
      else if (used > max) logger.log('warn', 'usage_over_maximum', { endpoint, used: used.toString() })
      const amount = used === undefined || used > max ? max : used
      const charged = { protocol: 'x402-v2' as const, payer: key.payer, amount }
      if (amount === 0n) {
        await settlements.release(key, 'nothing was used, so nothing is charged')
        return { headers: await answers.settled(request, { ...charged, transaction: '' }) }
      }
      await settlements.move(key, { type: 'settle', response: await handled.keep(), amount })
      const settled = await settlements.settle(
        {
          key,
          protocol: 'x402-v2',
          authorization: {
            from: key.payer,
            to: permit.to,
            value: amount,
            validAfter: permit.validAfter,
            validBefore: permit.deadline,
            nonce: key.nonce,
            signature: permit.signature,
          },
          endpoint,
          challengeId: undefined,
        },
        facilitator,
      )
      if (settled.ok)
        return { headers: await answers.settled(request, { ...charged, transaction: settled.transaction }) }
      if (settled.reason === 'settlement_pending')
        return { withheld: answers.pending(request, { protocol: 'x402-v2', payer: key.payer }, settled.submitted) }
      return { withheld: call.refuse({ reason: 'settlement_failed', message: settled.message }) }
    },

    release: (held, reason) => settlements.release(held.key, reason),
    payer: (held) => held.key.payer,
    holding: ({ key }) => ({ type: 'ledger', payer: key.payer, nonce: key.nonce }),
    record: async ({ key }, effect) => void (await ledger.apply(key, { type: 'effect', effect })),
  }
}

export declare namespace upto {
  /** A call paid with an `upto` permit, between its claim and its settlement. */
  type Held = {
    /** Ledger key: the permit's owner and its Permit2 nonce. */
    key: Claimed['key']
    /** The authorized maximum, in atomic units. */
    max: bigint
    /** The payer's permit. */
    permit: Upto.Permit
  }
  type Parameters = {
    /** Network, asset and payee of every offer. */
    terms: PaymentTerms
    /** The `upto` contracts through the relayer. */
    chain: Upto.UptoChain
    /** Where claims are recorded. */
    ledger: Ledger.Ledger
    /** Settles and releases claims. */
    settlements: settlement.ReturnType
    /** How a decided payment is answered: its receipt, its kept response, 503 while undecided. */
    answers: answers.ReturnType
    /** The meter of an entry priced by usage. */
    meterOf: (entry: Catalog.Entry) => Meter | undefined
    /** Where events go. */
    logger: Logger
  }
}
