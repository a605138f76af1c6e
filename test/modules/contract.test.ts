import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, decodeFunctionData, erc20Abi, parseAbi, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { eip1193 } from '../../adapters/rpc/eip1193.js'
import { sourcify } from '../../adapters/source/sourcify.js'
import { stdout } from '../../app/log.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Service from '../../modules/contract/service.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'

// Contract calls on the devnet's own contracts (its USDC): reads decoded by the signature's outputs, by a given ABI and
// by a verified ABI from a Sourcify stand-in; writes answered as unsigned transactions, simulated and estimated for the
// payer; a key in the body refused before payment and never logged; a revert refused and not charged.

/** Every line the gateway logs. */
const lines: string[] = []
let gateway: Awaited<ReturnType<typeof paidGateway>>
let sources: ReturnType<typeof Bun.serve>
const someone = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  gateway = await paidGateway({ logger: stdout('debug', (line) => lines.push(line)) })
  await gateway.devnet.fund({ address: someone, amount: 1_234_567n })
  // Sourcify's API v2 in its documented shape: the devnet's USDC is verified with the ERC-20 ABI, the rest a 404.
  sources = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url)
      const token = gateway.devnet.token.address.toLowerCase()
      if (pathname.toLowerCase() === `/v2/contract/${gateway.devnet.chainId}/${token}`)
        return Response.json({
          match: 'exact_match',
          chainId: String(gateway.devnet.chainId),
          address: gateway.devnet.token.address,
          abi: erc20Abi,
          sources: { 'contracts/Token.sol': { content: 'contract Token {}' } },
          compilation: { language: 'Solidity', compilerVersion: '0.8.28+commit.7893614a', name: 'Token' },
        })
      return Response.json({ customCode: 'not_found', message: 'Contract not found' }, { status: 404 })
    },
  })
})
afterAll(async () => {
  sources.stop(true)
  await gateway.close()
})

const token = () => gateway.devnet.token.address
const payer = () => gateway.account(2)

/** A paid POST by account 2: status, body and what it cost. */
async function paid(path: string, body: unknown) {
  const before = await gateway.balance(payer().address)
  const response = await gateway.paid(payer(), 'POST', path, body)
  return { response, cost: before - (await gateway.balance(payer().address)) }
}

/** An unpaid POST. */
function unpaid(path: string, body: unknown) {
  return gateway.fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

describe('POST /api/v1/contract/read', () => {
  test('default: balanceOf with its outputs, decoded on the settlement chain, as the original answers', async () => {
    const { response, cost } = await paid('/api/v1/contract/read', {
      address: token(),
      method: 'function balanceOf(address) view returns (uint256)',
      args: [someone],
    })
    const body = await ok(response)
    expect(body).toMatchObject({
      chain: 'devnet',
      chainId: gateway.devnet.chainId,
      address: token(),
      method: 'function balanceOf(address) view returns (uint256)',
      args: [someone],
      result: '1234567',
      raw_result: '"1234567"',
      outputs: [{ name: null, type: 'uint256', value: '1234567' }],
      abiSource: 'method',
    })
    expect(cost).toBe(2_000n)
  })

  test('behavior: `abi` decodes by its outputs, arguments read by type (integers as strings, any address case)', async () => {
    const body = await ok(
      (
        await paid('/api/v1/contract/read', {
          chain: 'base-mainnet',
          address: token().toLowerCase(),
          method: 'allowance(address,address)',
          args: [someone.toLowerCase(), payer().address],
          abi: erc20Abi,
        })
      ).response,
    )
    expect(body).toMatchObject({ result: '0', abiSource: 'abi', address: token() })
    const decimals = await ok(
      (
        await paid('/api/v1/contract/read', {
          address: token(),
          method: 'decimals()',
          abi: ['function decimals() view returns (uint8)'],
        })
      ).response,
    )
    expect(decimals.result).toBe(6)
  })

  test('behavior: a signature without outputs answers the raw return data, with a note (no verified ABI on a devnet)', async () => {
    const body = await ok(
      (await paid('/api/v1/contract/read', { address: token(), method: 'balanceOf(address)', args: [someone] }))
        .response,
    )
    expect(body.result).toBeNull()
    expect(BigInt(body.returnData)).toBe(1_234_567n)
    expect(body.abiSource).toBeNull()
    expect(body.note).toContain('returnData')
  })

  test('behavior: a bare name (as the original’s MCP tool sends) takes no arguments, or is picked from `abi`', async () => {
    const supply = await ok(
      (await paid('/api/v1/contract/read', { chain: 'base', address: token(), method: 'totalSupply', args: [] }))
        .response,
    )
    expect(supply.result).toBeNull()
    expect(BigInt(supply.returnData)).toBeGreaterThan(0n)
    const allowance = await ok(
      (
        await paid('/api/v1/contract/read', {
          address: token(),
          method: 'allowance',
          args: [someone, someone],
          abi: erc20Abi,
        })
      ).response,
    )
    expect(allowance).toMatchObject({ result: '0', abiSource: 'abi' })
    // With arguments and no ABI anywhere, the types are unknown: refused, and not charged.
    const { response, cost } = await paid('/api/v1/contract/read', {
      address: token(),
      method: 'balanceOf',
      args: [someone],
    })
    expect((await refused(response, 400)).detail).toContain('bare name')
    expect(cost).toBe(0n)
  })

  test('behavior: without outputs, the verified ABI from Sourcify decodes the answer', async () => {
    const endpoint = eip1193({
      name: 'devnet',
      chainId: gateway.devnet.chainId,
      request: (method, params) => gateway.devnet.request(method, params),
    })
    const deps: Service.Deps = {
      nodes: EvmChain.nodes({
        settlement: endpoint,
        ethereum: endpoint,
        connect: () => endpoint,
        urls: {},
      }),
      sources: [sourcify({ baseUrl: `http://127.0.0.1:${sources.port}` })],
      wallets: undefined,
    }
    const body = await Service.read(deps, { address: token(), method: 'balanceOf(address)', args: [someone] })
    expect(body).toMatchObject({ result: '1234567', abiSource: 'sourcify' })
    expect(body.outputs).toEqual([{ name: null, type: 'uint256', value: '1234567' }])
    // A bare name with arguments is looked up there by name and count.
    expect(await Service.read(deps, { address: token(), method: 'balanceOf', args: [someone] })).toMatchObject({
      result: '1234567',
      abiSource: 'sourcify',
    })
  })

  test('error: a bad chain, method, abi or argument is a 400 naming the field, before payment', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chain: 'solana', address: token(), method: 'decimals()' }, 'chain'],
      [{ address: token(), method: 'decimals(' }, 'method'],
      [{ address: token(), method: 'balanceOf(address)', args: [] }, 'args'],
      [{ address: token(), method: 'balanceOf(address)', args: ['0x12'] }, 'args.0'],
      [{ address: token(), method: 'approve(address,uint8)', args: [someone, '256'] }, 'args.1'],
      [{ address: token(), method: 'mint(address,uint256)', abi: erc20Abi }, 'method'],
      [{ address: token(), method: 'decimals()', abi: [{ type: 'function', inputs: [] }] }, 'abi.0'],
    ]
    for (const [body, field] of cases) {
      const problem = await refused(await unpaid('/api/v1/contract/read', body), 400)
      expect([field, problem.field ?? problem.details?.field]).toEqual([field, field])
    }
  })

  test('error: a call that reverts is a 400 and charges nothing', async () => {
    const { response, cost } = await paid('/api/v1/contract/read', {
      address: token(),
      method: 'function transferFrom(address,address,uint256) returns (bool)',
      args: [someone, payer().address, '1'],
    })
    const problem = await refused(response, 400)
    expect(problem.details?.reason ?? problem.reason).toBe('simulation_reverted')
    expect(cost).toBe(0n)
  })
})

