import { type AbiFunction, type Address, getAddress, type Hex } from 'viem'
import * as ContractCall from '../../core/ContractCall.js'
import type * as ContractSource from '../../core/ContractSource.js'
import * as CustodialWallet from '../../core/CustodialWallet.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import type * as Rpc from '../../core/Rpc.js'
import type { Store } from '../../core/Store.js'
import type { ReadBody, WriteBody } from './schema.js'

/**
 * Body fields that would carry a secret: refused, before anything else is read, so that no key is logged, stored or
 * echoed. The original gateway's write took `privateKey`; this one never takes a key.
 */
export const secretFields = ['privateKey', 'private_key', 'secretKey', 'secret_key', 'mnemonic', 'seedPhrase']

/** Custodial wallets, when a server-wallet vendor is configured: what a write with `walletId` signs and sends with. */
export type Wallets = {
  /** Wallets and their owners. */
  store: Store
  /** The vendor holding their keys. */
  custodian: CustodialWallet.Custodian
  /** Sends to the settlement chain. */
  broadcaster: Rpc.Broadcaster
}

/** What the contract module needs from outside. */
export type Deps = {
  /** Every chain of the registry and its node. */
  nodes: readonly EvmChain.Node[]
  /** Verification services asked, in order, for a verified ABI when a call's outputs are unknown. */
  sources: readonly ContractSource.Sources[]
  /** Custodial wallets; absent, a write with `walletId` is a 503 before payment. */
  wallets: Wallets | undefined
}

/** Refuses, before payment, what `read` would refuse before reaching a chain: the chain, the function, its arguments. */
export function preflightRead(deps: Deps, body: unknown): void {
  refuseSecrets(body)
  if (isCall(body)) preflight(deps, body)
}

/**
 * Refuses, before payment, a write with a key; then what `write` would refuse before reaching a chain; and a `walletId`
 * with no vendor configured (503) or on another chain than the settlement chain.
 */
export function preflightWrite(deps: Deps, body: unknown): void {
  refuseSecrets(body)
  if (!isCall(body)) return
  const node = preflight(deps, body)
  if (typeof (body as { walletId?: unknown }).walletId === 'string') walletsOn(deps, node)
}

/**
 * Calls a view or pure function with `eth_call` on the chain's latest state and decodes its answer by the function's
 * outputs: those of `method` or `abi`, else of the contract's verified ABI. A revert is a 400; nothing is charged.
 */
export async function read(deps: Deps, body: ReadBody) {
  const node = nodeOf(deps, body.chain)
  const { callee: typed, data } = await calleeOf(deps, node, body)
  const simulated = await ContractCall.simulate({
    endpoint: node.endpoint,
    call: { from: body.from ? getAddress(body.from) : undefined, to: getAddress(body.address), data },
  })
  if (!simulated.ok) throw ContractCall.refused(simulated)
  const { result, outputs } = ContractCall.decode({ fragment: typed.fragment, data: simulated.returnData })
  return {
    ...echoed(node, body),
    result,
    raw_result: JSON.stringify(result),
    outputs,
    returnData: simulated.returnData,
    abiSource: typed.fragment.outputs.length > 0 ? typed.source : null,
    ...(typed.fragment.outputs.length > 0
      ? {}
      : {
          note: 'The function declares no outputs and the contract has no verified ABI here: returnData is the raw answer. Give `method` with `returns (...)`, or `abi`, to decode it.',
        }),
  }
}

/**
 * Builds a transaction calling the function: with `walletId`, signed by the payer's custodial wallet and sent on the
 * settlement chain, once simulated; without, the unsigned transaction for the caller to sign, simulated and estimated
 * for `from` (the payer by default). A revert in simulation is a 400; nothing is charged.
 */
