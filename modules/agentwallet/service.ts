import { type Address, getAddress, type Hex, isAddressEqual } from 'viem'
import * as AgentWallet from '../../core/AgentWallet.js'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../core/Errors.js'
import type { InfoQuery, PredictQuery, ProvisionBody, RevokeKeyBody, SessionKeyBody } from './schema.js'

/** What the agent-wallet module needs from outside. */
export type Deps = {
  /** Our agent-wallet contracts and the relayer that sponsors their transactions. */
  chain: AgentWallet.AgentWalletChain
  /** Clock. @default () => new Date() */
  now?: () => Date
}

/** The verified payer of the call: the owner of every account it acts on. */
export type Payer = {
  /** Checksummed address of the wallet that paid for the call. */
  payer: Address
}

const saltOf = (salt: string | undefined) => BigInt(salt ?? '0')

/**
 * Refuses, before payment, session-key terms the account would refuse: an expiry in the past, a token twice. Runs
 * ahead of the schema, so it reads only what has the right type and leaves the rest to the schema.
 */
export function preflightSessionKey(deps: Pick<Deps, 'now'>, body: unknown) {
  if (typeof body !== 'object' || body === null) return
  const { expiresAt, limits } = body as Record<string, unknown>
  const now = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000)
  if (typeof expiresAt === 'number' && expiresAt <= now)
    throw new ValidationError({ field: 'expiresAt', message: 'must be in the future' })
  if (!Array.isArray(limits)) return
  const tokens = limits.map((limit) => String((limit as { token?: unknown })?.token).toLowerCase())
  if (new Set(tokens).size !== tokens.length)
    throw new ValidationError({ field: 'limits', message: 'lists a token twice; give one limit per token' })
}

/** The payer's counterfactual account address of `salt`, and whether it is deployed. */
export async function predict(deps: Deps, input: PredictQuery & Payer) {
  const salt = saltOf(input.salt)
  const address = await deps.chain.predict(input.payer, salt)
  const state = await deps.chain.read(address)
  return { ...base(deps, input.payer, salt), address, deployed: state.deployed }
}

/** Deploys the payer's account of `salt` through the factory, the relayer paying the gas; idempotent. */
export async function provision(deps: Deps, input: ProvisionBody & Payer) {
  const salt = saltOf(input.salt)
  const address = await deps.chain.predict(input.payer, salt)
  const before = await deps.chain.read(address)
  const transaction = before.deployed ? undefined : await deps.chain.provision(input.payer, salt)
  const after = await deps.chain.read(address)
  if (!after.deployed || !after.owner || !isAddressEqual(after.owner, input.payer))
    throw new Error(`The factory did not deploy ${address} owned by ${input.payer}.`)
  return {
    ...base(deps, input.payer, salt),
    address,
    deployed: true,
    alreadyDeployed: before.deployed,
    transaction: transaction ?? null,
    sponsoredBy: deps.chain.relayer,
  }
}

/** The account's balances and active session keys; another owner's account is not found. */
export async function info(deps: Deps, input: InfoQuery & Payer) {
  const salt = saltOf(input.salt)
  const own = await deps.chain.predict(input.payer, salt)
  const address = input.account === undefined ? own : getAddress(input.account)
  const state = await deps.chain.read(address)
  const owned = state.deployed ? isAddressEqual(state.owner!, input.payer) : isAddressEqual(address, own)
  if (!owned) throw new NotFoundError(`No agent wallet ${address} owned by ${input.payer}.`)
  return {
    chainId: deps.chain.chainId,
    address,
    owner: input.payer,
    deployed: state.deployed,
    native: { symbol: 'ETH', decimals: 18, balance: state.native.toString() },
    tokens: state.tokens.map((token) => ({ ...token, balance: token.balance.toString() })),
    sessionKeys: state.sessionKeys.map((key) => ({
      ...key,
      allowances: key.allowances.map((allowance) => ({ ...allowance, remaining: allowance.remaining.toString() })),
    })),
  }
}

