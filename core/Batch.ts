import { type Address, checksumAddress, formatUnits, maxUint256 } from 'viem'
import { ValidationError } from './Errors.js'
import * as EvmChain from './EvmChain.js'
import { echo } from './internal/echo.js'
import * as Units from './Units.js'

/**
 * Batch payments: the BPA 1.0 payload checked by `POST /free/validate-batch`, and the recipient rules,
 * token table and protocol fee that batch execute and batch estimate share.
 *
 * A BPA 1.0 (Batch Payment API) payload is JSON, as the original gateway's clients send it:
 *
 * ```json
 * {
 *   "version": "1.0",
 *   "chain": "base",
 *   "token": "USDC",
 *   "sender": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
 *   "recipients": [
 *     { "to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "amount": "1.5", "memo": "March invoice" }
 *   ]
 * }
 * ```
 *
 * - `version`: `"1.0"`; optional, defaults to `"1.0"`; any other value is rejected.
 * - `chain`: `base` or `peaq` in any case or spelling (`base-mainnet`); optional, defaults to `base`; the same
 *   allowlist as batch execute.
 * - `token`: a symbol of {@link tokens} for the chain (any case) or a `0x` ERC-20 address; defaults to `USDC`.
 * - `sender`: optional EVM address of the payer, checked by the recipient rules.
 * - `recipients`: 1 to {@link maxRecipients} entries, each with an EVM address as `to` (the original gateway's name)
 *   or `address` (one of them; EIP-55 checked when mixed case), an `amount` as a HUMAN decimal of the token (a
 *   string or JSON number, `"1.5"` is 1.5 USDC, at most the token's decimals) as the original gateway reads it, and
 *   an optional `memo` of at most {@link maxMemoLength} characters. The memo is off-chain bookkeeping: it is not part
 *   of the calldata.
 *
 * Paying one address twice is allowed (a warning, not an error). The zero address is refused: ERC-20 tokens
 * revert on it, which would fail the whole atomic batch, and native value sent there is burnt.
 */

/** Most recipients in one batch. */
export const maxRecipients = 200

/** Most characters (Unicode code points) of a recipient memo. */
export const maxMemoLength = 140

/** Most digits of a base-unit amount (a uint256 has 78). */
export const maxAmountDigits = 78

/** Decimal places a human amount may carry when the token's decimals are unknown (a token given by address). */
export const maxUnknownDecimals = 77

/** Most errors `validate` reports (`truncated` says when more were found); warnings are capped alike. */
export const maxIssues = 50

/** Protocol fee in basis points (0.3%). @default 30n */
export const defaultFeeBps = 30n

/** The only BPA version. */
export const version = '1.0'

/** Chains batch payments run on, in order of preference; `base` is the default. */
export const chains = ['base', 'peaq'] as const

/** A chain of {@link chains}. */
export type Chain = (typeof chains)[number]

/** Decimals and kind of a token symbol. */
export type TokenInfo = {
  /** Base units per whole token as a power of ten, e.g. 6 for USDC. */
  readonly decimals: number
  /** True for the chain's native currency, sent as transaction value instead of ERC-20 transfers. */
  readonly isETH: boolean
}

/**
 * Token symbols accepted per chain (uppercase keys) with their decimals. Contract addresses are chain
 * config, not here. Typed as a string record so a caller's symbol indexes it directly; absent is `undefined`.
 */
export const tokens: { readonly [chain in Chain]: Readonly<Record<string, TokenInfo>> } = {
  base: {
    USDC: { decimals: 6, isETH: false },
    USDT: { decimals: 6, isETH: false },
    EURC: { decimals: 6, isETH: false },
    DAI: { decimals: 18, isETH: false },
    WETH: { decimals: 18, isETH: false },
    ETH: { decimals: 18, isETH: true },
  },
  peaq: {
    USDC: { decimals: 6, isETH: false },
  },
}

/** The token a batch pays in. */
export type Token = {
  /** Symbol from {@link tokens}, or `null` when given as an address. */
  symbol: string | null
  /** Checksummed ERC-20 address when given as an address; `null` for symbols (resolved from chain config). */
  address: Address | null
  /** Decimals when known from {@link tokens}; `null` for an address (needs a chain read). */
  decimals: number | null
  /** True for native ether, sent as transaction value instead of ERC-20 transfers. */
  isETH: boolean
}

