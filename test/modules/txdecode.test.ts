import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hash,
  type Hex,
  type LocalAccount,
  parseEther,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { eip1193 } from '../../adapters/rpc/eip1193.js'
import * as BatchPayment from '../../core/BatchPayment.js'
import * as Escrow from '../../core/Escrow.js'
import * as TxDecode from '../../core/TxDecode.js'
import * as Service from '../../modules/txdecode/service.js'
import { origin, paidGateway } from '../support/paid.js'

// The decoder on the embedded devnet, against real transactions of every kind the gateway itself produces.

let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway()
})
afterAll(async () => {
  await gateway.close()
})

/** Signs and sends a transaction from `account` and waits for its receipt, reverted or not. */
async function send(account: LocalAccount, transaction: { to: Hex; data?: Hex; value?: bigint; gas?: bigint }) {
  const wallet = createWalletClient({ account, chain: gateway.devnet.chain, transport: gateway.devnet.transport })
  const hash = await wallet.sendTransaction(transaction)
  await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
  return hash
}

async function decode(hash: string) {
  const response = await gateway.fetch(`${origin}/api/v1/tx/decode?hash=${hash}`)
  return { status: response.status, body: (await response.json()) as any }
}

const fresh = () => privateKeyToAccount(generatePrivateKey()).address
const usdc = () => gateway.devnet.token.address
const short = TxDecode.shorten

