import { type Address, getAddress, isAddress } from 'viem'
import * as AgentRegistry from '../../core/AgentRegistry.js'
import { NotFoundError, ValidationError } from '../../core/Errors.js'
import type * as Outbound from '../../core/Outbound.js'
import type * as Rpc from '../../core/Rpc.js'
import type { AgentCardQuery } from './schema.js'

/** What the agent-card module needs from outside. */
export type Deps = {
  /** The settlement chain's node: the devnet on embedded defaults, Base in production. */
  chain: Rpc.Endpoint
  /** The guard every fetch of a registration file goes through. */
  outbound: Outbound.Guard
  /** IPFS HTTP gateway for `ipfs://` agentURIs, e.g. `https://ipfs.io`. */
  ipfsGateway: string
}

/** Largest registration file read, in bytes. */
export const maxFileBytes = 256 * 1024

/** Time a registration file's server has to answer, in ms. */
export const fetchTimeoutMs = 5_000

/** One thing wrong with a registration file. */
export type Problem = {
  /** Dotted path of the offending field, `''` for the file itself. */
  field: string
  /** What is wrong, in one sentence. */
  message: string
}

/** What became of an agent's registration file. */
export type Registration = {
  /**
   * `valid` fetched and matching the ERC-8004 registration shape; `invalid` fetched but not (see `problems`); `refused`
   * the outbound guard did not let the request go (nothing was fetched); `unreachable` sent but no usable answer;
   * `unsupported` an agentURI scheme this gateway does not read; `absent` no agentURI set.
   */
  status: 'valid' | 'invalid' | 'refused' | 'unreachable' | 'unsupported' | 'absent'
  /** The URL the file was fetched from (the IPFS gateway's for `ipfs://`); null when nothing was fetched. */
  fetchedFrom: string | null
  /** The guard's or the server's reason when nothing usable came back, e.g. `private_address` or `http_404`. */
  reason: string | null
  /** One sentence on what happened, when the file could not be read. */
  message: string | null
  /** The parsed file, as served; null when there is none or it is not JSON. */
  file: unknown
  /** Every way the file differs from the ERC-8004 registration shape; empty when valid. */
  problems: Problem[]
}

/** An agent, by its id. */
export type AgentCard = {
  /** The registry the agent is in. */
  registry: AgentRegistry.Registry
  /** The agent's id (the registry's token id), decimal. */
  agentId: string
  /** The ERC-8004 global identifier, `eip155:<chainId>:<registry>`, that a registration file names its registry by. */
  agentRegistry: string
  /** Current owner of the agent's token. */
  owner: Address
  /** The reserved `agentWallet` metadata; null when unset or when the registry does not answer `getAgentWallet`. */
  agentWallet: Address | null
  /** The agentURI (`tokenURI`), as stored. */
  tokenURI: string
  /** The registration file the agentURI points at, checked. */
  registration: Registration
}

/** How many agents the registry holds, as the original gateway answers a lookup without an id: `totalAgents`, on `chain` base. */
export type Census = AgentRegistry.Census & {
  /** The settlement chain, as the original gateway names it: base (the devnet on embedded defaults). */
  chain: 'base'
}

/**
 * An agent card by `agentId` (or the original gateway's `id`), the agents of `address`, or, with neither, how many
 * agents the registry holds, as the original gateway answers that.
 */
export async function lookup(
  deps: Deps,
  query: AgentCardQuery,
): Promise<AgentCard | AgentRegistry.OwnedAgents | Census> {
  const { address } = query
  if (query.agentId !== undefined && query.id !== undefined)
    throw new ValidationError({ field: 'id', message: 'give `agentId` or `id` (the same), not both' })
  const agentId = query.agentId ?? query.id
  if (agentId !== undefined && address !== undefined)
    throw new ValidationError({ field: 'address', message: 'give `agentId` or `address`, not both' })
  if (address !== undefined) {
    if (!isAddress(address, { strict: true }))
      throw new ValidationError({
        field: 'address',
        message: 'must be 0x and 40 hex digits, with a valid EIP-55 checksum when it is mixed-case',
      })
    return AgentRegistry.owned(deps.chain, getAddress(address))
  }
  if (agentId === undefined) return { ...(await AgentRegistry.census(deps.chain)), chain: 'base' }
  if (!/^[0-9]{1,78}$/.test(agentId) || BigInt(agentId) >= 2n ** 256n)
    throw new ValidationError({ field: 'agentId', message: 'must be a decimal integer below 2^256' })
  return card(deps, BigInt(agentId))
}