/**
 * Protocol fee on a batch total, in the token's base units, rounded down.
 * Must match the batch contract's `calculateFee`: `fee = total * feeBps / 10000` in integer division.
 */
export function fee(parameters: fee.Parameters): fee.ReturnType {
  const { total, feeBps = defaultFeeBps } = parameters
  if (total < 0n) throw new ValidationError({ field: 'total', message: 'must not be negative' })
  if (feeBps < 0n || feeBps > 10_000n)
    throw new ValidationError({ field: 'feeBps', message: 'must be between 0 and 10000 basis points' })
  // must match the batch contract's calculateFee: multiply first, then divide, rounding down.
  const amount = (total * feeBps) / 10_000n
  return { fee: amount, totalWithFee: total + amount }
}

export declare namespace fee {
  type Parameters = {
    /** Sum of the recipient amounts, in base units. */
    total: bigint
    /** Fee rate in basis points. @default 30n */
    feeBps?: bigint
  }
  type ReturnType = {
    /** Fee in base units, rounded down. */
    fee: bigint
    /** `total + fee` in base units: what the sender pays and approves. */
    totalWithFee: bigint
  }
}

/** Reads a `chain` input: `undefined` means `base`. Throws {@link ValidationError} (field `chain`) naming the allowed values. */
export function resolveChain(value: unknown): Chain {
  const result = checkChain(value)
  if ('code' in result) throw new ValidationError({ field: 'chain', message: result.message })
  return result.chain
}

/**
 * Reads a `token` input on `chain`: a symbol (any case) or a `0x` ERC-20 address; `undefined` means `USDC`.
 * Throws {@link ValidationError} with field `token`.
 */
export function resolveToken(parameters: resolveToken.Parameters): Token {
  const result = checkToken(parameters.token, parameters.chain)
  if ('code' in result) throw new ValidationError({ field: 'token', message: result.message })
  return result.token
}

export declare namespace resolveToken {
  type Parameters = {
    /** Chain the batch runs on. */
    chain: Chain
    /** Symbol or ERC-20 address. @default 'USDC' */
    token?: unknown
  }
}

/**
 * Reads one EVM address input (a batch's sender) by the recipient rules: `0x` and 40 hex digits, EIP-55 checked when
 * mixed case, not the zero address. Throws {@link ValidationError} naming `field`.
 */
export function resolveAddress(parameters: resolveAddress.Parameters): Address {
  const { value, field } = parameters
  const result = value === undefined ? missing('an EVM address') : checkAddress(value)
  if ('code' in result) throw new ValidationError({ field, message: result.message })
  return result.address
}

export declare namespace resolveAddress {
  type Parameters = {
    /** The input. */
    value: unknown
    /** Name of the field, for the error. */
    field: string
  }
}

/**
 * Checks the parallel `recipients` and `amounts` arrays of batch execute and estimate.
 * Throws {@link ValidationError} on the first problem, naming its path (`recipients.3`, `amounts.7`, `amounts`).
 */
export function validateRecipients(parameters: validateRecipients.Parameters): validateRecipients.ReturnType {
  const { recipients, amounts } = parameters
  if (!Array.isArray(recipients))
    throw new ValidationError({ field: 'recipients', message: 'must be an array of addresses' })
  if (!Array.isArray(amounts))
    throw new ValidationError({ field: 'amounts', message: 'must be an array of base-unit integer strings' })
  if (recipients.length === 0) throw new ValidationError({ field: 'recipients', message: 'must not be empty' })
  if (recipients.length > maxRecipients)
    throw new ValidationError({
      field: 'recipients',
      message: `has ${recipients.length} entries; at most ${maxRecipients} per batch`,
    })
  if (amounts.length !== recipients.length)
    throw new ValidationError({
      field: 'amounts',
      message: `has ${amounts.length} entries but recipients has ${recipients.length}; they are parallel arrays`,
    })

  const entries: validateRecipients.Entry[] = []
  for (const [index, value] of recipients.entries()) {
    const address = value === undefined ? missing('an EVM address') : checkAddress(value)
    if ('code' in address) throw new ValidationError({ field: `recipients.${index}`, message: address.message })
    const amount = amounts[index] === undefined ? missing('a base-unit integer string') : checkAmount(amounts[index])
    if ('code' in amount) throw new ValidationError({ field: `amounts.${index}`, message: amount.message })
    entries.push({ address: address.address, amount: amount.amount })
  }
  const total = sum(entries)
  if (fee({ total }).totalWithFee > maxUint256)
    throw new ValidationError({ field: 'amounts', message: 'total with fee exceeds a uint256' })
  return { recipients: entries, total, duplicates: findDuplicates(entries) }
}

