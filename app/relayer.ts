import { type Address, type LocalAccount, toHex } from 'viem'
import { type HDKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { channelAuthorizerIndex, channelChain, channelRelayerIndex } from '../adapters/chain/channel.js'
import { account, authorizationSettlerAddress, authorizationSettlerCode } from '../adapters/chain/devnet.js'
import { uptoChain } from '../adapters/chain/upto.js'
import { libsecp256k1, libsecp256k1Sign } from '../adapters/crypto/libsecp256k1.js'
import { local } from '../adapters/facilitator/local.js'
import { remote } from '../adapters/facilitator/remote.js'
import { feePayer as solanaFeePayer } from '../adapters/solana/pay.js'
import type { RecoverPublicKey, SignDigest } from '../core/Authorization.js'
import type { Facilitator } from '../core/Facilitator.js'
import type { Ledger } from '../core/Ledger.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'
import type { Store } from '../core/Store.js'
import { payerIndexes } from './banner.js'
import { type Config, ConfigError } from './config.js'
import type { Logger } from './log.js'
import { channels } from './payment/channel.js'
import type { processLease } from './payment/lease.js'
import { receiptSigner } from './payment/receipt.js'
import { solana } from './payment/solana.js'
import type { Settlement } from './settlement.js'
import { StartError } from './startup.js'

/**
 * Mnemonic index of the devnet account that relays the settlements of the process in lease `slot` when no key is
 * set: #9, #8, ... down to #3, so that the payee (#0) and the payers the banner offers (#1, #2) never relay.
 */
export function devnetRelayerIndex(slot: number): number | undefined {
  return slot <= 6 ? 9 - slot : undefined
}

/**
 * Who settles payments: the remote facilitator at FACILITATOR_URL, or the local one with this process's relayer key
 * (through an AuthorizationSettler where there is one); and x402 `upto`'s settler, the relayer of slot 0 in every
 * process, the one facilitator its permits name (none with a remote facilitator: this gateway holds no key to settle
 * it).
 */
export async function settlersOf(parameters: {
  config: Config
  settlement: Settlement
  lease: processLease.ReturnType
  logger: Logger
}): Promise<{ facilitator: Facilitator; upto: ReturnType<typeof uptoChain> | undefined }> {
  const { config, settlement, lease, logger } = parameters
  if (config.facilitatorUrl)
    return { facilitator: remote({ url: config.facilitatorUrl, client: settlement.client }), upto: undefined }
  const relayers = relayerKeys(config, settlement)
  const settler = await authorizationSettlerOf(config, settlement)
  return {
    facilitator: relayerFacilitator(config, settlement, { relayers, lease }, logger, settler),
    upto: uptoChain({
      client: settlement.client,
      chain: settlement.chain,
      transport: settlement.transport,
      relayer: relayerOf(config, relayers, 0),
    }),
  }
}

/**
 * The keys of the payment schemes beside `exact`, chosen after the ledger is reconciled: signature recovery (native
 * when libsecp256k1 loads), payment channels, x402 `exact` on Solana and the signer of `offer-receipt` receipts.
 */
export async function signersOf(parameters: {
  config: Config
  settlement: Settlement
  store: Store
  ledger: Ledger
  lease: processLease.ReturnType
  logger: Logger
}) {
  const { config, settlement, store, ledger, lease, logger } = parameters
  const recoverPublicKey = await libsecp256k1()
  logger.log('info', 'signature_recovery', { implementation: recoverPublicKey ? 'libsecp256k1 (native)' : 'pure JS' })
  return {
    recoverPublicKey,
    channels: channelsOf(config, settlement, store, lease, logger, recoverPublicKey),
    solana: await solanaPaymentsOf(config, { ledger, lease, store, logger, terms: settlement.terms }),
    receipts: receiptsOf(config, settlement, await libsecp256k1Sign()),
  }
}

/**
 * The AuthorizationSettler shared settlements go through: AUTHORIZATION_SETTLER once its code is found on the chain,
 * else ours from genesis on a devnet; `undefined` (Multicall3) otherwise.
 */
async function authorizationSettlerOf(config: Config, settlement: Settlement): Promise<Address | undefined> {
  const address = config.authorizationSettler ?? (settlement.isDevnet ? authorizationSettlerAddress : undefined)
  if (!address) return undefined
  const code = await settlement.client.getCode({ address }).catch(() => undefined)
  if (code && code !== '0x') {
    // Batches go out on a gas budget that relies on this version's ItemStarved check: other code is refused.
    if (code.toLowerCase() === authorizationSettlerCode.toLowerCase()) return address
    if (config.authorizationSettler)
      throw new ConfigError(
        `AUTHORIZATION_SETTLER ${address} on ${settlement.where} is not this version's AuthorizationSettler: deploy adapters/chain/contracts/artifacts/AuthorizationSettler.json and point AUTHORIZATION_SETTLER at it.`,
      )
    return undefined
  }
  if (config.authorizationSettler)
    throw new ConfigError(
      `AUTHORIZATION_SETTLER ${address} has no code on ${settlement.where}: deploy AuthorizationSettler there first.`,
    )
  return undefined
}

/**
 * The local facilitator with this process's relayer key. Each process needs its own key, or their transaction
 * nonces collide: from RELAYER_MNEMONIC the key at the process's lease slot; RELAYER_PRIVATE_KEY serves one process.
 * The key is asked for before every transaction, so that a process whose lease was lost (a pause past its ttl) and
 * replaced in another slot signs with the new slot's key, never with the one another process may hold now.
 */
function relayerFacilitator(
  config: Config,
  settlement: Settlement,
  { relayers, lease }: { relayers: (slot: number) => LocalAccount | undefined; lease: processLease.ReturnType },
  logger: Logger,
  settler: Address | undefined,
): Facilitator {
  // Refused at the start, not at the first payment: a slot without a key, or a key that is also the payee or a payer.
  relayerOf(config, relayers, lease.slot)
  assertRelayersOwnKeys({ config, settlement, relayers, slot: lease.slot })
  return local({
    settler,
    // Metrics count this event: settlement batch sizes and gas.
    onBatch: ({ transaction, size, gasUsed }) =>
      logger.log('debug', 'settlement_batch', { transaction, size, gasUsed: gasUsed.toString() }),
    client: settlement.client,
    relayer: keyOfLease({ lease, keys: relayers, logger, missing: (slot) => missingRelayer(config, slot) }),
    chain: settlement.chain,
    transport: settlement.transport,
    batchWindowMs: config.settlementWindowMs ?? (settlement.isDevnet ? 5 : 2_000),
  })
}

/**
 * Payment channels (x402 `batch-settlement`): on a devnet test account #20 authorizes and #21 + slot relays; elsewhere
 * CHANNEL_AUTHORIZER_PRIVATE_KEY does both, in slot 0 only. `undefined` (no channel offer) when the slot taken at
 * start has no relayer; a process whose lease moves later relays with its new slot's key, or not at all.
 */
function channelsOf(
  config: Config,
  settlement: Settlement,
  store: Store,
  lease: processLease.ReturnType,
  logger: Logger,
  recoverPublicKey: RecoverPublicKey | undefined,
) {
  const key = config.channelAuthorizerPrivateKey
  const authorizer = key ?? (settlement.isDevnet ? account({ index: channelAuthorizerIndex }).privateKey : undefined)
  const relayers = bySlot((slot) => {
    if (key) return slot === 0 ? privateKeyToAccount(key) : undefined
    const index = channelRelayerIndex(slot)
    return settlement.isDevnet && index !== undefined ? privateKeyToAccount(account({ index }).privateKey) : undefined
  })
  if (!authorizer || !relayers(lease.slot)) return undefined
  return channels({
    terms: settlement.terms,
    store,
    logger,
    withdrawDelay: config.channelWithdrawDelayS,
    depositMethod: config.channelDepositMethod,
    chain: channelChain({
      client: settlement.client,
      chain: settlement.chain,
      transport: settlement.transport,
      relayer: keyOfLease({
        lease,
        keys: relayers,
        logger,
        missing: (slot) =>
          new Error(
            `This process holds lease slot ${slot} now, which has no channel relayer (${key ? 'CHANNEL_AUTHORIZER_PRIVATE_KEY relays in slot 0 only' : 'test accounts #21 to #27 relay in slots 0 to 6'}).`,
          ),
      }),
      authorizer: privateKeyToAccount(authorizer),
      token: settlement.terms.asset.address,
      receiver: settlement.terms.payTo,
      recoverPublicKey,
    }),
  })
}

/**
 * The key of the slot this process holds now, asked for before every transaction: a process whose lease was lost and
 * replaced signs with its new slot's key, never with the old one, which another process may hold now. Rejects, with
 * an error logged, when the slot has no key (nothing is signed).
 */
function keyOfLease(parameters: {
  lease: processLease.ReturnType
  keys: (slot: number) => LocalAccount | undefined
  logger: Logger
  missing: (slot: number) => Error
}): () => Promise<LocalAccount> {
  const { lease, keys, logger, missing } = parameters
  return async () => {
    const { slot } = await lease.current()
    const key = keys(slot)
    if (key) return key
    const error = missing(slot)
    logger.log('error', 'relayer_unavailable', { slot, reason: error.message })
    throw error
  }
}

/**
 * x402 `exact` on Solana, when its node, fee payer key and payee are all configured; `undefined` (no Solana offer,
 * the reason in discovery) otherwise. Every process co-signs with the same fee payer: Solana transactions carry no
 * account nonce, so processes never collide.
 */
async function solanaPaymentsOf(
  config: Config,
  books: Pick<solana.Parameters, 'ledger' | 'lease' | 'store' | 'logger'> & { terms: PaymentTerms },
) {
  const { rpcUrl, feePayerSecretKey, payTo, mint, network } = config.solanaPay
  if (!rpcUrl || !feePayerSecretKey || !payTo) return undefined
  const { terms, ...rest } = books
  const feePayer = await solanaFeePayer({
    url: rpcUrl,
    secretKey: feePayerSecretKey,
    network,
    confirmTimeoutMs: config.settlementTimeoutMs,
  }).catch(() => {
    // The parser's own message may quote the key: it is not passed on.
    throw new ConfigError(
      'SOLANA_FEE_PAYER_SECRET_KEY is not a Solana keypair: 64 bytes (a JSON array of numbers, or base58), its public half matching its secret half.',
    )
  })
  return solana({ ...rest, network, mint, payTo, maxTimeoutSeconds: terms.maxTimeoutSeconds, feePayer })
}

/** Mnemonic index (m/44'/60'/0'/0/18) of the devnet's receipt key: it signs receipts, never sends. */
export const devnetReceiptIndex = 18

/** The signer of `offer-receipt` receipts: RECEIPT_PRIVATE_KEY, else test account #18 on a devnet, else none. */
function receiptsOf(config: Config, settlement: Settlement, native: SignDigest | undefined) {
  const key =
    config.receiptPrivateKey ?? (settlement.isDevnet ? account({ index: devnetReceiptIndex }).privateKey : undefined)
  return key ? receiptSigner({ privateKey: key, native }) : undefined
}

/**
 * The relayer key of each lease slot, each derived once: from RELAYER_MNEMONIC the key at the slot's index
 * (`m/44'/60'/0'/0/<slot>`); RELAYER_PRIVATE_KEY in slot 0 only; on a devnet test account #9 down to #3. `undefined`
 * for a slot without one.
 */
function relayerKeys(config: Config, settlement: Settlement): (slot: number) => LocalAccount | undefined {
  const { relayerMnemonic, relayerPrivateKey } = config
  // Deriving from the mnemonic runs PBKDF2 (~30 ms): the parent of every slot's key is derived once.
  let parent: HDKey | undefined
  return bySlot((slot) => {
    if (relayerMnemonic) {
      parent ??= mnemonicToAccount(relayerMnemonic, { path: "m/44'/60'/0'/0" }).getHdKey()
      return privateKeyToAccount(toHex(parent.deriveChild(slot).privateKey!))
    }
    if (relayerPrivateKey) return slot === 0 ? privateKeyToAccount(relayerPrivateKey) : undefined
    const index = devnetRelayerIndex(slot)
    return settlement.isDevnet && index !== undefined ? privateKeyToAccount(account({ index }).privateKey) : undefined
  })
}

/** `keyOf` remembered per slot: each key is derived, and its address computed, once. */
function bySlot(keyOf: (slot: number) => LocalAccount | undefined): (slot: number) => LocalAccount | undefined {
  const known = new Map<number, LocalAccount | undefined>()
  return (slot) => {
    if (!known.has(slot)) known.set(slot, keyOf(slot))
    return known.get(slot)
  }
}

/** The relayer key of `slot`, or the configuration error that says what to set. */
function relayerOf(config: Config, relayers: (slot: number) => LocalAccount | undefined, slot: number): LocalAccount {
  const key = relayers(slot)
  if (key) return key
  throw missingRelayer(config, slot)
}

function missingRelayer(config: Config, slot: number): ConfigError {
  if (config.relayerPrivateKey)
    return new ConfigError(
      `RELAYER_PRIVATE_KEY is one key, and another live gateway process on this database already uses it (this one holds lease slot ${slot}); set RELAYER_MNEMONIC so each process signs with its own key.`,
    )
  return new ConfigError(
    'Set RELAYER_MNEMONIC or RELAYER_PRIVATE_KEY (keys with ETH for gas), or FACILITATOR_URL, to settle payments.',
  )
}

/**
 * Lease slots whose relayer key a start checks against the payee and the payers: the first 32 (more gateway processes
 * on one database than any deployment runs), besides the slot taken.
 */
const checkedRelayerSlots = 32

/**
 * Refuses a relayer key that is also the payee (PAY_TO, or the devnet's default payee) or a payer the devnet banner
 * prints: those accounts send transactions of their own, so the relayer's counted nonces go stale ("nonce too low")
 * and settlements fail. A mnemonic gives a key to any slot a process may take, so the first
 * {@link checkedRelayerSlots} slots and the one taken are checked, not the taken one alone.
 */
function assertRelayersOwnKeys(parameters: {
  config: Config
  settlement: Settlement
  relayers: (slot: number) => LocalAccount | undefined
  slot: number
}): void {
  const { config, settlement, relayers, slot } = parameters
  const reserved = new Map<string, string>([
    ...payerIndexes.map(
      (index) =>
        [
          account({ index }).address.toLowerCase(),
          `a payer the devnet banner prints (test account #${index})`,
        ] as const,
    ),
    [
      settlement.terms.payTo.toLowerCase(),
      config.payTo ? 'the payee (PAY_TO)' : "the devnet's default payee (test account #0)",
    ],
  ])
  for (const checked of new Set([...Array.from({ length: checkedRelayerSlots }, (_, index) => index), slot])) {
    const relayer = relayers(checked)
    const role = relayer && reserved.get(relayer.address.toLowerCase())
    if (!relayer || !role) continue
    const [source, remedy] = config.relayerMnemonic
      ? [
          `RELAYER_MNEMONIC's key for lease slot ${checked} (m/44'/60'/0'/0/${checked})`,
          "set RELAYER_MNEMONIC to a mnemonic of the relayers' own (a new one; fund its keys with ETH for gas)",
        ]
      : config.relayerPrivateKey
        ? ["RELAYER_PRIVATE_KEY's address", "set RELAYER_PRIVATE_KEY to a key of the relayer's own, with ETH for gas"]
        : [
            `The devnet relayer of lease slot ${checked} (test account #${devnetRelayerIndex(checked)})`,
            'set PAY_TO to another address',
          ]
    throw new StartError({
      code: 'relayer_not_own',
      message: `${source}, ${relayer.address}, is ${role}, which sends transactions of its own: their nonces would collide ("nonce too low"); ${remedy}.`,
    })
  }
}
