import {
  type Abi,
  type Address,
  bytesToHex,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  hexToBigInt,
  hexToBytes,
  isHex,
  parseAbi,
  size,
  toFunctionSelector,
} from 'viem'
import { base } from 'viem/chains'
import { attempt, type Endpoint } from './Rpc.js'
import type * as Upstream from './Upstream.js'

/** How a check came out: a risk found, none found, or the source could not be read (never counted as clean). */
export type Status = 'flagged' | 'clean' | 'not_checked'

/** How much a flagged check weighs in the verdict. */
export type Severity = 'info' | 'warning' | 'danger'

/** One check of a screen, with what it saw and where it read it. */
export type Check = {
  /** Stable id of the check, e.g. `sell_tax`. */
  id: string
  /** Outcome. */
  status: Status
  /** Weight in the verdict when flagged. */
  severity: Severity
  /** One sentence on what was found, or why the check could not run. */
  summary: string
  /** The facts the outcome follows from: slots read, selectors found, amounts moved; strings for amounts. */
  evidence: Record<string, unknown>
  /** Where the facts come from, e.g. `eth_getStorageAt on base` or `GoPlus token_security`. */
  source: string
}

/** A screen's verdict: the worst flagged severity; `incomplete` when nothing is flagged but a check did not run. */
export type Verdict = 'danger' | 'warning' | 'pass' | 'incomplete'

/** The verdict of `checks`: `danger` or `warning` by their worst flag (`info` flags do not count), else `pass`, or `incomplete` when one was not checked. */
export function verdict(checks: readonly Check[]): Verdict {
  const flagged = checks.filter((check) => check.status === 'flagged')
  if (flagged.some((check) => check.severity === 'danger')) return 'danger'
  if (flagged.some((check) => check.severity === 'warning')) return 'warning'
  return checks.some((check) => check.status === 'not_checked') ? 'incomplete' : 'pass'
}

/**
 * The storage slots that name a proxy's implementation and admin: EIP-1967's implementation, admin and beacon
 * (`keccak256('eip1967.proxy.*') - 1`), EIP-1822's `PROXIABLE` (`keccak256('PROXIABLE')`), and the older ZeppelinOS
 * slots that FiatToken (USDC) proxies use (`keccak256('org.zeppelinos.proxy.*')`).
 */
export const proxySlots = {
  eip1967Implementation: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc',
  eip1967Admin: '0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103',
  eip1967Beacon: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50',
  eip1822Proxiable: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7',
  zeppelinosImplementation: '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3',
  zeppelinosAdmin: '0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b',
} as const satisfies Record<string, Hex>

/** The address a storage word holds in its low 20 bytes, or `null` when the word is zero. */
export function addressOfSlot(word: Hex): Address | null {
  const value = hexToBigInt(word)
  if (value === 0n) return null
  return getAddress(`0x${(value & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`)
}

/** The proxy a contract's slots describe: its implementation and admin, and which standard put them there. */
export function proxyOf(slots: Readonly<Record<keyof typeof proxySlots, Hex>>): proxyOf.ReturnType {
  const read = Object.fromEntries(Object.entries(slots).map(([name, word]) => [name, addressOfSlot(word)])) as Record<
    keyof typeof proxySlots,
    Address | null
  >
  const [standard, implementation, admin] = read.eip1967Implementation
    ? (['EIP-1967', read.eip1967Implementation, read.eip1967Admin] as const)
    : read.eip1822Proxiable
      ? (['EIP-1822', read.eip1822Proxiable, read.eip1967Admin] as const)
      : read.zeppelinosImplementation
        ? (['ZeppelinOS', read.zeppelinosImplementation, read.zeppelinosAdmin] as const)
        : read.eip1967Beacon
          ? (['EIP-1967 beacon', null, read.eip1967Admin] as const)
          : ([null, null, null] as const)
  return { standard, implementation, admin, beacon: read.eip1967Beacon }
}

