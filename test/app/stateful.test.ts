import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createWalletClient, erc20Abi, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { origin, paidGateway } from '../support/paid.js'

// The stateful modules through the real paid flow on the devnet: the verified payer is the caller, another payer
// learns nothing and pays nothing, and the embedded store keeps everything across a restart.

const dataDir = mkdtempSync(join(tmpdir(), 'stateful-'))
let gateway: Awaited<ReturnType<typeof paidGateway>>

beforeAll(async () => {
  gateway = await paidGateway({ env: { DATA_DIR: dataDir, DEVNET_PERSIST: 'true' } })
})
afterAll(async () => {
  await gateway.close()
})

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as any }
}

/** Sends an unsigned transaction the gateway returned, signed by `account`, and waits for it. */
async function send(account: LocalAccount, transaction: { to: Hex; data: Hex; value: string }) {
  const wallet = createWalletClient({ account, chain: gateway.devnet.chain, transport: gateway.devnet.transport })
  const hash = await wallet.sendTransaction({
    to: transaction.to,
    data: transaction.data,
    value: BigInt(transaction.value),
  })
  const receipt = await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return hash
}

describe('escrow through the paid flow', () => {
  test('behavior: create, fund, release on chain; the beneficiary is paid exactly; outsiders learn nothing', async () => {
    const [depositor, beneficiary, outsider] = [gateway.account(1), gateway.account(2), gateway.account(3)]
    const amount = 2_500_000n
    const created = await json(
      await gateway.paid(depositor, 'POST', '/api/v1/escrow/create', {
        depositor: depositor.address,
        beneficiary: beneficiary.address,
        token: 'USDC',
        amount: '2.5',
      }),
    )
    expect(created.status).toBe(200)
    const { id, transactions } = created.body.escrow
    await send(depositor, transactions.approve)
    await send(depositor, transactions.deposit)

    expect(
      (await json(await gateway.paid(depositor, 'POST', '/api/v1/escrow/fund', { escrowId: id }))).body.status,
    ).toBe('active')

    const outsiderBefore = await gateway.balance(outsider.address)
    const peek = await gateway.paid(outsider, 'GET', `/api/v1/escrow/${id}`)
    expect(peek.status).toBe(404)
    expect(await gateway.balance(outsider.address)).toBe(outsiderBefore)
    const steal = await gateway.paid(outsider, 'POST', '/api/v1/escrow/release', {
      escrowId: id,
      caller: depositor.address,
    })
    expect(steal.status).toBe(403)
    expect(await gateway.balance(outsider.address)).toBe(outsiderBefore)

    const release = await json(
      await gateway.paid(depositor, 'POST', '/api/v1/escrow/release', { escrowId: id, caller: depositor.address }),
    )
    expect(release.status).toBe(200)
    const beneficiaryBefore = await gateway.balance(beneficiary.address)
    await send(depositor, release.body.transaction)
    expect(await gateway.balance(beneficiary.address)).toBe(beneficiaryBefore + amount)

    const read = await json(await gateway.paid(beneficiary, 'GET', `/api/v1/escrow?id=${id}`))
    expect(read.body.escrow.status).toBe('released')
  })
})

describe('invoices through the paid flow', () => {
  test('behavior: the invoice turns paid when its own transaction is sent; others get 404 and pay nothing', async () => {
    const [creator, customer, outsider] = [gateway.account(4), gateway.account(5), gateway.account(6)]
    const created = await json(
      await gateway.paid(creator, 'POST', '/api/v1/invoice/create', {
        creator: creator.address,
        token: 'USDC',
        amount: '1.234567',
      }),
    )
    expect(created.status).toBe(200)
    const invoice = created.body.invoice
    expect(invoice.status).toBe('open')
    await send(customer, invoice.transaction)

    const read = await json(await gateway.paid(creator, 'GET', `/api/v1/invoice/${invoice.id}`))
    expect(read.body.invoice.status).toBe('paid')

    const outsiderBefore = await gateway.balance(outsider.address)
    expect((await gateway.paid(outsider, 'GET', `/api/v1/invoice/${invoice.id}`)).status).toBe(404)
    expect((await gateway.paid(outsider, 'GET', `/api/v1/invoice/list?address=${creator.address}`)).status).toBe(403)
    expect(await gateway.balance(outsider.address)).toBe(outsiderBefore)
  })
})

