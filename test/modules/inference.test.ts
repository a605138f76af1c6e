import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWalletClient, erc20Abi, formatEther, formatUnits, type Hash, type PrivateKeyAccount, size } from 'viem'
import { indexer } from '../../adapters/history/indexer.js'
import { eip1193 } from '../../adapters/rpc/eip1193.js'
import { blockscoutSource } from '../../adapters/source/blockscout.js'
import { sourcify } from '../../adapters/source/sourcify.js'
import { openai } from '../../adapters/upstream/openai.js'
import * as TokenList from '../../core/TokenList.js'
import { manifest } from '../../modules/inference/index.js'
import { moduleGateway } from '../support/gateway.js'
import { ok, refused } from '../support/module.js'
import { completionOf, openaiStub, type Received } from '../support/openai.js'
import { paidGateway } from '../support/paid.js'

let gateway: Awaited<ReturnType<typeof paidGateway>>
let stub: ReturnType<typeof openaiStub>
let sources: ReturnType<typeof Bun.serve>
let payer: PrivateKeyAccount

/** The verified source the Sourcify stand-in serves for the devnet's escrow contract. */
const escrowSource = 'contract Escrow { function release(bytes32 id) external {} }'

beforeAll(async () => {
  stub = openaiStub()
  gateway = await paidGateway({
    env: { CHAT_UPSTREAM_URL: stub.url, CHAT_ALLOWED_MODELS: 'small-model', INFERENCE_MODEL: 'small-model' },
  })
  payer = gateway.account(1)
  // Sourcify's API v2 in its documented shape: the escrow contract is verified, everything else a 404.
  sources = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname, searchParams } = new URL(request.url)
      const escrow = gateway.devnet.escrow.address.toLowerCase()
      if (pathname.toLowerCase() === `/v2/contract/${gateway.devnet.chainId}/${escrow}`) {
        expect(searchParams.get('fields')).toBe('sources,abi,compilation')
        return Response.json({
          match: 'exact_match',
          creationMatch: 'exact_match',
          runtimeMatch: 'exact_match',
          chainId: String(gateway.devnet.chainId),
          address: gateway.devnet.escrow.address,
          abi: [
            { type: 'function', name: 'release', inputs: [{ name: 'id', type: 'bytes32' }], outputs: [] },
            { type: 'event', name: 'Released', inputs: [{ name: 'id', type: 'bytes32', indexed: true }] },
          ],
          sources: { 'contracts/Escrow.sol': { content: escrowSource } },
          compilation: { language: 'Solidity', compilerVersion: '0.8.28+commit.7893614a', name: 'Escrow' },
        })
      }
      if (pathname.startsWith('/api/v2/smart-contracts/'))
        return Response.json({
          name: 'Escrow',
          language: 'solidity',
          compiler_version: 'v0.8.28',
          file_path: 'Escrow.sol',
          source_code: escrowSource,
          additional_sources: [{ file_path: 'lib/Token.sol', source_code: 'interface Token {}' }],
          abi: [],
          is_fully_verified: false,
        })
      return Response.json({ customCode: 'not_found', message: 'Contract not found' }, { status: 404 })
    },
  })
})

afterAll(async () => {
  stub.stop()
  sources.stop(true)
  await gateway.close()
})

/** The model's answer: a completion whose content is `content`. */
function answering(content: unknown) {
  stub.state.answer = (request: Received) =>
    request.path === '/v1/chat/completions'
      ? (() => {
          const completion = completionOf(request.body.model)
          completion.choices[0]!.message.content = typeof content === 'string' ? content : JSON.stringify(content)
          return Response.json(completion)
        })()
      : undefined
}

/** Sends devnet USDC from `from` to `to`, mined; its hash. */
async function transfer(from: PrivateKeyAccount, to: `0x${string}`, amount: bigint): Promise<Hash> {
  const wallet = createWalletClient({ account: from, chain: gateway.devnet.chain, transport: gateway.devnet.transport })
  const hash = await wallet.writeContract({
    address: gateway.devnet.token.address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, amount],
  })
  await gateway.devnet.publicClient.waitForTransactionReceipt({ hash })
  return hash
}

const classification = {
  category: 'externally-owned-account',
  label: 'A funded test wallet',
  confidence: 0.7,
  risk: 'low',
  reasons: ['No code at the address; it holds USDC and ether.'],
}

