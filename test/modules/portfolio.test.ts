import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type Account,
  type Address,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  type PublicClient,
  parseAbi,
  parseEther,
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { agentIdentityRegistry, registerAgent } from '../../adapters/chain/agents.js'
import { contracts, mnemonic } from '../../adapters/chain/devnet.js'
import { safetyDeployerIndex } from '../../adapters/chain/safety.js'
import * as TokenList from '../../core/TokenList.js'
import { ok, refused } from '../support/module.js'
import { origin, paidGateway } from '../support/paid.js'
import { vendorServer } from '../support/vendor.js'

/** The devnet tax token's `mint`, its owner's. */
const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])

/** A wallet the Blockscout stand-in knows (lowercase in its answers, as Blockscout does not checksum queries). */
const whale = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'

/** A token of Blockscout's `token` object, as its API v2 documents it. */
const token = (address: string, name: string, symbol: string, decimals: string | null, rate: string | null) => ({
  address_hash: address,
  circulating_market_cap: null,
  decimals,
  exchange_rate: rate,
  holders_count: '1204',
  icon_url: rate === null ? null : `https://assets.example/${symbol}.png`,
  name,
  symbol,
  total_supply: '1000000000000000',
  type: 'ERC-20',
  volume_24h: null,
})

/** What the stand-in holds for `whale` on Ethereum, in its order (largest fiat value first, as Blockscout sorts). */
const held = [
  {
    token: token('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'USD Coin', 'USDC', '6', '0.9998'),
    token_id: null,
    token_instance: null,
    value: '2500000000',
  },
  {
    token: token('0x6B175474E89094C44Da98b954EedeAC495271d0F', 'Dai Stablecoin', 'DAI', '18', '1.0001'),
    token_id: null,
    token_instance: null,
    value: '1500000000000000000',
  },
  {
    token: token('0x1111111111111111111111111111111111111111', 'Spam', 'SPAM', '18', null),
    token_id: null,
    token_instance: null,
    value: '7',
  },
  {
    token: token('0x2222222222222222222222222222222222222222', 'Emptied', 'GONE', '18', '5'),
    token_id: null,
    token_instance: null,
    value: '0',
  },
]

/** The NFTs of `whale`, as Blockscout's `/nft` lists them. */
const nftItems = [
  {
    animation_url: null,
    external_app_url: 'https://things.example/431',
    id: '431',
    image_url: 'https://img.example/431.png',
    is_unique: true,
    metadata: { name: 'Thing #431', description: 'A thing.', image: 'ipfs://bafy/431.png', attributes: [] },
    owner: null,
    thumbnails: null,
    token: { ...token('0x3333333333333333333333333333333333333333', 'Things', 'THING', null, null), type: 'ERC-721' },
    token_type: 'ERC-721',
    value: '1',
  },
  {
    animation_url: null,
    external_app_url: null,
    id: '7',
    image_url: null,
    is_unique: false,
    metadata: null,
    owner: null,
    thumbnails: null,
    token: { ...token('0x4444444444444444444444444444444444444444', 'Badges', 'BDG', null, null), type: 'ERC-1155' },
    token_type: 'ERC-1155',
    value: '3',
  },
]

/** Pages of two, keyed by Blockscout's keyset params (`items_count` and the last item's `id`). */
function paged(items: readonly object[], query: URLSearchParams) {
  const from = query.has('id') ? Number(query.get('id')) : 0
  const page = items.slice(from, from + 2)
  const next = from + 2 < items.length ? { fiat_value: null, id: from + 2, items_count: 2, value: '1' } : null
  return { items: page, next_page_params: next }
}

/** A Blockscout stand-in for Ethereum under `/eth` (and a failing one under `/down`), speaking its REST API v2. */
const blockscout = vendorServer()
blockscout.state.answer = ({ url }) => {
  const path = url.pathname
  if (path.startsWith('/down/')) return Response.json({ message: 'Internal server error' }, { status: 500 })
  const match = /^\/eth\/api\/v2\/addresses\/(0x[0-9a-fA-F]{40})(\/tokens|\/nft)?$/.exec(path)
  if (!match || match[1]!.toLowerCase() !== whale.toLowerCase())
    return Response.json({ message: 'Not found' }, { status: 404 })
  if (match[2] === '/tokens') {
    expect(url.searchParams.get('type')).toBe('ERC-20')
    return Response.json(paged(held, url.searchParams))
  }
  if (match[2] === '/nft') {
    expect(url.searchParams.get('type')).toBe('ERC-721,ERC-404,ERC-1155')
    return Response.json({ items: nftItems, next_page_params: null })
  }
  return Response.json({
    hash: whale,
    coin_balance: '1500000000000000000',
    exchange_rate: '3120.55',
    is_contract: false,
    creation_transaction_hash: null,
  })
}

let gateway: Awaited<ReturnType<typeof paidGateway>>
/** A fresh devnet wallet holding 1.5 ETH and 12.5 USDC. */
const fresh = privateKeyToAccount(generatePrivateKey())

beforeAll(async () => {
  gateway = await paidGateway({
    env: {
      BLOCKSCOUT_URL_ETHEREUM: blockscout.url.replace(/\/api$/, '/eth'),
      BLOCKSCOUT_URL_ARBITRUM: blockscout.url.replace(/\/api$/, '/down'),
    },
  })
  await send({ to: fresh.address, value: parseEther('1.5') })
  await send({
    to: gateway.devnet.token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [fresh.address, 12_500_000n] }),
  })
})
afterAll(async () => {
  await gateway?.close()
  blockscout.stop()
})

