import {
  type AbiFunction,
  type AbiParameter,
  type Address,
  decodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  parseAbiItem,
  size,
  toFunctionSignature,
  toHex,
} from 'viem'
import { BadRequestError, RpcCallFailedError, ValidationError } from './Errors.js'
import { echo } from './internal/echo.js'
import type * as Rpc from './Rpc.js'
import * as Upstream from './Upstream.js'

/**
 * A call of any contract's function given as the original gateway's clients give it: a `method` signature
 * (`balanceOf(address)`, or a whole `function ... returns (...)` fragment), an optional `abi` (JSON ABI items or
 * human-readable signatures) and `args` in JSON, each read by its ABI type; its answer decoded by the function's
 * outputs. A transaction is simulated (`eth_call`, then `eth_estimateGas`) before anything is signed.
 */

/** Longest `method` accepted, in characters. */
export const maxMethodLength = 1_000

/** Most items of an `abi`. */
export const maxAbiItems = 500

/** Most top-level `args`. */
export const maxArgs = 64

/** A function to call: its ABI, and where that ABI came from. */
export type Callee = {
  /** The function's ABI item. */
  fragment: AbiFunction
  /** `method`: the signature as given; `abi`: the caller's ABI; otherwise the verification service that gave it. */
  source: string
}

/**
 * The function `method` names, from `abi` when one is given (its overload with `method`'s parameter types when it has
 * several), else from `method` itself (`function ` may be left out, as the original allows). Refused with a
 * {@link ValidationError} naming `method` or `abi`.
 */
export function parse(parameters: parse.Parameters): Callee {
  const { method, abi, args } = parameters
  const name = bareName(method)
  if (name !== undefined) {
    if (abi === undefined || abi.length === 0)
      throw new ValidationError({
        field: 'method',
        message: `${echo(name)} is a bare name: give its signature, e.g. '${echo(name)}(address)', or \`abi\``,
      })
    const found = named({ items: itemsOf(abi), name, args })
    if (!found)
      throw new ValidationError({ field: 'method', message: `${echo(name)} is not a function of the given abi` })
    return { fragment: found, source: 'abi' }
  }
  const signed = fragmentOf(method)
  if (abi === undefined || abi.length === 0) return { fragment: signed, source: 'method' }
  const fragment = find(itemsOf(abi), signed)
  if (!fragment)
    throw new ValidationError({
      field: 'method',
      message: `${echo(toFunctionSignature(signed))} is not a function of the given abi`,
    })
  return { fragment, source: 'abi' }
}

export declare namespace parse {
  type Parameters = {
    /** The function's signature, e.g. `balanceOf(address)` or `function balanceOf(address) view returns (uint256)`. */
    method: string
    /** The contract's ABI: JSON ABI items or human-readable signatures. */
    abi?: readonly unknown[] | undefined
    /** The arguments, which pick among overloads of a bare name by their count. */
    args?: readonly unknown[] | undefined
  }
}

/** The function name `method` is when it is a bare name (`totalSupply`, as the original's clients send), else `undefined`. */
export function bareName(method: string): string | undefined {
  const trimmed = method.trim()
  return /^[A-Za-z_$][\w$]*$/.test(trimmed) ? trimmed : undefined
}

/**
 * The function of a verified `abi` that `fn` names (same name and parameter types), with its outputs; `undefined` when
 * the ABI has no such function.
 */
export function verified(parameters: verified.Parameters): Callee | undefined {
  const { fn, abi, source, args } = parameters
  try {
    const items = itemsOf(abi)
    const fragment = typeof fn === 'string' ? named({ items, name: fn, args }) : find(items, fn)
    return fragment ? { fragment, source } : undefined
  } catch {
    // A verification service's ABI we cannot read is one we do not use.
    return undefined
  }
}

export declare namespace verified {
  type Parameters = {
    /** The function: its ABI item, or a bare name. */
    fn: AbiFunction | string
    /** The verified ABI. */
    abi: readonly unknown[]
    /** The service that verified it. */
    source: string
    /** The arguments, which pick among overloads of a bare name by their count. */
    args?: readonly unknown[] | undefined
  }
}

