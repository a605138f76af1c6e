import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authorizationTypes, eip3009ABI } from '@x402/evm'
import {
  type Address,
  createWalletClient,
  decodeFunctionResult,
  domainSeparator,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  multicall3Abi,
  type PrivateKeyAccount,
  parseAbi,
  parseEther,
  parseEventLogs,
  parseSignature,
  toHex,
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import escrowArtifact from '../../../adapters/chain/contracts/artifacts/Escrow.json' with { type: 'json' }
import multicall3Artifact from '../../../adapters/chain/contracts/artifacts/Multicall3.json' with { type: 'json' }
import { contracts, deployerIndex, devnet, mnemonic, multicall3Address } from '../../../adapters/chain/devnet.js'
import { aggregatorV3Abi } from '../../../adapters/chain/priceFeeds.js'

// Human-readable signatures on purpose: a call only succeeds if the contract has exactly this function.
const tokenAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function version() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 amount) returns (bool)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function owner() view returns (address)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function nonces(address owner) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, bytes signature)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
])

const secp256k1Order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

let chain: devnet.Devnet
let startupMs = 0

beforeAll(async () => {
  const start = performance.now()
  chain = await devnet()
  startupMs = performance.now() - start
})

afterAll(async () => {
  await chain.close()
})

/** The account that deploys the devnet's contracts. */
function deriveDeployer(): Address {
  return mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }).address
}

function now(): bigint {
  return BigInt(Math.floor(Date.now() / 1000))
}

function randomNonce(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)))
}

function signer(index: number): PrivateKeyAccount {
  return privateKeyToAccount(chain.accounts[index]!.privateKey)
}

function wallet(account: PrivateKeyAccount) {
  return createWalletClient({ account, chain: chain.chain, transport: chain.transport })
}

function balanceOf(address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: tokenAbi,
    functionName: 'balanceOf',
    args: [address],
  })
}

function domain() {
  return {
    name: chain.token.name,
    version: chain.token.version,
    chainId: chain.chainId,
    verifyingContract: chain.token.address,
  }
}

/** An EIP-3009 authorization signed by `from` with viem's signTypedData, as x402 clients build it. */
async function authorize(parameters: {
  from: PrivateKeyAccount
  to: Address
  value: bigint
  validAfter?: bigint
  validBefore?: bigint
  primaryType?: 'TransferWithAuthorization' | 'ReceiveWithAuthorization'
}) {
  const {
    from,
    to,
    value,
    validAfter = now() - 600n,
    validBefore = now() + 3600n,
    primaryType = 'TransferWithAuthorization',
  } = parameters
  const message = { from: from.address, to, value, validAfter, validBefore, nonce: randomNonce() }
  const types = { [primaryType]: authorizationTypes.TransferWithAuthorization } as const
  const signature = await from.signTypedData({ domain: domain(), types, primaryType, message })
  const { r, s, v } = parseSignature(signature)
  const args = [
    message.from,
    message.to,
    message.value,
    message.validAfter,
    message.validBefore,
    message.nonce,
    Number(v),
    r,
    s,
  ] as const
  return { message, signature, args }
}

