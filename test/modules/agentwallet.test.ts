import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Address, Hex, LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { agentAccount } from '../../adapters/chain/agentWallet.js'
import * as TokenList from '../../core/TokenList.js'
import { origin, paidGateway } from '../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
let owner: LocalAccount
let other: LocalAccount
let account: Address

beforeAll(async () => {
  gateway = await paidGateway()
  owner = gateway.account(1)
  other = gateway.account(2)
})

afterAll(async () => {
  await gateway.close()
})

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as any })

/** Signs the typed data an endpoint answered, as a wallet would (amounts back to bigint). */
function sign(signer: LocalAccount, typedData: any): Promise<Hex> {
  const message = { ...typedData.message }
  if (message.limits) message.limits = message.limits.map(BigInt)
  message.nonce = BigInt(message.nonce)
  return signer.signTypedData({ ...typedData, message })
}

describe('agent-wallet on the devnet', () => {
  test('default: provision deploys, sponsored by the relayer, exactly the address predict gave', async () => {
    const predicted = await json(await gateway.paid(owner, 'GET', '/api/v1/agent-wallet/predict'))
    expect(predicted.status).toBe(200)
    expect(predicted.body).toMatchObject({ owner: owner.address, salt: '0', deployed: false })
    expect(predicted.body.entryPoint).toBe(gateway.devnet.wallet.entryPoint)
    const provisioned = await json(await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/provision', {}))
    expect(provisioned.status).toBe(200)
    expect(provisioned.body).toMatchObject({ address: predicted.body.address, deployed: true, alreadyDeployed: false })
    account = provisioned.body.address
    const onChainOwner = await gateway.devnet.publicClient.readContract({
      address: account,
      abi: agentAccount.abi,
      functionName: 'owner',
    })
    expect(onChainOwner).toBe(owner.address)
    const again = await json(await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/provision', {}))
    expect(again.body).toMatchObject({ address: account, alreadyDeployed: true, transaction: null })
  })

  test("behavior: a session key added and revoked with the owner's signatures, seen by info", async () => {
    const key = privateKeyToAccount(generatePrivateKey()).address
    const block = await gateway.devnet.publicClient.getBlock()
    const terms = {
      key,
      expiresAt: Number(block.timestamp) + 3600,
      period: 86_400,
      limits: [{ token: gateway.devnet.token.address, amount: '10000000' }],
    }
    const unsigned = await json(await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/session-key', terms))
    expect(unsigned.status).toBe(200)
    expect(unsigned.body).toMatchObject({ account, submitted: false })
    expect(unsigned.body.typedData.primaryType).toBe('AddSessionKey')

    // The payer signs for its own account, but with another wallet's key: the account refuses it.
    const forged = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/session-key', {
        ...terms,
        signature: await sign(other, unsigned.body.typedData),
      }),
    )
    expect(forged.status).toBe(403)

    const added = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/session-key', {
        ...terms,
        signature: await sign(owner, unsigned.body.typedData),
      }),
    )
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({ submitted: true, key })

    const info = await json(await gateway.paid(owner, 'GET', '/api/v1/agent-wallet/info'))
    expect(info.status).toBe(200)
    expect(info.body).toMatchObject({ address: account, deployed: true })
    expect(info.body.sessionKeys).toHaveLength(1)
    expect(info.body.sessionKeys[0]).toMatchObject({
      key,
      validUntil: terms.expiresAt,
      period: 86_400,
      allowances: [{ token: gateway.devnet.token.address, remaining: '10000000' }],
    })

    const revoke = await json(await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/revoke-key', { key }))
    expect(revoke.body.typedData.primaryType).toBe('RevokeSessionKey')
    const revoked = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/revoke-key', {
        key,
        signature: await sign(owner, revoke.body.typedData),
      }),
    )
    expect(revoked.body).toMatchObject({ submitted: true, key })
    const after = await json(await gateway.paid(owner, 'GET', '/api/v1/agent-wallet/info'))
    expect(after.body.sessionKeys).toEqual([])
  })

  test("errors: acting on another owner's account is 403, reading it 404", async () => {
    const key = privateKeyToAccount(generatePrivateKey()).address
    const block = await gateway.devnet.publicClient.getBlock()
    const acting = await json(
      await gateway.paid(other, 'POST', '/api/v1/agent-wallet/session-key', {
        key,
        account,
        expiresAt: Number(block.timestamp) + 3600,
        period: 3600,
        limits: [{ token: gateway.devnet.token.address, amount: '1' }],
      }),
    )
    expect(acting.status).toBe(403)
    const revoking = await json(await gateway.paid(other, 'POST', '/api/v1/agent-wallet/revoke-key', { key, account }))
    expect(revoking.status).toBe(403)
    const reading = await json(await gateway.paid(other, 'GET', `/api/v1/agent-wallet/info?account=${account}`))
    expect(reading.status).toBe(404)
  })

  test('errors: bad input is a 400 naming the field, before payment', async () => {
    const post = (path: string, body: unknown) =>
      gateway.fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const valid = {
      key: owner.address,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      period: 3600,
      limits: [{ token: gateway.devnet.token.address, amount: '1' }],
    }
    for (const [body, field] of [
      [{ ...valid, key: '0x123' }, 'key'],
      [{ ...valid, expiresAt: 1 }, 'expiresAt'],
      [{ ...valid, period: 5 }, 'period'],
      [{ ...valid, limits: [{ token: gateway.devnet.token.address, amount: '0' }] }, 'amount'],
      [{ ...valid, limits: [valid.limits[0], valid.limits[0]] }, 'limits'],
      [{ ...valid, signature: '0x12' }, 'signature'],
    ] as const) {
      const response = await post('/api/v1/agent-wallet/session-key', body)
      expect(response.status).toBe(400)
      expect(await response.text()).toContain(field)
    }
    const badSalt = await gateway.fetch(`${origin}/api/v1/agent-wallet/predict?salt=-1`)
    expect(badSalt.status).toBe(400)
    const badAccount = await gateway.fetch(`${origin}/api/v1/agent-wallet/info?account=0xnope`)
    expect(badAccount.status).toBe(400)
    const owned = await post('/api/v1/agent-wallet/provision', { owner: other.address })
    expect(owned.status).toBe(400)
  })
})