export declare namespace proxyOf {
  type ReturnType = {
    /** Which slots named the implementation, or `null` when the contract is not a proxy by any of them. */
    standard: 'EIP-1967' | 'EIP-1822' | 'ZeppelinOS' | 'EIP-1967 beacon' | null
    /** The implementation the calls are delegated to. */
    implementation: Address | null
    /** Who may upgrade it, when a slot names them. */
    admin: Address | null
    /** The EIP-1967 beacon, when there is one. */
    beacon: Address | null
  }
}

/**
 * The 4-byte constants a contract's runtime code pushes (PUSH4), walked opcode by opcode so that the data of every
 * PUSH1..PUSH32 is skipped, never read as code: a Solidity or Vyper dispatcher compares the calldata's selector with
 * each of its functions' selectors this way. A constant that happens to be 4 bytes long is found too, which is why
 * a power is only reported by a selector of a known signature.
 */
export function pushedSelectors(code: Hex): Set<Hex> {
  const bytes = hexToBytes(code)
  const found = new Set<Hex>()
  let index = 0
  while (index < bytes.length) {
    const opcode = bytes[index]!
    // PUSH1 (0x60) to PUSH32 (0x7f) carry opcode - 0x5f bytes of data.
    const pushed = opcode >= 0x60 && opcode <= 0x7f ? opcode - 0x5f : 0
    if (pushed === 4 && index + 4 < bytes.length) found.add(bytesToHex(bytes.subarray(index + 1, index + 5)))
    index += 1 + pushed
  }
  return found
}

/** An owner power a token's code may hold. */
export type Power = 'mint' | 'blacklist' | 'pause' | 'fee' | 'upgrade' | 'limits'

/**
 * The function signatures of each power, as common token contracts spell them (OpenZeppelin, FiatToken, Tether, and
 * the "safemoon"-style taxed tokens): their selectors are what {@link powersOf} looks for.
 */
export const powerSignatures: Readonly<Record<Power, readonly string[]>> = {
  mint: ['mint(address,uint256)', 'mint(uint256)', 'mintTo(address,uint256)', 'issue(uint256)'],
  blacklist: [
    'blacklist(address)',
    'addBlackList(address)',
    'addToBlacklist(address)',
    'blocklist(address)',
    'addToBlocklist(address)',
    'setBlacklist(address,bool)',
    'setBlackList(address,bool)',
    'blacklistAddress(address,bool)',
    'setBots(address[],bool)',
    'freeze(address)',
    'destroyBlackFunds(address)',
  ],
  pause: ['pause()', 'setPaused(bool)', 'setTradingEnabled(bool)', 'enableTrading()', 'setTrading(bool)'],
  fee: [
    'setFee(uint256)',
    'setFees(uint256,uint256)',
    'setTax(uint256)',
    'setTaxes(uint256,uint256)',
    'setTaxFee(uint256)',
    'setSellFee(uint256)',
    'setBuyFee(uint256)',
    'setSellTax(uint256)',
    'setBuyTax(uint256)',
    'updateFees(uint256,uint256)',
    'setParams(uint256,uint256)',
  ],
  upgrade: ['upgradeTo(address)', 'upgradeToAndCall(address,bytes)', 'changeAdmin(address)'],
  limits: ['setMaxTxAmount(uint256)', 'setMaxWalletSize(uint256)', 'setMaxTxPercent(uint256)'],
}

/** Weight of each power when found: minting and upgrades are common in managed tokens, the rest can trap a holder. */
export const powerSeverity: Readonly<Record<Power, Severity>> = {
  mint: 'info',
  blacklist: 'warning',
  pause: 'warning',
  fee: 'warning',
  upgrade: 'info',
  limits: 'warning',
}

const selectorTable = Object.entries(powerSignatures).flatMap(([power, signatures]) =>
  signatures.map((signature) => ({ power: power as Power, signature, selector: toFunctionSelector(signature) })),
)

