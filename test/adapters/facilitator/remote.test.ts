import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PaymentPayloadV2Schema, PaymentRequirementsV2Schema } from '@x402/core/schemas'
import type { SettleResponse, SupportedResponse, VerifyResponse } from '@x402/core/types'
import { type Address, getAddress, type Hex, type PrivateKeyAccount, parseAbi, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { devnet } from '../../../adapters/chain/devnet.js'
import { local } from '../../../adapters/facilitator/local.js'
import { remote, toRefusal } from '../../../adapters/facilitator/remote.js'
import { type Domain, type Signed, toTypedData } from '../../../core/Authorization.js'
import type { Facilitator, Refusal } from '../../../core/Facilitator.js'

const erc20Abi = parseAbi(['function balanceOf(address account) view returns (uint256)'])

/** The reason codes @x402/evm's exact facilitator answers with, for each refusal of ours. */
const x402Reasons: Record<Refusal, string> = {
  invalid_signature: 'invalid_exact_evm_signature',
  amount_mismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
  wrong_payee: 'invalid_exact_evm_recipient_mismatch',
  wrong_network: 'invalid_exact_evm_network_mismatch',
  wrong_asset: 'asset_not_deployed_contract',
  not_yet_valid: 'invalid_exact_evm_payload_authorization_valid_after',
  expired: 'invalid_exact_evm_payload_authorization_valid_before',
  replayed: 'invalid_exact_evm_nonce_already_used',
  insufficient_funds: 'invalid_exact_evm_insufficient_balance',
  challenge_mismatch: 'invalid_payload',
  malformed_payment: 'invalid_payload',
  settlement_failed: 'invalid_exact_evm_transaction_failed',
  settlement_pending: 'settlement_pending',
}

let chain: devnet.Devnet
let server: ReturnType<typeof Bun.serve>
let baseUrl: string
const received: { path: string; headers: Headers; body: unknown }[] = []
// Requests to /slow are held until the suite ends.
let releaseSlow: () => void = () => {}
const slow = new Promise<void>((resolve) => {
  releaseSlow = resolve
})

beforeAll(async () => {
  chain = await devnet()
  const behind = local({
    client: chain.publicClient,
    relayer: { privateKey: chain.accounts[9]!.privateKey },
    chain: chain.chain,
    transport: chain.transport,
  })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => facilitatorServer(request, behind) })
  baseUrl = `http://127.0.0.1:${server.port}`
})

afterAll(async () => {
  releaseSlow()
  await server.stop(true)
  await chain.close()
})

/**
 * An x402 facilitator over HTTP in the documented v2 shapes, settling with our local facilitator on the devnet: it
 * validates request bodies with @x402/core's schemas and answers a refused settlement with 400, as some facilitators do.
 */
