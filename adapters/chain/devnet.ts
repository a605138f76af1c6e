import * as edr from '@nomicfoundation/edr'
import {
  type Address,
  type Chain,
  type CustomTransport,
  createPublicClient,
  createWalletClient,
  custom,
  decodeAbiParameters,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hash,
  type Hex,
  hexToBytes,
  labelhash,
  namehash,
  type PublicClient,
  parseEther,
  toHex,
  zeroHash,
} from 'viem'
import { type HDAccount, hdKeyToAccount, mnemonicToAccount } from 'viem/accounts'
import { StartError } from '../../core/Errors.js'
import {
  agentRegistryAddress,
  agentRegistryDeployerIndex,
  deployAgentRegistry,
  reputationRegistryAddress,
} from './agents.js'
import { channelContractsGenesis, channelDevnetIndices } from './channel.js'
import authorizationSettlerJson from './contracts/artifacts/AuthorizationSettler.json' with { type: 'json' }
import batchPaymentsJson from './contracts/artifacts/BatchPayments.json' with { type: 'json' }
import devTokenJson from './contracts/artifacts/DevToken.json' with { type: 'json' }
import devUsdcJson from './contracts/artifacts/DevUSDC.json' with { type: 'json' }
import ensRegistryJson from './contracts/artifacts/ENSRegistry.json' with { type: 'json' }
import escrowJson from './contracts/artifacts/Escrow.json' with { type: 'json' }
import multicall3Json from './contracts/artifacts/Multicall3.json' with { type: 'json' }
import priceFeedJson from './contracts/artifacts/PriceFeed.json' with { type: 'json' }
import publicResolverJson from './contracts/artifacts/PublicResolver.json' with { type: 'json' }
import reverseRegistrarJson from './contracts/artifacts/ReverseRegistrar.json' with { type: 'json' }
import universalResolverJson from './contracts/artifacts/UniversalResolver.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'
import { defiContracts, defiDeployerIndex, defiDeployerTokens, seedDefi } from './defi.js'
import { arbiterIndex } from './escrow.js'
import { futuresOperatorIndex } from './futures.js'
import { type Entry, type Header, open as openJournal } from './journal.js'
import { kycContracts, kycDeployerIndex, seedKyc } from './kyc.js'
import { safetyContracts, safetyDeployerIndex, seedSafety, taxTokenPool } from './safety.js'
import { uptoContractsGenesis } from './upto.js'
import { seedWallet, walletContracts, walletDeployerIndex } from './wallet.js'

/** The standard development mnemonic of Hardhat, Anvil and Foundry. */
export const mnemonic = 'test test test test test test test test test test test junk'

/** Mnemonic index (m/44'/60'/0'/0/10) of the account that deploys the contracts and mints; it sends nothing else. */
export const deployerIndex = 10

/** Mnemonic index (m/44'/60'/0'/0/11) of the batch contract's fee recipient; it starts without ether or tokens. */
export const feeRecipientIndex = 11

/** Protocol fee of the devnet's batch contract, in basis points (0.3%), as on Base. */
export const batchFeeBps = 30n

/** The ERC-20 look-alikes deployed besides DevUSDC, in deployment order (deployer nonces 3 to 6). */
export const devTokens = [
  { symbol: 'USDT', name: 'Tether USD', decimals: 6 },
  { symbol: 'EURC', name: 'EURC', decimals: 6 },
  { symbol: 'DAI', name: 'Dai Stablecoin', decimals: 18 },
  { symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 },
] as const

/**
 * The USD price feeds deployed after every other contract, in deployment order (deployer nonces 7 to 15): our
 * AggregatorV3-compatible `PriceFeed` with 8 decimals and these starting answers; the deployer sets new ones.
 * `kind` says which port a feed serves: `crypto` the token prices, `fiat` the exchange rates.
 */
export const devPriceFeeds = [
  { symbol: 'USDC', description: 'USDC / USD', answer: 100_000_000n, kind: 'crypto' },
  { symbol: 'ETH', description: 'ETH / USD', answer: 300_000_000_000n, kind: 'crypto' },
  { symbol: 'SOL', description: 'SOL / USD', answer: 15_000_000_000n, kind: 'crypto' },
  { symbol: 'EUR', description: 'EUR / USD', answer: 116_000_000n, kind: 'fiat' },
  { symbol: 'GBP', description: 'GBP / USD', answer: 132_000_000n, kind: 'fiat' },
  { symbol: 'JPY', description: 'JPY / USD', answer: 650_000n, kind: 'fiat' },
  { symbol: 'CHF', description: 'CHF / USD', answer: 125_000_000n, kind: 'fiat' },
  { symbol: 'CAD', description: 'CAD / USD', answer: 71_000_000n, kind: 'fiat' },
  { symbol: 'AUD', description: 'AUD / USD', answer: 65_000_000n, kind: 'fiat' },
] as const

/** Canonical Multicall3 address, the same on every chain; the devnet has our Multicall3 there from genesis. */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** Where the devnet has our AuthorizationSettler from genesis (shared settlements with packed authorizations). */
export const authorizationSettlerAddress: Address = '0x5E771e4000000000000000000000000000000402'

// JSON imports widen ABI literals (`type: string`), so the committed artifacts are typed here once.
const devUsdc = devUsdcJson as unknown as Artifact
const devToken = devTokenJson as unknown as Artifact
const batchPayments = batchPaymentsJson as unknown as Artifact
const escrow = escrowJson as unknown as Artifact
const multicall3 = multicall3Json as unknown as Artifact
const authorizationSettler = authorizationSettlerJson as unknown as Artifact