describe('sessions, audit and logs through the paid flow', () => {
  test('behavior: a session only for the payer itself, verified offline', async () => {
    const [owner, other] = [gateway.account(7), gateway.account(8)]
    const session = await json(
      await gateway.paid(owner, 'POST', '/api/v1/auth/session', { address: owner.address, permissions: ['read'] }),
    )
    expect(session.status).toBe(200)
    const verified = await json(await gateway.paid(other, 'GET', `/api/v1/auth/verify?token=${session.body.token}`))
    expect(verified.body).toMatchObject({ valid: true, permissions: ['read'] })
    const before = await gateway.balance(other.address)
    expect((await gateway.paid(other, 'POST', '/api/v1/auth/session', { address: owner.address })).status).toBe(403)
    expect(await gateway.balance(other.address)).toBe(before)
  })

  test('behavior: audit and logs belong to their payer and survive a restart of the embedded store', async () => {
    const [actor, other] = [gateway.account(1), gateway.account(2)]
    const logged = await gateway.paid(actor, 'POST', '/api/v1/audit/log', {
      action: 'deploy',
      actor: actor.address,
      resource: 'service-a',
    })
    expect(logged.status).toBe(200)
    const ingested = await gateway.paid(actor, 'POST', '/api/v1/logs/ingest', {
      entries: [{ service: 'service-a', level: 'info', message: 'started' }],
    })
    expect(ingested.status).toBe(200)
    const othersView = await json(await gateway.paid(other, 'GET', '/api/v1/logs/query?service=service-a'))
    expect(othersView.body.total).toBe(0)

    await gateway.close()
    gateway = await paidGateway({ env: { DATA_DIR: dataDir, DEVNET_PERSIST: 'true' } })

    const audit = await json(await gateway.paid(actor, 'GET', '/api/v1/audit/query?action=deploy'))
    expect(audit.body.total).toBe(1)
    expect(audit.body.verification.valid).toBe(true)
    const logs = await json(await gateway.paid(actor, 'GET', '/api/v1/logs/query?service=service-a'))
    expect(logs.body.logs.map((log: { message: string }) => log.message)).toEqual(['started'])
  })
})

describe('batch payments through the paid flow', () => {
  test('behavior: 200 recipients paid in one transaction built from the answer, every amount and the fee exact', async () => {
    const sender = gateway.account(9)
    const recipients = Array.from({ length: 200 }, () => privateKeyToAccount(generatePrivateKey()).address)
    const amounts = recipients.map((_, index) => BigInt(1_000 + index))
    const answer = await json(
      await gateway.paid(sender, 'POST', '/api/v1/batch/execute', {
        token: 'USDC',
        recipients,
        amounts: amounts.map(String),
        sender: sender.address,
      }),
    )
    expect(answer.status).toBe(200)
    const { transaction, approvalRequired } = answer.body
    const total = amounts.reduce((sum, amount) => sum + amount, 0n)
    const fee = (total * 30n) / 10_000n
    expect(BigInt(approvalRequired.amount)).toBe(total + fee)
    const feeRecipient = gateway.devnet.batch.feeRecipient
    const feeBefore = await gateway.balance(feeRecipient)

    const wallet = createWalletClient({
      account: sender,
      chain: gateway.devnet.chain,
      transport: gateway.devnet.transport,
    })
    await gateway.devnet.publicClient.waitForTransactionReceipt({
      hash: await wallet.writeContract({
        address: approvalRequired.token,
        abi: erc20Abi,
        functionName: 'approve',
        args: [approvalRequired.spender, BigInt(approvalRequired.amount)],
      }),
    })
    const hash = await wallet.sendTransaction({
      to: transaction.to,
      data: transaction.data,
      value: BigInt(transaction.value),
      gas: BigInt(transaction.gasLimit),
    })
    expect((await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')

    const balances = await Promise.all(recipients.map((recipient) => gateway.balance(recipient)))
    expect(balances).toEqual(amounts)
    expect(await gateway.balance(feeRecipient)).toBe(feeBefore + fee)
  })

  test('error: 201 recipients and an unknown chain are 400 before any payment', async () => {
    const recipients = Array.from({ length: 201 }, () => privateKeyToAccount(generatePrivateKey()).address)
    const body = { token: 'USDC', recipients, amounts: recipients.map(() => '1'), sender: gateway.account(9).address }
    const tooMany = await gateway.fetch(
      new Request(`${origin}/api/v1/batch/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    )
    expect(tooMany.status).toBe(400)
    const chain = await gateway.fetch(
      new Request(`${origin}/api/v1/batch/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, recipients: recipients.slice(0, 2), amounts: ['1', '1'], chain: 'ethereum' }),
      }),
    )
    expect(chain.status).toBe(400)
    expect(chain.headers.get('payment-required')).toBeNull()
  })
})