export declare namespace validateRecipients {
  type Parameters = {
    /** Recipient addresses, parallel to `amounts`. */
    recipients: readonly string[]
    /** Raw base-unit integer strings, parallel to `recipients`. */
    amounts: readonly string[]
  }
  type Entry = {
    /** EIP-55 checksummed recipient. */
    address: Address
    /** Amount in the token's base units, > 0. */
    amount: bigint
  }
  type ReturnType = {
    /** Entries in input order. */
    recipients: Entry[]
    /** Sum of the amounts in base units, before the fee. */
    total: bigint
    /** Addresses that appear more than once, with every index they appear at. */
    duplicates: Duplicate[]
  }
}

/**
 * The payments of a batch in either form the original gateway reads: `recipients` as addresses with parallel `amounts`
 * RAW in base units (the spec's), or `recipients` as `{ address, amount }` objects whose amounts are HUMAN decimals of
 * the token (`"2500"` is 2,500 USDC), read with the token's `decimals` (asked for in that form only). Throws
 * {@link ValidationError} on the first problem, naming its path after `prefix` (`recipients.3.amount`, `amounts.7`).
 */
export async function payments(parameters: payments.Parameters): Promise<validateRecipients.ReturnType> {
  const { recipients, amounts, decimals, prefix = '' } = parameters
  const named = (error: unknown, field: (field: string) => string) =>
    error instanceof ValidationError
      ? new ValidationError({
          field: `${prefix}${field(error.field)}`,
          message: error.message.slice(error.field.length + 2),
        })
      : error
  const objects = Array.isArray(recipients) && (recipients.some(isObject) || (recipients.length === 0 && !amounts))
  if (!objects)
    try {
      return validateRecipients({ recipients: recipients as string[], amounts: amounts as string[] })
    } catch (error) {
      throw named(error, (field) => field)
    }
  if (amounts !== undefined)
    throw new ValidationError({
      field: `${prefix}amounts`,
      message: 'goes with address recipients only; recipient objects carry their own human-decimal amount',
    })
  const entries = recipients.map((entry, index) => {
    if (!isObject(entry))
      throw new ValidationError({
        field: `${prefix}recipients.${index}`,
        message: 'must be an { address, amount } object',
      })
    return entry
  })
  const places = await decimals()
  const raw = entries.map((entry, index) =>
    Units.fromDecimal({
      value: entry.amount,
      decimals: places,
      field: `${prefix}recipients.${index}.amount`,
    }).toString(),
  )
  try {
    return validateRecipients({ recipients: entries.map((entry) => entry.address as string), amounts: raw })
  } catch (error) {
    // The parallel arrays' paths, as the object form names them: recipients.<n>.address and recipients.<n>.amount.
    throw named(error, (field) => {
      const [list, index] = field.split('.')
      return index === undefined ? 'recipients' : `recipients.${index}.${list === 'recipients' ? 'address' : 'amount'}`
    })
  }
}

export declare namespace payments {
  type Parameters = {
    /** Addresses parallel to `amounts`, or `{ address, amount }` objects. */
    recipients: unknown
    /** RAW base-unit integer strings parallel to address `recipients`; absent with objects. */
    amounts: unknown
    /** Decimals of the token, for the object form's HUMAN amounts. */
    decimals: () => number | Promise<number>
    /** What refusals put before a field's path, e.g. `payload.`. @default '' */
    prefix?: string | undefined
  }
}

/** An address paid more than once in one batch. */
export type Duplicate = {
  /** EIP-55 checksummed address. */
  address: Address
  /** Zero-based indexes of every entry paying it, ascending. */
  indexes: number[]
}

/**
 * Checks a BPA 1.0 payload (schema only, no chain calls) and collects every problem.
 * Never throws for payload problems: they come back in `errors` (at most {@link maxIssues}) and `warnings`.
 */