/** The runtime code of our AuthorizationSettler, as the devnet has it and as a deployment of its artifact has it. */
export const authorizationSettlerCode: Hex = authorizationSettler.deployedBytecode
const priceFeed = priceFeedJson as unknown as Artifact
const ensRegistry = ensRegistryJson as unknown as Artifact
const publicResolver = publicResolverJson as unknown as Artifact
const reverseRegistrar = reverseRegistrarJson as unknown as Artifact
const universalResolver = universalResolverJson as unknown as Artifact

/**
 * The name-service contracts (`contracts/NameService.sol`), deployed after the {@link devPriceFeeds} in this order:
 * an EIP-137 registry, a public resolver, the reverse registrar of `addr.reverse` and a Universal Resolver.
 */
export const nameServiceContracts = ['registry', 'resolver', 'reverseRegistrar', 'universalResolver'] as const

/** The deployer's nonce of the first name-service contract: right after the last price feed. */
const nameServiceNonce = 3 + devTokens.length + devPriceFeeds.length

const hardhatCoinbase = '0xc014ba5ec014ba5ec014ba5ec014ba5ec014ba5e'

/**
 * Starts Hardhat's EDR in process with auto-mining, funds the mnemonic accounts with ETH (genesis) and every devnet
 * token, and deploys the contracts from the committed artifacts. The deployer's first transactions are the
 * deployments, so each address is the same on every devnet: DevUSDC `0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9`
 * (nonce 0), Escrow `0x10Aeafac83d48E2f9ac4bAAf94311c45fACe1404` (nonce 1), BatchPayments (nonce 2), then the
 * {@link devTokens} (nonces 3 to 6), then the {@link devPriceFeeds} (nonces 7 to 15), then the
 * {@link nameServiceContracts}; {@link contracts} gives them without a devnet.
 *
 * With a `journal`, every request that changes the chain is appended to it with the timestamps of the blocks it
 * mined, and a devnet started on an existing journal replays it instead of deploying: same blocks, same hashes.
 * Then the chain's clock moves forward to the wall clock, so the next block carries the time it is mined at, however
 * long the devnet was stopped. Only changes mine: reads never grow the journal, and a simulation at `latest` runs in
 * the next block, at the chain's clock.
 */
