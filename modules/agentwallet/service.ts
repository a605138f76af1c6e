import { Value } from '@sinclair/typebox/value'
import { type Address, getAddress, type Hex, isAddressEqual, keccak256, toBytes } from 'viem'
import * as AgentWallet from '../../core/AgentWallet.js'
import {
  AuthorizationRefusedError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../../core/Errors.js'
import * as TokenList from '../../core/TokenList.js'
import * as Units from '../../core/Units.js'
import { type InfoQuery, type PredictQuery, type ProvisionBody, type RevokeKeyBody, SessionKeyBody } from './schema.js'

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

/** The account `agentId` names: the first 8 bytes of keccak256(UTF-8 "spraay-agent-" + agentId), as a number. */
export function saltOfAgent(agentId: string): bigint {
  return BigInt(keccak256(toBytes(`spraay-agent-${agentId}`)).slice(0, 18))
}

/** The salt a call names: `salt`, or the one of the original gateway's `agentId`; both is a 400. @default 0n */
function saltOf(input: { salt?: string | undefined; agentId?: string | undefined }): bigint {
  if (input.agentId !== undefined && input.salt !== undefined)
    throw new ValidationError({ field: 'agentId', message: 'give agentId or salt, not both' })
  return input.agentId === undefined ? BigInt(input.salt ?? '0') : saltOfAgent(input.agentId)
}

/** The value of a field the original gateway names otherwise: one of the two names, never both (400). */
function oneOf<T>(original: [name: string, value: T | undefined], ours: [name: string, value: T | undefined]) {
  if (original[1] !== undefined && ours[1] !== undefined)
    throw new ValidationError({ field: original[0], message: `give ${original[0]} or ${ours[0]}, not both` })
  return original[1] ?? ours[1]
}

/** The original gateway's owner must be the payer: accounts here are owned by the wallet that pays (403). */
function assertPayerOwns(ownerAddress: string | undefined, payer: Address): void {
  if (ownerAddress !== undefined && !isAddressEqual(getAddress(ownerAddress), payer))
    throw new ForbiddenError(
      `Accounts here are owned by the paying wallet: pay from ${getAddress(ownerAddress)} to act for it (the payer is ${payer}).`,
    )
}

/** The chain's wrapped ether, in which a key's `spendLimitEth` is held. */
function wrappedEther(deps: Deps) {
  return TokenList.of('base', deps.chain.chainId).find((token) => token.symbol === 'WETH')
}

/** A session key's terms read from either vocabulary: ours, or the original gateway's. */
type Terms = {
  /** The session key. */
  key: Address
  /** The account, when named. */
  account: string | undefined
  /** Unix seconds after which it is refused. */
  expiresAt: number
  /** Spending period in seconds. */
  period: number
  /** Per-token limits, atomic units. */
  limits: { token: Address; amount: bigint }[]
  /** The original gateway's call targets, as given. */
  allowedTargets: Address[]
  /** The `spendLimitEth` as given, human ETH. */
  spendLimitEth: string | undefined
}

/**
 * Reads session-key terms: `sessionKeyAddress` or `key`, `walletAddress` or `account`, `durationHours` (from now; the
 * period then its length) or `expiresAt` and `period`, `spendLimitEth` (human ETH, held as WETH) or `limits` (atomic
 * units per token); `allowedTargets` only among the limited tokens. Throws {@link ValidationError} naming the field.
 */
export function termsOf(deps: Pick<Deps, 'chain' | 'now'>, body: SessionKeyBody): Terms {
  const now = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000)
  const key = oneOf(['sessionKeyAddress', body.sessionKeyAddress], ['key', body.key])
  if (key === undefined) throw new ValidationError({ field: 'sessionKeyAddress', message: 'required: the session key' })
  const lifetime = body.durationHours === undefined ? undefined : Math.round(body.durationHours * 3600)
  const expiresAt = oneOf(
    ['durationHours', lifetime === undefined ? undefined : now + lifetime],
    ['expiresAt', body.expiresAt],
  )
  if (expiresAt === undefined)
    throw new ValidationError({ field: 'durationHours', message: 'required: how long the key lives (or expiresAt)' })
  if (expiresAt <= now) throw new ValidationError({ field: 'expiresAt', message: 'must be in the future' })
  const period = body.period ?? lifetime
  if (period === undefined) throw new ValidationError({ field: 'period', message: 'required with expiresAt' })
  if (period < 60) throw new ValidationError({ field: 'durationHours', message: 'a key lives at least 60 seconds' })
  const limit = oneOf<unknown>(['spendLimitEth', body.spendLimitEth], ['limits', body.limits])
  if (limit === undefined)
    throw new ValidationError({ field: 'spendLimitEth', message: 'required: what the key may spend (or limits)' })
  let limits: Terms['limits']
  if (body.spendLimitEth !== undefined) {
    const weth = wrappedEther(deps)
    if (!weth)
      throw new ValidationError({
        field: 'spendLimitEth',
        message: 'this chain lists no WETH to hold an ETH limit in; give limits per token',
      })
    const amount = Units.fromDecimal({ value: body.spendLimitEth, decimals: 18, field: 'spendLimitEth' })
    if (amount === 0n) throw new ValidationError({ field: 'spendLimitEth', message: 'must be above 0' })
    limits = [{ token: getAddress(weth.address), amount }]
  } else limits = (body.limits ?? []).map(({ token, amount }) => ({ token: getAddress(token), amount: BigInt(amount) }))
  const tokens = limits.map(({ token }) => token)
  if (new Set(tokens).size !== tokens.length)
    throw new ValidationError({ field: 'limits', message: 'lists a token twice; give one limit per token' })
  const allowedTargets = (body.allowedTargets ?? []).map((target) => getAddress(target))
  const stray = allowedTargets.find((target) => !tokens.includes(target))
  if (stray)
    throw new ValidationError({
      field: 'allowedTargets',
      message: `${stray} is not a token the key is limited on: a session key here calls only \`transfer\` of ${tokens.join(', ')}`,
    })
  return {
    key: getAddress(key),
    account: oneOf(['walletAddress', body.walletAddress], ['account', body.account]),
    expiresAt,
    period,
    limits,
    allowedTargets,
    spendLimitEth: body.spendLimitEth === undefined ? undefined : String(body.spendLimitEth),
  }
}

