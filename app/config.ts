import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { mainnet } from 'viem/chains'
import { ConfigError } from '../core/Errors.js'
import type * as Module from '../core/Module.js'
import * as Price from '../core/Price.js'
import type { AnyProvider } from '../core/Provider.js'
import { families } from './modules.js'
import { providers as defaultProviders } from './providers.js'

export { ConfigError }

/** One `host[:port]`: a DNS name or IPv4 address, or an IPv6 address in brackets. */
const hostPattern =
  '(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?'

/**
 * Every environment variable the gateway itself reads (each family reads its own slice, see core/Module.ts `env`, and
 * each port provider its own, see core/Provider.ts `env`).
 * The configuration table is generated from these schemas (`npm run docs`): `description` is the
 * "meaning" column, `defaultText` the "default" column where the schema's `default` is not what people should read,
 * and `secret: true` adds "never logged".
 */
const Environment = Type.Object({
  PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 3402, description: 'TCP port of the HTTP server' }),
  HOST: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'interface the server binds to (`0.0.0.0` to serve other machines)',
  }),
  PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/]+(/[^\\s]*)?$',
      defaultText: 'see `PUBLIC_HOSTS`',
      description: 'absolute base URL of discovery documents and payment offers (`resource`, MPP realm)',
    }),
  ),
  PUBLIC_HOSTS: Type.Optional(
    Type.String({
      pattern: `^\\s*${hostPattern}(\\s*,\\s*${hostPattern})*\\s*,?\\s*$`,
      defaultText: 'none: the listen address',
      description:
        'without `PUBLIC_URL`, comma-separated `host[:port]` names (as clients send them in `Host`, default port left out) whose requests get absolute URLs on their own origin; any other `Host` gets `http://HOST:PORT`, so a shared cache cannot be poisoned with a made-up host',
    }),
  ),
  ICON_URL: Type.Optional(
    Type.String({
      pattern: '^https://[^\\s]+$',
      defaultText: 'none',
      description:
        "absolute https URL of the service's icon, named in every 402's `resource.iconUrl` for agent indexes (x402 bazaar)",
    }),
  ),
  BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 64 * 1024 * 1024,
    default: 1024 * 1024,
    description: 'largest accepted request body',
  }),
  UNPAID_CONCURRENCY_PER_CLIENT: Type.Integer({
    minimum: 0,
    default: 32,
    description:
      'requests without a payment one client (by source address: all of loopback as one, IPv6 by its /64) may have in progress at once on one process; one more is answered 429 at once, before any work. Requests carrying a payment are not counted; `0`: no cap',
  }),
  FREE_ENDPOINT_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 300,
    description:
      "calls per minute each client may make to a family's free endpoints when the family sets no limit of its own (`/api/v1/tx/decode`, `/api/v1/tokens`, the safety checks, ...), in bursts of as many; beyond it a 429 problem+json with `Retry-After`; `0`: no limit",
  }),
  FAILED_PAYMENT_CHECKS_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 10,
    description:
      'payments whose on-chain check fails (an unfunded key, a used nonce) each client may send per minute, in bursts of as many; beyond it a 429 problem+json with `Retry-After`, before the chain is read; `0`: no limit',
  }),
  URL_CHECKS_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 30,
    description:
      'URLs a caller gives (webhook and cron callbacks, robot endpoints, `/free/x402-check`) each client may have checked before paying (their host resolved and its addresses checked), per minute, in bursts of as many; beyond it a 429 problem+json with `Retry-After`; `0`: no limit',
  }),
  NETWORK: Type.String({
    pattern: '^eip155:[0-9]+$',
    default: 'eip155:84532',
    description: 'CAIP-2 settlement network; `eip155:84532` is the embedded devnet, `eip155:8453` is Base',
  }),
  PAY_TO: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      defaultText: 'first test account on the devnet',
      description: 'address that receives payments; required on Base',
    }),
  ),
  RPC_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^(https?|wss?)://',
      defaultText: 'none: the embedded devnet',
      description:
        "JSON-RPC URL of the settlement chain: a Base node on `eip155:8453`, a devnet of `npm run devnet` on any other `NETWORK`; its chain id must be `NETWORK`'s",
    }),
  ),
  CHAIN_RPC_ETHEREUM: Type.String({
    minLength: 1,
    default: mainnet.rpcUrls.default.http[0],
    description:
      'JSON-RPC URL of Ethereum (keyless public node unless set): the chain-data endpoints read it as `ethereum`, and on Base the name endpoints read ENS there; may carry a provider key',
    secret: true,
  }),
  DEVNET_RPC_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 8545,
    description:
      'port on 127.0.0.1 where the embedded devnet (or `npm run devnet`) serves JSON-RPC to outside wallets; `0` turns it off (embedded only)',
  }),
  DEVNET_PERSIST: Type.Boolean({
    default: true,
    description:
      "keep the devnet's chain across restarts in `DATA_DIR/devnet.journal`; `false`: a new chain at every start",
  }),
  RELAYER_PRIVATE_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^0x[0-9a-fA-F]{64}$',
      defaultText: 'a funded test account on a devnet (#9, then #8, ... for further processes)',
      description: 'key that submits settlements (local facilitator); needs ETH for gas; one process only',
    }),
  ),
  RELAYER_MNEMONIC: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^[a-z]+( [a-z]+){11,23}$',
      description:
        "BIP-39 mnemonic of the relayer keys for several processes on one database: each signs with the key at its lease slot (`m/44'/60'/0'/0/<slot>`), so their nonces never collide; fund each with ETH",
    }),
  ),
  SETTLEMENT_TIMEOUT_MS: Type.Integer({
    minimum: 1_000,
    maximum: 120_000,
    default: 15_000,
    description:
      'how long a paid call waits for its settlement; past it the answer is `503 settlement_pending` and a retry gets the response, charged once',
  }),
  FACILITATOR_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^https?://',
      description: 'a remote x402 facilitator (`/verify`, `/settle`, `/supported`) that settles instead of the relayer',
    }),
  ),
  CHANNEL_AUTHORIZER_PRIVATE_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^0x[0-9a-fA-F]{64}$',
      defaultText: 'test account #20 on a devnet (channels off elsewhere)',
      description:
        'receiver authorizer of payment channels (x402 `batch-settlement`): signs claims and refunds, and relays them (needs ETH; one process)',
    }),
  ),
  RECEIPT_PRIVATE_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^0x[0-9a-fA-F]{64}$',
      defaultText: 'test account #18 on a devnet (no signed receipts elsewhere)',
      description:
        'key that signs the x402 `offer-receipt` receipt (EIP-712) of every settled x402 payment; signs only, needs no ETH; its address is published in `/.well-known/x402.json`',
    }),
  ),
  CHANNEL_WITHDRAW_DELAY_S: Type.Integer({
    minimum: 900,
    maximum: 2_592_000,
    default: 86_400,
    description: 'withdraw delay offered in payment channels; claims are sent well before it can pass',
  }),
  CHANNEL_DEPOSIT_METHOD: Type.Union([Type.Literal('eip3009'), Type.Literal('permit2')], {
    default: 'eip3009',
    description:
      'deposit method offered in payment channels (`assetTransferMethod`): an ERC-3009 authorization, or a Permit2 permit for tokens without ERC-3009 (the payer approves Permit2 once); deposits of either are accepted',
  }),
  SOLANA_PAY_RPC_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^https?://',
      defaultText: 'none: no Solana offer',
      description:
        'JSON-RPC node of the network Solana payments (x402 `exact` on `solana:`) settle on; may carry a key',
    }),
  ),
  SOLANA_FEE_PAYER_SECRET_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^(\\[[0-9,\\s]+\\]|[1-9A-HJ-NP-Za-km-z]{80,90})$',
      defaultText: 'none: no Solana offer',
      description:
        'keypair of our Solana fee payer (64 bytes: a `solana-keygen` JSON array, or base58): co-signs and sends Solana payments, paying their fees (needs SOL; one key may serve every process)',
    }),
  ),
  SOLANA_PAY_TO: Type.Optional(
    Type.String({
      pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
      defaultText: 'none: no Solana offer',
      description: 'owner (base58) of the token account that receives Solana payments: its associated token account',
    }),
  ),
  SOLANA_PAY_MINT: Type.String({
    pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
    default: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    description: 'mint of the token Solana payments are made in (mainnet USDC by default)',
  }),
  SOLANA_PAY_NETWORK: Type.String({
    pattern: '^solana:[1-9A-HJ-NP-Za-km-z]{32}$',
    default: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    description:
      'CAIP-2 network of Solana payments (mainnet by default; devnet is `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`)',
  }),
  AUTHORIZATION_SETTLER: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      defaultText: 'ours from genesis on a devnet; none elsewhere (batches go through Multicall3)',
      description:
        'address of an AuthorizationSettler (adapters/chain/contracts/artifacts/AuthorizationSettler.json, deployed by you) that settles a batch from packed authorizations, with less gas per payment than Multicall3; its code must be the code of that artifact, checked at start (batches through it go out on a gas budget that relies on its starvation check)',
    }),
  ),
  SETTLEMENT_WINDOW_MS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000,
      defaultText: '`5` on the devnet, `2000` elsewhere',
      description: 'settlements closer together than this share one transaction',
    }),
  ),
  MPP_SECRET: Type.Optional(
    Type.String({
      secret: true,
      minLength: 32,
      defaultText: 'random per start on the devnet',
      description: 'HMAC key that binds MPP challenge ids; required on Base, identical on every process',
    }),
  ),
  SESSION_SECRET: Type.Optional(
    Type.String({
      secret: true,
      minLength: 32,
      defaultText: 'random per start on the devnet',
      description:
        'HMAC key that signs session tokens (`/api/v1/auth/*`); required on Base, identical on every process',
    }),
  ),
  DATABASE_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^postgres(ql)?://',
      defaultText: 'none: the embedded store',
      description: 'PostgreSQL URL of the payment ledger and the store (several gateway processes on one database)',
    }),
  ),
  REDIS_URL: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^rediss?://',
      defaultText: 'none: the limits live in PostgreSQL with `DATABASE_URL`, else in memory',
      description:
        "Redis URL where the per-client limits of every process are counted together (rate limits, failed payment checks, URL checks); without it they are counted in PostgreSQL when `DATABASE_URL` is set, and in the process's memory otherwise (right for one process only)",
    }),
  ),
  DATA_DIR: Type.String({
    minLength: 1,
    default: '.data',
    description: "folder of the embedded store and of the devnet's journal",
  }),
  OPERATOR_TOKEN: Type.Optional(
    Type.String({
      secret: true,
      defaultText: 'none: `/dashboard` and `/metrics` are off',
      description:
        'bearer token of the operator: turns on `/dashboard` (bearer, or its login form that sets a cookie), `/metrics` (bearer) and the MCP wallet at `/mcp` (bearer); at least 32 characters, e.g. `openssl rand -hex 32`; a token printed in these docs is refused',
    }),
  ),
  MCP_PRIVATE_KEY: Type.Optional(
    Type.String({
      secret: true,
      pattern: '^0x[0-9a-fA-F]{64}$',
      defaultText: 'none: paid tools are refused',
      description:
        'key of the wallet the MCP server (`npm run mcp`, and `/mcp` with `OPERATOR_TOKEN` as its bearer) pays paid tools from with x402; an agent-wallet session key works as any key',
    }),
  ),
  MCP_MAX_PER_CALL: Type.String({
    pattern: '^[0-9]+(\\.[0-9]{1,6})?$',
    default: '0.10',
    description: 'most one MCP tool call may pay, in USD; a dearer call is refused before anything is signed',
  }),
  MCP_SESSION_BUDGET: Type.String({
    pattern: '^[0-9]+(\\.[0-9]{1,6})?$',
    default: '1.00',
    description: 'most one MCP session may pay in all, in USD; a call beyond it is refused before anything is signed',
  }),
  LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], {
    default: 'info',
    description:
      "`debug`, `info`, `warn` or `error`; logs are JSON lines and never contain request bodies, error messages (only error class names and stack frames) or a URL's path, query or user info",
  }),
})