async function facilitatorServer(request: Request, behind: Facilitator): Promise<Response> {
  const path = new URL(request.url).pathname
  const body = request.method === 'POST' ? await request.json() : undefined
  received.push({ path, headers: request.headers, body })
  if (path.startsWith('/slow/')) {
    await slow
    return Response.json({ isValid: true })
  }
  if (path.startsWith('/broken/')) return new Response('<html>Bad gateway</html>', { status: 502 })
  if (path === '/supported' && request.method === 'GET')
    return Response.json({
      kinds: [{ x402Version: 2, scheme: 'exact', network: `eip155:${chain.chainId}` }],
      extensions: [],
      signers: { 'eip155:*': [chain.accounts[9]!.address] },
    } satisfies SupportedResponse)

  const { x402Version, paymentPayload, paymentRequirements } = body as Record<string, unknown>
  const payload = PaymentPayloadV2Schema.safeParse(paymentPayload)
  const requirements = PaymentRequirementsV2Schema.safeParse(paymentRequirements)
  if (x402Version !== 2 || !payload.success || !requirements.success)
    return Response.json({ isValid: false, invalidReason: 'invalid_payload' }, { status: 400 })
  const { signature, authorization: raw } = payload.data.payload as {
    signature: Hex
    authorization: Record<string, string>
  }
  const authorization: Signed = {
    from: getAddress(raw.from!),
    to: getAddress(raw.to!),
    value: BigInt(raw.value!),
    validAfter: BigInt(raw.validAfter!),
    validBefore: BigInt(raw.validBefore!),
    nonce: raw.nonce as Hex,
    signature,
  }
  const extra = requirements.data.extra as { name: string; version: string }
  const domain: Domain = {
    name: extra.name,
    version: extra.version,
    chainId: Number(requirements.data.network.split(':')[1]),
    verifyingContract: getAddress(requirements.data.asset),
  }
  const payer = authorization.from
  if (path === '/verify') {
    const outcome = await behind.verify({ authorization, domain })
    return Response.json(
      (outcome.ok
        ? { isValid: true, payer }
        : {
            isValid: false,
            invalidReason: x402Reasons[outcome.reason],
            invalidMessage: outcome.message,
            payer,
          }) satisfies VerifyResponse,
    )
  }
  if (path === '/settle') {
    const outcome = await behind.settle({ authorization, domain })
    const network = requirements.data.network as SettleResponse['network']
    return outcome.ok
      ? Response.json({ success: true, transaction: outcome.transaction, network, payer } satisfies SettleResponse)
      : Response.json(
          {
            success: false,
            errorReason: x402Reasons[outcome.reason],
            errorMessage: outcome.message,
            transaction: '',
            network,
            payer,
          } satisfies SettleResponse,
          { status: 400 },
        )
  }
  return new Response('not found', { status: 404 })
}

function now(): bigint {
  return BigInt(Math.floor(Date.now() / 1000))
}

function domain(): Domain {
  return {
    name: chain.token.name,
    version: chain.token.version,
    chainId: chain.chainId,
    verifyingContract: chain.token.address,
  }
}

function payer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