export function validate(payload: unknown): validate.ReturnType {
  const errors = collector<validate.ErrorCode>()
  const warnings = collector<validate.WarningCode>()
  const result = (summary: validate.Summary | null): validate.ReturnType => ({
    valid: errors.count === 0,
    version,
    errors: errors.issues,
    warnings: warnings.issues,
    truncated: errors.count > errors.issues.length,
    summary: errors.count === 0 ? summary : null,
  })

  if (!isObject(payload)) {
    errors.add('', 'not_an_object', 'the payload must be a JSON object')
    return result(null)
  }

  for (const key of Object.keys(payload))
    if (!payloadKeys.includes(key)) warnings.add(key, 'unknown_field', `"${key}" is not a BPA 1.0 field and is ignored`)

  if (payload.version !== undefined && payload.version !== version)
    errors.add('version', 'unsupported_version', `must be the string "${version}" (got ${describe(payload.version)})`)

  // The original gateway reads the chain in any case; a registry spelling such as base-mainnet names the same chain.
  const spelled =
    typeof payload.chain === 'string' ? (EvmChain.nameOf(payload.chain) ?? payload.chain.toLowerCase()) : payload.chain
  const chain = checkChain(spelled)
  if ('code' in chain) errors.add('chain', chain.code, chain.message)
  const token = checkToken(payload.token, 'chain' in chain ? chain.chain : undefined)
  // A symbol can only be judged against a supported chain; the chain error already covers that case.
  const symbolOnUnknownChain = !('chain' in chain) && 'code' in token && token.code === 'unsupported_token'
  if ('code' in token && !symbolOnUnknownChain) errors.add('token', token.code, token.message)
  if (payload.sender !== undefined) {
    const sender = checkAddress(payload.sender)
    if ('code' in sender) errors.add('sender', sender.code, sender.message)
  }
  const decimals = 'token' in token ? token.token.decimals : null

  const entries: validateRecipients.Entry[] = []
  const paid: { address: Address; index: number }[] = []
  const recipients = payload.recipients
  if (recipients === undefined)
    errors.add('recipients', 'required', `required: an array of 1 to ${maxRecipients} recipients`)
  else if (!Array.isArray(recipients))
    errors.add('recipients', 'invalid_type', `must be an array (got ${describe(recipients)})`)
  else {
    if (recipients.length === 0) errors.add('recipients', 'too_few_recipients', 'must contain at least one recipient')
    if (recipients.length > maxRecipients)
      errors.add(
        'recipients',
        'too_many_recipients',
        `has ${recipients.length} entries; at most ${maxRecipients} per batch`,
      )
    for (const [index, entry] of recipients.entries()) {
      // Once the report is full, further checks cannot change it; stop to bound the work on huge inputs.
      if (errors.full) break
      const checked = checkEntry({ entry, path: `recipients.${index}`, decimals, errors, warnings })
      if (checked.address) paid.push({ address: checked.address, index })
      if (checked.address && checked.amount !== undefined)
        entries.push({ address: checked.address, amount: checked.amount })
    }
  }

  // Duplicates are worth knowing whether or not the rest is valid: reported over every well-formed address.
  for (const duplicate of findDuplicates(paid))
    warnings.add(
      'recipients',
      'duplicate_recipient',
      `${duplicate.address} is paid ${duplicate.indexes.length} times (indexes ${duplicate.indexes.join(', ')})`,
    )

  if (errors.count > 0 || !('chain' in chain) || !('token' in token)) return result(null)

  const total = sum(entries)
  const uniqueRecipients = new Set(entries.map((entry) => entry.address)).size
  const common: Omit<validate.Summary, AmountFields> = {
    chain: chain.chain,
    token: token.token.symbol ?? (token.token.address as Address),
    tokenDetails: token.token,
    recipientCount: entries.length,
    uniqueRecipients,
    uniqueAddresses: uniqueRecipients,
    bpaVersion: version,
  }
  if (decimals === null) {
    // Without the token's decimals the raw amounts, and so the fee (rounded in base units), are unknown: say so.
    warnings.add(
      'token',
      'decimals_unknown',
      'is an address whose decimals are not known without a chain read: amounts are checked as decimals, the raw totals and the fee are not computed',
    )
    const human = formatUnits(total, maxUnknownDecimals)
    return result({
      ...common,
      totalAmount: human,
      totalAmountRaw: null,
      totalFormatted: human,
      fee: null,
      feeRaw: null,
      totalWithFee: null,
      totalWithFeeRaw: null,
    })
  }
  const { fee: feeAmount, totalWithFee } = fee({ total })
  if (totalWithFee > maxUint256) {
    errors.add('recipients', 'total_too_large', 'the total with fee exceeds a uint256')
    return result(null)
  }
  return result({
    ...common,
    totalAmount: Units.toDecimal(total, decimals),
    totalAmountRaw: total.toString(),
    totalFormatted: Units.toDecimal(total, decimals),
    fee: Units.toDecimal(feeAmount, decimals),
    feeRaw: feeAmount.toString(),
    totalWithFee: Units.toDecimal(totalWithFee, decimals),
    totalWithFeeRaw: totalWithFee.toString(),
  })
}

