import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodePacked, type Hex, keccak256, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { easDirectory, easSources } from '../../adapters/chain/contracts/eas.js'
import type { PublishedArtifact } from '../../adapters/chain/contracts/published.js'
import { account as devnetAccount } from '../../adapters/chain/devnet.js'
import { attest, kycDeployerIndex, revoke } from '../../adapters/chain/kyc.js'
import * as Kyc from '../../core/Kyc.js'
import { origin, paidGateway } from '../support/paid.js'

// KYC on the embedded devnet: the published EAS contracts, our indexer, real attestations by the devnet's Coinbase
// attester (the KYC deployer) and by an attester the gateway does not trust.

let gateway: Awaited<ReturnType<typeof paidGateway>>
const attester = privateKeyToAccount(devnetAccount({ index: kycDeployerIndex }).privateKey)
let verified: { account: Hex; country: Hex }
let revoked: Hex

beforeAll(async () => {
  gateway = await paidGateway()
  const chain = { chainId: gateway.devnet.chainId, request: gateway.devnet.request }
  const subject = gateway.account(5).address
  verified = {
    account: await attest({ ...chain, account: attester, recipient: subject, check: 'verifiedAccount', value: true }),
    country: await attest({ ...chain, account: attester, recipient: subject, check: 'verifiedCountry', value: 'FR' }),
  }
  revoked = await attest({
    ...chain,
    account: attester,
    recipient: gateway.account(6).address,
    check: 'verifiedAccount',
    value: true,
  })
  await revoke({ ...chain, account: attester, check: 'verifiedAccount', uid: revoked })
  // The schema has no resolver, so anyone can attest in it; the gateway counts only the trusted attester's.
  await attest({
    ...chain,
    account: gateway.account(4),
    recipient: gateway.account(7).address,
    check: 'verifiedAccount',
    value: true,
  })
})
afterAll(async () => {
  await gateway.close()
})

/** A paid call by account `payer`: status, body and what it cost the payer. */
async function paid(payer: number, method: string, path: string, body?: unknown) {
  const account = gateway.account(payer)
  const before = await gateway.balance(account.address)
  const response = await gateway.paid(account, method, path, body)
  const json = (await response.json()) as any
  return { status: response.status, body: json, cost: before - (await gateway.balance(account.address)) }
}

describe('devnet deployment', () => {
  test('default: EAS and SchemaRegistry are the published 1.9.0 artifacts, as `npm run eas` wrote them', () => {
    for (const [contractName, path] of Object.entries(easSources[0].contracts)) {
      const artifact = JSON.parse(readFileSync(join(easDirectory, `${contractName}.json`), 'utf8')) as PublishedArtifact
      expect(artifact.source).toEqual({
        package: '@ethereum-attestation-service/eas-contracts',
        version: '1.9.0',
        // `npm view @ethereum-attestation-service/eas-contracts@1.9.0 dist.integrity`
        integrity: 'sha512-L60y1fgKlY3a45xxnPlgRbiGQY8RF/lF+AzF1iVoR7/aEzitS0Nuyyjq8+IXs1sSSU0dl2+yGSmELxVeB6FelA==',
        path,
      })
    }
  })

  test('default: core/Kyc.ts devnet is what the devnet deployed, the schema UIDs those it registered', () => {
    expect(Kyc.devnet.eas).toBe(gateway.devnet.kyc.eas)
    expect(Kyc.devnet.indexer).toBe(gateway.devnet.kyc.indexer)
    expect(Kyc.devnet.attester).toBe(attester.address)
    for (const check of Kyc.checks)
      expect(Kyc.devnet.schemas[check]).toBe(
        keccak256(encodePacked(['string', 'address', 'bool'], [Kyc.schemaDefinitions[check], zeroAddress, true])),
      )
  })
})