export async function write(deps: Deps, input: WriteBody & { caller: Address }) {
  const node = nodeOf(deps, input.chain)
  const { callee, data } = await calleeOf(deps, node, input)
  const to = getAddress(input.address)
  const value = input.value === undefined ? 0n : BigInt(input.value)
  const explorer = explorerOf(node)
  if (input.walletId !== undefined) {
    const wallets = walletsOn(deps, node)
    const record = await CustodialWallet.owned({ store: wallets.store, walletId: input.walletId, caller: input.caller })
    const sent = await CustodialWallet.send({
      ...wallets,
      endpoint: node.endpoint,
      wallet: record.value,
      call: { to, data, value },
    })
    await wallets.store.update<CustodialWallet.Wallet>(CustodialWallet.collection, record.id, (current) => ({
      ...current.value,
      lastActive: new Date().toISOString(),
      totalTransactions: current.value.totalTransactions + 1,
    }))
    return {
      ...echoed(node, input),
      tx_hash: sent.hash,
      from: sent.from,
      nonce: sent.nonce,
      gas_limit: sent.gasLimit.toString(),
      gas_estimate: sent.gasEstimate.toString(),
      walletId: input.walletId,
      explorer: explorer ? `${explorer}/tx/${sent.hash}` : null,
    }
  }
  const from = getAddress(input.from ?? input.caller)
  const simulated = await ContractCall.simulate({
    endpoint: node.endpoint,
    call: { from, to, data, value },
    estimate: true,
  })
  if (!simulated.ok) throw ContractCall.refused(simulated)
  const gasLimit = (simulated.gas! * (100n + CustodialWallet.gasMarginPercent)) / 100n
  return {
    ...echoed(node, input),
    from,
    transaction: {
      from,
      to,
      data,
      value: value.toString(),
      chainId: node.endpoint.chainId,
      gas: gasLimit.toString(),
    },
    simulation: {
      ok: true,
      returnData: simulated.returnData,
      ...(callee.fragment.outputs.length > 0
        ? { result: ContractCall.decode({ fragment: callee.fragment, data: simulated.returnData }).result }
        : {}),
    },
    gas_estimate: simulated.gas!.toString(),
    gas_limit: gasLimit.toString(),
    signed: false,
    note: 'Unsigned: sign it with the sender’s key and send it yourself (nonce and fees are yours to set), or send walletId to have a custodial wallet of yours sign and send it. No private key is ever taken.',
  }
}

/**
 * The chain of a call, and its function and calldata when the body alone says them: all but a bare name without `abi`,
 * whose types only the contract's verified ABI knows. Each is refused, before payment, when it cannot be.
 */
function preflight(deps: Deps, body: ReadBody): EvmChain.Node {
  const node = nodeOf(deps, body.chain)
  if (ContractCall.bareName(body.method) === undefined || (body.abi?.length ?? 0) > 0)
    ContractCall.encode({ fragment: ContractCall.parse(body).fragment, args: body.args ?? [] })
  return node
}

/**
 * The function a call names, with its outputs where anything knows them, and its calldata. A signature without
 * outputs takes them from the contract's verified ABI; a bare name without `abi` is looked up there by name (and
 * argument count), and without one is read as taking no arguments, or refused naming `method` when it has some.
 */
async function calleeOf(
  deps: Deps,
  node: EvmChain.Node,
  body: ReadBody,
): Promise<{ callee: ContractCall.Callee; data: Hex }> {
  const name = ContractCall.bareName(body.method)
  const args = body.args ?? []
  const given = name === undefined || (body.abi?.length ?? 0) > 0 ? ContractCall.parse(body) : undefined
  let callee = given
  if (!given || (given.fragment.outputs.length === 0 && given.source === 'method'))
    callee =
      (await fromVerified(deps, { node, address: getAddress(body.address), fn: given?.fragment ?? name!, args })) ??
      given
  if (!callee) {
    if (args.length > 0)
      throw new ValidationError({
        field: 'method',
        message: `${name} is a bare name and no verified ABI of the contract is known here: give its signature, e.g. '${name}(address,uint256)', or \`abi\``,
      })
    callee = ContractCall.parse({ method: `${name}()` })
  }
  return { callee, data: ContractCall.encode({ fragment: callee.fragment, args }) }
}