/** The parsed configuration, handed to the composition root. */
export type Config = {
  /** TCP port. @default 3402 */
  port: number
  /** Bind address. @default '127.0.0.1' */
  host: string
  /** Absolute base URL of discovery documents and payment offers; when absent, see `publicHosts`. */
  publicUrl: string | undefined
  /**
   * Without `publicUrl`: the `host[:port]` names (lower case) a request's own origin may be used for in absolute
   * URLs; any other request gets the listen address. @default []
   */
  publicHosts: string[]
  /** Largest accepted request body in bytes. @default 1048576 */
  bodyLimitBytes: number
  /** Absolute https URL of the service's icon, for agent indexes; absent, none is named. */
  iconUrl: string | undefined
  /** CAIP-2 settlement network. @default 'eip155:84532' (the embedded devnet) */
  network: `eip155:${number}`
  /** Address that receives payments, when configured. */
  payTo: `0x${string}` | undefined
  /** Least severe log level. @default 'info' */
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  /** JSON-RPC URL of the settlement chain; absent: the embedded devnet. */
  rpcUrl: string | undefined
  /** JSON-RPC URL of Ethereum mainnet (chain data; ENS when settling on Base). @default viem's public node */
  ethereumRpcUrl: string
  /** Port on 127.0.0.1 of the devnet's JSON-RPC; 0 turns it off. @default 8545 */
  devnetRpcPort: number
  /** Whether the devnet keeps its chain across restarts in `dataDir/devnet.journal`. @default true */
  devnetPersist: boolean
  /** Key that submits settlements; on the devnet a funded test account by default. Never logged. */
  relayerPrivateKey: `0x${string}` | undefined
  /** Mnemonic of the relayer keys, one per process by lease slot. Never logged. */
  relayerMnemonic: string | undefined
  /** How long a paid call waits for its settlement before answering `settlement_pending`, in ms. @default 15000 */
  settlementTimeoutMs: number
  /** Receiver authorizer (and relayer) of payment channels; on the devnet test account #20 by default. Never logged. */
  channelAuthorizerPrivateKey: `0x${string}` | undefined
  /** Key that signs `offer-receipt` receipts; on the devnet test account #18 by default. Never logged. */
  receiptPrivateKey: `0x${string}` | undefined
  /** Withdraw delay offered in payment channels, in seconds. @default 86400 */
  channelWithdrawDelayS: number
  /** Deposit method offered in payment channels. @default 'eip3009' */
  channelDepositMethod: 'eip3009' | 'permit2'
  /** Remote x402 facilitator; when set, it settles instead of the relayer. */
  facilitatorUrl: string | undefined
  /** x402 `exact` on Solana: its node, fee payer (never logged), payee, mint and network; unset parts turn it off. */
  solanaPay: {
    /** JSON-RPC URL of a node; absent: no Solana offer. Never logged. */
    rpcUrl: string | undefined
    /** Keypair of the fee payer; absent: no Solana offer. Never logged. */
    feePayerSecretKey: string | undefined
    /** Owner of the receiving token account; absent: no Solana offer. */
    payTo: string | undefined
    /** Mint of the token paid in. @default mainnet USDC */
    mint: string
    /** CAIP-2 network. @default Solana mainnet */
    network: `solana:${string}`
  }
  /** Our AuthorizationSettler off a devnet (batches through Multicall3 without it). */
  authorizationSettler: `0x${string}` | undefined
  /** Settlements closer than this share one transaction, in ms. @default 5 on the devnet, 2000 elsewhere */
  settlementWindowMs: number | undefined
  /** HMAC key of MPP challenge ids; random per start on the devnet. Never logged. */
  mppSecret: string | undefined
  /** HMAC key of session tokens; random per start on the devnet. Never logged. */
  sessionSecret: string | undefined
  /** PostgreSQL URL of the ledger; absent: the embedded store in `dataDir`. Never logged. */
  databaseUrl: string | undefined
  /** Folder of the embedded store. @default '.data' */
  dataDir: string
  /** Redis URL of the limits shared by every process; absent: PostgreSQL with `databaseUrl`, else memory. Never logged. */
  redisUrl: string | undefined
  /** Per-client limits; each `0` turns its limit off. */
  limits: {
    /** Unpaid requests one client may have in progress at once on one process. @default 32 */
    unpaidConcurrencyPerClient: number
    /** Calls per minute to a family's free endpoints when the family sets no limit of its own. @default 300 */
    freeEndpointsPerMinute: number
    /** Payments per minute whose on-chain check fails. @default 10 */
    failedPaymentChecksPerMinute: number
    /** Caller URLs per minute checked before payment. @default 30 */
    urlChecksPerMinute: number
  }
  /** Bearer token of the operator (dashboard, metrics); absent: both are off. Never logged. */
  operatorToken: string | undefined
  /** The MCP server's wallet and spending limits. */
  mcp: {
    /** Key that pays paid tools; absent: paid tools are refused. Never logged. */
    privateKey: `0x${string}` | undefined
    /** Most one call may pay, in atomic USDC. @default 100000n */
    maxPerCall: bigint
    /** Most one session may pay, in atomic USDC. @default 1000000n */
    sessionBudget: bigint
  }
  /** Each module's parsed environment slice, by module name (modules without one have no entry). */
  modules: Record<string, unknown>
  /** Each provider's parsed environment slice, by the port it builds (providers without one have no entry). */
  providers: Record<string, unknown>
}