/** The calldata of a call of `fragment` with `args` read by their ABI types; refusals name `args.<index>...`. */
export function encode(parameters: { fragment: AbiFunction; args: readonly unknown[] }): Hex {
  const { fragment, args } = parameters
  if (args.length !== fragment.inputs.length)
    throw new ValidationError({
      field: 'args',
      message: `${fragment.name} takes ${fragment.inputs.length} arguments (${fragment.inputs.map((input) => input.type).join(', ')}), not ${args.length}`,
    })
  const values = fragment.inputs.map((input, index) => argumentOf(input, args[index], `args.${index}`))
  return encodeFunctionData({ abi: [fragment], functionName: fragment.name, args: values })
}

/** One output of a call, decoded. */
export type Output = {
  /** Its name in the ABI; `null` when unnamed. */
  name: string | null
  /** Its ABI type. */
  type: string
  /** Its value in JSON: integers as decimal strings, tuples as arrays. */
  value: unknown
}

/**
 * The outputs of `fragment` decoded from `data`: `result` is the one output, or the array of them (integers as decimal
 * strings, tuples as arrays, as the original gateway answers); `null` when the function declares none. Data that does
 * not decode is a 400: the function is not what the contract has.
 */
export function decode(parameters: { fragment: AbiFunction; data: Hex }): { result: unknown; outputs: Output[] } {
  const { fragment, data } = parameters
  if (fragment.outputs.length === 0) return { result: null, outputs: [] }
  let values: readonly unknown[]
  try {
    values = decodeAbiParameters(fragment.outputs, data)
  } catch {
    throw new BadRequestError(
      `The contract's answer (${size(data)} bytes) does not decode as ${fragment.name}'s outputs (${fragment.outputs.map((output) => output.type).join(', ')}): the function is not what the contract has.`,
      { details: { field: 'method', returnData: echo(data, 200) } },
    )
  }
  const outputs = fragment.outputs.map((output, index) => ({
    name: output.name ? output.name : null,
    type: output.type,
    value: jsonOf(output, values[index]),
  }))
  return { result: outputs.length === 1 ? outputs[0]!.value : outputs.map((output) => output.value), outputs }
}

/** A transaction to simulate. */
export type Call = {
  /** Sender; absent, the node's default (the zero address). */
  from?: Address | undefined
  /** Contract called. */
  to: Address
  /** Calldata. */
  data: Hex
  /** Wei sent with it. @default 0n */
  value?: bigint | undefined
}

/** What a simulation came to. */
export type Simulated =
  | {
      /** The call succeeds on the chain's latest state. */
      ok: true
      /** What it returns. */
      returnData: Hex
      /** Gas `eth_estimateGas` answered; `undefined` when not asked. */
      gas: bigint | undefined
    }
  | {
      /** The node refused the call: it reverts, or the sender cannot pay for it. */
      ok: false
      /** The node's JSON-RPC error code. */
      code: number
      /** The node's message, bounded. */
      message: string
    }

/** Most characters of a node's refusal repeated to the caller. */
const maxNodeMessageLength = 300

/**
 * Runs `call` on the chain's latest state (`eth_call`) and, when `estimate`, measures its gas (`eth_estimateGas`). A
 * node's refusal of either is the answer (`ok: false`); a node that does not answer is thrown as the upstream's error
 * (503 or 504), which charges nothing.
 */
export async function simulate(parameters: simulate.Parameters): Promise<Simulated> {
  const { endpoint, call, estimate = false } = parameters
  const request = {
    ...(call.from ? { from: call.from } : {}),
    to: call.to,
    data: call.data,
    ...(call.value ? { value: toHex(call.value) } : {}),
  }
  const returned = await endpoint.request('eth_call', [request, 'latest'])
  if (Upstream.isFailure(returned)) throw Upstream.toError(returned)
  if (!returned.ok) return refusal(returned)
  const returnData = typeof returned.result === 'string' && isHex(returned.result) ? returned.result : '0x'
  if (!estimate) return { ok: true, returnData, gas: undefined }
  const estimated = await endpoint.request('eth_estimateGas', [request])
  if (Upstream.isFailure(estimated)) throw Upstream.toError(estimated)
  if (!estimated.ok) return refusal(estimated)
  if (typeof estimated.result !== 'string' || !isHex(estimated.result))
    throw new RpcCallFailedError(`eth_estimateGas on ${endpoint.name} answered no quantity.`)
  return { ok: true, returnData, gas: BigInt(estimated.result) }
}