export async function devnet(parameters: devnet.Parameters = {}): Promise<devnet.Devnet> {
  const { now = Date.now, rpcUrl = 'http://127.0.0.1:8545', tokenBalance = 1_000_000_000_000n } = parameters
  const journal = parameters.journal === undefined ? undefined : openJournal({ path: parameters.journal })
  let header: Header
  try {
    header = headerOf(parameters, journal?.header, now)
  } catch (error) {
    journal?.close()
    throw error
  }
  const { chainId, hardfork, accountCount } = header
  const balance = BigInt(header.balance)
  const blockGasLimit = BigInt(header.blockGasLimit)

  const accounts = deriveAccounts(accountCount)
  const deployer = deriveAccounts(deployerIndex + 1)[deployerIndex]!.account
  const feeRecipient = deriveAccounts(feeRecipientIndex + 1)[feeRecipientIndex]!.account.address
  const defiDeployer = deriveAccounts(defiDeployerIndex + 1)[defiDeployerIndex]!.account
  const agentRegistryDeployer = deriveAccounts(agentRegistryDeployerIndex + 1)[agentRegistryDeployerIndex]!.account
  const walletDeployer = deriveAccounts(walletDeployerIndex + 1)[walletDeployerIndex]!.account
  const safetyDeployer = deriveAccounts(safetyDeployerIndex + 1)[safetyDeployerIndex]!.account
  const kycDeployer = deriveAccounts(kycDeployerIndex + 1)[kycDeployerIndex]!.account
  const arbiter = deriveAccounts(arbiterIndex + 1)[arbiterIndex]!.account

  const genesisState: edr.AccountOverride[] = [
    ...edr.l1GenesisState(edr.l1HardforkFromString(hardfork)),
    ...[
      ...accounts.map(({ account }) => account),
      deployer,
      defiDeployer,
      agentRegistryDeployer,
      walletDeployer,
      safetyDeployer,
      kycDeployer,
      // The payment channels' receiver authorizer and relayers (indices 20 to 27); they hold ether only.
      ...channelDevnetIndices.map((index) => deriveAccounts(index + 1)[index]!.account),
      arbiter,
      // The compute-futures operator sends refunds; it holds ether for gas.
      deriveAccounts(futuresOperatorIndex + 1)[futuresOperatorIndex]!.account,
    ].map((account) => ({ address: hexToBytes(account.address), balance })),
    // Multicall3 has no constructor and no storage, so its runtime code is all it needs.
    { address: hexToBytes(multicall3Address), code: hexToBytes(multicall3.deployedBytecode) },
    // So has AuthorizationSettler: no constructor, no storage.
    { address: hexToBytes(authorizationSettlerAddress), code: hexToBytes(authorizationSettler.deployedBytecode) },
    // x402 batch-settlement at its canonical addresses: no constructor, no immutables, so runtime code suffices.
    ...channelContractsGenesis.map(({ address, code }) => ({ address: hexToBytes(address), code: hexToBytes(code) })),
    // Permit2 and x402's `upto` proxy at their canonical addresses: no constructor, no immutables, as above.
    ...uptoContractsGenesis.map(({ address, code }) => ({ address: hexToBytes(address), code: hexToBytes(code) })),
  ]

  const context = await edrContext()
  let provider: edr.Provider | undefined = await context.createProvider(
    edr.L1_CHAIN_TYPE,
    {
      // Same-second blocks keep block.timestamp on wall-clock time; otherwise every block adds a second and a
      // burst of transactions pushes the chain into the future, which breaks EIP-3009 validity windows.
      allowBlocksWithSameTimestamp: true,
      allowUnlimitedContractSize: false,
      // A failing eth_call must answer an error, not the revert data as a result.
      bailOnCallFailure: true,
      // Like a real node: a reverting transaction is mined with status 0 and its hash is returned.
      bailOnTransactionFailure: false,
      chainId: BigInt(chainId),
      coinbase: hexToBytes(hardhatCoinbase),
      defaultTransactionGasLimit: 30_000_000n,
      genesisState,
      hardfork,
      minGasPrice: 0n,
      // No interval mining: blocks are mined by changes only, on this thread, so that every block goes into the
      // journal and neither an idle devnet nor its readers grow it.
      mining: { autoMine: true, blockGasLimit, memPool: { order: edr.MineOrdering.Priority } },
      network: { genesisBlockGasLimit: blockGasLimit, genesisBlockTime: BigInt(header.genesisTime) },
      networkId: BigInt(chainId),
      observability: {},
      ownedAccounts: accounts.map(({ privateKey }) => privateKey),
      precompileOverrides: [],
    },
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => {} },
    { subscriptionCallback: () => {} },
    new edr.ContractDecoder(),
  )

  let nextId = 0
  /** Sends one request to EDR, with nothing around it. */
  async function call(method: string, params: unknown): Promise<JsonRpcOutcome> {
    if (!provider) return { error: { code: -32603, message: 'The devnet is closed.' } }
    let data: unknown
    try {
      const response = await provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }))
      data = typeof response.data === 'string' ? JSON.parse(response.data) : response.data
    } catch (error) {
      return { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } }
    }
    if (isRecord(data) && isRecord(data.error)) return { error: toNodeError(data.error as JsonRpcErrorObject) }
    return { result: isRecord(data) ? data.result : undefined }
  }

  // The latest block this devnet knows of; every block is mined by a request that goes through `change`.
  let head = { number: 0n, timestamp: header.genesisTime }
  // Set while the latest block is ahead of the wall clock (`syncClock`): EDR's clock never moves back, so each change
  // pins its block to the latest timestamp until the wall clock has caught up, then to the wall clock.
  let ahead = false
  // Simulations move to the next block only while every transaction is mined as it arrives: with automine off (a test
  // that fills a block by hand), the next block holds the transactions waiting, which a read at latest must not see.
  let automine = true
  // Requests that change the chain run one at a time, so the journal holds them in the order EDR executed them and
  // each entry the blocks its own request mined.
  let changes: Promise<unknown> = Promise.resolve()
  function exclusive<result>(run: () => Promise<result>): Promise<result> {
    const result = changes.then(run, run)
    changes = result.catch(() => undefined)
    return result
  }
  // While the deployment runs, entries wait here; the journal file is written once the devnet is complete.
  let pending: Entry[] | undefined = journal && !journal.header ? [] : undefined

  /** Runs a request that may change the chain and journals it with the blocks it mined. */
  async function change(method: string, params: unknown): Promise<JsonRpcOutcome> {
    const wall = ahead ? seconds(now()) : undefined
    if (wall !== undefined) await call('evm_setNextBlockTimestamp', [toHex(Math.max(wall, head.timestamp))])
    const latest = head.timestamp
    const outcome = await call(method, params)
    const mined = await minedSinceHead()
    if (wall !== undefined && mined && wall >= latest) ahead = false
    if (method === 'evm_setAutomine') automine = await isAutomining()
    if (!journal || ('error' in outcome && !mined)) return outcome
    const entry: Entry = {
      m: method,
      p: params,
      ...(mined ? { t: mined.timestamp, ...(mined.count > 1 ? { n: mined.count } : {}), h: mined.hash } : {}),
      ...('error' in outcome ? { e: 1 as const } : {}),
    }
    if (pending) pending.push(entry)
    else journal.append(entry)
    return outcome
  }

  /**
   * What was mined since `head`: how many blocks, the first one's timestamp and the last one's hash; undefined when
   * nothing was. Moves `head` to the latest block (also back, after evm_revert).
   */
  async function minedSinceHead(): Promise<{ count: number; timestamp: number; hash: Hash } | undefined> {
    const block = await blockAt('latest')
    if (!block) return undefined
    const number = BigInt(block.number)
    const previous = head
    head = { number, timestamp: Number(block.timestamp) }
    if (number <= previous.number) return undefined
    const first = number === previous.number + 1n ? block : await blockAt(toHex(previous.number + 1n))
    return {
      count: Number(number - previous.number),
      timestamp: Number(first?.timestamp ?? block.timestamp),
      hash: block.hash,
    }
  }

  async function isAutomining(): Promise<boolean> {
    const outcome = await call('hardhat_getAutomine', [])
    return 'result' in outcome && outcome.result === true
  }

  async function blockAt(tag: Hex | 'latest' | 'pending'): Promise<BlockHeader | undefined> {
    const outcome = await call('eth_getBlockByNumber', [tag, false])
    return 'result' in outcome && isRecord(outcome.result) ? (outcome.result as BlockHeader) : undefined
  }

  /**
   * Moves the chain's clock forward to the wall clock, once, after the deployment or the replay. EDR's clock is the
   * system clock plus an offset that each replayed evm_setNextBlockTimestamp set, so after a replay it lags by the
   * downtime; the jump itself mines nothing, and the blocks mined after it carry their timestamps into the journal.
   */
  async function syncClock(): Promise<void> {
    // The wall clock first: a second that turns between the two readings then leaves the chain behind, never ahead.
    const wall = seconds(now())
    const next = await blockAt('pending')
    const lag = next ? wall - Number(next.timestamp) : 0
    if (lag > 0) await call('evm_increaseTime', [lag])
    ahead = head.timestamp > wall
  }

  async function dispatch(method: string, params: unknown): Promise<JsonRpcOutcome> {
    if (!provider) return { error: { code: -32603, message: 'The devnet is closed.' } }
    if (journal && unjournaled.has(method))
      return {
        error: { code: -32601, message: `${method} is not available on a devnet that keeps its chain in a journal.` },
      }
    const given = params ?? []
    if (!reads.has(method)) return exclusive(() => change(method, given))
    return call(method, automine && simulations.has(method) ? inNextBlock(given) : given)
  }

  async function request(method: string, params: unknown[] = []): Promise<unknown> {
    const outcome = await dispatch(method, params)
    // Thrown as an EIP-1193 provider error ({ code, message, data }), which viem maps to its RPC error classes.
    if ('error' in outcome) throw Object.assign(new Error(outcome.error.message), outcome.error)
    return outcome.result
  }

  async function handleJsonRpc(httpRequest: Request): Promise<Response> {
    if (httpRequest.method === 'OPTIONS') return new Response(null, { status: 204, headers: corsHeaders })
    if (httpRequest.method !== 'POST')
      return new Response(null, { status: 405, headers: { ...corsHeaders, allow: 'POST, OPTIONS' } })

    let body: unknown
    try {
      body = JSON.parse(await httpRequest.text())
    } catch {
      return json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
    }
    if (!Array.isArray(body)) {
      const response = await answer(body)
      return response ? json(response) : new Response(null, { status: 204, headers: corsHeaders })
    }
    if (body.length === 0)
      return json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })
    // In order: EDR serializes requests anyway, and nonces of one sender must not be reordered.
    const responses: object[] = []
    for (const item of body) {
      const response = await answer(item)
      if (response) responses.push(response)
    }
    return responses.length > 0 ? json(responses) : new Response(null, { status: 204, headers: corsHeaders })
  }

  /** Answers one JSON-RPC request object; undefined for a notification (no `id`), which gets no response. */
  async function answer(item: unknown): Promise<object | undefined> {
    if (!isRecord(item) || typeof item.method !== 'string') {
      const id = isRecord(item) && isId(item.id) ? item.id : null
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request' } }
    }
    const outcome = await dispatch(item.method, item.params ?? [])
    if (!('id' in item)) return undefined
    return { jsonrpc: '2.0', id: isId(item.id) ? item.id : null, ...outcome }
  }

  const chain = devnetChain({ chainId, rpcUrl })
  const transport = custom(
    { request: ({ method, params }) => request(method, params) },
    { key: 'devnet', name: 'Devnet', retryCount: 0 },
  )
  // Blocks are mined on submission, so a short polling interval makes receipt waits return at once.
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 })
  const deployerClient = createWalletClient({ account: deployer, chain, transport })

  // The deployer's transactions go one at a time, so concurrent `fund` calls never race for a nonce.
  let deployerQueue: Promise<unknown> = Promise.resolve()
  function submit(transaction: {
    to?: Address
    data: Hex
  }): Promise<{ hash: Hash; contractAddress: Address | null | undefined }> {
    const run = async () => {
      const hash = await deployerClient.sendTransaction(transaction)
      // Auto-mining: eth_sendRawTransaction returns once the transaction is in a block.
      const receipt = await publicClient.getTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`Devnet transaction ${hash} reverted.`)
      return { hash, contractAddress: receipt.contractAddress }
    }
    const result = deployerQueue.then(run, run)
    deployerQueue = result.catch(() => undefined)
    return result
  }

  async function mint(address: Address, amount: bigint, token: Address = tokenAddress): Promise<Hash> {
    // DevUSDC and DevToken share the signature `mint(address,uint256)`.
    const data = encodeFunctionData({ abi: devUsdc.abi, functionName: 'mint', args: [address, amount] })
    return (await submit({ to: token, data })).hash
  }

  async function deploy(artifact: Artifact, nonce: bigint, args: readonly unknown[] = []): Promise<Address> {
    const expected = getContractAddress({ from: deployer.address, nonce })
    const data =
      args.length === 0 ? artifact.bytecode : encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args })
    const { contractAddress } = await submit({ data })
    if (contractAddress?.toLowerCase() !== expected.toLowerCase())
      throw new Error(
        `${artifact.contractName} deployed at ${contractAddress}, expected ${expected}: the deployer's nonce moved.`,
      )
    return expected
  }

  const addresses = contracts()
  const tokens: Record<string, devnet.Token> = {
    USDC: { address: addresses.token, decimals: 6 },
    ...Object.fromEntries(
      devTokens.map(({ symbol, decimals }) => [symbol, { address: addresses.tokens[symbol]!, decimals }]),
    ),
  }
  const tokenAddress = addresses.token
  try {
    if (journal?.header) await replay(journal.entries)
    else {
      // Deployments first and in this order: each address follows from the deployer's nonce, and mints come after.
      await deploy(devUsdc, 0n)
      await deploy(escrow, 1n)
      await deploy(batchPayments, 2n, [feeRecipient, batchFeeBps])
      for (const [index, { symbol, name, decimals }] of devTokens.entries())
        await deploy(devToken, BigInt(3 + index), [name, symbol, decimals])
      for (const [index, { description, answer }] of devPriceFeeds.entries())
        await deploy(priceFeed, BigInt(3 + devTokens.length + index), [description, answer])
      const names = addresses.names
      const namesNonce = (contract: (typeof nameServiceContracts)[number]) =>
        BigInt(nameServiceNonce + nameServiceContracts.indexOf(contract))
      await deploy(ensRegistry, namesNonce('registry'))
      await deploy(publicResolver, namesNonce('resolver'), [names.registry])
      await deploy(reverseRegistrar, namesNonce('reverseRegistrar'), [names.registry, names.resolver])
      await deploy(universalResolver, namesNonce('universalResolver'), [names.registry])
      // `reverse` stays the deployer's; `addr.reverse` is the reverse registrar's, so every account sets its own.
      const setSubnodeOwner = (node: Hex, label: string, owner: Address) =>
        submit({
          to: names.registry,
          data: encodeFunctionData({
            abi: ensRegistry.abi,
            functionName: 'setSubnodeOwner',
            args: [node, labelhash(label), owner],
          }),
        })
      await setSubnodeOwner(zeroHash, 'reverse', deployer.address)
      await setSubnodeOwner(namehash('reverse'), 'addr', names.reverseRegistrar)
      // The same number of whole tokens as of USDC: `tokenBalance` has 6 decimals.
      for (const { account } of accounts)
        for (const { address, decimals } of Object.values(tokens))
          await mint(account.address, (tokenBalance * 10n ** BigInt(decimals)) / 10n ** 6n, address)
      for (const { address, decimals } of Object.values(tokens))
        await mint(defiDeployer.address, defiDeployerTokens * 10n ** BigInt(decimals), address)
      await seedDefi({
        account: defiDeployer,
        chainId,
        request,
        tokens,
        feeds: addresses.priceFeeds,
        answers: Object.fromEntries(devPriceFeeds.map(({ symbol, answer }) => [symbol, answer])),
      })
      await deployAgentRegistry({ account: agentRegistryDeployer, chainId, request })
      await seedWallet({ account: walletDeployer, chainId, request })
      await mint(safetyDeployer.address, taxTokenPool.weth, addresses.tokens.WETH!)
      await seedSafety({
        account: safetyDeployer,
        chainId,
        request,
        weth: addresses.tokens.WETH!,
        positionManager: addresses.uniswap.positionManager,
        factory: addresses.uniswap.factory,
      })
      await seedKyc({ account: kycDeployer, chainId, request })
      await changes
      journal?.begin(header, pending ?? [])
      pending = undefined
    }
    await syncClock()
  } catch (error) {
    provider = undefined
    journal?.close()
    throw error
  }

  /** Runs the journal's requests again with the blocks' recorded timestamps, then checks the last block's hash. */
  async function replay(entries: readonly Entry[]): Promise<void> {
    for (const [index, entry] of entries.entries()) {
      if (entry.t !== undefined) await call('evm_setNextBlockTimestamp', [toHex(entry.t)])
      const outcome = await call(entry.m, entry.p)
      if ('error' in outcome && !entry.e)
        throw new StartError({
          code: 'devnet_journal_invalid',
          message: `Replaying the devnet journal ${parameters.journal} failed at line ${index + 2} (${entry.m}): ${outcome.error.message}`,
        })
    }
    const block = await blockAt('latest')
    if (block) head = { number: BigInt(block.number), timestamp: Number(block.timestamp) }
    automine = await isAutomining()
    // The last block a request mined is the latest, unless an evm_revert after it took it away again.
    let lastIndex = entries.length - 1
    while (lastIndex >= 0 && entries[lastIndex]!.h === undefined) lastIndex--
    const last = entries[lastIndex]
    if (last && !entries.slice(lastIndex).some((entry) => entry.m === 'evm_revert') && block?.hash !== last.h)
      throw new StartError({
        code: 'devnet_journal_invalid',
        message: `Replaying the devnet journal ${parameters.journal} ended on block ${block?.hash}, not on the recorded ${last.h}.`,
      })
  }

  return {
    chainId,
    chain,
    request,
    handleJsonRpc,
    transport,
    publicClient,
    token: { address: tokenAddress, name: 'USD Coin', version: '2', decimals: 6 },
    escrow: { address: addresses.escrow },
    batch: { address: addresses.batch, feeRecipient, feeBps: batchFeeBps },
    tokens,
    priceFeeds: addresses.priceFeeds,
    names: addresses.names,
    uniswap: addresses.uniswap,
    aave: addresses.aave,
    comet: addresses.comet,
    agentRegistry: addresses.agentRegistry,
    agentReputation: addresses.agentReputation,
    wallet: addresses.wallet,
    safety: addresses.safety,
    kyc: addresses.kyc,
    accounts: accounts.map(({ account, privateKey }) => ({ address: account.address, privateKey })),
    fund: ({ address, amount }) => mint(address, amount),
    async close() {
      if (!provider) return
      await changes
      provider = undefined
      journal?.close()
    },
  }
}

