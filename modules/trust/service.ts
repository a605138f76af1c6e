import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  formatUnits,
  getAddress,
  type Hex,
  isAddressEqual,
} from 'viem'
import * as AgentRegistry from '../../core/AgentRegistry.js'
import { ValidationError } from '../../core/Errors.js'
import type { History } from '../../core/History.js'
import * as Kyc from '../../core/Kyc.js'
import type * as Module from '../../core/Module.js'
import * as Rpc from '../../core/Rpc.js'
import * as Safety from '../../core/Safety.js'
import * as Trust from '../../core/Trust.js'
import type { ScoreQuery } from './schema.js'

/** What the trust score reads from. */
export type Deps = {
  /** The settlement chain's node: Base in production, the devnet on embedded defaults. */
  endpoint: Rpc.Endpoint
  /** The settlement chain's history per address; without it the activity axis is not checked. */
  history: History | undefined
  /** This gateway's ledger of settled payments. */
  payments: Module.Ports['payments']
  /** The current time. */
  now: () => Date
}

/** Transactions read for the activity axis: enough to fill its count half several times over. */
export const historyLimit = 200

/** Most agents whose reputation is read for one address. */
export const maxAgents = 10

/** Scores `address` on every axis of {@link Trust}; an axis whose source cannot be read is not checked, never guessed. */
export async function score(deps: Deps, query: ScoreQuery) {
  const address = getAddress(query.address)
  const now = deps.now()
  const [activity, sanctions, attestations, reputation, ledger] = await Promise.all([
    activityOf(deps, address, now),
    sanctionsOf(deps, address),
    attestationsOf(deps, address, now),
    reputationOf(deps, address, query.agentId === undefined ? undefined : BigInt(query.agentId)),
    ledgerOf(deps, address),
  ])
  const axes = [activity, sanctions, attestations, reputation, ledger]
  const sanctioned = sanctions.status === 'not_checked' ? null : sanctions.inputs.isSanctioned === true
  return {
    address,
    chain: 'base',
    chainId: deps.endpoint.chainId,
    ...Trust.combine({ axes, sanctioned }),
    formula:
      'Weighted mean of the checked axes (weights: activity 25, attestations 25, reputation 20, ledger 30; sanctions is a gate: listed scores 0). activity = 50·min(ageDays,365)/365 + 50·min(transactions,100)/100; attestations = 70 (verified account) + 30 (verified country); reputation = clamp(average,0,100)·n/(n+5) over n standing ERC-8004 feedback entries; ledger = 100·min(settledPayments,50)/50. Verdict: blocked (sanctioned), unscreened (sanctions not read), high ≥ 70, medium ≥ 40, low.',
    weights: Trust.weights,
    axes,
    scoredAt: now.toISOString(),
  }
}

/** Age and activity from the settlement chain's history: the oldest transaction read, and the count the source keeps. */
async function activityOf(deps: Deps, address: Address, now: Date): Promise<Trust.Axis> {
  const base = { id: 'activity' as const, weight: Trust.weights.activity }
  if (!deps.history)
    return notChecked(base, 'none', 'No transaction history is configured (BLOCKSCOUT_URL_BASE on Base).')
  const source = `${deps.history.source} transaction history of the settlement chain`
  const [page, account] = await Promise.all([
    deps.history.transactions(address, historyLimit),
    deps.history.account(address),
  ])
  if (!page.ok) return notChecked(base, source, `The history did not answer: ${page.message}`)
  const { transactions, complete } = page
  const oldest = transactions.at(-1)
  const counted = account.ok ? account.account.transactionCount : null
  const count = counted ?? transactions.length
  const ageDays = oldest ? Math.max(0, Math.round((now.getTime() - oldest.timestamp * 1000) / 864_000) / 100) : 0
  const inputs = {
    firstSeen: oldest ? new Date(oldest.timestamp * 1000).toISOString() : null,
    firstSeenIsOldest: complete,
    ageDays,
    transactions: count,
    transactionsCountedBy: counted === null ? `the ${transactions.length} transactions read` : deps.history.source,
  }
  const summary = oldest
    ? `${complete ? 'First seen' : 'Seen at least since'} ${inputs.firstSeen?.slice(0, 10)}, ${count} transactions.`
    : 'No transaction on the settlement chain.'
  return {
    ...base,
    status: 'scored',
    score: Trust.activityScore({ ageDays, transactions: count }),
    inputs,
    source,
    summary,
  }
}