/**
 * Adds a session key. Without `signature`: the EIP-712 `AddSessionKey` typed data the owner signs (nothing on
 * chain). With it: the relayer submits `addSessionKey`, which the account verifies against its owner.
 */
export async function sessionKey(deps: Deps, input: SessionKeyBody & Payer) {
  const address = await ownAccount(deps, input)
  const state = await deps.chain.read(address)
  const tokens = input.limits.map(({ token }) => getAddress(token))
  const limits = input.limits.map(({ amount }) => BigInt(amount))
  const message = {
    key: getAddress(input.key),
    validUntil: input.expiresAt,
    period: input.period,
    tokens,
    limits,
    nonce: state.authorizationNonce,
  }
  if (input.signature === undefined)
    return {
      account: address,
      submitted: false,
      typedData: typedData(deps, address, 'AddSessionKey', AgentWallet.addSessionKeyTypes, message),
    }
  const signature = input.signature as Hex
  const transaction = await submitted(() => deps.chain.addSessionKey(address, { ...message, signature }))
  return {
    account: address,
    submitted: true,
    transaction,
    key: message.key,
    expiresAt: input.expiresAt,
    period: input.period,
    limits: input.limits,
  }
}

/**
 * Revokes a session key, refused from the next block on. Without `signature`: the `RevokeSessionKey` typed data;
 * with it: the relayer submits `revokeSessionKey`.
 */
export async function revokeKey(deps: Deps, input: RevokeKeyBody & Payer) {
  const address = await ownAccount(deps, input)
  const state = await deps.chain.read(address)
  const key = getAddress(input.key)
  if (!state.sessionKeys.some((active) => isAddressEqual(active.key, key)))
    throw new NotFoundError(`${key} is not an active session key of ${address}.`)
  const message = { key, nonce: state.authorizationNonce }
  if (input.signature === undefined)
    return {
      account: address,
      submitted: false,
      typedData: typedData(deps, address, 'RevokeSessionKey', AgentWallet.revokeSessionKeyTypes, message),
    }
  const transaction = await submitted(() => deps.chain.revokeSessionKey(address, key, input.signature as Hex))
  return { account: address, submitted: true, transaction, key }
}

function base(deps: Deps, owner: Address, salt: bigint) {
  return {
    chainId: deps.chain.chainId,
    owner,
    salt: salt.toString(),
    factory: deps.chain.factory,
    entryPoint: deps.chain.entryPoint,
  }
}

/** The deployed account the payer acts on: `account` must be its own (else 403), and deployed (else 409). */
async function ownAccount(deps: Deps, input: { account?: string; salt?: string } & Payer): Promise<Address> {
  const address =
    input.account === undefined ? await deps.chain.predict(input.payer, saltOf(input.salt)) : getAddress(input.account)
  const state = await deps.chain.read(address)
  if (!state.deployed) throw new ConflictError(`The agent wallet ${address} is not deployed; provision it first.`)
  if (!isAddressEqual(state.owner!, input.payer))
    throw new ForbiddenError(`The agent wallet ${address} is owned by ${state.owner}, not by the payer ${input.payer}.`)
  return address
}

function typedData<T>(deps: Deps, account: Address, primaryType: string, types: T, message: Record<string, unknown>) {
  return {
    domain: AgentWallet.domain({ account, chainId: deps.chain.chainId }),
    types,
    primaryType,
    message: Object.fromEntries(
      Object.entries(message).map(([name, value]) => [
        name,
        Array.isArray(value)
          ? value.map((item) => (typeof item === 'bigint' ? item.toString() : item))
          : typeof value === 'bigint'
            ? value.toString()
            : value,
      ]),
    ),
  }
}

/** Runs a submission; the account's refusal becomes 403 (not the owner's signature) or 400. */
async function submitted(run: () => Promise<Hex>) {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof AgentWallet.AuthorizationRefused)) throw error
    if (error.reason === 'BadAuthorization')
      throw new ForbiddenError(
        "The signature is not the account owner's over the current typed data (ask again without `signature` for it).",
      )
    throw new ValidationError({
      field: 'signature',
      message: `the account refused the authorization (${error.reason})`,
    })
  }
}