export declare namespace devnet {
  type Parameters = {
    /** Mnemonic accounts (m/44'/60'/0'/0/i) funded with ETH and USDC. @default 10 */
    accountCount?: number
    /** ETH per funded account, in wei. @default 10_000 ETH */
    balance?: bigint
    /** Block gas limit, in gas. @default 60_000_000n */
    blockGasLimit?: bigint
    /** Chain id; a test-network id that every x402 client knows, never a mainnet id. @default 84_532 */
    chainId?: number
    /**
     * Timestamp of the genesis block, in seconds since the Unix epoch; a journal that holds a chain keeps its own.
     * @default the start's time
     */
    genesisTime?: number
    /** EVM hardfork of the L1 chain. @default 'prague' */
    hardfork?: string
    /**
     * The wall clock the chain follows, in ms since the Unix epoch: it gives a new chain its genesis time, and a
     * started chain's clock is moved forward to it. @default Date.now
     */
    now?: () => number
    /**
     * Path of a journal file that keeps the chain across restarts: replayed at start when it exists, appended to with
     * every change. Held by one process at a time (lock file `<journal>.lock`). @default undefined (memory only)
     */
    journal?: string
    /** URL advertised in `chain.rpcUrls`, where `app/main.ts` serves `handleJsonRpc`. @default 'http://127.0.0.1:8545' */
    rpcUrl?: string
    /**
     * Devnet USDC minted to each funded account, in atomic units (6 decimals); every other devnet token gets the same
     * number of whole tokens. @default 1_000_000_000_000n (1,000,000 USDC)
     */
    tokenBalance?: bigint
  }