/** The powers whose selectors `code` pushes, each with the signatures and selectors found. */
export function powersOf(code: Hex): powersOf.Found[] {
  const pushed = pushedSelectors(code)
  const found = new Map<Power, powersOf.Found>()
  for (const { power, signature, selector } of selectorTable) {
    if (!pushed.has(selector)) continue
    const entry = found.get(power) ?? { power, functions: [] }
    entry.functions.push({ signature, selector })
    found.set(power, entry)
  }
  return [...found.values()]
}

export declare namespace powersOf {
  type Found = {
    /** The power. */
    power: Power
    /** The functions of it the code dispatches. */
    functions: {
      /** Solidity signature. */
      signature: string
      /** Its 4-byte selector. */
      selector: Hex
    }[]
  }
}

/** Whether `code` is deployed code: `0x` followed by at least one byte. */
export function hasCode(code: unknown): code is Hex {
  return typeof code === 'string' && isHex(code) && size(code) > 0
}

/**
 * Tax of a buy, in basis points of what QuoterV2 quoted (the pool's own price, its fee and price impact included, so
 * neither counts as tax): `(quote - received) × 10⁴ / quote`, rounded to nearest; 0 when more arrived.
 */
export function buyTaxBps(parameters: { quote: bigint; received: bigint }): bigint {
  const { quote, received } = parameters
  if (quote === 0n || received >= quote) return 0n
  return roundedDiv((quote - received) * 10_000n, quote)
}

/**
 * Tax of a sell, in basis points of the amount sold: the seller gave up `debited` tokens (the amount handed to the
 * router plus any tax charged on top) and got `received`, worth `amount × received / quote` tokens at the pool's
 * own price (QuoterV2's `quote` for `amount`, pool fee and price impact included): tax = (debited − that) / amount,
 * i.e. `(debited × quote − amount × received) × 10⁴ / (amount × quote)`, rounded to nearest, never below 0.
 */
export function sellTaxBps(parameters: { amount: bigint; debited: bigint; quote: bigint; received: bigint }): bigint {
  const { amount, debited, quote, received } = parameters
  if (amount === 0n || quote === 0n) return 0n
  const lost = debited * quote - amount * received
  return lost <= 0n ? 0n : roundedDiv(lost * 10_000n, amount * quote)
}

function roundedDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (2n * denominator)
}

/**
 * The token-trade simulator: runtime code with `simulate(router, quoter, baseToken, token, fee, amountIn)`, run with
 * eth_call at a scratch address (adapters/chain/contracts/SafetySimulator.sol).
 */
export type Simulator = {
  /** Its runtime bytecode. */
  code: Hex
  /** Its ABI. */
  abi: Abi
}

/** A second opinion on tokens and addresses from a security-intelligence vendor (GoPlus). */
export type Intel = {
  /** Name of the source in checks, e.g. `GoPlus token_security`. */
  source: string
  /** The vendor's flags of `token` on `chainId`; `null` when it has no record of it. */
  token: (parameters: {
    /** EIP-155 chain id. */
    chainId: number
    /** The token. */
    token: Address
  }) => Promise<Upstream.Outcome<{ flags: TokenIntel | null }>>
  /** The vendor's flags of `address` on `chainId`. */
  address: (parameters: {
    /** EIP-155 chain id. */
    chainId: number
    /** The address. */
    address: Address
  }) => Promise<Upstream.Outcome<{ flags: AddressIntel }>>
}

/** What the vendor says of a token: its boolean risk flags that are set, and its taxes. */
export type TokenIntel = {
  /** Names of the risk flags the vendor set, e.g. `is_honeypot`, `is_blacklisted`. */
  set: string[]
  /** Names of the risk flags the vendor answered as unset. */
  unset: string[]
  /** Buy tax in basis points, when answered. */
  buyTaxBps: bigint | null
  /** Sell tax in basis points, when answered. */
  sellTaxBps: bigint | null
  /** The owner the vendor names, when it names one. */
  owner: string | null
}