/** Sends `transaction` from `account` (the devnet's account 9 by default) and waits until it is mined. */
async function send(transaction: { to: Address; value?: bigint; data?: Hex }, account: Account = gateway.account(9)) {
  const { devnet } = gateway
  const wallet = createWalletClient({ account, chain: devnet.chain, transport: devnet.transport })
  await devnet.publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction(transaction) })
}

const paid = (path: string, payer = gateway.account(4)) => gateway.paid(payer, 'GET', path)
const unpaid = (path: string) => gateway.fetch(`${origin}${path}`)

describe('GET /api/v1/portfolio/tokens', () => {
  test('default: unpaid, 402 at the original gateway’s prices: 0.008, and 0.01 for NFTs', async () => {
    for (const [list, amount] of [
      ['tokens', '8000'],
      ['nfts', '10000'],
    ]) {
      const response = await unpaid(`/api/v1/portfolio/${list}?address=${fresh.address}`)
      expect(response.status).toBe(402)
      expect((await response.json()).accepts[0].maxAmountRequired).toBe(amount)
    }
  })

  test('behavior: on the devnet, read from the chain itself: ETH and USDC, priced by the feeds, for 0.008 USDC', async () => {
    const payer = gateway.account(4)
    const before = await gateway.balance(payer.address)
    const body = await ok(await paid(`/api/v1/portfolio/tokens?address=${fresh.address}&networks=base-mainnet`))
    expect(before - (await gateway.balance(payer.address))).toBe(8_000n)
    expect(body).toMatchObject({
      address: fresh.address,
      networks: ['base-mainnet'],
      chains: ['base'],
      sources: { base: 'node' },
      unavailable: [],
      page_key: null,
      token_count: 2,
    })
    const [eth, usdc] = body.tokens
    expect(eth).toMatchObject({
      network: 'base-mainnet',
      chain: 'base',
      chainId: gateway.devnet.chainId,
      address: fresh.address,
      tokenAddress: null,
      tokenBalance: '1500000000000000000',
      balance: '1.5',
      tokenMetadata: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    })
    expect(usdc).toMatchObject({
      tokenAddress: gateway.devnet.token.address,
      tokenBalance: '12500000',
      balance: '12.5',
      tokenMetadata: { symbol: 'USDC', decimals: 6 },
    })
    // Each price is the devnet feed's (ETH at 3000 on a fresh devnet), and each value is balance times price.
    for (const [row, symbol, price, value] of [
      [eth, 'ETH', '3000', '4500'],
      [usdc, 'USDC', '1', '12.5'],
    ]) {
      expect(row.tokenPrices).toEqual([
        {
          currency: 'usd',
          value: price,
          source: expect.stringContaining(`${symbol} / USD feed`),
          lastUpdatedAt: expect.any(String),
        },
      ])
      expect(row.valueUsd).toBe(value)
    }
    expect(body.total_usd_value).toBe('4512.5')
  })

  test('behavior: includeNative=false, includePrices=false: the tokens alone, unpriced', async () => {
    const body = await ok(
      await paid(
        `/api/v1/portfolio/tokens?address=${fresh.address}&networks=base&includeNative=false&includePrices=false`,
      ),
    )
    expect(body.tokens.map((row: { tokenMetadata: { symbol: string } }) => row.tokenMetadata.symbol)).toEqual(['USDC'])
    expect(body.tokens[0].tokenPrices).toEqual([])
    expect(body.tokens[0].valueUsd).toBeNull()
    expect(body.total_usd_value).toBe('0')
  })

  test('behavior: a token the list does not know, minted to the wallet, is found by its Transfer logs', async () => {
    const { devnet } = gateway
    const wallet = privateKeyToAccount(generatePrivateKey())
    // The devnet's taxed token (TAX) is in no token list; its owner, the safety deployer, mints it.
    const { taxToken } = contracts().safety
    expect(TokenList.of('base', devnet.chainId).some((entry) => entry.address === taxToken)).toBe(false)
    await send(
      {
        to: taxToken,
        data: encodeFunctionData({ abi: mintAbi, functionName: 'mint', args: [wallet.address, 10n ** 18n] }),
      },
      mnemonicToAccount(mnemonic, { addressIndex: safetyDeployerIndex }),
    )
    const body = await ok(
      await paid(`/api/v1/portfolio/tokens?address=${wallet.address}&networks=base&includeNative=false`),
    )
    expect(body.tokens).toEqual([
      expect.objectContaining({
        tokenAddress: taxToken,
        tokenBalance: '1000000000000000000',
        balance: '1',
        tokenMetadata: { name: null, symbol: 'TAX', decimals: 18, logo: null },
        tokenPrices: [],
        valueUsd: null,
      }),
    ])
  })

  test('behavior: Ethereum from Blockscout: its coin balance and tokens, priced by its exchange rates, zero balances left out, paged', async () => {
    const first = await ok(await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=eth-mainnet&pageSize=2`))
    expect(first).toMatchObject({
      networks: ['eth-mainnet'],
      chains: ['ethereum'],
      sources: { ethereum: 'blockscout' },
    })
    expect(first.tokens).toEqual([
      {
        network: 'eth-mainnet',
        chain: 'ethereum',
        chainId: 1,
        address: whale,
        tokenAddress: null,
        tokenBalance: '1500000000000000000',
        balance: '1.5',
        tokenMetadata: { name: 'Ether', symbol: 'ETH', decimals: 18, logo: null },
        tokenPrices: [{ currency: 'usd', value: '3120.55', source: 'blockscout', lastUpdatedAt: null }],
        valueUsd: '4680.825',
      },
      {
        network: 'eth-mainnet',
        chain: 'ethereum',
        chainId: 1,
        address: whale,
        tokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        tokenBalance: '2500000000',
        balance: '2500',
        tokenMetadata: { name: 'USD Coin', symbol: 'USDC', decimals: 6, logo: 'https://assets.example/USDC.png' },
        tokenPrices: [{ currency: 'usd', value: '0.9998', source: 'blockscout', lastUpdatedAt: null }],
        valueUsd: '2499.5',
      },
    ])
    expect(first.total_usd_value).toBe('7180.325')
    expect(first.page_key).toBeString()
    const second = await ok(
      await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=eth-mainnet&pageSize=2&pageKey=${first.page_key}`),
    )
    expect(second.tokens.map((row: { tokenMetadata: { symbol: string } }) => row.tokenMetadata.symbol)).toEqual([
      'DAI',
      'SPAM',
    ])
    expect(second.tokens[1]).toMatchObject({ tokenPrices: [], valueUsd: null, tokenBalance: '7' })
    // The emptied token of the stand-in's last page is left out: nothing is left after SPAM.
    expect(second.page_key).toBeNull()
  })

  test('behavior: a page runs from one chain into the next, and a page key resumes mid-page', async () => {
    const one = await ok(await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=base,eth&pageSize=1`))
    // The whale holds nothing on the devnet but its (zero) ETH.
    expect(one.tokens.map((row: { chain: string }) => row.chain)).toEqual(['base'])
    const two = await ok(
      await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=base,eth&pageSize=1&pageKey=${one.page_key}`),
    )
    expect(two.tokens.map((row: { tokenMetadata: { symbol: string } }) => row.tokenMetadata.symbol)).toEqual(['ETH'])
    expect(two.tokens[0].chain).toBe('ethereum')
    const three = await ok(
      await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=base,eth&pageSize=1&pageKey=${two.page_key}`),
    )
    expect(three.tokens[0].tokenMetadata.symbol).toBe('USDC')
  })

  test('behavior: a chain that fails is listed as unavailable and the page goes on past it', async () => {
    // Chains are read in the order served: ethereum, then arbitrum, whatever order they are named in.
    const body = await ok(
      await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=arbitrum,ethereum&pageSize=10`),
    )
    expect(body.unavailable).toEqual([
      { network: 'arb-mainnet', chain: 'arbitrum', reason: expect.stringContaining('HTTP 500') },
    ])
    expect(body.tokens.map((row: { tokenMetadata: { symbol: string } }) => row.tokenMetadata.symbol)).toEqual([
      'ETH',
      'USDC',
      'DAI',
      'SPAM',
    ])
    expect(body.page_key).toBeNull()
  })

  test('error: when every chain asked fails, a 502 that charges nothing', async () => {
    const payer = gateway.account(5)
    const before = await gateway.balance(payer.address)
    const problem = await refused(await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=arbitrum`, payer), 502)
    expect(problem.code).toBe('upstream_failed')
    expect(await gateway.balance(payer.address)).toBe(before)
  })

  test('error: a bad query is a 400 naming its field, before any payment', async () => {
    const cases: [string, string][] = [
      ['address=0x123', 'address'],
      [`address=${whale}&networks=base,mars`, 'networks'],
      [`address=${whale}&networks=base,base-mainnet`, 'networks'],
      [`address=${whale}&networks=bsc`, 'networks'],
      [`address=${whale}&networks=solana-mainnet`, 'networks'],
      [`address=${whale}&pageSize=0`, 'pageSize'],
      [`address=${whale}&pageSize=101`, 'pageSize'],
      [`address=${whale}&pageKey=bm90LWEta2V5`, 'pageKey'],
      [`address=${whale}&includeNative=false&includeErc20=false`, 'includeErc20'],
      [`address=${whale}&includePrices=yes`, 'includePrices'],
    ]
    for (const [query, field] of cases) {
      const problem = await refused(await unpaid(`/api/v1/portfolio/tokens?${query}`), 400)
      expect([query, problem.field]).toEqual([query, field])
    }
    // A key of one list is not one of the other, nor of other networks.
    const first = await ok(await paid(`/api/v1/portfolio/tokens?address=${whale}&networks=eth&pageSize=1`))
    for (const path of [`nfts?networks=eth`, `tokens?networks=base`]) {
      const problem = await refused(
        await unpaid(`/api/v1/portfolio/${path}&address=${whale}&pageKey=${first.page_key}`),
        400,
      )
      expect([path, problem.field]).toEqual([path, 'pageKey'])
    }
  })
})

describe('GET /api/v1/portfolio/nfts', () => {
  test('behavior: an agent minted on the devnet (ERC-721) is listed with its URI, and leaves the list once handed on', async () => {
    const { devnet } = gateway
    const owner = privateKeyToAccount(generatePrivateKey())
    await send({ to: owner.address, value: parseEther('1') })
    const wallet = createWalletClient({ account: owner, chain: devnet.chain, transport: devnet.transport })
    const agentId = await registerAgent({
      client: devnet.publicClient as PublicClient,
      wallet,
      registry: devnet.agentRegistry,
      agentURI: 'https://agents.example/portfolio.json',
    })
    const body = await ok(await paid(`/api/v1/portfolio/nfts?address=${owner.address}&networks=base`))
    expect(body).toMatchObject({ total_count: 1, returned_count: 1, page_key: null, sources: { base: 'node' } })
    expect(body.nfts).toEqual([
      {
        network: 'base-mainnet',
        chain: 'base',
        chainId: devnet.chainId,
        address: owner.address,
        contract: { address: devnet.agentRegistry, name: 'AgentIdentity', symbol: 'AGENT', tokenType: 'ERC-721' },
        tokenId: agentId.toString(),
        tokenType: 'ERC-721',
        balance: '1',
        name: null,
        description: null,
        image: null,
        tokenUri: 'https://agents.example/portfolio.json',
        raw: { tokenUri: 'https://agents.example/portfolio.json', metadata: null },
      },
    ])
    const handedOn = encodeFunctionData({
      abi: agentIdentityRegistry.abi,
      functionName: 'transferFrom',
      args: [owner.address, gateway.account(8).address, agentId],
    })
    await send({ to: devnet.agentRegistry, data: handedOn }, owner)
    expect((await ok(await paid(`/api/v1/portfolio/nfts?address=${owner.address}&networks=base`))).nfts).toEqual([])
  })

  test('behavior: Ethereum from Blockscout, with metadata, or without it', async () => {
    const body = await ok(await paid(`/api/v1/portfolio/nfts?address=${whale}&networks=ethereum`))
    expect(body.nfts).toEqual([
      {
        network: 'eth-mainnet',
        chain: 'ethereum',
        chainId: 1,
        address: whale,
        contract: {
          address: '0x3333333333333333333333333333333333333333',
          name: 'Things',
          symbol: 'THING',
          tokenType: 'ERC-721',
        },
        tokenId: '431',
        tokenType: 'ERC-721',
        balance: '1',
        name: 'Thing #431',
        description: 'A thing.',
        image: { originalUrl: 'https://img.example/431.png' },
        tokenUri: null,
        raw: { tokenUri: null, metadata: nftItems[0]!.metadata },
      },
      expect.objectContaining({ tokenId: '7', tokenType: 'ERC-1155', balance: '3', name: null, image: null }),
    ])
    expect(body).toMatchObject({ total_count: 2, returned_count: 2 })
    const bare = await ok(await paid(`/api/v1/portfolio/nfts?address=${whale}&networks=ethereum&withMetadata=false`))
    expect(bare.nfts[0]).toMatchObject({ name: null, description: null, image: null, raw: null })
  })

  test('behavior: a page smaller than the list: total_count null, and the key reads on', async () => {
    const first = await ok(await paid(`/api/v1/portfolio/nfts?address=${whale}&networks=ethereum&pageSize=1`))
    expect(first).toMatchObject({ total_count: null, returned_count: 1 })
    const second = await ok(
      await paid(`/api/v1/portfolio/nfts?address=${whale}&networks=ethereum&pageSize=1&pageKey=${first.page_key}`),
    )
    expect(second.nfts.map((nft: { tokenId: string }) => nft.tokenId)).toEqual(['7'])
  })
})