  /** An ERC-20 deployed on the devnet. */
  type Token = {
    /** Checksummed contract address. */
    address: Address
    /** Decimal places of an amount. */
    decimals: number
  }

  /** A funded account of the test mnemonic. */
  type Account = {
    /** Checksummed address. */
    address: Address
    /** 32-byte private key, `0x`-prefixed; public knowledge, for the devnet only. */
    privateKey: Hex
  }

  /** A running devnet. */
  type Devnet = {
    /** Chain id served by eth_chainId. */
    chainId: number
    /** viem chain describing the devnet (id, native currency, advertised RPC URL). */
    chain: Chain
    /** Sends one JSON-RPC request to EDR; resolves with its result or throws an EIP-1193 error `{ code, message, data }`. */
    request(method: string, params?: unknown[]): Promise<unknown>
    /** Fetch-style handler serving JSON-RPC over HTTP (single, batch, notifications, CORS) for `app/main.ts`. */
    handleJsonRpc(request: Request): Promise<Response>
    /** viem custom transport bound to the devnet, without retries. */
    transport: CustomTransport
    /** viem public client on `transport`. */
    publicClient: PublicClient<CustomTransport, Chain>
    /** The deployed DevUSDC and its EIP-712 domain. */
    token: {
      /** Token contract address. */
      address: Address
      /** ERC-20 name and EIP-712 domain name. */
      name: 'USD Coin'
      /** EIP-712 domain version. */
      version: '2'
      /** Decimal places of an amount. */
      decimals: 6
    }
    /** The deployed Escrow contract (`adapters/chain/contracts/Escrow.sol`). */
    escrow: {
      /** Contract address: the deployer's second contract. */
      address: Address
    }
    /** The deployed BatchPayments contract (`adapters/chain/contracts/BatchPayments.sol`), the ABI of the one on Base. */
    batch: {
      /** Contract address: the deployer's third contract. */
      address: Address
      /** Receives the protocol fee: mnemonic account {@link feeRecipientIndex}, which holds nothing at start. */
      feeRecipient: Address
      /** Fee rate the contract was deployed with, in basis points. */
      feeBps: bigint
    }
    /** Every ERC-20 on the devnet by symbol: USDC (DevUSDC) and the {@link devTokens}, each funded to every account. */
    tokens: Readonly<Record<string, Token>>
    /** The USD price feeds ({@link devPriceFeeds}) by token symbol; the deployer sets their answers. */
    priceFeeds: Readonly<Record<string, Address>>
    /** The name-service contracts ({@link nameServiceContracts}); the deployer owns the registry's root. */
    names: contracts.ReturnType['names']
    /** Uniswap v3 from its published artifacts, seeded with the pools of `./defi.ts` `devPools`. */
    uniswap: contracts.ReturnType['uniswap']
    /** The Aave v3 look-alikes, lending USDC and WETH. */
    aave: contracts.ReturnType['aave']
    /** The Compound v3 look-alike: a USDC market with WETH collateral. */
    comet: Address
    /** Our ERC-8004 Identity Registry (`contracts/AgentIdentityRegistry.sol`); nobody has registered an agent yet. */
    agentRegistry: Address
    /** Our ERC-8004 Reputation Registry (`contracts/AgentReputationRegistry.sol`) of those agents; no feedback yet. */
    agentReputation: Address
    /** The ERC-4337 EntryPoint v0.7 and our AgentAccountFactory. */
    wallet: contracts.ReturnType['wallet']
    /** The screening contracts: the sanctions oracle look-alike, the taxed token and a proxy. */
    safety: contracts.ReturnType['safety']
    /** EAS from its published artifacts and our attestation indexer, with the Coinbase Verifications schemas. */
    kyc: contracts.ReturnType['kyc']
    /** The funded mnemonic accounts, index 0 first. */
    accounts: readonly Account[]
    /** Mints devnet USDC to `address`; resolves with the mined transaction hash. */
    fund(parameters: {
      /** Recipient. */
      address: Address
      /** Amount in atomic units (6 decimals). */
      amount: bigint
    }): Promise<Hash>
    /** Stops block production and refuses further requests. */
    close(): Promise<void>
  }
}