export declare namespace validate {
  /** Stable snake_case codes of payload errors; codes never change once published. */
  type ErrorCode =
    | 'not_an_object'
    | 'required'
    | 'invalid_type'
    | 'unsupported_version'
    | 'unsupported_chain'
    | 'unsupported_token'
    | 'too_few_recipients'
    | 'too_many_recipients'
    | 'invalid_address'
    | 'invalid_checksum'
    | 'zero_address'
    | 'invalid_amount'
    | 'amount_zero'
    | 'amount_too_large'
    | 'total_too_large'
    | 'memo_too_long'
    | 'conflicting_fields'
  /** Stable snake_case codes of warnings: the payload is valid but probably not what was meant. */
  type WarningCode = 'duplicate_recipient' | 'unknown_field' | 'decimals_unknown'
  type Issue<code extends string = ErrorCode | WarningCode> = {
    /** Dotted path of the field, e.g. `recipients.3.amount`; `''` for the payload itself. */
    field: string
    /** Stable snake_case code. */
    code: code
    /** One sentence for people. */
    message: string
  }
  type Summary = {
    /** Chain the batch runs on. */
    chain: Chain
    /** Token the batch pays in, as the original gateway answers it: the symbol, or the checksummed ERC-20 address. */
    token: string
    /** Token the batch pays in, with its decimals and kind. */
    tokenDetails: Token
    /** Number of entries. */
    recipientCount: number
    /** Number of distinct addresses. */
    uniqueRecipients: number
    /** Number of distinct addresses, under the original gateway's name. */
    uniqueAddresses: number
    /** Sum of the amounts, HUMAN decimal of the token (`"2500"` is 2,500 USDC). */
    totalAmount: string
    /** Sum of the amounts in base units, integer string; `null` when the token's decimals are unknown (address form). */
    totalAmountRaw: string | null
    /** The same human decimal as `totalAmount`. */
    totalFormatted: string
    /** Protocol fee (0.3%, rounded down in base units), human decimal; `null` when the decimals are unknown. */
    fee: string | null
    /** Protocol fee in base units, integer string; `null` when the decimals are unknown. */
    feeRaw: string | null
    /** `totalAmount + fee`, human decimal; `null` when the decimals are unknown. */
    totalWithFee: string | null
    /** `totalAmountRaw + feeRaw`, base units, integer string: the ERC-20 allowance or native value needed. */
    totalWithFeeRaw: string | null
    /** BPA version the payload was checked against, under the original gateway's name. */
    bpaVersion: typeof version
  }
  type ReturnType = {
    /** True when `errors` is empty. */
    valid: boolean
    /** BPA version the payload was checked against. */
    version: typeof version
    /** Problems that make the payload unusable, in payload order, at most {@link maxIssues}. */
    errors: Issue<ErrorCode>[]
    /** Things that are allowed but likely unintended, at most {@link maxIssues}. */
    warnings: Issue<WarningCode>[]
    /** True when more errors were found than `errors` holds. */
    truncated: boolean
    /** Totals of a valid payload; `null` when there are errors. */
    summary: Summary | null
  }
}

const payloadKeys: readonly string[] = ['version', 'chain', 'token', 'sender', 'recipients']
const entryKeys: readonly string[] = ['to', 'address', 'amount', 'memo']

type Problem = { code: validate.ErrorCode; message: string }

type AmountFields =
  | 'totalAmount'
  | 'totalAmountRaw'
  | 'totalFormatted'
  | 'fee'
  | 'feeRaw'
  | 'totalWithFee'
  | 'totalWithFeeRaw'