/**
 * Refuses, before payment, session-key terms the account would refuse: an expiry in the past, a token twice, a
 * missing or doubled term. Runs ahead of the schema, so it reads only what has the right type and leaves the rest to
 * the schema.
 */
export function preflightSessionKey(deps: Pick<Deps, 'chain' | 'now'>, body: unknown) {
  if (typeof body !== 'object' || body === null) return
  const { expiresAt, limits } = body as Record<string, unknown>
  const now = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000)
  if (typeof expiresAt === 'number' && expiresAt <= now)
    throw new ValidationError({ field: 'expiresAt', message: 'must be in the future' })
  if (Array.isArray(limits)) {
    const tokens = limits.map((limit) => String((limit as { token?: unknown })?.token).toLowerCase())
    if (new Set(tokens).size !== tokens.length)
      throw new ValidationError({ field: 'limits', message: 'lists a token twice; give one limit per token' })
  }
  if (Value.Check(SessionKeyBody, body)) termsOf(deps, body)
}

/** Refuses, before payment, a revocation that names its key or account twice or its key not at all. */
export function preflightRevokeKey(body: unknown) {
  if (typeof body !== 'object' || body === null) return
  const { sessionKeyAddress, key, walletAddress, account } = body as Record<string, string | undefined>
  if (oneOf(['sessionKeyAddress', sessionKeyAddress], ['key', key]) === undefined)
    throw new ValidationError({ field: 'sessionKeyAddress', message: 'required: the session key to revoke' })
  oneOf(['walletAddress', walletAddress], ['account', account])
}

/**
 * The counterfactual account address of `salt` (or `agentId`) of the payer, or of the original gateway's
 * `ownerAddress` (an address is public: anyone may compute it), and whether it is deployed.
 */
export async function predict(deps: Deps, input: PredictQuery & Payer) {
  const salt = saltOf(input)
  const owner = input.ownerAddress === undefined ? input.payer : getAddress(input.ownerAddress)
  const address = await deps.chain.predict(owner, salt)
  const state = await deps.chain.read(address)
  return {
    ...base(deps, owner, salt),
    address,
    deployed: state.deployed,
    status: 'ok',
    predictedAddress: address,
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
  }
}

/**
 * Deploys the payer's account of `salt` (or `agentId`) through the factory, the relayer paying the gas; idempotent.
 * The original gateway's `managed` mode, which handed out a private key, is answered as self-custody: the paying
 * wallet owns the account, and the answer says how an agent acts with a session key of its own instead.
 */
export async function provision(deps: Deps, input: ProvisionBody & Payer) {
  assertPayerOwns(input.ownerAddress, input.payer)
  const salt = saltOf(input)
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
    status: before.deployed ? 'exists' : 'created',
    wallet: {
      walletAddress: address,
      ownerAddress: input.payer,
      txHash: transaction ?? null,
      chainId: deps.chain.chainId,
      agentId: input.agentId ?? null,
      agentType: input.agentType ?? 'custom',
      mode: 'self-custody',
    },
    ...(input.mode === 'self-custody'
      ? {}
      : {
          custody:
            'No private key is made or handed out here: the paying wallet owns the account. For an agent to spend, make a key on its side and add its address with POST /api/v1/agent-wallet/session-key (walletAddress, sessionKeyAddress, spendLimitEth, durationHours), signed by the owner.',
        }),
  }
}