describe('agent-wallet: the original gateway’s calls', () => {
  const agentId = 'trader-7'
  let wallet: Address

  test('behavior: predict by ownerAddress and agentId is deterministic, and provision deploys exactly there', async () => {
    const path = `/api/v1/agent-wallet/predict?ownerAddress=${owner.address}&agentId=${agentId}`
    const predicted = await json(await gateway.paid(owner, 'GET', path))
    expect(predicted.status).toBe(200)
    expect(predicted.body).toMatchObject({ status: 'ok', agentId })
    expect(predicted.body.predictedAddress).toBe(predicted.body.address)
    expect((await json(await gateway.paid(other, 'GET', path))).body.predictedAddress).toBe(
      predicted.body.predictedAddress,
    )
    const provisioned = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/provision', { agentId, agentType: 'trading' }),
    )
    expect(provisioned.status).toBe(200)
    expect(provisioned.body).toMatchObject({
      status: 'created',
      wallet: {
        walletAddress: predicted.body.predictedAddress,
        ownerAddress: owner.address,
        agentId,
        agentType: 'trading',
        mode: 'self-custody',
        chainId: gateway.devnet.chain.id,
      },
    })
    expect(provisioned.body.wallet.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(provisioned.body.wallet.encryptedKey).toBeUndefined()
    expect(provisioned.body.custody).toContain('session-key')
    wallet = provisioned.body.wallet.walletAddress
  })

  test('behavior: spendLimitEth "2500" is a limit of 2,500 WETH, signed by the owner and submitted; info and revoke in the original’s words', async () => {
    const weth = TokenList.devnet.find((token) => token.symbol === 'WETH')!.address
    const sessionKeyAddress = privateKeyToAccount(generatePrivateKey()).address
    const asked = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/session-key', {
        walletAddress: wallet,
        sessionKeyAddress,
        spendLimitEth: '2500',
        durationHours: 24,
        allowedTargets: [weth],
      }),
    )
    expect(asked.status).toBe(200)
    expect(asked.body).toMatchObject({
      status: 'signature_required',
      account: wallet,
      session: { sessionKey: sessionKeyAddress, spendLimit: '2500', spendLimitWei: '2500000000000000000000' },
    })
    expect(asked.body.typedData.message).toMatchObject({
      key: sessionKeyAddress,
      tokens: [weth],
      limits: ['2500000000000000000000'],
      period: 86_400,
    })
    const added = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/session-key', {
        ...asked.body.next.body,
        signature: await sign(owner, asked.body.typedData),
      }),
    )
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({
      status: 'created',
      session: { sessionKey: sessionKeyAddress, spendLimit: '2500' },
    })
    expect(added.body.session.txHash).toMatch(/^0x[0-9a-f]{64}$/)

    const info = await json(await gateway.paid(owner, 'GET', `/api/v1/agent-wallet/info?address=${wallet}`))
    expect(info.body).toMatchObject({
      status: 'ok',
      wallet: {
        address: wallet,
        owner: owner.address,
        balanceEth: '0',
        sessionKeys: [{ address: sessionKeyAddress, valid: true, remainingSpend: '2500' }],
      },
    })

    const revoke = { walletAddress: wallet, sessionKeyAddress }
    const unsigned = await json(await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/revoke-key', revoke))
    const revoked = await json(
      await gateway.paid(owner, 'POST', '/api/v1/agent-wallet/revoke-key', {
        ...revoke,
        signature: await sign(owner, unsigned.body.typedData),
      }),
    )
    expect(revoked.body).toMatchObject({ status: 'revoked', txHash: revoked.body.transaction })
  })

  test('errors: more decimals than ETH has, two names of one field, a target the key cannot call: 400 before payment', async () => {
    const terms = {
      walletAddress: owner.address,
      sessionKeyAddress: other.address,
      spendLimitEth: '2500',
      durationHours: 1,
    }
    for (const [body, field] of [
      [{ ...terms, spendLimitEth: '2500.0000000000000000001' }, 'spendLimitEth'],
      [{ ...terms, key: other.address }, 'sessionKeyAddress'],
      [{ ...terms, expiresAt: Math.floor(Date.now() / 1000) + 60 }, 'durationHours'],
      [{ ...terms, allowedTargets: [gateway.devnet.token.address] }, 'allowedTargets'],
    ] as const) {
      const response = await gateway.fetch(`${origin}/api/v1/agent-wallet/session-key`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(400)
      expect(await response.text()).toContain(field)
    }
  })

  test('security: provision for another ownerAddress is refused; the payer owns what it pays for', async () => {
    const refused = await gateway.paid(other, 'POST', '/api/v1/agent-wallet/provision', {
      agentId: 'someone-else',
      ownerAddress: owner.address,
      mode: 'self-custody',
    })
    expect(refused.status).toBe(403)
  })
})
