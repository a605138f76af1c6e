import {
  type Address,
  decodeErrorResult,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  parseAbi,
  toHex,
} from 'viem'
import * as AddressFormat from '../../core/Address.js'
import { NotFoundError, ValidationError } from '../../core/Errors.js'
import * as EvmChain from '../../core/EvmChain.js'
import * as Rpc from '../../core/Rpc.js'
import * as Safety from '../../core/Safety.js'
import * as Uniswap from '../../core/Uniswap.js'
import type { AddressSafetyQuery, TokenSafetyQuery } from './schema.js'

/** What the screens need from outside. */
export type Deps = {
  /** The settlement chain's node: the devnet on embedded defaults, Base in production. */
  chain: Rpc.Endpoint
  /** The second opinion (GoPlus); absent, its checks are not checked. */
  intel: Safety.Intel | undefined
  /** The contract run by eth_call to simulate a buy and a sell. */
  simulator: Safety.Simulator
  /** Current time, epoch ms. */
  now: () => number
}

/** The only chain served: the settlement chain. */
export const chainName: EvmChain.Name = 'base'

/** WETH spent by the simulated buy: 0.01 WETH, small enough not to move a thin pool much. */
export const simulatedBuyWei = 10n ** 16n

/** The scratch address the simulator's code is placed at for the eth_call (no contract lives there). */
export const simulatorAddress: Address = '0x00000000000000000000000000000000005afe00'

const poolAbi = parseAbi(['function liquidity() view returns (uint128)'])

/** Checks a screen's query before anything runs: an EVM address and, when given, the chain `base` in any spelling. */
export function preflight(query: Partial<Record<'address' | 'chain', unknown>>): void {
  if (typeof query.address === 'string') {
    const result = AddressFormat.validateEvm(query.address)
    if (!result.valid) throw new ValidationError({ field: 'address', message: result.message })
  }
  EvmChain.only({ value: query.chain, served: chainName })
}

/** Screens a token before a trade: proxy slots, owner powers in its code, a simulated buy and sell, and GoPlus. */
export async function token(deps: Deps, query: TokenSafetyQuery) {
  const address = getAddress(query.address)
  const rpc = `${deps.chain.name} node (chain ${deps.chain.chainId})`
  const code = await Rpc.attempt(deps.chain, 'eth_getCode', [address, 'latest'])
  if ('result' in code && !Safety.hasCode(code.result))
    throw new NotFoundError(`No contract at ${address} on ${chainName}: a token is a contract.`)
  const checks: Safety.Check[] = []

  // Proxy: the standard slots, read at the latest block.
  const names = Object.keys(Safety.proxySlots) as (keyof typeof Safety.proxySlots)[]
  const slots = await Promise.all(
    names.map((name) => Rpc.attempt(deps.chain, 'eth_getStorageAt', [address, Safety.proxySlots[name], 'latest'])),
  )
  const slotError = slots.find((slot) => 'error' in slot)
  let implementation: Address | null = null
  if (slotError && 'error' in slotError)
    checks.push(
      Safety.notChecked('proxy', 'warning', `eth_getStorageAt on the ${rpc}`, `Slots unread: ${slotError.error}`),
    )
  else {
    const words = Object.fromEntries(names.map((name, index) => [name, (slots[index] as { result: Hex }).result]))
    const proxy = Safety.proxyOf(words as Record<keyof typeof Safety.proxySlots, Hex>)
    implementation = proxy.implementation
    checks.push({
      id: 'proxy',
      status: proxy.standard ? 'flagged' : 'clean',
      severity: 'warning',
      summary: proxy.standard
        ? `Upgradeable ${proxy.standard} proxy: its code can be replaced${proxy.admin ? ` by ${proxy.admin}` : ''}.`
        : 'Not a proxy by the EIP-1967, EIP-1822 or ZeppelinOS slots.',
      evidence: { ...proxy, slots: words },
      source: `eth_getStorageAt on the ${rpc}`,
    })
  }

  // Owner powers: the selectors the dispatcher of the code that runs (the implementation's, behind a proxy) pushes.
  const codeSource = implementation ?? address
  const ran = implementation ? await Rpc.attempt(deps.chain, 'eth_getCode', [implementation, 'latest']) : code
  const powerSource = `PUSH4 selectors of the runtime code of ${codeSource} (eth_getCode on the ${rpc})`
  if ('error' in ran || !Safety.hasCode(ran.result))
    for (const power of Object.keys(Safety.powerSignatures) as Safety.Power[])
      checks.push(
        Safety.notChecked(
          `power_${power}`,
          Safety.powerSeverity[power],
          powerSource,
          `Code unread: ${'error' in ran ? ran.error : 'none'}`,
        ),
      )
  else {
    const found = Safety.powersOf(ran.result)
    for (const power of Object.keys(Safety.powerSignatures) as Safety.Power[]) {
      const functions = found.find((entry) => entry.power === power)?.functions ?? []
      checks.push({
        id: `power_${power}`,
        status: functions.length > 0 ? 'flagged' : 'clean',
        severity: Safety.powerSeverity[power],
        summary:
          functions.length > 0
            ? `The code dispatches ${functions.map(({ signature }) => signature).join(', ')}.`
            : `None of the ${power} functions looked for is in the code.`,
        evidence: { functions, lookedFor: Safety.powerSignatures[power], code: codeSource },
        source: powerSource,
      })
    }
  }

  checks.push(...(await simulation(deps, address, rpc)))
  checks.push(await tokenIntel(deps, address))
  return {
    chain: chainName,
    chainId: deps.chain.chainId,
    token: address,
    verdict: Safety.verdict(checks),
    checks,
    checkedAt: new Date(deps.now()).toISOString(),
  }
}