describe('devnet', () => {
  test('default', async () => {
    console.info(`devnet start-up: ${startupMs.toFixed(0)} ms`)
    expect(chain.chainId).toBe(84_532)
    expect(await chain.publicClient.getChainId()).toBe(84_532)
    expect(await chain.request('eth_chainId')).toBe('0x14a34')
    expect(chain.token).toEqual({
      address: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
      name: 'USD Coin',
      version: '2',
      decimals: 6,
    })
    expect(chain.accounts).toHaveLength(10)
    expect(chain.accounts.slice(0, 2)).toEqual([
      {
        address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      },
      {
        address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      },
    ])
  })

  test("behavior: Escrow is deployed at the deployer's second address, after the token", async () => {
    expect(chain.escrow).toEqual({ address: '0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404' })
    const deployer = deriveDeployer()
    expect(chain.escrow.address).toBe(getContractAddress({ from: deployer, nonce: 1n }))
    expect(chain.token.address).toBe(getContractAddress({ from: deployer, nonce: 0n }))
    expect(await chain.publicClient.getCode({ address: chain.escrow.address })).toBe(
      escrowArtifact.deployedBytecode as Hex,
    )
  })

  test('behavior: the token reads like USDC', async () => {
    const read = <name extends 'name' | 'symbol' | 'version' | 'decimals'>(functionName: name) =>
      chain.publicClient.readContract({ address: chain.token.address, abi: tokenAbi, functionName })
    expect(await read('name')).toBe('USD Coin')
    expect(await read('symbol')).toBe('USDC')
    expect(await read('version')).toBe('2')
    expect(await read('decimals')).toBe(6)
  })

  test('behavior: every account starts with 10,000 ETH and 1,000,000 USDC', async () => {
    for (const { address } of chain.accounts.slice(0, 2)) {
      expect(await chain.publicClient.getBalance({ address })).toBe(parseEther('10000'))
      expect(await balanceOf(address)).toBe(1_000_000_000_000n)
    }
  })

  test('behavior: transferWithAuthorization signed by account 1 and submitted by account 2 moves exactly the value', async () => {
    const payer = signer(1)
    const relayer = signer(2)
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const value = 1_234_567n
    const { message, args } = await authorize({ from: payer, to: payee, value })
    const payerBefore = await balanceOf(payer.address)
    const relayerBefore = await balanceOf(relayer.address)
    const stateOf = () =>
      chain.publicClient.readContract({
        address: chain.token.address,
        abi: eip3009ABI,
        functionName: 'authorizationState',
        args: [payer.address, message.nonce],
      })
    expect(await stateOf()).toBe(false)

    // The exact ABI and signature form the x402 facilitator uses.
    const hash = await wallet(relayer).writeContract({
      address: chain.token.address,
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args,
    })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })

    expect(receipt.status).toBe('success')
    expect(await balanceOf(payee)).toBe(value)
    expect(await balanceOf(payer.address)).toBe(payerBefore - value)
    expect(await balanceOf(relayer.address)).toBe(relayerBefore)
    expect(await stateOf()).toBe(true)
    const events = parseEventLogs({ abi: tokenAbi, logs: receipt.logs }).map(({ eventName, args }) => ({
      eventName,
      args,
    }))
    expect(events).toEqual([
      { eventName: 'AuthorizationUsed', args: { authorizer: payer.address, nonce: message.nonce } },
      { eventName: 'Transfer', args: { from: payer.address, to: payee, value } },
    ])
  })

  test('behavior: transferWithAuthorization accepts the packed bytes signature too', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { message, signature } = await authorize({ from: signer(3), to: payee, value: 10n })
    const hash = await wallet(signer(2)).writeContract({
      address: chain.token.address,
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args: [
        message.from,
        message.to,
        message.value,
        message.validAfter,
        message.validBefore,
        message.nonce,
        signature,
      ],
    })
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(payee)).toBe(10n)
  })

  test('error: the same authorization a second time reverts', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { args } = await authorize({ from: signer(1), to: payee, value: 5n })
    const submit = {
      address: chain.token.address,
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args,
    } as const
    const first = await wallet(signer(2)).writeContract(submit)
    expect((await chain.publicClient.waitForTransactionReceipt({ hash: first })).status).toBe('success')

    await expect(chain.publicClient.simulateContract({ ...submit, account: signer(2) })).rejects.toThrow(
      'FiatTokenV2: authorization is used or canceled',
    )
    // Sent anyway (fixed gas skips estimation): mined and reverted, nothing moves a second time.
    const second = await wallet(signer(2)).writeContract({ ...submit, gas: 200_000n })
    expect((await chain.publicClient.waitForTransactionReceipt({ hash: second })).status).toBe('reverted')
    expect(await balanceOf(payee)).toBe(5n)
  })

  test('error: an expired authorization reverts', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { args } = await authorize({ from: signer(1), to: payee, value: 5n, validAfter: 0n, validBefore: now() - 1n })
    await expect(
      chain.publicClient.simulateContract({
        address: chain.token.address,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
        account: signer(2),
      }),
    ).rejects.toThrow('FiatTokenV2: authorization is expired')
  })

  test('error: an authorization not yet valid reverts', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { args } = await authorize({ from: signer(1), to: payee, value: 5n, validAfter: now() + 600n })
    await expect(
      chain.publicClient.simulateContract({
        address: chain.token.address,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
        account: signer(2),
      }),
    ).rejects.toThrow('FiatTokenV2: authorization is not yet valid')
  })

  test('error: a signature by someone else, a changed amount or a malleable s is refused', async () => {
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { args } = await authorize({ from: signer(1), to: payee, value: 5n })
    const simulate = (argsOverride: typeof args) =>
      chain.publicClient.simulateContract({
        address: chain.token.address,
        abi: tokenAbi,
        functionName: 'transferWithAuthorization',
        args: argsOverride,
        account: signer(2),
      })
    const [from, to, value, validAfter, validBefore, nonce, v, r, s] = args
    await expect(simulate([signer(4).address, to, value, validAfter, validBefore, nonce, v, r, s])).rejects.toThrow(
      'FiatTokenV2: invalid signature',
    )
    await expect(simulate([from, to, value + 1n, validAfter, validBefore, nonce, v, r, s])).rejects.toThrow(
      'FiatTokenV2: invalid signature',
    )
    // (r, n - s, flipped v) recovers the same signer; EIP-2 says only the lower-s form is valid.
    const highS = toHex(secp256k1Order - BigInt(s), { size: 32 })
    await expect(
      simulate([from, to, value, validAfter, validBefore, nonce, v === 27 ? 28 : 27, r, highS]),
    ).rejects.toThrow("ECRecover: invalid signature 's' value")
  })

  test('behavior: receiveWithAuthorization must be sent by the payee', async () => {
    const payee = signer(5)
    const { args } = await authorize({
      from: signer(1),
      to: payee.address,
      value: 7n,
      primaryType: 'ReceiveWithAuthorization',
    })
    const submit = {
      address: chain.token.address,
      abi: tokenAbi,
      functionName: 'receiveWithAuthorization',
      args,
    } as const
    await expect(chain.publicClient.simulateContract({ ...submit, account: signer(2) })).rejects.toThrow(
      'FiatTokenV2: caller must be the payee',
    )
    const before = await balanceOf(payee.address)
    const hash = await wallet(payee).writeContract(submit)
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(payee.address)).toBe(before + 7n)
  })

  test('behavior: cancelAuthorization burns the nonce', async () => {
    const payer = signer(1)
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const { message, args } = await authorize({ from: payer, to: payee, value: 5n })
    const cancel = parseSignature(
      await payer.signTypedData({
        domain: domain(),
        types: {
          CancelAuthorization: [
            { name: 'authorizer', type: 'address' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'CancelAuthorization',
        message: { authorizer: payer.address, nonce: message.nonce },
      }),
    )
    const hash = await wallet(signer(2)).writeContract({
      address: chain.token.address,
      abi: tokenAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, message.nonce, Number(cancel.v), cancel.r, cancel.s],
    })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash })
    expect(parseEventLogs({ abi: tokenAbi, logs: receipt.logs, eventName: 'AuthorizationCanceled' })).toHaveLength(1)
    await expect(
      chain.publicClient.simulateContract({
        address: chain.token.address,
        abi: eip3009ABI,
        functionName: 'transferWithAuthorization',
        args,
        account: signer(2),
      }),
    ).rejects.toThrow('FiatTokenV2: authorization is used or canceled')
  })

  test('behavior: permit sets an allowance that transferFrom spends', async () => {
    const holder = signer(6)
    const spender = signer(7)
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    const value = 2_500_000n
    const deadline = now() + 3600n
    const nonce = await chain.publicClient.readContract({
      address: chain.token.address,
      abi: tokenAbi,
      functionName: 'nonces',
      args: [holder.address],
    })
    const { v, r, s } = parseSignature(
      await holder.signTypedData({
        domain: domain(),
        types: {
          Permit: [
            { name: 'owner', type: 'address' },
            { name: 'spender', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'nonce', type: 'uint256' },
            { name: 'deadline', type: 'uint256' },
          ],
        },
        primaryType: 'Permit',
        message: { owner: holder.address, spender: spender.address, value, nonce, deadline },
      }),
    )
    const client = wallet(spender)
    await chain.publicClient.waitForTransactionReceipt({
      hash: await client.writeContract({
        address: chain.token.address,
        abi: tokenAbi,
        functionName: 'permit',
        args: [holder.address, spender.address, value, deadline, Number(v), r, s],
      }),
    })
    const read = (functionName: 'allowance' | 'nonces') =>
      functionName === 'allowance'
        ? chain.publicClient.readContract({
            address: chain.token.address,
            abi: tokenAbi,
            functionName,
            args: [holder.address, spender.address],
          })
        : chain.publicClient.readContract({
            address: chain.token.address,
            abi: tokenAbi,
            functionName,
            args: [holder.address],
          })
    expect(await read('allowance')).toBe(value)
    expect(await read('nonces')).toBe(nonce + 1n)

    await chain.publicClient.waitForTransactionReceipt({
      hash: await client.writeContract({
        address: chain.token.address,
        abi: tokenAbi,
        functionName: 'transferFrom',
        args: [holder.address, recipient, value],
      }),
    })
    expect(await balanceOf(recipient)).toBe(value)
    expect(await read('allowance')).toBe(0n)
  })

  test('behavior: the EIP-712 domain separator uses the current chain id and address', async () => {
    const separator = await chain.publicClient.readContract({
      address: chain.token.address,
      abi: tokenAbi,
      functionName: 'DOMAIN_SEPARATOR',
    })
    expect(separator).toBe(domainSeparator({ domain: domain() }))
  })

  test('behavior: handleJsonRpc serves single and batch requests over HTTP', async () => {
    const post = (body: string) =>
      chain.handleJsonRpc(
        new Request('http://127.0.0.1:8545/', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }),
      )

    const single = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))
    expect(single.status).toBe(200)
    expect(single.headers.get('content-type')).toBe('application/json')
    expect(await single.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x14a34' })

    const batch = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 'b', method: 'net_version', params: [] },
        { jsonrpc: '2.0', id: 'c', method: 'no_such_method', params: [] },
        { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      ]),
    )
    const answers = (await batch.json()) as { id: string; result?: unknown; error?: { code: number } }[]
    expect(answers.map(({ id }) => id)).toEqual(['a', 'b', 'c'])
    expect(answers[0]!.result).toBe('0x14a34')
    expect(answers[1]!.result).toBe('84532')
    expect(answers[2]!.error?.code).toBe(-32004)

    expect(await (await post('{not json')).json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    })
    expect(await (await post('[]')).json()).toMatchObject({ id: null, error: { code: -32600 } })
    expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }))).status).toBe(204)

    const preflight = await chain.handleJsonRpc(new Request('http://127.0.0.1:8545/', { method: 'OPTIONS' }))
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect((await chain.handleJsonRpc(new Request('http://127.0.0.1:8545/'))).status).toBe(405)
  })

  test('behavior: handleJsonRpc answers reverts like a node (code 3, reason, data)', async () => {
    const response = await chain.handleJsonRpc(
      new Request('http://127.0.0.1:8545/', {
        method: 'POST',
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [
            {
              from: chain.accounts[1]!.address,
              to: chain.token.address,
              data: encodeFunctionData({ abi: tokenAbi, functionName: 'mint', args: [chain.accounts[1]!.address, 1n] }),
            },
            'latest',
          ],
        }),
      }),
    )
    expect(await response.json()).toMatchObject({
      id: 1,
      error: {
        code: 3,
        message: 'execution reverted: DevUSDC: caller is not the owner',
        data: expect.stringMatching(/^0x08c379a0/),
      },
    })
  })

  test('behavior: Multicall3 is at its canonical address from genesis and aggregate3 batches calls', async () => {
    expect(multicall3Address).toBe('0xcA11bde05977b3631167028862bE2a173976CA11')
    expect(await chain.publicClient.getCode({ address: multicall3Address })).toBe(
      multicall3Artifact.deployedBytecode as Hex,
    )

    const holder = chain.accounts[3]!.address
    const balanceCall = encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [holder] })
    const mintCall = encodeFunctionData({ abi: tokenAbi, functionName: 'mint', args: [holder, 1n] })
    // viem's Multicall3 ABI declares aggregate3 `view`, so an eth_call reads it.
    const result = await chain.publicClient.readContract({
      address: multicall3Address,
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [
        [
          { target: chain.token.address, allowFailure: false, callData: balanceCall },
          { target: chain.token.address, allowFailure: true, callData: mintCall },
        ],
      ],
    })
    expect(result[0]!.success).toBe(true)
    expect(decodeFunctionResult({ abi: tokenAbi, functionName: 'balanceOf', data: result[0]!.returnData })).toBe(
      await balanceOf(holder),
    )
    // Only the token's owner mints; the failure comes back as data, with the token's revert reason.
    expect(result[1]).toEqual({ success: false, returnData: expect.stringMatching(/^0x08c379a0/) })

    await expect(
      chain.publicClient.readContract({
        address: multicall3Address,
        abi: multicall3Abi,
        functionName: 'aggregate3',
        args: [[{ target: chain.token.address, allowFailure: false, callData: mintCall }]],
      }),
    ).rejects.toThrow('Multicall3: call failed')

    // viem finds it through `chain.contracts.multicall3`.
    const [timestamp, ether] = await chain.publicClient.multicall({
      allowFailure: false,
      contracts: [
        { address: multicall3Address, abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp' },
        { address: multicall3Address, abi: multicall3Abi, functionName: 'getEthBalance', args: [holder] },
      ],
    })
    expect(Number(timestamp)).toBeGreaterThanOrEqual(Number(now()) - 3)
    expect(ether).toBe(await chain.publicClient.getBalance({ address: holder }))
  })

  test('behavior: Multicall3 answers tryAggregate and getBlockNumber as @x402/evm reads them', async () => {
    const abi = parseAbi([
      'struct Call { address target; bytes callData; }',
      'struct Result { bool success; bytes returnData; }',
      // `view` here (the contract's is payable) so that readContract accepts it, as @x402/evm calls it.
      'function tryAggregate(bool requireSuccess, Call[] calls) view returns (Result[] returnData)',
      'function getBlockNumber() view returns (uint256 blockNumber)',
    ])
    const callData = encodeFunctionData({ abi: tokenAbi, functionName: 'name' })
    const results = await chain.publicClient.readContract({
      address: multicall3Address,
      abi,
      functionName: 'tryAggregate',
      args: [
        false,
        [
          { target: chain.token.address, callData },
          { target: chain.token.address, callData: '0xdeadbeef' },
        ],
      ],
    })
    expect(decodeFunctionResult({ abi: tokenAbi, functionName: 'name', data: results[0]!.returnData })).toBe('USD Coin')
    expect(results[1]!.success).toBe(false)
    // A call at latest runs in the next block (at the wall clock), as a transaction sent now would.
    expect(
      await chain.publicClient.readContract({ address: multicall3Address, abi, functionName: 'getBlockNumber' }),
    ).toBe((await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n)
  })

  test('behavior: fund mints devnet USDC, also concurrently', async () => {
    const recipients = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()).address)
    const hashes = await Promise.all(
      recipients.map((address, index) => chain.fund({ address, amount: BigInt(index + 1) * 1_000_000n })),
    )
    expect(new Set(hashes).size).toBe(5)
    for (const [index, address] of recipients.entries())
      expect(await balanceOf(address)).toBe(BigInt(index + 1) * 1_000_000n)
  })

  test('error: only the deployer mints', async () => {
    await expect(
      chain.publicClient.simulateContract({
        address: chain.token.address,
        abi: tokenAbi,
        functionName: 'mint',
        args: [chain.accounts[1]!.address, 1n],
        account: signer(1),
      }),
    ).rejects.toThrow('DevUSDC: caller is not the owner')
  })

  test('behavior: block timestamps follow wall-clock time under a burst of transactions', async () => {
    const client = wallet(signer(8))
    for (let index = 0; index < 20; index++) await client.sendTransaction({ to: chain.accounts[9]!.address, value: 1n })
    const block = await chain.publicClient.getBlock()
    expect(Number(block.timestamp)).toBeLessThanOrEqual(Number(now()))
    expect(Number(block.timestamp)).toBeGreaterThanOrEqual(Number(now()) - 2)
  })
})