describe('POST /api/v1/inference/classify-address', () => {
  test('default: facts first, then a structured answer held to the schema, with the facts, charged 0.03', async () => {
    stub.reset()
    answering(classification)
    const subject = gateway.account(2).address
    const before = await gateway.balance(payer.address)
    const body = await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/classify-address', { address: subject }))
    expect(body.classification).toEqual(classification)
    expect(body.model).toBe('small-model')
    expect(body.facts).toMatchObject({
      chainId: gateway.devnet.chainId,
      address: subject,
      code: { kind: 'externally-owned-account', size: 0 },
      balances: { tokens: [{ symbol: 'USDC', token: gateway.devnet.token.address }] },
      history: { source: 'indexer' },
      verifiedSource: null,
    })
    // The model was asked for JSON against the schema, and given the same facts the answer shows.
    const request = stub.last().body
    expect(request.model).toBe('small-model')
    expect(request.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'classification', strict: true, schema: { type: 'object', additionalProperties: false } },
    })
    expect(JSON.parse(request.messages[1].content.replace(/^Facts \(JSON\):\n/, ''))).toEqual(body.facts)
    expect(await gateway.balance(payer.address)).toBe(before - 30_000n)
  })

  test('behavior: an answer off the schema is asked once more; twice off is a 502 and charges nothing', async () => {
    stub.reset()
    answering({ ...classification, category: 'wizard' })
    const before = await gateway.balance(payer.address)
    const body = await refused(
      await gateway.paid(payer, 'POST', '/api/v1/inference/classify-address', { address: payer.address }),
      502,
    )
    expect(body.detail).toContain('did not match the classification schema twice')
    expect(stub.hits.get('/v1/chat/completions')).toBe(2)
    expect(await gateway.balance(payer.address)).toBe(before)

    // Not JSON at all the first time, right the second: answered, and charged once.
    stub.reset()
    let calls = 0
    stub.state.answer = (request) => {
      if (request.path !== '/v1/chat/completions') return undefined
      const completion = completionOf(request.body.model)
      completion.choices[0]!.message.content = calls++ === 0 ? 'Sure! Here it is:' : JSON.stringify(classification)
      return Response.json(completion)
    }
    await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/classify-address', { address: payer.address }))
    expect(stub.hits.get('/v1/chat/completions')).toBe(2)
    expect(await gateway.balance(payer.address)).toBe(before - 30_000n)
  })

  test("behavior: the original gateway's call answers its address and onChainProfile, read from the chain", async () => {
    stub.reset()
    answering(classification)
    const subject = gateway.account(2).address
    const { publicClient, token } = gateway.devnet
    const [wei, usdc, nonce] = await Promise.all([
      publicClient.getBalance({ address: subject }),
      publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [subject] }),
      publicClient.getTransactionCount({ address: subject }),
    ])
    expect(usdc).toBeGreaterThan(0n)
    const body = await ok(
      await gateway.paid(payer, 'POST', '/api/v1/inference/classify-address', { address: subject.toLowerCase() }),
    )
    expect(body.address).toBe(subject)
    expect(body.onChainProfile).toEqual({
      isContract: false,
      ethBalance: formatEther(wei),
      ethBalanceRaw: wei.toString(),
      balances: { ETH: formatEther(wei), USDC: formatUnits(usdc, 6) },
      balancesRaw: { ETH: wei.toString(), USDC: usdc.toString() },
      transactionCount: nonce,
      recentTxCount: body.facts.history.recent.transactions.length,
    })
    expect(body.onChainProfile.recentTxCount).toBeGreaterThan(0)
    // A contract holding no USDC: code, and ETH alone among the balances.
    const escrow = await ok(
      await gateway.paid(payer, 'POST', '/api/v1/inference/classify-address', {
        address: gateway.devnet.escrow.address,
      }),
    )
    expect(escrow.onChainProfile).toMatchObject({ isContract: true, balances: { ETH: '0' } })
    expect(Object.keys(escrow.onChainProfile.balances)).toEqual(['ETH'])
  })

  test('error: a malformed address is a 400 before payment, and the model is never asked', async () => {
    stub.reset()
    const response = await gateway.fetch('http://gateway.test/api/v1/inference/classify-address', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: '0x1234' }),
    })
    expect(response.status).toBe(400)
    expect(stub.received.length).toBe(0)
  })
})