describe('POST /api/v1/contract/write', () => {
  test('default: the unsigned transaction, simulated and estimated for the payer, never sent', async () => {
    const amount = parseUnits('0.01', 6)
    const { response, cost } = await paid('/api/v1/contract/write', {
      chain: 'base',
      address: token(),
      method: 'function transfer(address to, uint256 amount) returns (bool)',
      args: [someone, amount.toString()],
    })
    const body = await ok(response)
    expect(body).toMatchObject({
      chain: 'devnet',
      address: token(),
      from: payer().address,
      signed: false,
      simulation: { ok: true, result: true },
      transaction: { from: payer().address, to: token(), value: '0', chainId: gateway.devnet.chainId },
    })
    const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: body.transaction.data })
    expect([functionName, ...args]).toEqual(['transfer', someone, amount])
    expect(BigInt(body.gas_limit)).toBe((BigInt(body.gas_estimate) * 120n) / 100n)
    expect(BigInt(body.gas_estimate)).toBeGreaterThan(21_000n)
    expect(cost).toBe(15_000n)
    // Nothing was sent: the recipient holds what it held.
    expect(await gateway.balance(someone)).toBe(1_234_567n)
  })

  test('error: a privateKey is refused before payment, and the key is never logged nor echoed', async () => {
    const key = generatePrivateKey()
    const response = await unpaid('/api/v1/contract/write', {
      address: token(),
      method: 'transfer(address,uint256)',
      args: [someone, '1'],
      privateKey: key,
    })
    const text = await response.text()
    expect(response.status).toBe(400)
    const problem = JSON.parse(text)
    expect(problem.details?.field ?? problem.field).toBe('privateKey')
    expect(problem.detail).toContain('never takes a private key')
    expect(response.headers.get('payment-required')).toBeNull()
    expect(text).not.toContain(key.slice(2))
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.join('\n')).not.toContain(key.slice(2))
  })

  test('behavior: `from` is who the transaction is simulated for; one who cannot cover it reverts: 400, nothing charged', async () => {
    const covered = await paid('/api/v1/contract/write', {
      address: token(),
      method: 'transfer(address,uint256)',
      args: [payer().address, '1'],
      from: someone,
      abi: parseAbi(['function transfer(address,uint256) returns (bool)']),
    })
    expect(await ok(covered.response)).toMatchObject({ from: someone, simulation: { ok: true, result: true } })
    const broke = privateKeyToAccount(generatePrivateKey()).address as Address
    const { response, cost } = await paid('/api/v1/contract/write', {
      address: token(),
      method: 'transfer(address,uint256)',
      args: [payer().address, '1'],
      from: broke,
    })
    const problem = await refused(response, 400)
    expect(problem.details?.reason ?? problem.reason).toBe('simulation_reverted')
    expect(cost).toBe(0n)
  })

  test('error: walletId without a server-wallet vendor is a 503 before payment', async () => {
    const response = await unpaid('/api/v1/contract/write', {
      address: token(),
      method: 'transfer(address,uint256)',
      args: [someone, '1'],
      walletId: 'w-1',
    })
    const problem = await refused(response, 503)
    expect(problem.detail).toContain('No server-wallet vendor')
  })
})