/** The viem chain of a devnet: its id, ETH, the URL where its JSON-RPC is served and Multicall3 from genesis. */
export function devnetChain(parameters: devnetChain.Parameters): Chain {
  const { chainId, rpcUrl } = parameters
  return defineChain({
    id: chainId,
    name: 'Devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: multicall3Address, blockCreated: 0 } },
    testnet: true,
  })
}

export declare namespace devnetChain {
  type Parameters = {
    /** Chain id. */
    chainId: number
    /** URL of its JSON-RPC. */
    rpcUrl: string
  }
}

/** Account `index` of the test mnemonic (m/44'/60'/0'/0/index), with its public, devnet-only private key. */
export function account(parameters: account.Parameters): devnet.Account {
  const { index } = parameters
  const derived = deriveAccounts(index + 1)[index]!
  return { address: derived.account.address, privateKey: derived.privateKey }
}

export declare namespace account {
  type Parameters = {
    /** Mnemonic index, from 0. */
    index: number
  }
}

/**
 * The addresses of the devnet's contracts, which are the same on every devnet (they follow from the deployer's
 * nonces): what a gateway on the RPC of a standalone devnet looks for.
 */
export function contracts(): contracts.ReturnType {
  const deployer = deriveAccounts(deployerIndex + 1)[deployerIndex]!.account.address
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) })
  return {
    token: at(0),
    escrow: at(1),
    batch: at(2),
    feeRecipient: deriveAccounts(feeRecipientIndex + 1)[feeRecipientIndex]!.account.address,
    tokens: { USDC: at(0), ...Object.fromEntries(devTokens.map(({ symbol }, index) => [symbol, at(3 + index)])) },
    priceFeeds: Object.fromEntries(
      devPriceFeeds.map(({ symbol }, index) => [symbol, at(3 + devTokens.length + index)]),
    ),
    names: Object.fromEntries(
      nameServiceContracts.map((contract, index) => [contract, at(nameServiceNonce + index)]),
    ) as contracts.ReturnType['names'],
    ...defiContracts({ deployer: deriveAccounts(defiDeployerIndex + 1)[defiDeployerIndex]!.account.address }),
    agentRegistry: agentRegistryAddress({
      deployer: deriveAccounts(agentRegistryDeployerIndex + 1)[agentRegistryDeployerIndex]!.account.address,
    }),
    agentReputation: reputationRegistryAddress({
      deployer: deriveAccounts(agentRegistryDeployerIndex + 1)[agentRegistryDeployerIndex]!.account.address,
    }),
    wallet: walletContracts({
      deployer: deriveAccounts(walletDeployerIndex + 1)[walletDeployerIndex]!.account.address,
    }),
    safety: safetyContracts({
      deployer: deriveAccounts(safetyDeployerIndex + 1)[safetyDeployerIndex]!.account.address,
    }),
    kyc: kycContracts({ deployer: deriveAccounts(kycDeployerIndex + 1)[kycDeployerIndex]!.account.address }),
  }
}