/** The account's balances and active session keys; another owner's account is not found. */
export async function info(deps: Deps, input: InfoQuery & Payer) {
  const salt = saltOf(input)
  const named = oneOf(['address', input.address], ['account', input.account])
  const own = await deps.chain.predict(input.payer, salt)
  const address = named === undefined ? own : getAddress(named)
  const state = await deps.chain.read(address)
  const owned = state.deployed ? isAddressEqual(state.owner!, input.payer) : isAddressEqual(address, own)
  if (!owned) throw new NotFoundError(`No agent wallet ${address} owned by ${input.payer}.`)
  const weth = wrappedEther(deps)
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
    status: 'ok',
    wallet: {
      address,
      owner: input.payer,
      agentId: input.agentId ?? null,
      agentType: null,
      balanceEth: Units.toDecimal(state.native, 18),
      balanceWei: state.native.toString(),
      sessionKeys: state.sessionKeys.map((key) => {
        const held = weth && key.allowances.find((allowance) => isAddressEqual(allowance.token, weth.address))
        return {
          address: key.key,
          valid: true,
          remainingSpend: held ? Units.toDecimal(held.remaining, 18) : null,
          remainingSpendWei: held ? held.remaining.toString() : null,
          expiry: new Date(key.validUntil * 1000).toISOString(),
        }
      }),
      chainId: deps.chain.chainId,
    },
  }
}

/**
 * Adds a session key. Without `signature`: the EIP-712 `AddSessionKey` typed data the owner signs (nothing on
 * chain), and the body to send again with the signature (`expiresAt` fixed in place of `durationHours`, which counts
 * from now). With it: the relayer submits `addSessionKey`, which the account verifies against its owner.
 */
export async function sessionKey(deps: Deps, input: SessionKeyBody & Payer) {
  const terms = termsOf(deps, input)
  const address = await ownAccount(deps, { ...input, account: terms.account })
  const state = await deps.chain.read(address)
  const message = {
    key: terms.key,
    validUntil: terms.expiresAt,
    period: terms.period,
    tokens: terms.limits.map(({ token }) => token),
    limits: terms.limits.map(({ amount }) => amount),
    nonce: state.authorizationNonce,
  }
  const limits = terms.limits.map(({ token, amount }) => ({ token, amount: amount.toString() }))
  const session = (txHash: Hex | null) => ({
    txHash,
    sessionKey: terms.key,
    spendLimit: terms.spendLimitEth ?? null,
    spendLimitWei: terms.spendLimitEth === undefined ? null : terms.limits[0]!.amount.toString(),
    expiresAt: new Date(terms.expiresAt * 1000).toISOString(),
    allowedTargets: terms.allowedTargets,
  })
  if (input.signature === undefined) {
    const again = {
      ...Object.fromEntries(
        Object.entries(input).filter(([name]) => name !== 'durationHours' && name !== 'payer' && name !== 'signature'),
      ),
      expiresAt: terms.expiresAt,
      period: terms.period,
    }
    return {
      account: address,
      submitted: false,
      typedData: typedData(deps, address, 'AddSessionKey', AgentWallet.addSessionKeyTypes, message),
      status: 'signature_required',
      session: session(null),
      next: {
        instruction:
          'The owner signs typedData (EIP-712); send this body to POST /api/v1/agent-wallet/session-key with the signature as `signature`.',
        body: again,
      },
    }
  }
  const signature = input.signature as Hex
  const transaction = await submitted(() => deps.chain.addSessionKey(address, { ...message, signature }))
  return {
    account: address,
    submitted: true,
    transaction,
    key: message.key,
    expiresAt: terms.expiresAt,
    period: terms.period,
    limits,
    status: 'created',
    session: session(transaction),
  }
}

/**
 * Revokes a session key (`key` or the original's `sessionKeyAddress`), refused from the next block on. Without
 * `signature`: the `RevokeSessionKey` typed data; with it: the relayer submits `revokeSessionKey`.
 */
export async function revokeKey(deps: Deps, input: RevokeKeyBody & Payer) {
  preflightRevokeKey(input)
  const account = oneOf(['walletAddress', input.walletAddress], ['account', input.account])
  const address = await ownAccount(deps, { ...input, account })
  const state = await deps.chain.read(address)
  const key = getAddress(oneOf(['sessionKeyAddress', input.sessionKeyAddress], ['key', input.key])!)
  if (!state.sessionKeys.some((active) => isAddressEqual(active.key, key)))
    throw new NotFoundError(`${key} is not an active session key of ${address}.`)
  const message = { key, nonce: state.authorizationNonce }
  if (input.signature === undefined)
    return {
      account: address,
      submitted: false,
      typedData: typedData(deps, address, 'RevokeSessionKey', AgentWallet.revokeSessionKeyTypes, message),
      status: 'signature_required',
    }
  const transaction = await submitted(() => deps.chain.revokeSessionKey(address, key, input.signature as Hex))
  return { account: address, submitted: true, transaction, key, status: 'revoked', txHash: transaction }
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
async function ownAccount(
  deps: Deps,
  input: { account?: string | undefined; salt?: string | undefined } & Payer,
): Promise<Address> {
  const address =
    input.account === undefined ? await deps.chain.predict(input.payer, saltOf(input)) : getAddress(input.account)
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
    if (!(error instanceof AuthorizationRefusedError)) throw error
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