describe('GET /api/v1/tx/decode', () => {
  test('default: an ERC-20 transfer is one transfer and one sentence', async () => {
    const sender = gateway.account(1)
    const to = fresh()
    const hash = await send(sender, {
      to: usdc(),
      data: encode(erc20Abi, 'transfer', [to, 12_500_000n]),
    })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      hash,
      status: 'success',
      from: sender.address,
      to: usdc(),
      value: { raw: '0', formatted: '0' },
      call: {
        function: 'transfer',
        signature: 'transfer(address,uint256)',
        selector: '0xa9059cbb',
        args: [
          { name: 'to', type: 'address', value: to },
          { name: 'value', type: 'uint256', value: '12500000' },
        ],
      },
      transfers: [
        {
          standard: 'erc20',
          token: usdc(),
          symbol: 'USDC',
          decimals: 6,
          from: sender.address,
          to,
          amount: { raw: '12500000', formatted: '12.5' },
        },
      ],
    })
    expect(BigInt(body.fee.raw)).toBe(BigInt(body.fee.gasUsed) * BigInt(body.fee.effectiveGasPrice))
    expect(BigInt(body.fee.raw)).toBeGreaterThan(0n)
    expect(body.summary).toBe(`${short(sender.address)} sent 12.5 USDC to ${short(to)}; fee ${body.fee.formatted} ETH`)
  })

  test('behavior: a batch payment is its N transfers plus the fee, and the contract call decoded', async () => {
    const sender = gateway.account(2)
    const recipients = [fresh(), fresh(), fresh(), fresh()].map((address, index) => ({
      address,
      amount: 1_000_000n * BigInt(index + 1),
    }))
    const { fee, totalWithFee, total } = BatchPayment.totals({ recipients, feeBps: 30n })
    const batch = gateway.devnet.batch
    await send(sender, {
      to: usdc(),
      data: BatchPayment.approveCalldata({ spender: batch.address, amount: totalWithFee }),
    })
    const hash = await send(sender, {
      to: batch.address,
      data: BatchPayment.calldata({ token: { address: usdc(), isETH: false }, recipients }),
    })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body.call.function).toBe('sprayToken')
    expect(body.call.args[0].value).toBe(usdc())
    expect(body.call.args[1].value).toEqual(
      recipients.map(({ address, amount }) => ({ recipient: address, amount: amount.toString() })),
    )
    const moved = body.transfers.map((transfer: any) => [transfer.from, transfer.to, transfer.amount.raw])
    expect(moved).toEqual([
      ...recipients.map(({ address, amount }) => [sender.address, address, amount.toString()]),
      [sender.address, batch.feeRecipient, fee.toString()],
    ])
    const executed = body.events.find((event: any) => event.event === 'SprayTokenExecuted')
    expect(executed.args).toContainEqual({ name: 'feeAmount', type: 'uint256', value: fee.toString() })
    expect(executed.args).toContainEqual({ name: 'totalAmount', type: 'uint256', value: total.toString() })
    expect(body.summary).toBe(
      `${short(sender.address)} sent ${formatUnits(totalWithFee, 6)} USDC to 5 addresses in 5 transfers; fee ${body.fee.formatted} ETH`,
    )
  })

  test('behavior: an escrow deposit shows the deposit call, its event and the tokens moved into escrow', async () => {
    const depositor = gateway.account(3)
    const beneficiary = fresh()
    const escrow = gateway.devnet.escrow.address
    const id = toHex(crypto.getRandomValues(new Uint8Array(32)))
    await send(depositor, { to: usdc(), data: encode(erc20Abi, 'approve', [escrow, 2_000_000n]) })
    const expiry = BigInt(Math.floor(Date.now() / 1000) + 86_400)
    const hash = await send(depositor, {
      to: escrow,
      data: encode(Escrow.abi, 'deposit', [id, usdc(), 2_000_000n, beneficiary, depositor.address, expiry]),
    })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body.call.function).toBe('deposit')
    expect(body.call.args[0]).toEqual({ name: 'id', type: 'bytes32', value: id })
    expect(body.events.map((event: any) => event.event)).toContain('Deposited')
    expect(body.transfers).toMatchObject([
      { from: depositor.address, to: escrow, symbol: 'USDC', amount: { raw: '2000000', formatted: '2' } },
    ])
    expect(body.summary).toStartWith(`${short(depositor.address)} sent 2 USDC to ${short(escrow)}`)
  })

  test('behavior: the EIP-3009 settlement of a paid call is transferWithAuthorization and AuthorizationUsed', async () => {
    const payer = gateway.account(4)
    const response = await gateway.paid(payer, 'GET', '/api/v1/rpc/chains')
    expect(response.status).toBe(200)
    const receipt = JSON.parse(atob(response.headers.get('PAYMENT-RESPONSE')!))
    const { status, body } = await decode(receipt.transaction)
    expect(status).toBe(200)
    expect(body.call.function).toBe('transferWithAuthorization')
    expect(body.call.args[0]).toEqual({ name: 'from', type: 'address', value: payer.address })
    expect(body.events.map((event: any) => event.event)).toEqual(
      expect.arrayContaining(['AuthorizationUsed', 'Transfer']),
    )
    expect(body.transfers).toMatchObject([{ from: payer.address, to: gateway.terms.payTo, symbol: 'USDC' }])
    expect(body.from).not.toBe(payer.address)
  })

  test("behavior: a Uniswap v3 swap through SwapRouter02 is its multicall, the pool's Swap and both tokens moved", async () => {
    const trader = gateway.account(8)
    const router = gateway.devnet.uniswap.swapRouter02
    const weth = gateway.devnet.tokens.WETH!.address
    const recipient = fresh()
    await send(trader, { to: usdc(), data: encode(erc20Abi, 'approve', [router, 10_000_000n]) })
    const swap = encode(TxDecode.uniswapAbi, 'exactInputSingle', [
      {
        tokenIn: usdc(),
        tokenOut: weth,
        fee: 500,
        recipient,
        amountIn: 10_000_000n,
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: 0n,
      },
    ])
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600)
    const hash = await send(trader, { to: router, data: encode(TxDecode.uniswapAbi, 'multicall', [deadline, [swap]]) })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body.call).toMatchObject({ selector: '0x5ae401dc', function: 'multicall' })
    expect(body.call.args[0]).toEqual({ name: 'deadline', type: 'uint256', value: String(deadline) })
    // The summary says why, should the swap ever revert.
    expect({ status: body.status, summary: body.summary }).toMatchObject({ status: 'success' })
    expect(body.events.map((event: { event?: string }) => event.event)).toContain('Swap')
    const moved = body.transfers.map((transfer: any) => [transfer.symbol, transfer.from, transfer.to])
    expect(moved).toContainEqual(['USDC', trader.address, expect.any(String)])
    expect(moved).toContainEqual(['WETH', expect.any(String), recipient])
  })

  test('behavior: an unknown selector is shown as the selector only, never guessed', async () => {
    const hash = await send(gateway.account(5), { to: fresh(), data: '0xdeadbeef0000' })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body.call).toEqual({ selector: '0xdeadbeef' })
    expect(body.transfers).toEqual([])
    expect(body.summary).toContain('called unknown function 0xdeadbeef on')
  })

  test('behavior: a plain ether transfer has no call and says the ether', async () => {
    const sender = gateway.account(5)
    const to = fresh()
    const hash = await send(sender, { to, value: parseEther('1.5') })
    const { body } = await decode(hash)
    expect(body.call).toBeNull()
    expect(body.value).toEqual({ raw: '1500000000000000000', formatted: '1.5' })
    expect(body.summary).toBe(`${short(sender.address)} sent 1.5 ETH to ${short(to)}; fee ${body.fee.formatted} ETH`)
  })

  test('behavior: a reverted transaction is reverted, with its fee and no transfers', async () => {
    const sender = gateway.account(6)
    const hash = await send(sender, {
      to: gateway.devnet.escrow.address,
      data: Escrow.release({ id: toHex(crypto.getRandomValues(new Uint8Array(32))) }),
      gas: 100_000n,
    })
    const { status, body } = await decode(hash)
    expect(status).toBe(200)
    expect(body.status).toBe('reverted')
    expect(body.call.function).toBe('release')
    expect(body.transfers).toEqual([])
    expect(BigInt(body.fee.raw)).toBeGreaterThan(0n)
    expect(body.summary).toBe(
      `${short(sender.address)} called release on ${short(gateway.devnet.escrow.address)} and it reverted; fee ${body.fee.formatted} ETH`,
    )
  })

  test.each(['', '0x1234', `0x${'g'.repeat(64)}`, `0x${'a'.repeat(65)}`])(
    'error: a malformed hash (%p) is a 400 naming hash',
    async (hash) => {
      const response = await gateway.fetch(`${origin}/api/v1/tx/decode?hash=${hash}`)
      expect(response.status).toBe(400)
      expect(JSON.stringify(await response.json())).toContain('hash')
    },
  )

  test('error: no hash at all is a 400 naming hash', async () => {
    const response = await gateway.fetch(`${origin}/api/v1/tx/decode`)
    expect(response.status).toBe(400)
    expect(JSON.stringify(await response.json())).toContain('hash')
  })

  test("behavior: the original gateway's chain=base-mainnet is the settlement chain; another chain is a 400", async () => {
    const sender = gateway.account(1)
    const hash = await send(sender, { to: fresh(), value: 1n })
    const spelled = await gateway.fetch(`${origin}/api/v1/tx/decode?hash=${hash}&chain=base-mainnet`)
    expect(spelled.status).toBe(200)
    expect(((await spelled.json()) as any).hash).toBe(hash)
    const other = await gateway.fetch(`${origin}/api/v1/tx/decode?hash=${hash}&chain=ethereum`)
    expect(other.status).toBe(400)
    expect(((await other.json()) as any).field).toBe('chain')
  })

  test('error: a hash that does not exist is a 404', async () => {
    const { status, body } = await decode(`0x${'ab'.repeat(32)}` as Hash)
    expect(status).toBe(404)
    expect(body.code).toBe('not_found')
  })
})

describe('Service.decode', () => {
  test("behavior: a token's symbol and decimals are read once, then served from the cache", async () => {
    const calls: string[] = []
    const endpoint = eip1193({
      name: 'devnet',
      chainId: gateway.devnet.chainId,
      request: (method, params) => {
        calls.push(method)
        return gateway.devnet.request(method, params)
      },
    })
    const deps = Service.from({ endpoint, tokens: [] })
    const hash = await send(gateway.account(7), {
      to: usdc(),
      data: encode(erc20Abi, 'transfer', [fresh(), 1_000_000n]),
    })
    const first = await Service.decode(deps, { hash })
    const second = await Service.decode(deps, { hash })
    expect(second).toEqual(first)
    expect(first.summary).toContain('1 USDC')
    expect(calls.filter((method) => method === 'eth_call')).toHaveLength(1)
    expect(calls.filter((method) => method === 'eth_getTransactionReceipt')).toHaveLength(2)
  })
})

/** Calldata of `functionName(args)` in `abi`. */
function encode(abi: readonly unknown[], functionName: string, args: readonly unknown[]): Hex {
  return encodeFunctionData({ abi: abi as never, functionName, args } as never)
}