/**
 * A buy then a sell through Uniswap v3, run by the SafetySimulator's code in one eth_call: the code placed at a
 * scratch address and given {@link simulatedBuyWei} of WETH by state overrides, in the WETH pool of the token with the
 * most liquidity. Answers the honeypot, buy-tax and sell-tax checks.
 */
async function simulation(deps: Deps, token: Address, rpc: string): Promise<Safety.Check[]> {
  const uniswap = Uniswap.of(deps.chain.chainId)
  const source = `SafetySimulator in eth_call with state overrides on the ${rpc}, through Uniswap v3 SwapRouter02 ${uniswap.swapRouter02} and QuoterV2 ${uniswap.quoterV2}`
  const none = (summary: string) => [
    Safety.notChecked('honeypot', 'danger', source, summary),
    Safety.notChecked('buy_tax', 'warning', source, summary),
    Safety.notChecked('sell_tax', 'warning', source, summary),
  ]
  if (token === getAddress(uniswap.weth)) return none('The token is WETH itself, what the simulation pays with.')
  const pools = Uniswap.feeTiers.map((fee) => ({
    fee,
    pool: Uniswap.poolAddress({ factory: uniswap.factory, tokenA: token, tokenB: uniswap.weth, fee }),
  }))
  const liquidities = await Promise.all(
    pools.map(({ pool }) =>
      Rpc.attempt(deps.chain, 'eth_call', [
        { to: pool, data: encodeFunctionData({ abi: poolAbi, functionName: 'liquidity' }) },
        'latest',
      ]),
    ),
  )
  let best: { fee: number; pool: Address; liquidity: bigint } | undefined
  for (const [index, answer] of liquidities.entries()) {
    if (!('result' in answer) || answer.result === '0x') continue
    const liquidity = decodeFunctionResult({ abi: poolAbi, functionName: 'liquidity', data: answer.result as Hex })
    if (liquidity > 0n && (!best || liquidity > best.liquidity)) best = { ...pools[index]!, liquidity }
  }
  if (!best) return none(`No Uniswap v3 pool of the token against WETH ${uniswap.weth} holds liquidity.`)

  const balanceSlot = keccak256(
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [simulatorAddress, Safety.wethBalanceSlot]),
  )
  const data = encodeFunctionData({
    abi: deps.simulator.abi,
    functionName: 'simulate',
    args: [uniswap.swapRouter02, uniswap.quoterV2, uniswap.weth, token, best.fee, simulatedBuyWei],
  })
  const answer = await Rpc.attempt(deps.chain, 'eth_call', [
    { to: simulatorAddress, data, gas: toHex(30_000_000n) },
    'latest',
    {
      [simulatorAddress]: { code: deps.simulator.code },
      [uniswap.weth]: { stateDiff: { [balanceSlot]: toHex(simulatedBuyWei, { size: 32 }) } },
    },
  ])
  if ('error' in answer) return none(`The simulation did not run: ${answer.error}`)
  const outcome = decodeFunctionResult({
    abi: deps.simulator.abi,
    functionName: 'simulate',
    data: answer.result as Hex,
  }) as {
    buyQuote: bigint
    bought: bigint
    buyOk: boolean
    buyError: Hex
    sellAmount: bigint
    sellQuote: bigint
    debited: bigint
    received: bigint
    sellOk: boolean
    sellError: Hex
  }
  const pool = {
    pool: best.pool,
    fee: best.fee,
    liquidity: best.liquidity.toString(),
    paidWithWeth: simulatedBuyWei.toString(),
  }
  const buy = { quoted: outcome.buyQuote.toString(), received: outcome.bought.toString() }
  const sell = {
    amount: outcome.sellAmount.toString(),
    debited: outcome.debited.toString(),
    quotedWeth: outcome.sellQuote.toString(),
    receivedWeth: outcome.received.toString(),
  }
  const honeypot: Safety.Check = {
    id: 'honeypot',
    status: outcome.buyOk && outcome.sellOk ? 'clean' : 'flagged',
    severity: 'danger',
    summary: !outcome.buyOk
      ? `The simulated buy reverted: ${reasonOf(outcome.buyError)}.`
      : !outcome.sellOk
        ? `Bought, but the simulated sell reverted: ${reasonOf(outcome.sellError)}.`
        : 'A simulated buy and a sell of half of it both went through.',
    evidence: {
      ...pool,
      buy: { ...buy, ok: outcome.buyOk, ...(outcome.buyOk ? {} : { revert: reasonOf(outcome.buyError) }) },
      sell: outcome.buyOk
        ? { ...sell, ok: outcome.sellOk, ...(outcome.sellOk ? {} : { revert: reasonOf(outcome.sellError) }) }
        : null,
    },
    source,
  }
  if (!outcome.buyOk)
    return [
      honeypot,
      Safety.notChecked('buy_tax', 'warning', source, 'The buy reverted.'),
      Safety.notChecked('sell_tax', 'warning', source, 'The buy reverted.'),
    ]
  const buyTaxBps = Safety.buyTaxBps({ quote: outcome.buyQuote, received: outcome.bought })
  const taxCheck = (id: string, bps: bigint, evidence: Record<string, unknown>, what: string): Safety.Check => ({
    id,
    status: bps > 0n ? 'flagged' : 'clean',
    severity: bps >= 1_000n ? 'danger' : 'warning',
    summary:
      bps > 0n
        ? `${what} tax of ${bps} bps, beyond the pool's fee and price impact.`
        : `No ${what.toLowerCase()} tax beyond the pool's fee and price impact.`,
    evidence: { bps: bps.toString(), ...pool, ...evidence },
    source,
  })
  const checks = [honeypot, taxCheck('buy_tax', buyTaxBps, { buy }, 'Buy')]
  if (!outcome.sellOk) return [...checks, Safety.notChecked('sell_tax', 'warning', source, 'The sell reverted.')]
  const sellTaxBps = Safety.sellTaxBps({
    amount: outcome.sellAmount,
    debited: outcome.debited,
    quote: outcome.sellQuote,
    received: outcome.received,
  })
  return [...checks, taxCheck('sell_tax', sellTaxBps, { sell }, 'Sell')]
}