/** An agent's owner, agentURI, wallet and checked registration file. Unknown id: {@link NotFoundError}. */
export async function card(deps: Deps, agentId: bigint): Promise<AgentCard> {
  const registry = AgentRegistry.registryOn(deps.chain)
  const owner = await AgentRegistry.read(deps.chain, registry, 'ownerOf', [agentId])
  if (owner === undefined)
    throw new NotFoundError(`No agent ${agentId} in the Identity Registry at ${registry.address}.`, {
      details: { agentId: agentId.toString(), registry: registry.address },
    })
  const tokenURI = (await AgentRegistry.read(deps.chain, registry, 'tokenURI', [agentId])) ?? ''
  const wallet = await AgentRegistry.read(deps.chain, registry, 'getAgentWallet', [agentId]).catch(() => undefined)
  const agentRegistry = `eip155:${registry.chainId}:${registry.address}`
  return {
    registry,
    agentId: agentId.toString(),
    agentRegistry,
    owner: owner as Address,
    agentWallet: wallet === undefined || BigInt(wallet as Address) === 0n ? null : (wallet as Address),
    tokenURI: tokenURI as string,
    registration: await registrationOf(deps, tokenURI as string, { agentId, agentRegistry }),
  }
}

/** The agent whose file is checked: a file's `registrations` should name it. */
type Self = {
  /** Its id. */
  agentId: bigint
  /** Its registry as `eip155:<chainId>:<address>`. */
  agentRegistry: string
}