function checkEntry(parameters: {
  entry: unknown
  path: string
  decimals: number | null
  errors: Collector<validate.ErrorCode>
  warnings: Collector<validate.WarningCode>
}): Partial<validateRecipients.Entry> {
  const { entry, path, decimals, errors, warnings } = parameters
  if (!isObject(entry)) {
    errors.add(path, 'invalid_type', `must be an object with to (or address) and amount (got ${describe(entry)})`)
    return {}
  }
  for (const key of Object.keys(entry))
    if (!entryKeys.includes(key))
      warnings.add(`${path}.${key}`, 'unknown_field', `"${key}" is not a recipient field and is ignored`)

  const name = entry.to === undefined && entry.address !== undefined ? 'address' : 'to'
  const address =
    entry.to !== undefined && entry.address !== undefined
      ? ({ code: 'conflicting_fields', message: 'give to or address, not both' } as const)
      : entry[name] === undefined
        ? missing('an EVM address as to (or address)')
        : checkAddress(entry[name])
  if ('code' in address) errors.add(`${path}.${name}`, address.code, address.message)
  const amount =
    entry.amount === undefined
      ? missing('a decimal amount of the token such as "1.5"')
      : checkHumanAmount({ value: entry.amount, decimals, field: `${path}.amount` })
  if ('code' in amount) errors.add(`${path}.amount`, amount.code, amount.message)
  if (entry.memo !== undefined) {
    if (typeof entry.memo !== 'string')
      errors.add(`${path}.memo`, 'invalid_type', `must be a string (got ${describe(entry.memo)})`)
    else if ([...entry.memo].length > maxMemoLength)
      errors.add(`${path}.memo`, 'memo_too_long', `has ${[...entry.memo].length} characters; at most ${maxMemoLength}`)
  }
  return {
    ...('address' in address ? { address: address.address } : {}),
    ...('amount' in amount ? { amount: amount.amount } : {}),
  }
}

function checkChain(value: unknown): { chain: Chain } | Problem {
  if (value === undefined) return { chain: 'base' }
  if (typeof value === 'string' && (chains as readonly string[]).includes(value)) return { chain: value as Chain }
  return {
    code: 'unsupported_chain',
    message: `${describe(value)} is not supported; allowed: ${chains.join(', ')} (default base)`,
  }
}

function checkToken(value: unknown, chain: Chain | undefined): { token: Token } | Problem {
  if (value === undefined) value = 'USDC'
  if (typeof value !== 'string')
    return { code: 'invalid_type', message: `must be a token symbol or an ERC-20 address (got ${describe(value)})` }
  if (value.startsWith('0x') || value.startsWith('0X')) {
    const address = checkAddress(value)
    if ('code' in address)
      return address.code === 'zero_address'
        ? { code: 'zero_address', message: 'is the zero address; use the symbol ETH for native ether' }
        : address
    return { token: { symbol: null, address: address.address, decimals: null, isETH: false } }
  }
  if (chain === undefined) return { code: 'unsupported_token', message: 'cannot be checked without a supported chain' }
  const symbol = value.toUpperCase()
  const table = tokens[chain]
  const known = Object.hasOwn(table, symbol) ? table[symbol] : undefined
  if (!known)
    return {
      code: 'unsupported_token',
      message: `${describe(value)} is not a token on ${chain}; use one of ${Object.keys(table).join(', ')} or an ERC-20 address`,
    }
  return { token: { symbol, address: null, decimals: known.decimals, isETH: known.isETH } }
}

function checkAddress(value: unknown): { address: Address } | Problem {
  if (typeof value !== 'string')
    return { code: 'invalid_address', message: `must be an EVM address string (got ${describe(value)})` }
  if (!/^0x[0-9a-fA-F]{40}$/.test(value))
    return {
      code: 'invalid_address',
      message: `${describe(value)} is not an EVM address (0x followed by 40 hex digits)`,
    }
  const hex = value.slice(2)
  const checksummed = checksumAddress(value as Address)
  // EIP-55: all-lowercase or all-uppercase hex carries no checksum; mixed case must match it exactly.
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase()
  if (mixedCase && checksummed !== value)
    return { code: 'invalid_checksum', message: `"${value}" fails its EIP-55 checksum; expected ${checksummed}` }
  if (/^0+$/.test(hex))
    return { code: 'zero_address', message: 'is the zero address; transfers to it revert or burn funds' }
  return { address: checksummed }
}