export declare namespace contracts {
  type ReturnType = {
    /** DevUSDC, the deployer's first contract. */
    token: Address
    /** Escrow, its second. */
    escrow: Address
    /** BatchPayments, its third. */
    batch: Address
    /** The batch contract's fee recipient (mnemonic account {@link feeRecipientIndex}). */
    feeRecipient: Address
    /** Every devnet ERC-20 by symbol: USDC and the {@link devTokens}. */
    tokens: Readonly<Record<string, Address>>
    /** The devnet's USD price feeds by symbol ({@link devPriceFeeds}): USDC, ETH, SOL and the fiat currencies. */
    priceFeeds: Readonly<Record<string, Address>>
    /** The name-service contracts ({@link nameServiceContracts}), in their deployment order after the price feeds. */
    names: {
      /** EIP-137 registry; the deployer owns the root and `reverse`. */
      registry: Address
      /** Public resolver: addresses per coin type and reverse names, set by each node's owner. */
      resolver: Address
      /** Owner of `addr.reverse`: `setName(name)` sets the caller's primary name. */
      reverseRegistrar: Address
      /** Universal Resolver that viem's `getEnsAddress` and `getEnsName` call (`universalResolverAddress`). */
      universalResolver: Address
    }
    /** Uniswap v3, deployed by the DeFi deployer ({@link defiDeployerIndex}) at its nonces 0 to 3. */
    uniswap: defiContracts.ReturnType['uniswap']
    /** The Aave v3 look-alikes, at its nonces 4 and 5. */
    aave: defiContracts.ReturnType['aave']
    /** The Compound v3 look-alike, at its nonce 6. */
    comet: Address
    /** Our ERC-8004 Identity Registry, deployed by the agent-registry deployer (index 13) at its nonce 0. */
    agentRegistry: Address
    /** Our ERC-8004 Reputation Registry, by the same deployer at its nonce 1. */
    agentReputation: Address
    /** The ERC-4337 EntryPoint v0.7 and our AgentAccountFactory, by the wallet deployer ({@link walletDeployerIndex}). */
    wallet: walletContracts.ReturnType
    /** The screening contracts, deployed by the safety deployer ({@link safetyDeployerIndex}). */
    safety: safetyContracts.ReturnType
    /** EAS, its SchemaRegistry and our indexer, deployed by the KYC deployer ({@link kycDeployerIndex}) at its nonces 0 to 2. */
    kyc: kycContracts.ReturnType
  }
}