/** Reads the registration file `uri` points at (https, http, ipfs through the gateway, data decoded here) and checks it. */
export async function registrationOf(deps: Deps, uri: string, self: Self): Promise<Registration> {
  const none = { fetchedFrom: null, reason: null, message: null, file: null, problems: [] }
  if (uri === '') return { ...none, status: 'absent', message: 'The agent has no agentURI.' }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase()
  if (scheme === 'data') {
    const text = decodeDataUri(uri)
    if (text === undefined)
      return { ...none, status: 'invalid', problems: [{ field: '', message: 'is not a well-formed data: URI' }] }
    return checked(text, null, self)
  }
  let url: string
  if (scheme === 'ipfs') {
    const path = uri.slice('ipfs://'.length).replace(/^ipfs\//, '')
    if (!/^[A-Za-z0-9]+(\/[^?#]*)?$/.test(path))
      return { ...none, status: 'invalid', problems: [{ field: '', message: 'is not an ipfs://<cid>[/path] URI' }] }
    url = `${deps.ipfsGateway.replace(/\/+$/, '')}/ipfs/${path}`
  } else if (scheme === 'https' || scheme === 'http') url = uri
  else
    return {
      ...none,
      status: 'unsupported',
      reason: 'scheme_not_supported',
      message: `agentURIs with the scheme ${scheme ?? '(none)'} are not read: https, http, ipfs and data are.`,
    }

  const fetched = await deps.outbound.fetch(url, {
    timeoutMs: fetchTimeoutMs,
    maxBytes: maxFileBytes,
    headers: { accept: 'application/json' },
  })
  if (!fetched.ok) {
    const refused = guardReasons.has(fetched.reason)
    return {
      ...none,
      status: refused ? 'refused' : 'unreachable',
      fetchedFrom: refused ? null : url,
      reason: fetched.reason,
      message: fetched.message,
    }
  }
  if (fetched.status !== 200)
    return {
      ...none,
      status: 'unreachable',
      fetchedFrom: url,
      reason: `http_${fetched.status}`,
      message: `The server answered HTTP ${fetched.status}.`,
    }
  return checked(new TextDecoder().decode(fetched.body), url, self)
}

/** Refusals decided before anything is sent: the guard's own. */
const guardReasons = new Set<Outbound.Reason>([
  'invalid_url',
  'scheme_not_allowed',
  'credentials_not_allowed',
  'port_not_allowed',
  'private_address',
  'unresolvable',
])

function checked(text: string, fetchedFrom: string | null, self: Self): Registration {
  const base = { fetchedFrom, reason: null, message: null }
  let file: unknown
  try {
    file = JSON.parse(text)
  } catch {
    return { ...base, status: 'invalid', file: null, problems: [{ field: '', message: 'is not JSON' }] }
  }
  const problems = validate(file, self)
  return { ...base, status: problems.length === 0 ? 'valid' : 'invalid', file, problems }
}

/** The text of a `data:` URI (base64 or percent-encoded); undefined when it is not one. */
export function decodeDataUri(uri: string): string | undefined {
  const comma = uri.indexOf(',')
  if (comma < 0) return undefined
  const meta = uri.slice('data:'.length, comma)
  const payload = uri.slice(comma + 1)
  try {
    if (/;base64$/i.test(meta)) {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) return undefined
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'))
    }
    return decodeURIComponent(payload)
  } catch {
    return undefined
  }
}

/**
 * Every way `file` differs from the ERC-8004 registration shape: `type` the registration-v1 URL, `name` and
 * `description` strings, `image` a string; `services` (or the earlier drafts' `endpoints`) entries with a `name` and an
 * `endpoint`; `x402Support` and `active` booleans; `registrations` entries `{ agentId, agentRegistry }`, one of them
 * this agent; `supportedTrust` strings.
 */
export function validate(file: unknown, self: Self): Problem[] {
  if (!isRecord(file)) return [{ field: '', message: 'must be a JSON object' }]
  const problems: Problem[] = []
  const problem = (field: string, message: string) => problems.push({ field, message })
  if (file.type !== AgentRegistry.registrationType)
    problem('type', `must be "${AgentRegistry.registrationType}"${file.type === undefined ? ', and is missing' : ''}`)
  for (const field of ['name', 'description'] as const)
    if (typeof file[field] !== 'string' || file[field] === '')
      problem(field, file[field] === undefined ? 'is missing' : 'must be a non-empty string')
  if (file.image !== undefined && typeof file.image !== 'string') problem('image', 'must be a URI string')
  for (const field of ['services', 'endpoints'] as const) {
    const list = file[field]
    if (list === undefined) continue
    if (!Array.isArray(list)) {
      problem(field, 'must be an array')
      continue
    }
    for (const [index, entry] of list.entries()) {
      if (!isRecord(entry)) {
        problem(`${field}.${index}`, 'must be an object with a name and an endpoint')
        continue
      }
      for (const key of ['name', 'endpoint'] as const)
        if (typeof entry[key] !== 'string' || entry[key] === '')
          problem(`${field}.${index}.${key}`, entry[key] === undefined ? 'is missing' : 'must be a non-empty string')
      if (entry.version !== undefined && typeof entry.version !== 'string')
        problem(`${field}.${index}.version`, 'must be a string')
    }
  }
  if (file.services === undefined && file.endpoints === undefined) problem('services', 'is missing')
  for (const field of ['x402Support', 'active'] as const)
    if (file[field] !== undefined && typeof file[field] !== 'boolean') problem(field, 'must be true or false')
  if (file.supportedTrust !== undefined) {
    if (!Array.isArray(file.supportedTrust)) problem('supportedTrust', 'must be an array of strings')
    else
      for (const [index, entry] of file.supportedTrust.entries())
        if (typeof entry !== 'string') problem(`supportedTrust.${index}`, 'must be a string')
  }
  if (file.registrations !== undefined) {
    if (!Array.isArray(file.registrations)) problem('registrations', 'must be an array')
    else {
      let names = false
      for (const [index, entry] of file.registrations.entries()) {
        if (!isRecord(entry)) {
          problem(`registrations.${index}`, 'must be an object with an agentId and an agentRegistry')
          continue
        }
        const id = entry.agentId
        const idOk =
          (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) ||
          (typeof id === 'string' && /^[0-9]{1,78}$/.test(id))
        if (!idOk) problem(`registrations.${index}.agentId`, 'must be a non-negative integer')
        const registry = entry.agentRegistry
        const registryOk = typeof registry === 'string' && /^eip155:[0-9]+:0x[0-9a-fA-F]{40}$/.test(registry)
        if (!registryOk) problem(`registrations.${index}.agentRegistry`, 'must be eip155:<chainId>:<registry address>')
        if (
          idOk &&
          registryOk &&
          BigInt(id as number | string) === self.agentId &&
          (registry as string).toLowerCase() === self.agentRegistry.toLowerCase()
        )
          names = true
      }
      if (!names)
        problem(
          'registrations',
          `names no registration of this agent (agentId ${self.agentId} in ${self.agentRegistry})`,
        )
    }
  }
  return problems
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