export declare namespace simulate {
  type Parameters = {
    /** The chain's node. */
    endpoint: Rpc.Endpoint
    /** The transaction. */
    call: Call
    /** Whether to measure its gas too. @default false */
    estimate?: boolean
  }
}

/** The 400 of a call the node refuses in simulation: nothing was signed or sent, and nothing is charged. */
export function refused(simulated: Extract<Simulated, { ok: false }>): BadRequestError {
  return new BadRequestError(`The call fails in simulation on the chain's latest state: ${simulated.message}`, {
    details: { reason: 'simulation_reverted', rpcError: { code: simulated.code, message: simulated.message } },
  })
}

function refusal(answer: Extract<Rpc.Answer, { ok: false }>): Simulated {
  return { ok: false, code: answer.code, message: echo(answer.message, maxNodeMessageLength) }
}

/** The function item a signature describes, `function ` added when left out. */
function fragmentOf(method: string): AbiFunction {
  const trimmed = method.trim()
  if (!/^(function\s+)?[A-Za-z_$][\w$]*\s*\(.*\)/s.test(trimmed))
    throw new ValidationError({
      field: 'method',
      message:
        "must be a function signature, e.g. 'balanceOf(address)' or 'function balanceOf(address) view returns (uint256)'",
    })
  try {
    const item = parseAbiItem(trimmed.startsWith('function') ? trimmed : `function ${trimmed}`)
    if (item.type === 'function') return item
  } catch {
    // Refused below with the same message.
  }
  throw new ValidationError({ field: 'method', message: `${echo(trimmed)} is not a function signature viem can read` })
}

/** The function items of an ABI of JSON items and human-readable signatures; anything else is refused naming `abi`. */
function itemsOf(abi: readonly unknown[]): AbiFunction[] {
  return abi.flatMap((item, index): AbiFunction[] => {
    if (typeof item === 'string') {
      if (!item.trim().startsWith('function')) return []
      return [fragmentOf(item)]
    }
    const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined
    if (!fields) throw new ValidationError({ field: `abi.${index}`, message: 'must be an ABI item or a signature' })
    if ((fields.type ?? 'function') !== 'function') return []
    if (typeof fields.name !== 'string' || !Array.isArray(fields.inputs) || !parametersAreValid(fields.inputs))
      throw new ValidationError({ field: `abi.${index}`, message: 'is a function item without a name or typed inputs' })
    const outputs = fields.outputs ?? []
    if (!Array.isArray(outputs) || !parametersAreValid(outputs))
      throw new ValidationError({ field: `abi.${index}`, message: 'has outputs without types' })
    return [
      {
        type: 'function',
        name: fields.name,
        inputs: fields.inputs as AbiParameter[],
        outputs: outputs as AbiParameter[],
        stateMutability: (fields.stateMutability as AbiFunction['stateMutability']) ?? 'nonpayable',
      },
    ]
  })
}

/** Whether every item is an ABI parameter with a type (and components for tuples), at any depth. */
function parametersAreValid(parameters: readonly unknown[]): boolean {
  return parameters.every((parameter) => {
    const { type, components } = (parameter ?? {}) as { type?: unknown; components?: unknown }
    if (typeof type !== 'string') return false
    if (!type.startsWith('tuple')) return true
    return Array.isArray(components) && parametersAreValid(components)
  })
}

/**
 * The function of `items` named `name`: the only one, or the one overload taking as many arguments as `args` holds; an
 * overload the count does not pick is refused naming `method`.
 */
function named(parameters: { items: readonly AbiFunction[]; name: string; args?: readonly unknown[] | undefined }) {
  const { items, name, args = [] } = parameters
  const candidates = items.filter((item) => item.name === name)
  if (candidates.length <= 1) return candidates[0]
  const fitting = candidates.filter((item) => item.inputs.length === args.length)
  if (fitting.length === 1) return fitting[0]
  throw new ValidationError({
    field: 'method',
    message: `${echo(name)} is overloaded (${candidates.map((item) => toFunctionSignature(item)).join(', ')}): give its signature`,
  })
}

