import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Address, createWalletClient, encodeFunctionData, getAddress, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { account, contracts } from '../../adapters/chain/devnet.js'
import { safetyDeployerIndex, taxTokenSellFeeBps } from '../../adapters/chain/safety.js'
import * as Safety from '../../core/Safety.js'
import { origin, paidGateway } from '../support/paid.js'

// The screens on the embedded devnet: the taxed token, its proxy and the sanctions oracle look-alike are deployed by
// the safety deployer at start; GoPlus is a local server speaking its documented shapes.

/** GoPlus records the stand-in answers, by lowercased address. */
const tokenRecords = new Map<string, Record<string, string>>()
const addressRecords = new Map<string, Record<string, string>>()
const asked: string[] = []
const goplus = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const url = new URL(request.url)
    asked.push(`${url.pathname}${url.search}`)
    const token = url.pathname.match(/^\/api\/v1\/token_security\/([0-9]+)$/)
    if (token) {
      const address = url.searchParams.get('contract_addresses') ?? ''
      const record = tokenRecords.get(address)
      return Response.json({ code: 1, message: 'OK', result: record ? { [address]: record } : {} })
    }
    const holder = url.pathname.match(/^\/api\/v1\/address_security\/(0x[0-9a-f]{40})$/)
    if (holder && url.searchParams.get('chain_id')) {
      const record = addressRecords.get(holder[1]!)
      if (!record) return Response.json({ code: 2, message: 'no data', result: null })
      return Response.json({ code: 1, message: 'ok', result: record })
    }
    return new Response('not found', { status: 404 })
  },
})

let gateway: Awaited<ReturnType<typeof paidGateway>>
let offline: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({ env: { GOPLUS_URL: `http://127.0.0.1:${goplus.port}` } })
  // Every off-machine URL, GOPLUS_URL included, is a closed local port here.
  offline = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
  await offline.close()
  goplus.stop(true)
})

const safety = contracts().safety
const deployer = account({ index: safetyDeployerIndex })

async function screen(path: string, on = gateway) {
  const response = await on.fetch(`${origin}${path}`)
  return { status: response.status, body: (await response.json()) as any }
}

const check = (body: any, id: string) => body.checks.find((entry: Safety.Check) => entry.id === id)

describe('GET /api/v1/token/safety', () => {
  test('behavior: the taxed look-alike is danger: a 10% sell tax measured, blacklist and fee powers found', async () => {
    const { status, body } = await screen(`/api/v1/token/safety?address=${safety.taxToken}`)
    expect(status).toBe(200)
    expect(body.verdict).toBe('danger')
    expect(check(body, 'honeypot').status).toBe('clean')
    // The tax is measured against QuoterV2's quote of the same sell, so the pool's 0.3% fee is not counted in it.
    expect(check(body, 'sell_tax')).toMatchObject({ status: 'flagged', severity: 'danger' })
    expect(BigInt(check(body, 'sell_tax').evidence.bps)).toBe(taxTokenSellFeeBps)
    expect(check(body, 'sell_tax').evidence.fee).toBe(3000)
    expect(check(body, 'buy_tax')).toMatchObject({ status: 'clean', evidence: { bps: '0' } })
    expect(check(body, 'power_blacklist').status).toBe('flagged')
    expect(check(body, 'power_blacklist').evidence.functions.map((f: any) => f.signature)).toEqual([
      'blacklist(address)',
    ])
    expect(check(body, 'power_fee').evidence.functions.map((f: any) => f.signature)).toEqual(['setSellFee(uint256)'])
    expect(check(body, 'power_mint')).toMatchObject({ status: 'flagged', severity: 'info' })
    expect(check(body, 'proxy').status).toBe('clean')
  })

  test('behavior: the devnet USDC passes: no proxy, no tax, mint only (info), GoPlus clean', async () => {
    const usdc = gateway.devnet.token.address
    tokenRecords.set(usdc.toLowerCase(), {
      is_honeypot: '0',
      is_blacklisted: '0',
      is_proxy: '0',
      buy_tax: '0',
      sell_tax: '0',
    })
    const { status, body } = await screen(`/api/v1/token/safety?address=${usdc}`)
    expect(status).toBe(200)
    expect(body.verdict).toBe('pass')
    expect(check(body, 'honeypot').status).toBe('clean')
    expect(check(body, 'sell_tax').evidence.bps).toBe('0')
    expect(check(body, 'power_blacklist').status).toBe('clean')
    expect(check(body, 'goplus')).toMatchObject({
      status: 'clean',
      evidence: { unset: ['is_honeypot', 'is_blacklisted', 'is_proxy'] },
    })
    expect(asked).toContain(
      `/api/v1/token_security/${gateway.devnet.chain.id}?contract_addresses=${usdc.toLowerCase()}`,
    )
  })

  test('behavior: an EIP-1967 proxy is found with its implementation and admin, and its powers read from the implementation', async () => {
    const { body } = await screen(`/api/v1/token/safety?address=${safety.proxy}`)
    expect(check(body, 'proxy')).toMatchObject({
      status: 'flagged',
      evidence: { standard: 'EIP-1967', implementation: safety.taxToken, admin: deployer.address },
    })
    expect(check(body, 'power_blacklist')).toMatchObject({ status: 'flagged', evidence: { code: safety.taxToken } })
    expect(check(body, 'power_upgrade').status).toBe('clean')
    // No pool holds the proxy's token: the simulation is not checked, never clean.
    expect(check(body, 'honeypot').status).toBe('not_checked')
  })

  test('behavior: GoPlus flags are a second opinion; unreachable, GoPlus is not checked and the verdict is never pass', async () => {
    // A token not screened before: GoPlus answers are cached a minute.
    const dai = contracts().tokens.DAI!
    tokenRecords.set(dai.toLowerCase(), {
      is_blacklisted: '1',
      is_mintable: '1',
      is_honeypot: '0',
      sell_tax: '0.1',
      buy_tax: '0',
    })
    const { body } = await screen(`/api/v1/token/safety?address=${dai}`)
    expect(check(body, 'goplus')).toMatchObject({
      status: 'flagged',
      evidence: { set: ['is_blacklisted', 'is_mintable'], sellTaxBps: '1000', buyTaxBps: '0' },
    })
    const usdc = offline.devnet.token.address
    const unreachable = await screen(`/api/v1/token/safety?address=${usdc}`, offline)
    expect(check(unreachable.body, 'goplus').status).toBe('not_checked')
    expect(unreachable.body.verdict).toBe('incomplete')
  })

  test('validation: a malformed address, a bad checksum, an unknown chain, no contract', async () => {
    const bad = await screen('/api/v1/token/safety?address=0x1234')
    expect(bad.status).toBe(400)
    expect(JSON.stringify(bad.body)).toContain('address')
    const checksum = await screen(`/api/v1/token/safety?address=${safety.taxToken.replace('D', 'd')}`)
    expect(checksum.status).toBe(400)
    const chain = await screen(`/api/v1/token/safety?address=${safety.taxToken}&chain=solana`)
    expect(chain.status).toBe(400)
    expect(JSON.stringify(chain.body)).toContain('chain')
    const eoa = await screen(`/api/v1/token/safety?address=${deployer.address}`)
    expect(eoa.status).toBe(404)
  })
})

