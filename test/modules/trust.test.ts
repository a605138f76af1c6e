import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  type LocalAccount,
  type PublicClient,
  parseAbi,
  parseUnits,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { agentReputationRegistry, registerAgent } from '../../adapters/chain/agents.js'
import { account as devnetAccount } from '../../adapters/chain/devnet.js'
import { attest, kycDeployerIndex } from '../../adapters/chain/kyc.js'
import { safetyDeployerIndex } from '../../adapters/chain/safety.js'
import * as AgentRegistry from '../../core/AgentRegistry.js'
import * as Trust from '../../core/Trust.js'
import { origin, paidGateway } from '../support/paid.js'

// The trust score on the embedded devnet: a real agent in our Identity Registry, real feedback in our Reputation
// Registry, a real Coinbase-Verifications look-alike attestation, the sanctions oracle look-alike, and payments
// settled through the gateway's own ledger.

let gateway: Awaited<ReturnType<typeof paidGateway>>
let agentId: bigint
const subject = 5
const asker = 9

function walletOf(signer: LocalAccount) {
  return createWalletClient({ account: signer, chain: gateway.devnet.chain, transport: gateway.devnet.transport })
}

/** Sends one call to a contract from `signer` and waits for it; the receipt's status. */
async function send(signer: LocalAccount, to: Address, data: Hex) {
  const hash = await walletOf(signer).sendTransaction({ to, data })
  return (await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })).status
}

/** Feedback from `client` to the agent: `value` with `decimals`. */
function feedback(value: bigint, decimals: number, agent = agentId) {
  return encodeFunctionData({
    abi: agentReputationRegistry.abi,
    functionName: 'giveFeedback',
    args: [agent, value, decimals, 'starred', '', 'https://agent.example/api', '', `0x${'00'.repeat(32)}`],
  })
}

/** A paid score of `address` asked by account `payer`: status, body and what it cost the payer. */
async function scoreOf(address: string, payer = asker, extra = '') {
  const account = gateway.account(payer)
  const before = await gateway.balance(account.address)
  const response = await gateway.paid(account, 'GET', `/api/v1/trust/score?address=${address}${extra}`)
  const body = (await response.json()) as any
  return { status: response.status, body, cost: before - (await gateway.balance(account.address)) }
}

beforeAll(async () => {
  gateway = await paidGateway()
  const { devnet } = gateway
  agentId = await registerAgent({
    client: devnet.publicClient as PublicClient,
    wallet: walletOf(gateway.account(subject)),
    registry: devnet.agentRegistry,
    agentURI: 'https://agent.example/registration.json',
  })
  const reputation = devnet.agentReputation
  expect(await send(gateway.account(6), reputation, feedback(90n, 0))).toBe('success')
  expect(await send(gateway.account(7), reputation, feedback(7000n, 2))).toBe('success')
  expect(await send(gateway.account(8), reputation, feedback(5n, 0))).toBe('success')
  const revoke = encodeFunctionData({
    abi: agentReputationRegistry.abi,
    functionName: 'revokeFeedback',
    args: [agentId, 1n],
  })
  expect(await send(gateway.account(8), reputation, revoke)).toBe('success')
  await attest({
    chainId: devnet.chainId,
    request: devnet.request,
    account: privateKeyToAccount(devnetAccount({ index: kycDeployerIndex }).privateKey),
    recipient: gateway.account(subject).address,
    check: 'verifiedAccount',
    value: true,
  })
})
afterAll(async () => {
  await gateway.close()
})

