import { type Address, checksumAddress, type Hex, isAddress, isHex } from 'viem'
import type * as Bridge from '../../../core/Bridge.js'
import { UnreadableAnswerError } from '../../../core/Errors.js'
import { fieldsOf } from '../../vendor/vendor.js'

/**
 * Readers of the fields of a bridge vendor's answer, each throwing {@link UnreadableAnswerError} (run them through the
 * vendor client's `read`) with a message that names the vendor and the field, never the value.
 */
export function fields(vendor: string) {
  /** The failure of `field`. */
  const unreadable = (field: string, what: string) =>
    new UnreadableAnswerError(`${vendor} answered ${field} that is ${what}.`)

  /** A non-empty string. */
  function text(value: unknown, field: string): string {
    if (typeof value !== 'string' || value === '') throw unreadable(field, 'not a non-empty string')
    return value
  }

  /** A non-negative whole number: a JSON number or a decimal string. */
  function integer(value: unknown, field: string): number {
    const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0)
      throw unreadable(field, 'not a whole number')
    return number
  }

  /** A duration in seconds, which may carry a fraction; rounded up. */
  function seconds(value: unknown, field: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw unreadable(field, 'not a duration')
    return Math.ceil(value)
  }

  /** An amount in base units: a decimal string of digits. */
  function amount(value: unknown, field: string): bigint {
    if (typeof value !== 'string' || !/^\d{1,78}$/.test(value)) throw unreadable(field, 'not an amount in base units')
    return BigInt(value)
  }

  /** A quantity written as hex (`0x0de0b6b3a7640000`) or as a decimal string. */
  function quantity(value: unknown, field: string): bigint {
    if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]{1,64}|\d{1,78})$/.test(value))
      throw unreadable(field, 'not a quantity')
    return BigInt(value)
  }

  /** An EVM address, returned EIP-55. */
  function address(value: unknown, field: string): Address {
    if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw unreadable(field, 'not an address')
    return checksumAddress(value)
  }

  /** Calldata. */
  function hex(value: unknown, field: string): Hex {
    if (typeof value !== 'string' || !isHex(value, { strict: true })) throw unreadable(field, 'not hex')
    return value
  }

  /** A list, empty when absent. */
  function list(value: unknown, field: string): unknown[] {
    if (value === undefined || value === null) return []
    if (!Array.isArray(value)) throw unreadable(field, 'not a list')
    return value
  }

  /** A token object with `chainId`, `address`, `symbol` and `decimals`, the shape both LI.FI and Across answer. */
  function token(value: unknown, field: string): Bridge.Token {
    const object = fieldsOf(value)
    return {
      chainId: integer(object.chainId, `${field}.chainId`),
      address: address(object.address, `${field}.address`),
      symbol: text(object.symbol, `${field}.symbol`),
      decimals: integer(object.decimals, `${field}.decimals`),
    }
  }

  return { text, integer, seconds, amount, quantity, address, hex, list, token }
}

/** `: <message>` of a JSON error body's `message` (LI.FI's `{ message, code }`, Across's `AcrossApiError`), or `.`. */
export function messageOf(text: string | undefined): string {
  if (text === undefined) return '.'
  try {
    const { message } = fieldsOf(JSON.parse(text))
    if (typeof message === 'string' && message !== '') return `: ${message.replace(/\.$/, '').slice(0, 300)}.`
  } catch {}
  return '.'
}