/** What the vendor says of an address: the flags it set and those it answered as unset. */
export type AddressIntel = {
  /** Names of the flags set, e.g. `phishing_activities`, `mixer`. */
  set: string[]
  /** Names of the flags answered as unset. */
  unset: string[]
  /** The vendor's own sources of its flags, when it names them. */
  dataSource: string | null
}

/**
 * The Chainalysis sanctions oracle (`isSanctioned(address) → bool`) on Base mainnet. Chainalysis deploys it at
 * 0x40C57923924B5c5c5455c48D93317139ADDaC8fb on most EVM chains, but Base has its own deployment.
 */
export const baseSanctionsOracle: Address = '0x3A91A31cB3dC49b4db9Ce721F50a9D076c8D739B'

/**
 * The devnet's sanctions oracle look-alike, at the address the safety deployer's nonce 0 gives it
 * (adapters/chain/devnet.ts `contracts().safety`; a test keeps the two equal).
 */
export const devnetSanctionsOracle: Address = '0xa196769Ca67f4903eCa574F5e76e003071A4d84a'

/** The sanctions oracle on the chain of a node by its id: Base mainnet's on Base, the devnet's on any other id. */
export function sanctionsOracleOf(chainId: number): Address {
  return chainId === base.id ? baseSanctionsOracle : devnetSanctionsOracle
}

/**
 * Storage slot of the `balanceOf` mapping in WETH9 (Base's predeploy at 0x4200…0006) and in the devnet's WETH
 * look-alike (DevToken): slot 3 in both, after name, symbol and decimals (WETH9) or name, symbol and totalSupply.
 */
export const wethBalanceSlot = 3n

/** A check whose source could not be read: never counted as clean. */
export function notChecked(id: string, severity: Severity, source: string, summary: string): Check {
  return { id, status: 'not_checked', severity, summary, evidence: {}, source }
}

/** The Chainalysis sanctions oracle's one view. */
export const sanctionsOracleAbi = parseAbi(['function isSanctioned(address addr) view returns (bool)'])

/** The `sanctions` check of `screened`: the chain's sanctions oracle, read on the node of `endpoint`. */
export async function sanctions(endpoint: Endpoint, screened: Address): Promise<Check> {
  const oracle = sanctionsOracleOf(endpoint.chainId)
  const source = `Chainalysis sanctions oracle ${oracle} isSanctioned (eth_call on the ${endpoint.name} node, chain ${endpoint.chainId})`
  const [oracleCode, answer] = await Promise.all([
    attempt(endpoint, 'eth_getCode', [oracle, 'latest']),
    attempt(endpoint, 'eth_call', [
      {
        to: oracle,
        data: encodeFunctionData({ abi: sanctionsOracleAbi, functionName: 'isSanctioned', args: [screened] }),
      },
      'latest',
    ]),
  ])
  if ('error' in oracleCode || !hasCode(oracleCode.result))
    return notChecked(
      'sanctions',
      'danger',
      source,
      `The oracle is not readable: ${'error' in oracleCode ? oracleCode.error : 'no code there'}.`,
    )
  if ('error' in answer) return notChecked('sanctions', 'danger', source, `The oracle did not answer: ${answer.error}`)
  const sanctioned = decodeFunctionResult({
    abi: sanctionsOracleAbi,
    functionName: 'isSanctioned',
    data: answer.result as Hex,
  })
  return {
    id: 'sanctions',
    status: sanctioned ? 'flagged' : 'clean',
    severity: 'danger',
    summary: sanctioned ? `${screened} is on the sanctions list.` : `${screened} is not on the sanctions list.`,
    evidence: { oracle, isSanctioned: sanctioned },
    source,
  }
}