describe('POST /api/v1/inference/classify-tx', () => {
  test('default: the decoded transaction is the facts', async () => {
    const hash = await transfer(gateway.account(3), gateway.account(4).address, 1_234_500n)
    stub.reset()
    const answer = {
      category: 'token-transfer',
      summary: 'Sends 1.2345 USDC.',
      confidence: 0.9,
      risk: 'low',
      reasons: ['One USDC Transfer event.'],
    }
    answering(answer)
    const body = await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/classify-tx', { hash }))
    expect(body.classification).toEqual(answer)
    expect(body.facts.transaction).toMatchObject({
      hash,
      status: 'success',
      call: { function: 'transfer' },
      transfers: [{ symbol: 'USDC', amount: { raw: '1234500', formatted: '1.2345' } }],
    })
    expect(body.facts.recipient).toEqual({ address: gateway.devnet.token.address, isContract: true })
  })

  test("behavior: the original gateway's call answers its hash and transaction, read from the chain", async () => {
    const sender = gateway.account(3)
    const hash = await transfer(sender, gateway.account(4).address, 2_500_000_000n)
    const receipt = await gateway.devnet.publicClient.getTransactionReceipt({ hash })
    stub.reset()
    answering({
      category: 'token-transfer',
      summary: 'Sends USDC.',
      confidence: 0.9,
      risk: 'low',
      reasons: ['A Transfer.'],
    })
    const body = await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/classify-tx', { hash }))
    expect(body.hash).toBe(hash)
    expect(body.transaction).toEqual({
      from: sender.address,
      to: gateway.devnet.token.address,
      value: '0 ETH',
      valueRaw: '0',
      // transfer(address,uint256)
      methodId: '0xa9059cbb',
      isContractCall: true,
      destIsContract: true,
      gasUsed: receipt.gasUsed.toString(),
      success: true,
      blockNumber: Number(receipt.blockNumber),
      logCount: receipt.logs.length,
    })
    expect(receipt.logs.length).toBe(1)
  })

  test('error: an unknown transaction is a 404, not charged, and the model is never asked', async () => {
    stub.reset()
    const before = await gateway.balance(payer.address)
    await refused(
      await gateway.paid(payer, 'POST', '/api/v1/inference/classify-tx', { hash: `0x${'12'.repeat(32)}` }),
      404,
    )
    expect(stub.received.length).toBe(0)
    expect(await gateway.balance(payer.address)).toBe(before)
  })
})

/** The family's ports on the booted devnet, with the verification stand-in as its source, and its environment. */
function familyOf() {
  const devnet = gateway.devnet
  return {
    ports: {
      chat: openai({ baseUrl: stub.url }),
      chains: [
        eip1193({
          name: 'devnet',
          chainId: devnet.chainId,
          request: (method, params) => devnet.request(method, params),
        }),
      ],
      onchain: {
        chainId: devnet.chainId,
        transfers: undefined as never,
        tokens: [{ symbol: 'USDC', address: devnet.token.address, decimals: 6 }],
      },
      history: indexer({ client: devnet.publicClient, tokens: TokenList.of('base', devnet.chainId) }),
      contractSources: [sourcify({ baseUrl: `http://127.0.0.1:${sources.port}` })],
    },
    env: { INFERENCE_MODEL: 'small-model' },
  }
}

describe('POST /api/v1/inference/explain-contract', () => {
  /** The family alone on the booted devnet. */
  const withSources = () => moduleGateway(manifest, familyOf())

  const analysis = {
    summary: 'An escrow that releases deposits.',
    kind: 'escrow',
    functions: [{ name: 'release(bytes32)', description: 'Pays an escrow out.' }],
    privileges: [],
    upgradeable: false,
    risks: [],
    confidence: 0.8,
  }

  test('default: verified source from Sourcify is among the facts', async () => {
    stub.reset()
    answering(analysis)
    const family = withSources()
    const body = await ok(
      await family.post('/api/v1/inference/explain-contract', { address: gateway.devnet.escrow.address }, payer),
    )
    expect(body.analysis).toEqual(analysis)
    expect(body.facts.code.kind).toBe('contract')
    const code = await gateway.devnet.publicClient.getCode({ address: gateway.devnet.escrow.address })
    expect(body.address).toBe(gateway.devnet.escrow.address)
    expect(body.contractInfo).toEqual({
      name: 'Escrow',
      isVerified: true,
      isProxy: false,
      implementation: null,
      compiler: '0.8.28+commit.7893614a',
      functionCount: 1,
      eventCount: 1,
      codeSize: size(code!),
    })
    // No explorer indexes a devnet: nothing to link.
    expect(body.basescanUrl).toBeNull()
    expect(body.facts.verifiedSource).toEqual({
      source: 'sourcify',
      match: 'exact',
      name: 'Escrow',
      language: 'Solidity',
      compiler: '0.8.28+commit.7893614a',
      functions: ['release(bytes32)'],
      events: ['Released(bytes32)'],
      files: [{ path: 'contracts/Escrow.sol', content: escrowSource, truncated: false }],
      filesLeftOut: [],
    })
  })

  test('error: an address with no code is a 404, and the model is never asked', async () => {
    stub.reset()
    const family = withSources()
    await refused(await family.post('/api/v1/inference/explain-contract', { address: payer.address }, payer), 404)
    expect(stub.received.length).toBe(0)
    expect(family.settled.length).toBe(0)
  })

  test('behavior: an unverified contract says so in the facts', async () => {
    stub.reset()
    answering(analysis)
    const family = withSources()
    const body = await ok(
      await family.post('/api/v1/inference/explain-contract', { address: gateway.devnet.token.address }, payer),
    )
    expect(body.facts.verifiedSource).toEqual({ none: true, asked: ['sourcify'], failures: [] })
    expect(body.contractInfo).toMatchObject({
      name: null,
      isVerified: false,
      compiler: null,
      functionCount: null,
      eventCount: null,
      codeSize: body.facts.code.size,
    })
  })

  test("behavior: on Base, basescanUrl is the contract's page on the configured Blockscout explorer", async () => {
    stub.reset()
    answering(analysis)
    const { ports, env } = familyOf()
    const devnet = gateway.devnet
    // The devnet's node standing in for Base's: the family sees chain id 8453.
    const asBase = {
      ...ports,
      chains: [eip1193({ name: 'base', chainId: 8453, request: (method, params) => devnet.request(method, params) })],
      onchain: { ...ports.onchain, chainId: 8453 },
    }
    const family = moduleGateway(manifest, {
      ports: asBase,
      env: { ...env, INFERENCE_BLOCKSCOUT_URL: 'https://explorer.example/' },
    })
    const body = await ok(
      await family.post('/api/v1/inference/explain-contract', { address: devnet.escrow.address.toLowerCase() }, payer),
    )
    expect(body.basescanUrl).toBe(`https://explorer.example/address/${devnet.escrow.address}`)
  })
})

