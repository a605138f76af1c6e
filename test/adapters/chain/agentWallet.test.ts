import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Address,
  createWalletClient,
  decodeErrorResult,
  decodeEventLog,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  parseUnits,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as AgentWallet from '../../../adapters/chain/agentWallet.js'
import entryPointJson from '../../../adapters/chain/contracts/artifacts/account-abstraction/EntryPoint.json' with {
  type: 'json',
}
import type { PublishedArtifact } from '../../../adapters/chain/contracts/published.js'
import { type devnet as Devnet, devnet } from '../../../adapters/chain/devnet.js'
import * as Typed from '../../../core/AgentWallet.js'

const entryPointAbi = (entryPointJson as unknown as PublishedArtifact).abi
const { agentAccount, agentAccountFactory } = AgentWallet

let chain: Devnet.Devnet
let owner: ReturnType<typeof privateKeyToAccount>
let bundler: ReturnType<typeof createWalletClient>
let account: Address
let usdc: Address
let dai: Address
const recipient = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  chain = await devnet({ accountCount: 3 })
  owner = privateKeyToAccount(chain.accounts[0]!.privateKey)
  bundler = createWalletClient({
    account: privateKeyToAccount(chain.accounts[1]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
  usdc = chain.tokens.USDC!.address
  dai = chain.tokens.DAI!.address
})

afterAll(() => chain.close())

/** Sends a transaction from the bundler with a fixed gas limit (no estimate) and returns its receipt. */
async function send(to: Address, data: Hex) {
  const hash = await bundler.sendTransaction({
    to,
    data,
    gas: 5_000_000n,
    account: bundler.account!,
    chain: chain.chain,
  })
  return chain.publicClient.waitForTransactionReceipt({ hash })
}

/** A packed v0.7 user operation from `account` with `callData`, signed by `sign` over its hash. */
async function userOperation(callData: Hex, sign: (hash: Hex) => Promise<Hex>) {
  const nonce = (await chain.publicClient.readContract({
    address: chain.wallet.entryPoint,
    abi: entryPointAbi,
    functionName: 'getNonce',
    args: [account, 0n],
  })) as bigint
  const block = await chain.publicClient.getBlock()
  const pack = (high: bigint, low: bigint) => toHex((high << 128n) | low, { size: 32 })
  const op = {
    sender: account,
    nonce,
    initCode: '0x' as Hex,
    callData,
    accountGasLimits: pack(500_000n, 500_000n),
    preVerificationGas: 60_000n,
    gasFees: pack(1n, block.baseFeePerGas! * 2n + 1n),
    paymasterAndData: '0x' as Hex,
    signature: '0x' as Hex,
  }
  const hash = (await chain.publicClient.readContract({
    address: chain.wallet.entryPoint,
    abi: entryPointAbi,
    functionName: 'getUserOpHash',
    args: [op],
  })) as Hex
  return { ...op, signature: await sign(hash) }
}

/** Sends `handleOps([op])` from the bundler: the receipt, and the UserOperationEvent's success when one was emitted. */
async function handleOps(op: Awaited<ReturnType<typeof userOperation>>) {
  const data = encodeFunctionData({
    abi: entryPointAbi,
    functionName: 'handleOps',
    args: [[op], bundler.account!.address],
  })
  let refusal: string | undefined
  // The EntryPoint's refusal, decoded (`FailedOp(opIndex, reason)`), as a bundler's simulation sees it.
  await chain.publicClient
    .simulateContract({
      address: chain.wallet.entryPoint,
      abi: entryPointAbi,
      functionName: 'handleOps',
      args: [[op], bundler.account!.address],
      account: bundler.account!,
    })
    .catch((error: Error) => (refusal = error.message))
  const receipt = await send(chain.wallet.entryPoint, data)
  const events = receipt.logs
    .filter((log) => log.address.toLowerCase() === chain.wallet.entryPoint.toLowerCase())
    .map((log) => decodeEventLog({ abi: entryPointAbi, ...log, strict: false }))
  const event = events.find((item) => item.eventName === 'UserOperationEvent') as
    | { args: { success: boolean } }
    | undefined
  return { status: receipt.status, success: event?.args.success, refusal, events }
}

const sessionKey = () => privateKeyToAccount(generatePrivateKey())
const signBy = (key: ReturnType<typeof sessionKey>) => async (hash: Hex) =>
  AgentWallet.sessionSignature({ key: key.address, signature: await key.signMessage({ message: { raw: hash } }) })

async function nonceOf(): Promise<bigint> {
  return (await chain.publicClient.readContract({
    address: account,
    abi: agentAccount.abi,
    functionName: 'authorizationNonce',
  })) as bigint
}

/** The owner authorises `key` and the bundler submits it. */
async function addKey(
  key: Address,
  terms: { validUntil: number; period: number; tokens: Address[]; limits: bigint[] },
) {
  const signature = await owner.signTypedData({
    domain: Typed.domain({ account, chainId: chain.chainId }),
    types: Typed.addSessionKeyTypes,
    primaryType: 'AddSessionKey',
    message: { key, ...terms, nonce: await nonceOf() },
  })
  const args = [key, terms.validUntil, terms.period, terms.tokens, terms.limits, signature] as const
  return {
    receipt: await send(account, encodeFunctionData({ abi: agentAccount.abi, functionName: 'addSessionKey', args })),
    signature,
    args,
  }
}

async function balance(token: Address, holder: Address): Promise<bigint> {
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
}

const usd = (amount: string) => parseUnits(amount, 6)

describe('AgentAccount on the devnet through EntryPoint v0.7', () => {
  test('default: the factory deploys at the address computed off chain and by getAddress', async () => {
    const predicted = AgentWallet.accountAddress({
      factory: chain.wallet.accountFactory,
      entryPoint: chain.wallet.entryPoint,
      owner: owner.address,
      salt: 0n,
    })
    const onChain = await chain.publicClient.readContract({
      address: chain.wallet.accountFactory,
      abi: agentAccountFactory.abi,
      functionName: 'getAddress',
      args: [owner.address, 0n],
    })
    expect(onChain).toBe(predicted)
    expect(await chain.publicClient.getCode({ address: predicted })).toBeUndefined()
    const receipt = await send(
      chain.wallet.accountFactory,
      encodeFunctionData({ abi: agentAccountFactory.abi, functionName: 'createAccount', args: [owner.address, 0n] }),
    )
    expect(receipt.status).toBe('success')
    expect((await chain.publicClient.getCode({ address: predicted }))?.length).toBeGreaterThan(2)
    expect(
      await chain.publicClient.readContract({ address: predicted, abi: agentAccount.abi, functionName: 'owner' }),
    ).toBe(owner.address)
    account = predicted
    // Another salt is another account.
    expect(
      AgentWallet.accountAddress({
        factory: chain.wallet.accountFactory,
        entryPoint: chain.wallet.entryPoint,
        owner: owner.address,
        salt: 1n,
      }),
    ).not.toBe(predicted)
    // Gas for the user operations' prefund, and tokens to spend.
    const ownerWallet = createWalletClient({ account: owner, chain: chain.chain, transport: chain.transport })
    await chain.publicClient.waitForTransactionReceipt({
      hash: await ownerWallet.sendTransaction({ to: account, value: 10n ** 18n }),
    })
    for (const [token, amount] of [
      [usdc, usd('100')],
      [dai, parseUnits('100', 18)],
    ] as const)
      await chain.publicClient.waitForTransactionReceipt({
        hash: await ownerWallet.writeContract({
          address: token,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [account, amount],
        }),
      })
  })

  test('behavior: an owner-signed user operation executes anything', async () => {
    const op = await userOperation(
      AgentWallet.transferCallData({ token: dai, to: recipient, amount: parseUnits('1', 18) }),
      (hash) => owner.signMessage({ message: { raw: hash } }),
    )
    const result = await handleOps(op)
    expect(result).toMatchObject({ status: 'success', success: true })
    expect(await balance(dai, recipient)).toBe(parseUnits('1', 18))
  })

  test('behavior: a session key transfers within its limit, and its period total is enforced on chain', async () => {
    const key = sessionKey()
    const now = Number((await chain.publicClient.getBlock()).timestamp)
    const { receipt } = await addKey(key.address, {
      validUntil: now + 3600,
      period: 86_400,
      tokens: [usdc],
      limits: [usd('10')],
    })
    expect(receipt.status).toBe('success')
    const transfer = (amount: bigint) =>
      userOperation(AgentWallet.transferCallData({ token: usdc, to: recipient, amount }), signBy(key))

    expect(await handleOps(await transfer(usd('6')))).toMatchObject({ status: 'success', success: true })
    expect(await balance(usdc, recipient)).toBe(usd('6'))
    const [remaining] = (await chain.publicClient.readContract({
      address: account,
      abi: agentAccount.abi,
      functionName: 'remaining',
      args: [key.address, usdc],
    })) as [bigint, bigint]
    expect(remaining).toBe(usd('4'))

    // 6 + 5 > 10: validation passes (5 fits the limit), execution refuses it: the operation reverts, nothing moves.
    const over = await handleOps(await transfer(usd('5')))
    expect(over).toMatchObject({ status: 'success', success: false })
    const reason = over.events.find((event) => event.eventName === 'UserOperationRevertReason') as
      | { args: { revertReason: Hex } }
      | undefined
    expect(decodeErrorResult({ abi: agentAccount.abi, data: reason!.args.revertReason })).toMatchObject({
      errorName: 'OverLimit',
      args: [usdc, usd('4'), usd('5')],
    })
    expect(await balance(usdc, recipient)).toBe(usd('6'))

    // More than the whole limit at once: refused in validation, handleOps itself reverts.
    const whole = await handleOps(await transfer(usd('11')))
    expect(whole.status).toBe('reverted')
    expect(whole.refusal).toContain('AA24 signature error')

    // Another token: the key has no limit for DAI, refused in validation.
    const other = await handleOps(
      await userOperation(AgentWallet.transferCallData({ token: dai, to: recipient, amount: 1n }), signBy(key)),
    )
    expect(other.status).toBe('reverted')
    expect(other.refusal).toContain('AA24 signature error')

    // Anything but a transfer, e.g. an approve of the limited token: refused.
    const approve = await handleOps(
      await userOperation(
        AgentWallet.executeCallData({
          target: usdc,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [recipient, 1n] }),
        }),
        signBy(key),
      ),
    )
    expect(approve.refusal).toContain('AA24 signature error')

    // The rest of the limit still goes through.
    expect(await handleOps(await transfer(usd('4')))).toMatchObject({ status: 'success', success: true })
    expect(await balance(usdc, recipient)).toBe(usd('10'))
  })

  test('behavior: a revoked session key is refused from the next block on', async () => {
    const key = sessionKey()
    const now = Number((await chain.publicClient.getBlock()).timestamp)
    await addKey(key.address, { validUntil: now + 3600, period: 3600, tokens: [usdc], limits: [usd('10')] })
    const transfer = () =>
      userOperation(AgentWallet.transferCallData({ token: usdc, to: recipient, amount: 1n }), signBy(key))
    expect(await handleOps(await transfer())).toMatchObject({ status: 'success', success: true })
    const before = await transfer()
    const signature = await owner.signTypedData({
      domain: Typed.domain({ account, chainId: chain.chainId }),
      types: Typed.revokeSessionKeyTypes,
      primaryType: 'RevokeSessionKey',
      message: { key: key.address, nonce: await nonceOf() },
    })
    const revoked = await send(
      account,
      encodeFunctionData({ abi: agentAccount.abi, functionName: 'revokeSessionKey', args: [key.address, signature] }),
    )
    expect(revoked.status).toBe('success')
    const result = await handleOps(before)
    expect(result.status).toBe('reverted')
    expect(result.refusal).toContain('AA24 signature error')
  })

  test('behavior: a session key past its expiry is refused by the EntryPoint', async () => {
    const key = sessionKey()
    const now = Number((await chain.publicClient.getBlock()).timestamp)
    await addKey(key.address, { validUntil: now + 60, period: 3600, tokens: [usdc], limits: [usd('10')] })
    const transfer = () =>
      userOperation(AgentWallet.transferCallData({ token: usdc, to: recipient, amount: 1n }), signBy(key))
    expect(await handleOps(await transfer())).toMatchObject({ status: 'success', success: true })
    await chain.request('evm_setNextBlockTimestamp', [toHex(now + 61)])
    await chain.request('evm_mine', [])
    const expired = await handleOps(await transfer())
    expect(expired.status).toBe('reverted')
    expect(expired.refusal).toContain('AA22 expired or not due')
  })

  test('errors: an authorization not signed by the owner, or replayed, is refused', async () => {
    const key = sessionKey()
    const now = Number((await chain.publicClient.getBlock()).timestamp)
    const terms = { validUntil: now + 3600, period: 3600, tokens: [usdc], limits: [usd('1')] }
    const { receipt, args } = await addKey(key.address, terms)
    expect(receipt.status).toBe('success')
    // Replayed: the nonce it signed is used.
    const replay = await send(
      account,
      encodeFunctionData({ abi: agentAccount.abi, functionName: 'addSessionKey', args }),
    )
    expect(replay.status).toBe('reverted')
    // Signed by someone else.
    const stranger = sessionKey()
    const forged = await stranger.signTypedData({
      domain: Typed.domain({ account, chainId: chain.chainId }),
      types: Typed.addSessionKeyTypes,
      primaryType: 'AddSessionKey',
      message: { key: stranger.address, ...terms, nonce: await nonceOf() },
    })
    const refused = await send(
      account,
      encodeFunctionData({
        abi: agentAccount.abi,
        functionName: 'addSessionKey',
        args: [stranger.address, terms.validUntil, terms.period, terms.tokens, terms.limits, forged],
      }),
    )
    expect(refused.status).toBe('reverted')
  })
})