/** The revert reason of `data`: an `Error(string)` message, a `Panic(uint256)` code, or the raw data. */
function reasonOf(data: Hex): string {
  if (data === '0x') return 'no reason given'
  try {
    const decoded = decodeErrorResult({ data })
    return decoded.errorName === 'Error'
      ? String(decoded.args?.[0])
      : `${decoded.errorName}(${decoded.args?.join(', ')})`
  } catch {
    return `custom error ${data.slice(0, 10)}`
  }
}

async function tokenIntel(deps: Deps, token: Address): Promise<Safety.Check> {
  const source = 'GoPlus token_security'
  if (!deps.intel) return Safety.notChecked('goplus', 'warning', source, 'No GoPlus URL is configured.')
  const answer = await deps.intel.token({ chainId: deps.chain.chainId, token })
  if (!answer.ok) return Safety.notChecked('goplus', 'warning', source, `GoPlus did not answer: ${answer.message}`)
  const flags = answer.flags
  if (!flags)
    return Safety.notChecked(
      'goplus',
      'warning',
      source,
      `GoPlus has no record of ${token} on chain ${deps.chain.chainId}.`,
    )
  const taxed = (flags.buyTaxBps ?? 0n) > 0n || (flags.sellTaxBps ?? 0n) > 0n
  const trap = flags.set.some((flag) => flag === 'is_honeypot' || flag === 'cannot_sell_all' || flag === 'cannot_buy')
  return {
    id: 'goplus',
    status: flags.set.length > 0 || taxed ? 'flagged' : 'clean',
    severity: trap ? 'danger' : 'warning',
    summary:
      flags.set.length > 0 || taxed
        ? `GoPlus sets ${[...flags.set, ...(taxed ? ['a tax'] : [])].join(', ')}.`
        : 'GoPlus sets none of its risk flags.',
    evidence: {
      set: flags.set,
      unset: flags.unset,
      buyTaxBps: flags.buyTaxBps?.toString() ?? null,
      sellTaxBps: flags.sellTaxBps?.toString() ?? null,
      owner: flags.owner,
    },
    source,
  }
}