/** One documented variable, as its schema declares it. */
export type Variable = {
  /** Name in the environment. */
  name: string
  /** The schema's default, as text; `undefined` when it has none. */
  default: string | undefined
  /** The default as people should read it (Markdown), where the schema's is not that, e.g. "random per start on the devnet". */
  defaultText?: string | undefined
  /** What the variable means (Markdown, lower case, no final period): the README's "meaning" column. */
  description: string
  /** Whether the value is a secret: never printed, and "never logged" in the README. */
  secret: boolean
}

/**
 * The variables one schema declares: the gateway's own (`family` and `provider` undefined), one provider's env slice
 * or one family's.
 */
export type Group = {
  /** The family whose slice this is. */
  family: Module.AnyModule | undefined
  /** The provider whose slice this is. */
  provider: AnyProvider | undefined
  /** Its variables, in its order. */
  variables: Variable[]
}

/**
 * Documentation of every variable: the gateway's first, then each provider's in the order of `providers`, then each
 * family's in the order of `modules`. A variable two slices read (one schema object in both) is listed once, in the
 * first; one name declared by two different schemas is a fault.
 */
export function groupsOf(
  modules: readonly Module.AnyModule[] = families,
  providers: readonly AnyProvider[] = defaultProviders,
): Group[] {
  const declared = new Map<string, TSchema>()
  const variablesIn = (schema: TObject): Variable[] =>
    Object.entries(schema.properties).flatMap(([name, property]) => {
      const before = declared.get(name)
      if (before === property) return []
      if (before) throw new Error(`${name} is declared by two environment slices with two schemas: declare it once.`)
      declared.set(name, property)
      return [
        {
          name,
          default: 'default' in property ? String(property.default) : undefined,
          defaultText: typeof property.defaultText === 'string' ? property.defaultText : undefined,
          description: String(property.description),
          secret: property.secret === true,
        },
      ]
    })
  return [
    { family: undefined, provider: undefined, variables: variablesIn(Environment) },
    ...providers.flatMap((provider) =>
      provider.env ? [{ family: undefined, provider, variables: variablesIn(provider.env as TObject) }] : [],
    ),
    ...modules.flatMap((module) =>
      module.env ? [{ family: module, provider: undefined, variables: variablesIn(module.env as TObject) }] : [],
    ),
  ].filter((group) => group.variables.length > 0)
}