describe('POST /api/v1/kyc/verify', () => {
  test('default: both attestations found and verified; 0.02 USDC charged; the record is the payer’s', async () => {
    const address = gateway.account(5).address
    const { status, body, cost } = await paid(2, 'POST', '/api/v1/kyc/verify', { address })
    expect(status).toBe(200)
    expect(cost).toBe(20_000n)
    expect(body.id).toMatch(/^kyc_[0-9a-f]{32}$/)
    expect(body.status).toBe('verified')
    expect(body.result.address).toBe(address)
    expect(body.result.checks.verifiedAccount).toMatchObject({
      verified: true,
      value: true,
      reason: null,
      schema: Kyc.devnet.schemas.verifiedAccount,
      attester: attester.address,
      attestation: {
        uid: verified.account,
        schema: Kyc.devnet.schemas.verifiedAccount,
        attester: attester.address,
        recipient: address,
        revocationTime: null,
        expirationTime: null,
      },
      source: { chainId: gateway.devnet.chainId, eas: Kyc.devnet.eas, indexer: Kyc.devnet.indexer },
    })
    expect(body.result.checks.verifiedCountry).toMatchObject({
      verified: true,
      value: 'FR',
      attestation: { uid: verified.country },
    })

    const own = await paid(2, 'GET', `/api/v1/kyc/status?id=${body.id}`)
    expect(own.status).toBe(200)
    expect(own.cost).toBe(10_000n)
    expect(own.body).toMatchObject({ id: body.id, address, status: 'verified', checks: body.result.checks })
    const byAddress = await paid(2, 'GET', `/api/v1/kyc/status?address=${address}`)
    expect(byAddress.body.id).toBe(body.id)

    const other = await paid(3, 'GET', `/api/v1/kyc/status?id=${body.id}`)
    expect(other.status).toBe(404)
    expect(other.cost).toBe(0n)
    expect((await paid(3, 'GET', `/api/v1/kyc/status?address=${address}`)).status).toBe(404)
  })

  test("behavior: the original gateway's call (type individual, level, chain base-mainnet, metadata) answers its fields", async () => {
    const address = gateway.account(5).address
    const { status, body } = await paid(2, 'POST', '/api/v1/kyc/verify', {
      address,
      type: 'business',
      level: 'enhanced',
      chain: 'base-mainnet',
      metadata: { ref: 'onboarding-7' },
    })
    expect(status).toBe(200)
    // Read before toMatchObject, which leaves its matchers in the object it matched.
    const { id } = body
    expect(body).toMatchObject({
      id: expect.stringMatching(/^kyc_/),
      type: 'business',
      address,
      chain: 'base',
      status: 'verified',
      level: 'coinbase-verifications',
      requestedLevel: 'enhanced',
      checks: { verifiedAccount: { verified: true }, verifiedCountry: { verified: true, value: 'FR' } },
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      expiresAt: null,
    })
    const own = await paid(2, 'GET', `/api/v1/kyc/status?id=${id}`)
    expect(own.body).toMatchObject({
      type: 'business',
      level: 'coinbase-verifications',
      metadata: { ref: 'onboarding-7' },
    })
    const individual = await paid(2, 'POST', '/api/v1/kyc/verify', { address, type: 'individual' })
    expect(individual.body).toMatchObject({ type: 'individual', status: 'verified' })
  })

  test('behavior: type country runs that check only', async () => {
    const { body } = await paid(2, 'POST', '/api/v1/kyc/verify', {
      address: gateway.account(5).address,
      type: 'country',
    })
    expect(Object.keys(body.result.checks)).toEqual(['verifiedCountry'])
    expect(body.status).toBe('verified')
  })

  test('behavior: a revoked attestation is not counted', async () => {
    const { status, body } = await paid(2, 'POST', '/api/v1/kyc/verify', {
      address: gateway.account(6).address,
      type: 'account',
    })
    expect(status).toBe(200)
    expect(body.status).toBe('not_verified')
    expect(body.result.checks.verifiedAccount.verified).toBe(false)
    expect(body.result.checks.verifiedAccount.attestation.uid).toBe(revoked)
    expect(body.result.checks.verifiedAccount.reason).toContain('revoked')
  })

  test('behavior: an attestation by another attester is not counted', async () => {
    const { body } = await paid(2, 'POST', '/api/v1/kyc/verify', {
      address: gateway.account(7).address,
      type: 'account',
    })
    expect(body.status).toBe('not_verified')
    expect(body.result.checks.verifiedAccount.attestation.attester).toBe(gateway.account(4).address)
    expect(body.result.checks.verifiedAccount.reason).toContain('not the trusted attester')
  })

  test('behavior: an address without attestations is not verified, with nothing to show', async () => {
    const { body } = await paid(2, 'POST', '/api/v1/kyc/verify', { address: gateway.account(8).address })
    expect(body.status).toBe('not_verified')
    expect(body.result.checks.verifiedAccount).toMatchObject({ verified: false, attestation: null })
    expect(body.result.checks.verifiedCountry).toMatchObject({ verified: false, attestation: null })
  })
})

describe('400 before payment', () => {
  const cases: [string, string, unknown, string][] = [
    ['POST', '/api/v1/kyc/verify', { address: '0x1234' }, 'address'],
    ['POST', '/api/v1/kyc/verify', { address: '0x000000000000000000000000000000000000dEaD', type: 'passport' }, 'type'],
    [
      'POST',
      '/api/v1/kyc/verify',
      { address: '0x000000000000000000000000000000000000dEaD', chain: 'ethereum' },
      'chain',
    ],
    ['POST', '/api/v1/kyc/verify', { address: '0x000000000000000000000000000000000000dEaD', chain: 'eth' }, 'chain'],
    [
      'POST',
      '/api/v1/kyc/verify',
      { address: '0x000000000000000000000000000000000000dEaD', level: 'extreme' },
      'level',
    ],
    ['GET', '/api/v1/kyc/status', undefined, 'id'],
    ['GET', '/api/v1/kyc/status?id=kyc_nothex', undefined, 'id'],
    ['GET', '/api/v1/kyc/status?address=0xabc', undefined, 'address'],
  ]
  for (const [method, path, body, field] of cases)
    test(`error: ${method} ${path} ${JSON.stringify(body) ?? ''} names ${field}`, async () => {
      const response = await gateway.fetch(`${origin}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
      expect(response.status).toBe(400)
      expect(((await response.json()) as { field: string }).field).toBe(field)
    })
})