async function sign(
  from: PrivateKeyAccount,
  parameters: { to: Address; value: bigint; validAfter?: bigint; validBefore?: bigint },
): Promise<Signed> {
  const { to, value, validAfter = now() - 600n, validBefore = now() + 3600n } = parameters
  const authorization = {
    from: from.address,
    to,
    value,
    validAfter,
    validBefore,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  return { ...authorization, signature: await from.signTypedData(toTypedData(authorization, domain())) }
}

function balanceOf(address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
}

function lastBody(path: string) {
  return received.filter((request) => request.path === path).at(-1)!
}

describe('remote.verify', () => {
  test('default: posts the x402 v2 body and maps isValid: true', async () => {
    const facilitator = remote({ url: `${baseUrl}/`, auth: { type: 'bearer', token: 'test-key' } })
    const authorization = await sign(payer(1), { to: randomAddress(), value: 1_500n })
    expect(await facilitator.verify({ authorization, domain: domain() })).toEqual({ ok: true })

    const { headers, body } = lastBody('/verify')
    expect(headers.get('content-type')).toBe('application/json')
    expect(headers.get('authorization')).toBe('Bearer test-key')
    const requirements = {
      scheme: 'exact',
      network: 'eip155:84532',
      asset: chain.token.address,
      amount: '1500',
      payTo: authorization.to,
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    }
    expect(body).toEqual({
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: requirements,
        payload: {
          signature: authorization.signature,
          authorization: {
            from: authorization.from,
            to: authorization.to,
            value: '1500',
            validAfter: authorization.validAfter.toString(),
            validBefore: authorization.validBefore.toString(),
            nonce: authorization.nonce,
          },
        },
      },
      paymentRequirements: requirements,
    })
  })

  test('error: maps isValid: false reasons to refusals', async () => {
    const facilitator = remote({ url: baseUrl })
    const redirected = { ...(await sign(payer(2), { to: randomAddress(), value: 1n })), to: randomAddress() }
    expect(await facilitator.verify({ authorization: redirected, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
      message: expect.stringContaining('invalid_exact_evm_signature'),
    })
    const expired = await sign(payer(2), { to: randomAddress(), value: 1n, validBefore: now() - 1n })
    expect(await facilitator.verify({ authorization: expired, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'expired',
    })
    const early = await sign(payer(2), { to: randomAddress(), value: 1n, validAfter: now() + 600n })
    expect(await facilitator.verify({ authorization: early, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'not_yet_valid',
    })
    const tooMuch = await sign(payer(2), { to: randomAddress(), value: 10n ** 15n })
    expect(await facilitator.verify({ authorization: tooMuch, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'insufficient_funds',
    })
  })
})

describe('remote.settle', () => {
  test('default: maps success to the transaction, and the money moved', async () => {
    const facilitator = remote({ url: baseUrl })
    const to = randomAddress()
    const authorization = await sign(payer(3), { to, value: 2_000n })
    const before = await balanceOf(authorization.from)
    const outcome = await facilitator.settle({ authorization, domain: domain() })
    expect(outcome).toEqual({ ok: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(lastBody('/settle').body).toMatchObject({
      x402Version: 2,
      paymentRequirements: { scheme: 'exact', network: 'eip155:84532', amount: '2000', payTo: to },
      paymentPayload: {
        payload: { signature: authorization.signature, authorization: { from: authorization.from, value: '2000' } },
      },
    })
    expect(await balanceOf(to)).toBe(2_000n)
    expect(await balanceOf(authorization.from)).toBe(before - 2_000n)
  })

  test('error: maps success: false (answered with 400) to a refusal, e.g. a replay', async () => {
    const facilitator = remote({ url: baseUrl })
    const authorization = await sign(payer(3), { to: randomAddress(), value: 1n })
    expect((await facilitator.settle({ authorization, domain: domain() })).ok).toBe(true)
    expect(await facilitator.settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'replayed',
      message: expect.stringContaining('invalid_exact_evm_nonce_already_used'),
    })
    expect(await facilitator.verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'replayed',
    })
  })

  test("behavior: concurrent settlements through the remote share the facilitator's multicall", async () => {
    const facilitator = remote({ url: baseUrl })
    const to = randomAddress()
    const authorizations = await Promise.all([1, 2, 3, 4, 5].map((index) => sign(payer(index), { to, value: 10n })))
    const outcomes = await Promise.all(
      authorizations.map((authorization) => facilitator.settle({ authorization, domain: domain() })),
    )
    const hashes = outcomes.map((outcome) => (outcome.ok ? outcome.transaction : outcome.reason))
    expect(new Set(hashes).size).toBeLessThan(5)
    expect(await balanceOf(to)).toBe(50n)
  })

  test('error: a facilitator that does not answer /settle within timeoutMs leaves it settlement_pending (it may still land); /verify is refused', async () => {
    const facilitator = remote({ url: `${baseUrl}/slow`, timeoutMs: 100 })
    const authorization = await sign(payer(4), { to: randomAddress(), value: 1n })
    const start = performance.now()
    expect(await facilitator.settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_pending',
      message: expect.stringContaining('within 100 ms'),
    })
    expect(await facilitator.verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_failed',
    })
    expect(performance.now() - start).toBeLessThan(1_000)
  })

  test('behavior: with client, a settlement that landed although the answer was lost is a success', async () => {
    const authorization = await sign(payer(4), { to: randomAddress(), value: 3n })
    // Settled through the facilitator first; then a request whose answer never arrives.
    const settled = await remote({ url: baseUrl }).settle({ authorization, domain: domain() })
    const lost = await remote({ url: `${baseUrl}/slow`, timeoutMs: 100, client: chain.publicClient }).settle({
      authorization,
      domain: domain(),
    })
    expect(lost).toEqual(settled)
    expect(settled.ok).toBe(true)
  })

  test('error: a /settle answer that is not JSON is settlement_pending (the outcome is unknown); no server at all for /verify is a refusal', async () => {
    const authorization = await sign(payer(4), { to: randomAddress(), value: 1n })
    expect(await remote({ url: `${baseUrl}/broken` }).settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_pending',
      message: expect.stringContaining('502'),
    })
    expect(await remote({ url: 'http://127.0.0.1:9' }).verify({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_failed',
      message: expect.stringContaining('could not be reached'),
    })
  })
})

describe('remote: breaker', () => {
  test('behavior: a /settle the open breaker refuses was never sent, so it is settlement_failed, not pending', async () => {
    const facilitator = remote({ url: `${baseUrl}/broken`, breaker: { threshold: 1, coolDownMs: 60_000 } })
    const authorization = await sign(payer(4), { to: randomAddress(), value: 1n })
    expect(await facilitator.settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_pending',
    })
    expect(facilitator.available()).toMatchObject({
      ok: false,
      reason: expect.stringContaining('The facilitator failed 1 calls in a row'),
    })
    const sent = received.length
    expect(await facilitator.settle({ authorization, domain: domain() })).toMatchObject({
      ok: false,
      reason: 'settlement_failed',
      message: expect.stringContaining('calls resume after'),
    })
    expect(received.length).toBe(sent)
  })
})

describe('remote.supported', () => {
  test('default: reads GET /supported', async () => {
    expect(await remote({ url: baseUrl }).supported()).toMatchObject({
      kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
    })
  })
})

describe('remote.status', () => {
  test('default: reads authorizationState on chain through client', async () => {
    const facilitator = remote({ url: baseUrl, client: chain.publicClient })
    const authorization = await sign(payer(5), { to: randomAddress(), value: 1n })
    const query = { payer: authorization.from, nonce: authorization.nonce, domain: domain() }
    expect(await facilitator.status(query)).toEqual({ state: 'unused' })
    const outcome = await facilitator.settle({ authorization, domain: domain() })
    expect(await facilitator.status(query)).toEqual({
      state: 'settled',
      transaction: outcome.ok ? outcome.transaction : undefined,
    })
  })

  test('error: without client, status rejects instead of guessing', async () => {
    await expect(
      remote({ url: baseUrl }).status({ payer: randomAddress(), nonce: toHex(1, { size: 32 }), domain: domain() }),
    ).rejects.toThrow('pass `client`')
  })
})

describe('toRefusal', () => {
  test.each([
    ['invalid_exact_evm_signature', 'invalid_signature'],
    ['invalid_exact_evm_payload_signature', 'invalid_signature'],
    ['invalid_exact_evm_recipient_mismatch', 'wrong_payee'],
    ['invalid_exact_evm_payload_recipient_mismatch', 'wrong_payee'],
    ['invalid_exact_evm_payload_authorization_valid_before', 'expired'],
    ['invalid_exact_evm_payload_authorization_valid_after', 'not_yet_valid'],
    ['invalid_exact_evm_authorization_value', 'amount_mismatch'],
    ['invalid_exact_evm_payload_authorization_value_mismatch', 'amount_mismatch'],
    ['invalid_exact_evm_nonce_already_used', 'replayed'],
    ['invalid_exact_evm_insufficient_balance', 'insufficient_funds'],
    ['insufficient_funds', 'insufficient_funds'],
    ['invalid_exact_evm_network_mismatch', 'wrong_network'],
    ['invalid_network', 'wrong_network'],
    ['asset_not_deployed_contract', 'wrong_asset'],
    ['invalid_exact_evm_token_name_mismatch', 'wrong_asset'],
    ['invalid_exact_evm_scheme', 'malformed_payment'],
    ['invalid_exact_evm_failed_to_parse_signature', 'malformed_payment'],
    ['invalid_exact_evm_transaction_failed', 'settlement_failed'],
    ['invalid_exact_evm_transaction_simulation_failed', 'settlement_failed'],
    ['unexpected_settle_error', 'settlement_failed'],
    // @x402/evm's v1 settle puts a thrown error's message in errorReason.
    ['execution reverted: FiatTokenV2: authorization is used or canceled', 'replayed'],
    [undefined, 'settlement_failed'],
  ] as const)('vector: %p -> %p', (reason, refusal) => {
    expect(toRefusal(reason)).toBe(refusal)
  })
})