/** Screens an address: the sanctions oracle on chain, and GoPlus's address flags. */
export async function address(deps: Deps, query: AddressSafetyQuery) {
  const screened = getAddress(query.address)
  const checks = [await Safety.sanctions(deps.chain, screened)]
  checks.push(await addressIntel(deps, screened))
  return {
    chain: chainName,
    chainId: deps.chain.chainId,
    address: screened,
    verdict: Safety.verdict(checks),
    checks,
    checkedAt: new Date(deps.now()).toISOString(),
  }
}

async function addressIntel(deps: Deps, address: Address): Promise<Safety.Check> {
  const source = 'GoPlus address_security'
  if (!deps.intel) return Safety.notChecked('goplus', 'danger', source, 'No GoPlus URL is configured.')
  const answer = await deps.intel.address({ chainId: deps.chain.chainId, address })
  if (!answer.ok) return Safety.notChecked('goplus', 'danger', source, `GoPlus did not answer: ${answer.message}`)
  const { set, unset, dataSource } = answer.flags
  return {
    id: 'goplus',
    status: set.length > 0 ? 'flagged' : 'clean',
    severity: set.every((flag) => flag === 'blacklist_doubt') ? 'warning' : 'danger',
    summary: set.length > 0 ? `GoPlus sets ${set.join(', ')}.` : 'GoPlus sets none of its address flags.',
    evidence: { set, unset, dataSource },
    source,
  }
}