/** The sanctions gate: the chain's sanctions oracle, as `/api/v1/address/safety` reads it. */
async function sanctionsOf(deps: Deps, address: Address): Promise<Trust.Axis> {
  const check = await Safety.sanctions(deps.endpoint, address)
  const base = { id: 'sanctions' as const, weight: Trust.weights.sanctions }
  if (check.status === 'not_checked') return notChecked(base, check.source, check.summary)
  return {
    ...base,
    status: 'scored',
    score: check.status === 'flagged' ? 0 : 100,
    inputs: check.evidence,
    source: check.source,
    summary: check.summary,
  }
}

/** Coinbase Verifications of the address, held to the same rules as `/api/v1/kyc/verify`. */
async function attestationsOf(deps: Deps, address: Address, now: Date): Promise<Trust.Axis> {
  const base = { id: 'attestations' as const, weight: Trust.weights.attestations }
  const deployment = Kyc.of(deps.endpoint.chainId)
  const source = `Coinbase Verifications: EAS ${deployment.eas} through the indexer ${deployment.indexer}, attester ${deployment.attester} (chain ${deps.endpoint.chainId})`
  try {
    const [account, country] = await Promise.all(
      Kyc.checks.map((check) => Kyc.check(deps.endpoint, address, check, now)),
    )
    const verifiedAccount = account!.verified
    const verifiedCountry = country!.verified
    return {
      ...base,
      status: 'scored',
      score: Trust.attestationScore({ verifiedAccount, verifiedCountry }),
      inputs: {
        verifiedAccount: { verified: verifiedAccount, uid: account!.attestation?.uid ?? null, reason: account!.reason },
        verifiedCountry: {
          verified: verifiedCountry,
          country: verifiedCountry ? country!.value : null,
          uid: country!.attestation?.uid ?? null,
          reason: country!.reason,
        },
      },
      source,
      summary:
        verifiedAccount || verifiedCountry
          ? `Verified ${[verifiedAccount && 'account', verifiedCountry && `country (${country!.value})`].filter(Boolean).join(' and ')}.`
          : 'No standing Coinbase Verifications attestation.',
    }
  } catch (error) {
    return notChecked(
      base,
      source,
      `The attestations could not be read: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** ERC-8004 feedback to the agents the address owns (or to the one named), from the Reputation Registry. */
async function reputationOf(deps: Deps, address: Address, agentId: bigint | undefined): Promise<Trust.Axis> {
  const base = { id: 'reputation' as const, weight: Trust.weights.reputation }
  const identity = AgentRegistry.registryOn(deps.endpoint)
  const reputation = AgentRegistry.reputationOf(deps.endpoint.chainId)
  const source = `ERC-8004 Identity Registry ${identity.address} and Reputation Registry ${reputation} (chain ${deps.endpoint.chainId})`
  try {
    const ids = agentId === undefined ? await ownedIds(deps, address) : await namedId(deps, identity, address, agentId)
    if (ids === undefined)
      return notChecked(base, source, `The agents of ${address} could not be listed from the registry's events.`)
    const agents = []
    for (const id of ids.slice(0, maxAgents)) agents.push(await summaryOf(deps, reputation, id))
    const count = agents.reduce((sum, agent) => sum + agent.count, 0)
    const weighted = agents.reduce((sum, agent) => sum + Number(agent.average) * agent.count, 0)
    const average = count === 0 ? 0 : weighted / count
    return {
      ...base,
      status: 'scored',
      score: Trust.reputationScore({ count, average }),
      inputs: { agents, feedback: count, average: count === 0 ? null : average.toString() },
      source,
      summary:
        ids.length === 0
          ? `${address} owns no ERC-8004 agent.`
          : count === 0
            ? `No standing feedback to ${ids.length === 1 ? 'its agent' : `its ${ids.length} agents`}.`
            : `${count} standing feedback entries, average ${Math.round(average * 100) / 100}. Every client that rated is counted: ERC-8004 leaves Sybil filtering to the reader.`,
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error
    return notChecked(
      base,
      source,
      `The registries could not be read: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

/** The agents `address` owns; undefined when the node would not list them. */
async function ownedIds(deps: Deps, address: Address): Promise<bigint[] | undefined> {
  const owned = await AgentRegistry.owned(deps.endpoint, address)
  return owned.agents?.map((agent) => BigInt(agent.agentId))
}

/** The named agent, refused (400) unless `address` owns it: a score is about the address, not any agent. */
async function namedId(
  deps: Deps,
  identity: AgentRegistry.Registry,
  address: Address,
  agentId: bigint,
): Promise<bigint[]> {
  const owner = (await AgentRegistry.read(deps.endpoint, identity, 'ownerOf', [agentId])) as Address | undefined
  if (owner === undefined || !isAddressEqual(owner, address))
    throw new ValidationError({
      field: 'agentId',
      message:
        owner === undefined ? `no agent ${agentId} in the registry` : `agent ${agentId} is not owned by ${address}`,
    })
  return [agentId]
}

/** One agent's clients and the count and average of their standing feedback. */
async function summaryOf(deps: Deps, registry: Address, agentId: bigint) {
  const clients = (await view(deps, registry, 'getClients', [agentId])) as readonly Address[]
  if (clients.length === 0) return { agentId: agentId.toString(), clients: 0, count: 0, average: null }
  const [count, value, decimals] = (await view(deps, registry, 'getSummary', [agentId, clients, '', ''])) as [
    bigint,
    bigint,
    number,
  ]
  return {
    agentId: agentId.toString(),
    clients: clients.length,
    count: Number(count),
    average: count === 0n ? null : formatUnits(value, decimals),
  }
}

/** The payments the address settled through this gateway, from its ledger. */
async function ledgerOf(deps: Deps, address: Address): Promise<Trust.Axis> {
  const settled = await deps.payments.settled(address)
  return {
    id: 'ledger',
    weight: Trust.weights.ledger,
    status: 'scored',
    score: Trust.ledgerScore({ count: settled.count }),
    inputs: {
      settledPayments: settled.count,
      amount: settled.amount.toString(),
      firstSettled: settled.first?.toISOString() ?? null,
      lastSettled: settled.last?.toISOString() ?? null,
    },
    source: "this gateway's payment ledger",
    summary:
      settled.count === 0
        ? 'No payment settled through this gateway.'
        : `${settled.count} payments settled through this gateway, ${formatUnits(settled.amount, 6)} USDC in all.`,
  }
}

/** One view of the Reputation Registry; a node that cannot answer throws. */
async function view(deps: Deps, to: Address, functionName: 'getClients' | 'getSummary', args: readonly unknown[]) {
  const data = encodeFunctionData({ abi: AgentRegistry.reputationAbi, functionName, args } as never)
  const result = (await Rpc.result(deps.endpoint, 'eth_call', [{ to, data }, 'latest'])) as Hex
  return decodeFunctionResult({ abi: AgentRegistry.reputationAbi, functionName, data: result } as never)
}

function notChecked(base: Pick<Trust.Axis, 'id' | 'weight'>, source: string, summary: string): Trust.Axis {
  return { ...base, status: 'not_checked', score: null, inputs: {}, source, summary }
}