/** Whether a body has what {@link preflight} reads, as its schema will check: otherwise the schema names the field. */
function isCall(body: unknown): body is ReadBody {
  const { address, method, args, abi } = (body ?? {}) as Record<string, unknown>
  return (
    typeof address === 'string' &&
    typeof method === 'string' &&
    method.length <= ContractCall.maxMethodLength &&
    (args === undefined || (Array.isArray(args) && args.length <= ContractCall.maxArgs)) &&
    (abi === undefined || (Array.isArray(abi) && abi.length <= ContractCall.maxAbiItems))
  )
}

/** Refuses a body that carries a key: 400 naming the field, its value never read. */
function refuseSecrets(body: unknown): void {
  if (typeof body !== 'object' || body === null) return
  const field = secretFields.find((name) => Object.hasOwn(body, name))
  if (field)
    throw new ValidationError({
      field,
      message:
        'is refused: this gateway never takes a private key. Send `walletId` to have a custodial wallet of yours sign and send, or leave it out to get the unsigned transaction to sign yourself.',
    })
}

/** The node of the chain `chain` names (`base` when absent); another is refused naming `chain`. */
function nodeOf(deps: Deps, chain: string | undefined): EvmChain.Node {
  const name = chain === undefined ? 'base' : EvmChain.nameOf(chain)
  const node = deps.nodes.find((candidate) => candidate.entry.name === name)
  if (!node)
    throw new ValidationError({
      field: 'chain',
      message: `unsupported chain; one of ${deps.nodes.map((candidate) => EvmChain.originalName(candidate.entry.name)).join(', ')} (or their short names)`,
    })
  return node
}

/** The custodial wallets, when configured and `node` is their chain: 503 without a vendor, 400 on another chain. */
function walletsOn(deps: Deps, node: EvmChain.Node): Wallets {
  if (!deps.wallets)
    throw new UpstreamUnavailableError(
      'No server-wallet vendor is configured (Phantom: PHANTOM_ORGANIZATION_ID, PHANTOM_APP_ID and PHANTOM_PRIVATE_KEY), so walletId cannot sign: leave it out to get the unsigned transaction. Nothing is charged.',
    )
  if (node.endpoint.chainId !== deps.wallets.broadcaster.chainId)
    throw new ValidationError({
      field: 'chain',
      message: `custodial wallets send on the settlement chain only (\`base\`, chain id ${deps.wallets.broadcaster.chainId})`,
    })
  return deps.wallets
}

/** The function `fn` (an ABI item or a bare name) in the first verified ABI of the contract a service has. */
async function fromVerified(
  deps: Deps,
  call: { node: EvmChain.Node; address: Address; fn: AbiFunction | string; args: readonly unknown[] },
): Promise<ContractCall.Callee | undefined> {
  const { node, address, fn, args } = call
  for (const source of deps.sources) {
    if (!source.available().ok) continue
    const found = await source.find({ chainId: node.endpoint.chainId, address })
    if (!found.ok || !found.verified?.abi) continue
    const verified = ContractCall.verified({ fn, abi: found.verified.abi, source: found.verified.source, args })
    if (verified) return verified
  }
  return undefined
}

/** The chain's block explorer, when the node is the registry chain itself (not a devnet standing in for it). */
function explorerOf(node: EvmChain.Node): string | undefined {
  return node.endpoint.chainId === node.entry.chainId ? node.entry.explorer : undefined
}

/** What every answer repeats of the call, as the original gateway names it (`chain` is its network id). */
function echoed(node: EvmChain.Node, body: Pick<ReadBody, 'address' | 'method' | 'args'>) {
  return {
    chain: node.endpoint.chainId === node.entry.chainId ? EvmChain.originalName(node.entry.name) : node.endpoint.name,
    chainId: node.endpoint.chainId,
    address: getAddress(body.address),
    method: body.method,
    args: body.args ?? [],
  }
}