describe('devnet: the clock', () => {
  const opened: devnet.Devnet[] = []

  afterAll(async () => {
    for (const other of opened) await other.close()
  })

  async function start(parameters: devnet.Parameters): Promise<devnet.Devnet> {
    const other = await devnet(parameters)
    opened.push(other)
    return other
  }

  function journalPath(): string {
    return join(mkdtempSync(join(tmpdir(), 'devnet-clock-')), 'devnet.journal')
  }

  function linesOf(path: string): number {
    return readFileSync(path, 'utf8').split('\n').length - 1
  }

  /** A journal whose chain was last written `seconds` ago (or ahead, when negative): a devnet stopped that long. */
  async function stoppedFor(seconds: number): Promise<string> {
    const path = journalPath()
    const first = await start({ journal: path, genesisTime: Number(now()) - seconds })
    await first.close()
    return path
  }

  /** Reads of every kind a gateway sends: block number, balance, a contract read, the latest block, a simulation. */
  async function read(other: devnet.Devnet, count: number): Promise<void> {
    const address = other.accounts[0]!.address
    for (let index = 0; index < count; index++)
      await [
        () => other.publicClient.getBlockNumber({ cacheTime: 0 }),
        () => other.publicClient.getBalance({ address }),
        () =>
          other.publicClient.readContract({
            address: other.token.address,
            abi: tokenAbi,
            functionName: 'balanceOf',
            args: [address],
          }),
        () => other.publicClient.getBlock(),
        () => other.publicClient.estimateGas({ account: address, to: address, value: 1n }),
      ][index % 5]!()
  }

  /** Settles an x402 v1-style authorization (validAfter = now - 600) on `other`; resolves with its receipt. */
  async function settleV1(other: devnet.Devnet) {
    const { args } = await authorize({ from: signer(1), to: other.accounts[3]!.address, value: 1n })
    const relayer = createWalletClient({ account: signer(2), chain: other.chain, transport: other.transport })
    const hash = await relayer.writeContract({
      address: other.token.address,
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args,
    })
    return other.publicClient.getTransactionReceipt({ hash })
  }

  /** The latest block's hash and state root: equal on two chains only if every block and balance before is. */
  async function stateHashOf(other: devnet.Devnet) {
    const { hash, stateRoot, number } = await other.publicClient.getBlock()
    return { hash, stateRoot, number }
  }

  test('behavior: reads never mine, and a simulation at latest runs at the wall clock however old the latest block', async () => {
    const other = await start({ accountCount: 1, genesisTime: Number(now()) - 900 })
    const latest = await other.publicClient.getBlock()
    expect(latest.timestamp).toBeLessThan(now() - 800n)
    await read(other, 10)
    const timestamp = await other.publicClient.readContract({
      address: multicall3Address,
      abi: multicall3Abi,
      functionName: 'getCurrentBlockTimestamp',
    })
    expect(timestamp).toBeGreaterThanOrEqual(now() - 1n)
    expect(await other.publicClient.getBlockNumber({ cacheTime: 0 })).toBe(latest.number)
  })

  test('behavior: with automine off, a simulation at latest does not see the transactions waiting for a block', async () => {
    const other = await start({ accountCount: 1 })
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const balance = () =>
      other.publicClient.readContract({
        address: other.token.address,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [payee],
      })
    await other.request('evm_setAutomine', [false])
    const payer = createWalletClient({ account: signer(0), chain: other.chain, transport: other.transport })
    await payer.writeContract({
      address: other.token.address,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [payee, 5n],
      gas: 100_000n,
    })
    expect(await balance()).toBe(0n)
    await other.request('evm_mine', [])
    expect(await balance()).toBe(5n)
  })

  test('behavior: after a restart that followed 900 s of downtime, the next block carries the wall clock and an x402 v1 authorization settles', async () => {
    const path = await stoppedFor(900)
    const other = await start({ journal: path })
    const before = now()
    const receipt = await settleV1(other)
    expect(receipt.status).toBe('success')
    const { timestamp } = await other.publicClient.getBlock({ blockNumber: receipt.blockNumber })
    expect(timestamp).toBeGreaterThanOrEqual(before - 1n)
    expect(timestamp).toBeLessThanOrEqual(now())
  })

  test('behavior: a thousand reads after a restart add no journal line, and a second restart replays to the same state', async () => {
    const path = await stoppedFor(900)
    const second = await start({ journal: path })
    const lines = linesOf(path)
    await read(second, 1_000)
    expect(linesOf(path)).toBe(lines)
    await settleV1(second)
    const state = await stateHashOf(second)
    await second.close()

    const third = await start({ journal: path })
    expect(await stateHashOf(third)).toEqual(state)
    await read(third, 100)
    expect(linesOf(path)).toBe(lines + 1)
  })

  test('behavior: a journal from a clock that ran ahead replays; its blocks keep the latest timestamp until the wall clock passes it', async () => {
    const path = await stoppedFor(-900)
    let shift = 0
    const other = await start({ journal: path, now: () => Date.now() + shift })
    const { timestamp: latest } = await other.publicClient.getBlock()
    expect(latest).toBeGreaterThan(now() + 800n)
    const timestampOf = async (hash: Hex) =>
      (
        await other.publicClient.getBlock({
          blockNumber: (await other.publicClient.getTransactionReceipt({ hash })).blockNumber,
        })
      ).timestamp
    expect(await timestampOf(await other.fund({ address: other.accounts[3]!.address, amount: 1n }))).toBe(latest)
    // The wall clock passes the chain's by a minute: the next block takes it up.
    shift = (Number(latest - now()) + 60) * 1000
    const wall = BigInt(Math.floor((Date.now() + shift) / 1000))
    const next = await timestampOf(await other.fund({ address: other.accounts[3]!.address, amount: 1n }))
    expect(next).toBeGreaterThanOrEqual(wall)
    expect(next).toBeLessThanOrEqual(BigInt(Math.floor((Date.now() + shift) / 1000)))
  })
})