/** The function of `items` with `fn`'s name: the only one, or the overload with `fn`'s parameter types. */
function find(items: readonly AbiFunction[], fn: AbiFunction): AbiFunction | undefined {
  const named = items.filter((item) => item.name === fn.name)
  if (named.length <= 1) return named[0]
  const signature = toFunctionSignature(fn)
  return named.find((item) => toFunctionSignature(item) === signature)
}

/** A JSON value read as `parameter`'s type, for viem to encode; `field` names it in refusals. */
function argumentOf(parameter: AbiParameter, value: unknown, field: string): unknown {
  const { type } = parameter
  const array = /^(.*)\[(\d*)\]$/.exec(type)
  if (array) {
    const [, inner, length] = array as unknown as [string, string, string]
    if (!Array.isArray(value)) throw invalid(field, `must be an array (${type})`)
    if (length !== '' && value.length !== Number(length)) throw invalid(field, `must have ${length} items (${type})`)
    return value.map((item, index) => argumentOf({ ...parameter, type: inner }, item, `${field}.${index}`))
  }
  if (type === 'tuple') {
    const components = (parameter as { components?: readonly AbiParameter[] }).components ?? []
    const values = Array.isArray(value)
      ? value
      : typeof value === 'object' && value !== null
        ? components.map((component) => (value as Record<string, unknown>)[component.name ?? ''])
        : undefined
    if (!values || values.length !== components.length)
      throw invalid(field, `must be an array of ${components.length} values, or an object of its named components`)
    return components.map((component, index) =>
      argumentOf(component, values[index], `${field}.${component.name ? component.name : index}`),
    )
  }
  if (type === 'address') {
    if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw invalid(field, 'must be an address')
    return getAddress(value)
  }
  if (type === 'bool') {
    if (typeof value === 'boolean') return value
    if (value === 'true' || value === 'false') return value === 'true'
    throw invalid(field, 'must be true or false')
  }
  if (type === 'string') {
    if (typeof value !== 'string') throw invalid(field, 'must be a string')
    return value
  }
  const integer = /^(u?)int(\d*)$/.exec(type)
  if (integer) return integerOf(value, integer[1] === 'u', Number(integer[2] || 256), field, type)
  const bytes = /^bytes(\d*)$/.exec(type)
  if (bytes) {
    if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length % 2 !== 0)
      throw invalid(field, 'must be 0x-prefixed hex bytes')
    if (bytes[1] !== '' && size(value) !== Number(bytes[1])) throw invalid(field, `must be ${bytes[1]} bytes (${type})`)
    return value
  }
  throw invalid(field, `has type ${type}, which this gateway does not encode`)
}

/** An integer of `bits` bits from a JSON number, or a decimal or 0x-hex string. */
function integerOf(value: unknown, unsigned: boolean, bits: number, field: string, type: string): bigint {
  let integer: bigint
  if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value)
  else if (typeof value === 'string' && /^-?[0-9]{1,78}$/.test(value)) integer = BigInt(value)
  else if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(value)) integer = BigInt(value)
  else throw invalid(field, `must be an integer (${type}): a decimal string, a 0x-hex string or a safe JSON integer`)
  const min = unsigned ? 0n : -(2n ** BigInt(bits - 1))
  const max = unsigned ? 2n ** BigInt(bits) - 1n : 2n ** BigInt(bits - 1) - 1n
  if (integer < min || integer > max) throw invalid(field, `is out of range for ${type}`)
  return integer
}

/** A decoded value in JSON: integers as decimal strings, tuples as arrays of their components. */
function jsonOf(parameter: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[\d*\]$/.exec(parameter.type)
  if (array) return (value as readonly unknown[]).map((item) => jsonOf({ ...parameter, type: array[1]! }, item))
  if (parameter.type === 'tuple') {
    const components = (parameter as { components?: readonly AbiParameter[] }).components ?? []
    return components.map((component, index) =>
      jsonOf(
        component,
        Array.isArray(value) ? value[index] : (value as Record<string, unknown>)[component.name ?? String(index)],
      ),
    )
  }
  return typeof value === 'bigint' ? value.toString() : value
}

function invalid(field: string, message: string): ValidationError {
  return new ValidationError({ field, message })
}