describe('devnet Reputation Registry', () => {
  test('default: core/AgentRegistry.ts names what the devnet deployed, rating the devnet Identity Registry', async () => {
    expect(AgentRegistry.devnetReputation).toBe(gateway.devnet.agentReputation)
    const identity = await gateway.devnet.publicClient.readContract({
      address: gateway.devnet.agentReputation,
      abi: agentReputationRegistry.abi,
      functionName: 'getIdentityRegistry',
    })
    expect(identity).toBe(gateway.devnet.agentRegistry)
  })

  test('error: the owner of an agent cannot rate it, nor can anyone rate an agent that does not exist', async () => {
    const refused = async (signer: number, value: bigint, decimals: number, agent = agentId) =>
      gateway.devnet.publicClient
        .simulateContract({
          account: gateway.account(signer),
          address: gateway.devnet.agentReputation,
          abi: agentReputationRegistry.abi,
          functionName: 'giveFeedback',
          args: [agent, value, decimals, 'starred', '', '', '', `0x${'00'.repeat(32)}`],
        })
        .then(() => 'accepted')
        .catch((error: Error) => error.message)
    expect(await refused(subject, 100n, 0)).toContain('SelfFeedback')
    expect(await refused(6, 100n, 0, 10n ** 9n)).toContain('NonexistentAgent')
    expect(await refused(6, 100n, 19)).toContain('TooManyDecimals')
    expect(await refused(6, 100n, 0)).toBe('accepted')
  })

  test('behavior: the summary averages standing feedback in 18 decimals; revoked feedback does not count', async () => {
    const registry = gateway.devnet.agentReputation
    const clients = (await gateway.devnet.publicClient.readContract({
      address: registry,
      abi: AgentRegistry.reputationAbi,
      functionName: 'getClients',
      args: [agentId],
    })) as Address[]
    expect(clients).toEqual([6, 7, 8].map((index) => gateway.account(index).address))
    const [count, value, decimals] = (await gateway.devnet.publicClient.readContract({
      address: registry,
      abi: AgentRegistry.reputationAbi,
      functionName: 'getSummary',
      args: [agentId, clients, '', ''],
    })) as [bigint, bigint, number]
    expect([count, value, decimals]).toEqual([2n, parseUnits('80', 18), 18])
  })
})

describe('GET /api/v1/trust/score', () => {
  test('behavior: every axis from its source, with its inputs; the score is the documented formula of them', async () => {
    const address = gateway.account(subject).address
    // Two payments settled by the subject through this gateway: the ledger axis counts them.
    for (let call = 0; call < 2; call++) expect((await scoreOf(gateway.account(3).address, subject)).status).toBe(200)

    const { status, body, cost } = await scoreOf(address)
    expect(status).toBe(200)
    expect(cost).toBe(30_000n)
    expect(body.address).toBe(address)
    const axes = Object.fromEntries(body.axes.map((axis: Trust.Axis) => [axis.id, axis]))
    expect(Object.keys(axes)).toEqual([...Trust.axes])

    expect(axes.sanctions).toMatchObject({ status: 'scored', score: 100, inputs: { isSanctioned: false } })
    expect(axes.attestations).toMatchObject({
      status: 'scored',
      score: 70,
      inputs: { verifiedAccount: { verified: true }, verifiedCountry: { verified: false } },
    })
    expect(axes.reputation.inputs).toEqual({
      agents: [{ agentId: agentId.toString(), clients: 3, count: 2, average: '80' }],
      feedback: 2,
      average: '80',
    })
    expect(axes.reputation.score).toBe(Trust.reputationScore({ count: 2, average: 80 }))
    expect(axes.ledger.inputs).toMatchObject({ settledPayments: 2, amount: '60000' })
    expect(axes.ledger.score).toBe(4)
    expect(axes.activity.status).toBe('scored')
    expect(axes.activity.inputs.transactions).toBeGreaterThanOrEqual(1)
    expect(axes.activity.score).toBe(
      Trust.activityScore({ ageDays: axes.activity.inputs.ageDays, transactions: axes.activity.inputs.transactions }),
    )
    const mean =
      (25 * axes.activity.score + 25 * 70 + 20 * axes.reputation.score + 30 * axes.ledger.score) / (25 + 25 + 20 + 30)
    expect(body.score).toBe(Math.round(mean * 10) / 10)
    expect(body.coverage).toBe(1)
    expect(body.verdict).toBe(body.score >= 70 ? 'high' : body.score >= 40 ? 'medium' : 'low')
    expect(body.formula).toContain('Weighted mean')
  })

  test('behavior: a named agent of the address is the only one read; an agent it does not own is a 400, not charged', async () => {
    const address = gateway.account(subject).address
    const named = await scoreOf(address, asker, `&agentId=${agentId}`)
    expect(named.status).toBe(200)
    expect(named.body.axes.find((axis: Trust.Axis) => axis.id === 'reputation').inputs.feedback).toBe(2)

    const other = await scoreOf(gateway.account(4).address, asker, `&agentId=${agentId}`)
    expect(other.status).toBe(400)
    expect(other.body.code).toBe('validation_failed')
    expect(other.cost).toBe(0n)
  })

  test('behavior: an address on the sanctions list is blocked with a score of 0, whatever its other axes', async () => {
    const listed = privateKeyToAccount(generatePrivateKey()).address
    const add = encodeFunctionData({
      abi: parseAbi(['function addToSanctionsList(address[] addrs)']),
      functionName: 'addToSanctionsList',
      args: [[listed]],
    })
    const owner = privateKeyToAccount(devnetAccount({ index: safetyDeployerIndex }).privateKey)
    expect(await send(owner, gateway.devnet.safety.sanctionsOracle, add)).toBe('success')
    const { status, body } = await scoreOf(listed)
    expect(status).toBe(200)
    expect(body).toMatchObject({ score: 0, verdict: 'blocked' })
  })

  test('error: a malformed address or agent id is a 400 before any payment is asked for', async () => {
    for (const query of ['address=0x1234', 'address=0xZZ', `address=${gateway.account(1).address}&agentId=-1`, '']) {
      const response = await gateway.fetch(`${origin}/api/v1/trust/score?${query}`)
      expect(response.status).toBe(400)
      expect(response.headers.get('content-type')).toContain('application/problem+json')
    }
  })
})