describe('contracts', () => {
  test('default: the addresses every devnet deploys to', () => {
    expect(contracts()).toEqual({
      token: chain.token.address,
      escrow: chain.escrow.address,
      batch: chain.batch.address,
      feeRecipient: chain.batch.feeRecipient,
      tokens: Object.fromEntries(Object.entries(chain.tokens).map(([symbol, token]) => [symbol, token.address])),
      priceFeeds: chain.priceFeeds,
      names: chain.names,
      uniswap: chain.uniswap,
      aave: chain.aave,
      kyc: chain.kyc,
      comet: chain.comet,
      agentRegistry: chain.agentRegistry,
      agentReputation: chain.agentReputation,
      wallet: chain.wallet,
      safety: chain.safety,
    })
  })

  test('default: the price feeds come after every other contract (nonces 7 to 15) and answer their pair', async () => {
    const { priceFeeds } = contracts()
    expect(Object.keys(priceFeeds)).toEqual(['USDC', 'ETH', 'SOL', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD'])
    for (const [symbol, address] of Object.entries(priceFeeds)) {
      const description = await chain.publicClient.readContract({
        address,
        abi: aggregatorV3Abi,
        functionName: 'description',
      })
      expect(description).toBe(`${symbol} / USD`)
      expect(await chain.publicClient.readContract({ address, abi: aggregatorV3Abi, functionName: 'decimals' })).toBe(8)
    }
  })
})

describe('devnet.close', () => {
  test('behavior: a closed devnet refuses requests', async () => {
    const other = await devnet({ chainId: 31_337, accountCount: 1 })
    expect(await other.publicClient.getChainId()).toBe(31_337)
    await other.close()
    await expect(other.request('eth_chainId')).rejects.toThrow('The devnet is closed.')
  })
})