function checkAmount(value: unknown): { amount: bigint } | Problem {
  if (typeof value !== 'string')
    return {
      code: 'invalid_amount',
      message:
        typeof value === 'number'
          ? `must be a string of base units such as "1500000" (JSON numbers lose precision above 2^53)`
          : `must be a base-unit integer string (got ${describe(value)})`,
    }
  if (/^\d+$/.test(value)) {
    if (value.length > maxAmountDigits)
      return { code: 'amount_too_large', message: `has more than ${maxAmountDigits} digits` }
    const amount = BigInt(value)
    if (amount === 0n) return { code: 'amount_zero', message: 'must be greater than 0' }
    if (amount > maxUint256) return { code: 'amount_too_large', message: 'exceeds a uint256' }
    return { amount }
  }
  const hint = /^\d*\.\d*$/.test(value)
    ? 'has a decimal point; amounts are raw base units (1.5 USDC is "1500000")'
    : /[eE]/.test(value)
      ? 'uses scientific notation; write the integer out'
      : value.startsWith('-')
        ? 'is negative; amounts are greater than 0'
        : value.startsWith('+')
          ? 'has a leading "+"; write digits only'
          : 'is not a base-unit integer string such as "1500000"'
  return { code: 'invalid_amount', message: `${describe(value)} ${hint}` }
}

/**
 * Reads a recipient's HUMAN decimal amount into base units of a token with `decimals`; with the decimals unknown, into
 * units of 10^-{@link maxUnknownDecimals} so that the amounts still sum exactly.
 */
function checkHumanAmount(parameters: {
  value: unknown
  decimals: number | null
  field: string
}): { amount: bigint } | Problem {
  const { value, decimals, field } = parameters
  if (typeof value !== 'string' && typeof value !== 'number')
    return {
      code: 'invalid_amount',
      message: `must be a decimal amount of the token such as "1.5" (got ${describe(value)})`,
    }
  if (typeof value === 'string' && /^\d+$/.test(value) && value.length > maxAmountDigits)
    return { code: 'amount_too_large', message: `has more than ${maxAmountDigits} digits` }
  let amount: bigint
  try {
    amount = Units.fromDecimal({ value, decimals: decimals ?? maxUnknownDecimals, field })
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    const reason = error.message.slice(field.length + 2)
    // Units quotes the caller's text in full; the report quotes it bounded, as every other message here does.
    const quoted = `"${String(value)}"`
    const message = reason.startsWith(quoted) ? `${describe(value)}${reason.slice(quoted.length)}` : reason
    return { code: 'invalid_amount', message }
  }
  if (amount === 0n) return { code: 'amount_zero', message: 'must be greater than 0' }
  if (decimals !== null && amount > maxUint256)
    return { code: 'amount_too_large', message: 'exceeds a uint256 in base units' }
  return { amount }
}

function missing(what: string): Problem {
  return { code: 'required', message: `required: ${what}` }
}

function sum(entries: readonly validateRecipients.Entry[]): bigint {
  let total = 0n
  for (const entry of entries) total += entry.amount
  return total
}

function findDuplicates(entries: readonly { address: Address; index?: number }[]): Duplicate[] {
  const indexes = new Map<Address, number[]>()
  for (const [position, { address, index = position }] of entries.entries()) {
    const seen = indexes.get(address)
    if (seen) seen.push(index)
    else indexes.set(address, [index])
  }
  return [...indexes].filter(([, list]) => list.length > 1).map(([address, list]) => ({ address, indexes: list }))
}

type Collector<code extends string> = {
  issues: validate.Issue<code>[]
  count: number
  readonly full: boolean
  add(field: string, code: code, message: string): void
}

function collector<code extends string>(): Collector<code> {
  return {
    issues: [],
    count: 0,
    get full() {
      return this.count > maxIssues
    },
    add(field, code, message) {
      this.count++
      if (this.issues.length < maxIssues) this.issues.push({ field, code, message })
    },
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return `"${echo(value)}"`
  if (typeof value === 'object') return 'an object'
  return `${typeof value} ${String(value)}`
}