describe('GET /api/v1/trust/score chain', () => {
  test("behavior: the original gateway's chain=base-mainnet is base; another chain is a 400 before any 402", async () => {
    const address = gateway.account(1).address
    expect((await gateway.fetch(`${origin}/api/v1/trust/score?address=${address}&chain=base-mainnet`)).status).toBe(402)
    const other = await gateway.fetch(`${origin}/api/v1/trust/score?address=${address}&chain=eth`)
    expect(other.status).toBe(400)
    expect(((await other.json()) as any).field).toBe('chain')
  })
})

describe('Trust.combine', () => {
  const axis = (id: Trust.AxisId, score: number | null): Trust.Axis => ({
    id,
    status: score === null ? 'not_checked' : 'scored',
    score,
    weight: Trust.weights[id],
    inputs: {},
    source: 'test',
    summary: 'test',
  })

  test('behavior: an axis not checked is left out of the mean and lowers the coverage, never counted as 0', () => {
    const axes = [axis('activity', 100), axis('attestations', null), axis('reputation', 50), axis('ledger', null)]
    expect(Trust.combine({ axes, sanctioned: false })).toEqual({ score: 77.8, coverage: 0.45, verdict: 'high' })
  })

  test('behavior: unread sanctions make the verdict unscreened; a listed address is blocked at 0', () => {
    const axes = [axis('activity', 100), axis('sanctions', null)]
    expect(Trust.combine({ axes, sanctioned: null }).verdict).toBe('unscreened')
    expect(Trust.combine({ axes, sanctioned: true })).toMatchObject({ score: 0, verdict: 'blocked' })
  })

  test('behavior: the axis formulas saturate at their documented points and clamp out-of-scale feedback', () => {
    expect(Trust.activityScore({ ageDays: 730, transactions: 5_000 })).toBe(100)
    expect(Trust.activityScore({ ageDays: 182.5, transactions: 0 })).toBe(25)
    expect(Trust.reputationScore({ count: 5, average: 250 })).toBe(50)
    expect(Trust.reputationScore({ count: 0, average: 100 })).toBe(0)
    expect(Trust.ledgerScore({ count: 500 })).toBe(100)
    expect(Trust.attestationScore({ verifiedAccount: true, verifiedCountry: true })).toBe(100)
  })
})