describe('POST /api/v1/inference/summarize', () => {
  test("default: the caller's context goes to the model as their words, apart from the facts", async () => {
    stub.reset()
    const briefing = {
      headline: 'A test wallet',
      summary: 'It holds USDC.',
      keyPoints: ['No code.'],
      risks: [],
      confidence: 0.6,
    }
    answering(briefing)
    const body = await ok(
      await gateway.paid(payer, 'POST', '/api/v1/inference/summarize', {
        target: gateway.account(5).address,
        context: 'Is it safe to pay?',
      }),
    )
    expect(body.briefing).toEqual(briefing)
    expect(stub.last().body.messages.at(-1).content).toContain('Is it safe to pay?')
  })

  test("behavior: the original gateway's call answers its target, targetType and context (default general)", async () => {
    stub.reset()
    answering({ headline: 'h', summary: 's', keyPoints: ['k'], risks: [], confidence: 0.5 })
    const wallet = gateway.account(5).address.toLowerCase()
    expect(
      await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/summarize', { target: wallet, context: 'defi' })),
    ).toMatchObject({ target: wallet, targetType: 'wallet', context: 'defi' })
    const contract = gateway.devnet.escrow.address
    expect(
      await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/summarize', { target: contract })),
    ).toMatchObject({ target: contract, targetType: 'contract', context: 'general' })
    const hash = await transfer(gateway.account(3), gateway.account(4).address, 1n)
    expect(await ok(await gateway.paid(payer, 'POST', '/api/v1/inference/summarize', { target: hash }))).toMatchObject({
      target: hash,
      targetType: 'transaction',
      context: 'general',
    })
  })
})

describe('blockscoutSource', () => {
  test('default: reads a verified contract in the explorer API v2 shape; another chain is not asked', async () => {
    const explorer = blockscoutSource({ chainId: 8453, baseUrl: `http://127.0.0.1:${sources.port}` })
    const found = await explorer.find({ chainId: 8453, address: gateway.devnet.escrow.address })
    expect(found).toEqual({
      ok: true,
      verified: {
        source: 'blockscout',
        match: 'partial',
        name: 'Escrow',
        language: 'solidity',
        compiler: 'v0.8.28',
        abi: [],
        files: [
          { path: 'Escrow.sol', content: escrowSource },
          { path: 'lib/Token.sol', content: 'interface Token {}' },
        ],
      },
    })
    expect(await explorer.find({ chainId: 1, address: gateway.devnet.escrow.address })).toEqual({
      ok: true,
      verified: null,
    })
  })
})

describe('discovery', () => {
  test('behavior: without INFERENCE_MODEL the family answers 503 before payment', async () => {
    const { INFERENCE_MODEL: _, ...env } = familyOf().env
    const family = moduleGateway(manifest, { ports: familyOf().ports, env })
    const body = await refused(await family.post('/api/v1/inference/classify-address', { address: payer.address }), 503)
    expect(body.detail).toContain('INFERENCE_MODEL')
  })
})