/** Methods that only read: they never go into the journal and run beside changes. */
const reads = new Set([
  'eth_accounts',
  'eth_blobBaseFee',
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_coinbase',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_mining',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_newPendingTransactionFilter',
  'eth_pendingTransactions',
  'eth_sign',
  'eth_signTypedData_v4',
  'eth_subscribe',
  'eth_syncing',
  'eth_uninstallFilter',
  'eth_unsubscribe',
  'debug_traceCall',
  'debug_traceTransaction',
  'hardhat_getAutomine',
  'hardhat_metadata',
  'net_listening',
  'net_peerCount',
  'net_version',
  'personal_sign',
  'web3_clientVersion',
  'web3_sha3',
])

/**
 * Reads that simulate a transaction. At `latest` (or no block) they run in the next block, which carries the chain's
 * clock, rather than in the latest one, however old it is: what a transaction sent now would meet.
 */
const simulations = new Set(['eth_call', 'eth_estimateGas', 'debug_traceCall'])

/** The parameters of a simulation (the call, then the block) with the block `latest` or left out turned into `pending`. */
function inNextBlock(params: unknown): unknown {
  if (!Array.isArray(params) || params.length === 0 || (params[1] != null && params[1] !== 'latest')) return params
  return [params[0], 'pending', ...params.slice(2)]
}

/** Seconds since the Unix epoch, as block timestamps count them, of a time in ms. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000)
}

/** Methods a journaled devnet refuses: they mine on another thread (interval mining) or start another chain. */
const unjournaled = new Set(['evm_setIntervalMining', 'hardhat_reset'])

/** The fields of a block this file reads. */
type BlockHeader = { number: Hex; timestamp: Hex; hash: Hash }

/** The genesis-defining parameters of a devnet: those of its journal, or those asked for on a new chain. */
function headerOf(parameters: devnet.Parameters, recorded: Header | undefined, now: () => number): Header {
  const {
    accountCount = 10,
    balance = parseEther('10000'),
    blockGasLimit = 60_000_000n,
    chainId = 84_532,
    genesisTime = seconds(now()),
    hardfork = 'prague',
  } = parameters
  const asked: Header = {
    journal: 1,
    chainId,
    genesisTime,
    hardfork,
    accountCount,
    balance: String(balance),
    blockGasLimit: String(blockGasLimit),
  }
  if (!recorded) return asked
  for (const key of ['chainId', 'hardfork', 'accountCount', 'balance', 'blockGasLimit'] as const)
    if (recorded[key] !== asked[key])
      throw new StartError({
        code: 'devnet_journal_invalid',
        message: `The devnet journal ${parameters.journal} holds a chain with ${key} ${recorded[key]}, not ${asked[key]}: start with the same settings or move the journal away.`,
      })
  return recorded
}

type JsonRpcErrorObject = { code: number; message: string; data?: unknown }
type JsonRpcOutcome = { result: unknown } | { error: JsonRpcErrorObject }

const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { headers: { ...corsHeaders, 'content-type': 'application/json' } })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isId(value: unknown): value is string | number | null {
  return typeof value === 'string' || typeof value === 'number' || value === null
}

/**
 * EDR reports a revert as `-32000 "VM Exception ..."` with `{ reason: { Revert }, data }`; geth and reth answer
 * `3 "execution reverted: <reason>"` with the revert data as hex. Answering like a node lets viem decode
 * `ContractFunctionRevertedError` and keeps error mapping identical on the devnet and on Base.
 */
function toNodeError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  const { data } = error
  if (!isRecord(data) || !isRecord(data.reason) || !('Revert' in data.reason) || typeof data.data !== 'string')
    return error
  const revertData = data.data as Hex
  const reason = decodeErrorString(revertData)
  return {
    code: 3,
    message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
    data: revertData,
  }
}

/** Decodes Solidity's `Error(string)` revert data; undefined for anything else. */
function decodeErrorString(data: Hex): string | undefined {
  if (!data.startsWith('0x08c379a0')) return undefined
  try {
    return decodeAbiParameters([{ type: 'string' }], `0x${data.slice(10)}`)[0]
  } catch {
    return undefined
  }
}

// Deriving from the mnemonic runs PBKDF2 (~30 ms); the master key is derived once per process.
let masterAccount: HDAccount | undefined
const derivedAccounts: { account: HDAccount; privateKey: Hex }[] = []

/** The first `count` accounts of the test mnemonic. */
function deriveAccounts(count: number): { account: HDAccount; privateKey: Hex }[] {
  // Path `m` yields the master key itself; viem's path type only admits BIP-44 paths.
  masterAccount ??= mnemonicToAccount(mnemonic, { path: 'm' as `m/44'/60'/${string}` })
  const master = masterAccount.getHdKey()
  for (let index = derivedAccounts.length; index < count; index++) {
    const account = hdKeyToAccount(master, { addressIndex: index })
    derivedAccounts.push({ account, privateKey: toHex(account.getHdKey().privateKey!) })
  }
  return derivedAccounts.slice(0, count)
}

// EDR allows one EdrContext per process ("Should only be called once!"); it is kept on globalThis so that two
// copies of this module (test runners may load one per file) still share it.
const edrContextKey = Symbol.for('agent-pay-gateway.edr-context')

function edrContext(): Promise<edr.EdrContext> {
  const global = globalThis as { [edrContextKey]?: Promise<edr.EdrContext> }
  global[edrContextKey] ??= (async () => {
    const context = new edr.EdrContext()
    await context.registerProviderFactory(edr.L1_CHAIN_TYPE, edr.l1ProviderFactory())
    return context
  })()
  return global[edrContextKey]
}