/**
 * Documentation of every variable of the gateway, of `modules` and of `providers` (name, default, description), for
 * the configuration docs.
 */
export function variablesOf(
  modules: readonly Module.AnyModule[] = families,
  providers: readonly AnyProvider[] = defaultProviders,
): Variable[] {
  return groupsOf(modules, providers).flatMap((group) => group.variables)
}

/** Documentation of every variable the gateway, its providers and its modules read. */
export const variables = variablesOf()

/**
 * Reads the variables of `schema` from `env` with their defaults, or adds a line per bad variable to `errors`. A
 * variable whose schema says `secret: true` is named but its value is never printed.
 */
function read<schema extends TObject>(
  schema: schema,
  env: Record<string, string | undefined>,
  errors: string[],
): Static<schema> {
  const raw = Object.fromEntries(
    Object.keys(schema.properties)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  )
  const value = Value.Convert(schema, Value.Default(schema, raw))
  for (const error of Value.Errors(schema, value)) {
    const name = error.path.replace(/^\//, '')
    const shown = schema.properties[name]?.secret === true ? '<redacted>' : JSON.stringify(raw[name] ?? '')
    errors.push(`  ${name}=${shown}: ${error.message}`)
  }
  return value as Static<schema>
}

/**
 * Parses the environment once at boot, the gateway's variables, each provider's slice and each module's; fails fast
 * with one message naming every bad variable, then with the first provider's slice whose variables do not go
 * together.
 */
export function parse(
  env: Record<string, string | undefined>,
  modules: readonly Module.AnyModule[] = families,
  providers: readonly AnyProvider[] = defaultProviders,
): Config {
  assertOperatorToken(env.OPERATOR_TOKEN)
  const errors: string[] = []
  const value = read(Environment, env, errors)
  const ported = Object.fromEntries(
    providers.flatMap((provider) =>
      provider.env ? [[provider.port, read(provider.env as TObject, env, errors)]] : [],
    ),
  )
  const slices = Object.fromEntries(
    modules.flatMap((module) => (module.env ? [[module.name, read(module.env as TObject, env, errors)]] : [])),
  )
  if (errors.length > 0) throw new ConfigError(`Invalid configuration:\n${[...new Set(errors)].join('\n')}`)
  for (const provider of providers) provider.assert?.(ported[provider.port])
  const parsed = value as Static<typeof Environment>
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    publicHosts: (parsed.PUBLIC_HOSTS ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== ''),
    bodyLimitBytes: parsed.BODY_LIMIT_BYTES,
    iconUrl: parsed.ICON_URL,
    network: parsed.NETWORK as `eip155:${number}`,
    payTo: parsed.PAY_TO as `0x${string}` | undefined,
    logLevel: parsed.LOG_LEVEL,
    rpcUrl: parsed.RPC_URL,
    ethereumRpcUrl: parsed.CHAIN_RPC_ETHEREUM,
    devnetRpcPort: parsed.DEVNET_RPC_PORT,
    devnetPersist: parsed.DEVNET_PERSIST,
    relayerPrivateKey: parsed.RELAYER_PRIVATE_KEY as `0x${string}` | undefined,
    relayerMnemonic: parsed.RELAYER_MNEMONIC,
    settlementTimeoutMs: parsed.SETTLEMENT_TIMEOUT_MS,
    channelAuthorizerPrivateKey: parsed.CHANNEL_AUTHORIZER_PRIVATE_KEY as `0x${string}` | undefined,
    receiptPrivateKey: parsed.RECEIPT_PRIVATE_KEY as `0x${string}` | undefined,
    channelWithdrawDelayS: parsed.CHANNEL_WITHDRAW_DELAY_S,
    channelDepositMethod: parsed.CHANNEL_DEPOSIT_METHOD,
    facilitatorUrl: parsed.FACILITATOR_URL,
    solanaPay: {
      rpcUrl: parsed.SOLANA_PAY_RPC_URL,
      feePayerSecretKey: parsed.SOLANA_FEE_PAYER_SECRET_KEY,
      payTo: parsed.SOLANA_PAY_TO,
      mint: parsed.SOLANA_PAY_MINT,
      network: parsed.SOLANA_PAY_NETWORK as `solana:${string}`,
    },
    authorizationSettler: parsed.AUTHORIZATION_SETTLER as `0x${string}` | undefined,
    settlementWindowMs: parsed.SETTLEMENT_WINDOW_MS,
    mppSecret: parsed.MPP_SECRET,
    sessionSecret: parsed.SESSION_SECRET,
    databaseUrl: parsed.DATABASE_URL,
    dataDir: parsed.DATA_DIR,
    redisUrl: parsed.REDIS_URL,
    limits: {
      unpaidConcurrencyPerClient: parsed.UNPAID_CONCURRENCY_PER_CLIENT,
      freeEndpointsPerMinute: parsed.FREE_ENDPOINT_RATE_LIMIT_PER_MINUTE,
      failedPaymentChecksPerMinute: parsed.FAILED_PAYMENT_CHECKS_PER_MINUTE,
      urlChecksPerMinute: parsed.URL_CHECKS_PER_MINUTE,
    },
    operatorToken: parsed.OPERATOR_TOKEN,
    mcp: {
      privateKey: parsed.MCP_PRIVATE_KEY as `0x${string}` | undefined,
      maxPerCall: Price.toAtomic(parsed.MCP_MAX_PER_CALL),
      sessionBudget: Price.toAtomic(parsed.MCP_SESSION_BUDGET),
    },
    modules: slices,
    providers: ported,
  }
}

/**
 * Operator tokens printed in this project's documentation, now or in the past: anyone who copied one holds it, so a
 * start with one is refused. A doc that prints a new example token adds it here (a test scans the README for them).
 */
export const documentedOperatorTokens: readonly string[] = ['change-me-operator-token']

/** Fewest characters an operator token may have; a shorter one stops the start. */
const minOperatorTokenLength = 32

function assertOperatorToken(token: string | undefined): void {
  if (token === undefined) return
  const own = 'set a token of your own, e.g. OPERATOR_TOKEN=$(openssl rand -hex 32).'
  if (documentedOperatorTokens.includes(token))
    throw new ConfigError(`OPERATOR_TOKEN is an example printed in the docs, which anyone may hold: ${own}`)
  if (token.length < minOperatorTokenLength)
    throw new ConfigError(`OPERATOR_TOKEN is shorter than ${minOperatorTokenLength} characters: ${own}`)
}