describe('GET /api/v1/address/safety', () => {
  test('behavior: the oracle look-alike flags an address its owner listed, and not another', async () => {
    const listed = getAddress('0x00000000000000000000000000000000000bad01') as Address
    const wallet = createWalletClient({
      account: privateKeyToAccount(deployer.privateKey),
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    const hash = await wallet.sendTransaction({
      to: safety.sanctionsOracle,
      data: encodeFunctionData({
        abi: parseAbi(['function addToSanctionsList(address[] addrs)']),
        functionName: 'addToSanctionsList',
        args: [[listed]],
      }),
    })
    await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
    addressRecords.set(listed.toLowerCase(), {
      phishing_activities: '1',
      mixer: '0',
      sanctioned: '0',
      data_source: 'SlowMist',
    })
    const { status, body } = await screen(`/api/v1/address/safety?address=${listed}`)
    expect(status).toBe(200)
    expect(body.verdict).toBe('danger')
    expect(check(body, 'sanctions')).toMatchObject({
      status: 'flagged',
      evidence: { oracle: Safety.devnetSanctionsOracle, isSanctioned: true },
    })
    expect(check(body, 'goplus')).toMatchObject({
      status: 'flagged',
      evidence: { set: ['phishing_activities'], dataSource: 'SlowMist' },
    })

    const other = await screen(`/api/v1/address/safety?address=${deployer.address}`)
    expect(check(other.body, 'sanctions').status).toBe('clean')
    // GoPlus answered an error code for it: not checked, so not a pass.
    expect(check(other.body, 'goplus').status).toBe('not_checked')
    expect(other.body.verdict).toBe('incomplete')
  })

  test('default: the devnet oracle is where the safety deployer put it', () => {
    expect(Safety.devnetSanctionsOracle).toBe(safety.sanctionsOracle)
    expect(Safety.sanctionsOracleOf(8453)).toBe('0x3A91A31cB3dC49b4db9Ce721F50a9D076c8D739B')
  })

  test('validation: a malformed address and an unknown chain are 400', async () => {
    expect((await screen('/api/v1/address/safety?address=not-an-address')).status).toBe(400)
    expect((await screen(`/api/v1/address/safety?address=${deployer.address}&chain=ethereum`)).status).toBe(400)
  })

  test("behavior: the original gateway's chain=base-mainnet is base", async () => {
    const { status, body } = await screen(`/api/v1/address/safety?address=${deployer.address}&chain=base-mainnet`)
    expect(status).toBe(200)
    expect(body.chain).toBe('base')
  })
})

describe('Safety', () => {
  test('pushedSelectors: PUSH data is skipped, never read as a PUSH4', () => {
    // PUSH2 0x6300 (its data byte 0x63 is PUSH4's opcode) then PUSH4 0xa9059cbb; a PUSH32's data holds no PUSH4.
    expect([...Safety.pushedSelectors('0x6163000063a9059cbb00')]).toEqual(['0xa9059cbb'])
    expect([...Safety.pushedSelectors('0x61630063a9059cbb')]).toEqual(['0xa9059cbb'])
    expect([...Safety.pushedSelectors('0x7f63a9059cbb000000000000000000000000000000000000000000000000000000')]).toEqual(
      [],
    )
  })

  test('sellTaxBps: a tax on top and a tax taken from the output are both the share of the amount sold', () => {
    expect(Safety.sellTaxBps({ amount: 1000n, debited: 1100n, quote: 50n, received: 50n })).toBe(1000n)
    expect(Safety.sellTaxBps({ amount: 1000n, debited: 1000n, quote: 50n, received: 45n })).toBe(1000n)
    expect(Safety.sellTaxBps({ amount: 1000n, debited: 1000n, quote: 50n, received: 50n })).toBe(0n)
  })
})
