import { Keypair } from '@stellar/stellar-sdk/base'
import { wrapAxiosWithPayment, x402Client } from '@x402/axios'
import type { ClientEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import axios, { type AxiosInstance } from 'axios'
import { createWalletClient, type LocalAccount, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { toCoinType } from 'viem/ens'
import { Wallet } from 'xrpl'
import { account, deployerIndex } from '../../adapters/chain/devnet.js'
import { register, setPrimaryName } from '../../adapters/chain/ens.js'
import * as Messaging from '../../core/Messaging.js'
import { startAcross, startLifi } from '../adapters/bridge/bridge-fixture.js'
import { solanaStandIns } from '../adapters/solana/stand-ins.js'
import { startHorizon } from '../adapters/stellar/horizon-fixture.js'
import { startRippled } from '../adapters/xrp/rippled-fixture.js'
import { computeModels } from '../support/compute.js'
import { completionOf, openaiStub, silentWav } from '../support/openai.js'
import { paidGateway } from '../support/paid.js'
import { replicateStub, webhookSecret } from '../support/replicate.js'
import { researchServer } from '../support/research.js'
import { relay } from '../support/smtp.js'

/** The token the Replicate stand-in takes. */
const replicateToken = 'r8_replay_token'
/** The pinned Replicate version of the GPU model the operator offers (flux-pro, the original's shortcut). */
const version = 'd'.repeat(64)

/**
 * An instance of the JSON schema a structured answer is held to, as a model asked for one gives it: every property,
 * the first of each choice, the fewest items, numbers at their minimum and short strings.
 */
function instanceOf(schema: any): unknown {
  if ('const' in schema) return schema.const
  if (schema.anyOf) return instanceOf(schema.anyOf[0])
  if (schema.enum) return schema.enum[0]
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, instanceOf(value)]))
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => instanceOf(schema.items))
    case 'string':
      return 'As the facts show.'.slice(0, schema.maxLength)
    case 'number':
    case 'integer':
      return schema.minimum ?? 0
    case 'boolean':
      return false
    default:
      return null
  }
}

/**
 * A site of our own on 127.0.0.1 that calls may point at: an article (`/article`), a short WAV (`/audio.wav`), and
 * endpoints that take webhook deliveries (`/webhook`, `/robot`).
 */
function pages() {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url)
      if (pathname === '/article')
        return new Response(
          '<html><head><title>x402 in one page</title></head><body><article><h1>x402</h1><p>HTTP 402 carries a payment offer; the client signs a USDC authorization and calls again.</p><p>The server settles it and answers.</p></article></body></html>',
          { headers: { 'content-type': 'text/html; charset=utf-8' } },
        )
      if (pathname === '/audio.wav') return new Response(silentWav, { headers: { 'content-type': 'audio/wav' } })
      if (request.method === 'POST') return new Response(null, { status: 204 })
      return new Response('Not found', { status: 404 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/**
 * The gateway the original's clients are replayed against: booted on the devnet as `npm start` boots it, every
 * upstream on a local stand-in speaking its vendor's shapes (Tavily's and Twilio's excepted, so that their 503 is
 * seen), and served over HTTP on 127.0.0.1 as a client reaches it. `values` are the replay's `{name}` values.
 */
export async function replayGateway() {
  const research = researchServer()
  const openai = openaiStub()
  const replicate = replicateStub({ token: replicateToken })
  const solana = solanaStandIns()
  const horizon = startHorizon()
  const rippled = startRippled()
  const lifi = startLifi()
  const across = startAcross()
  const mail = await relay()
  const site = pages()
  const gateway = await paidGateway({
    env: {
      ...research.env,
      RESEARCH_CONTACT: 'ops@gateway.test',
      ARXIV_INTERVAL_MS: '1',
      OUTBOUND_ALLOW: '127.0.0.1',
      PUBLIC_URL: 'http://gateway.test',
      CHAT_UPSTREAM_URL: openai.url,
      CHAT_ALLOWED_MODELS: 'openai/gpt-4o-mini,small-model',
      INFERENCE_MODEL: 'small-model',
      DECENTRALIZED_UPSTREAM_URL: openai.url,
      DECENTRALIZED_ALLOWED_MODELS: 'small-model',
      DECENTRALIZED_IMAGE_MODEL: 'small-model',
      COMPUTE_MODELS: JSON.stringify({
        ...computeModels,
        // The original's video default is 4 seconds: this operator prices its video model by duration.
        clip: { ...computeModels.clip, price: undefined, prices: { '4s': '0.40', '6s': '0.50' } },
      }),
      COMPUTE_UPSTREAM_URL: openai.url,
      REPLICATE_API_TOKEN: replicateToken,
      REPLICATE_URL: replicate.url,
      REPLICATE_WEBHOOK_SECRET: webhookSecret,
      GPU_MODELS: JSON.stringify({ 'flux-pro': `black-forest-labs/flux-1.1-pro:${version}` }),
      NOTIFY_SMTP_URL: mail.url,
      NOTIFY_EMAIL_FROM: 'Gateway <notify@gateway.test>',
      JUPITER_URL: solana.jupiterServer.url,
      JUPITER_API_KEY: solana.keys.jupiter,
      DAS_URL: solana.dasServer.url,
      HELIUS_API_KEY: solana.keys.helius,
      HERMES_URL: solana.hermesServer.url,
      PYTH_API_KEY: solana.keys.pyth,
      SOLANA_RPC_URL: solana.rpcServer.url,
      HORIZON_URL: horizon.url,
      STELLAR_NETWORK_PASSPHRASE: horizon.networkPassphrase,
      RIPPLED_URL: rippled.url,
      LIFI_API_URL: lifi.url,
      ACROSS_API_URL: across.url,
    },
  })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => gateway.gateway.handle(request) })
  const { devnet } = gateway
  const payer = gateway.account(1)

  // The model answers a structured request with an instance of the schema it names.
  openai.state.answer = ({ path, body }) => {
    const schema = body?.response_format?.json_schema?.schema
    if (path !== '/v1/chat/completions' || schema === undefined) return undefined
    const completion = completionOf(body.model)
    completion.choices[0]!.message.content = JSON.stringify(instanceOf(schema))
    return Response.json(completion)
  }

  // The payer has a messaging key (others may write to it) and a primary name, replay.eth.
  const messaging = Messaging.createKeyPair()
  const issuedAt = new Date().toISOString()
  const keyMessage = Messaging.keyMessage({
    address: payer.address,
    publicKey: messaging.publicKey,
    chainId: devnet.chainId,
    issuedAt,
  })
  const registered = await gateway.fetch(`http://gateway.test/api/v1/msg/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      address: payer.address,
      publicKey: messaging.publicKey,
      signature: await payer.signMessage({ message: keyMessage }),
      issuedAt,
    }),
  })
  if (registered.status !== 200) throw new Error(`messaging key: ${registered.status} ${await registered.text()}`)
  const client = devnet.publicClient as PublicClient
  const walletOf = (key: LocalAccount) =>
    createWalletClient({ account: key, chain: devnet.chain, transport: devnet.transport })
  await register({
    client,
    wallet: walletOf(privateKeyToAccount(account({ index: deployerIndex }).privateKey)),
    contracts: devnet.names,
    name: 'replay.eth',
    address: payer.address,
    coinType: toCoinType(1),
  })
  await setPrimaryName({
    client,
    wallet: walletOf(payer),
    reverseRegistrar: devnet.names.reverseRegistrar,
    name: 'replay.eth',
  })

  // The XRP and Stellar batches send from a funded account of each ledger to two funded recipients.
  const xrpSender = Wallet.generate()
  const xrpRecipients = [Wallet.generate().classicAddress, Wallet.generate().classicAddress]
  rippled.fund(xrpSender.classicAddress, '100')
  for (const recipient of xrpRecipients) rippled.fund(recipient, '10')
  const stellarSource = Keypair.random()
  const stellarRecipients = [Keypair.random().publicKey(), Keypair.random().publicKey()]
  horizon.fund(stellarSource.publicKey(), '100')
  for (const recipient of stellarRecipients) horizon.fund(recipient, '10')

  return {
    gateway,
    /** Where clients reach the gateway. */
    url: `http://127.0.0.1:${server.port}`,
    /** The wallet the clients pay from (devnet account #1, funded with USDC at genesis). */
    payer,
    /** The replay's `{name}` values that are not kept from an answer. */
    values: {
      payer: payer.address,
      other: gateway.account(2).address,
      third: gateway.account(3).address,
      usdc: gateway.devnet.token.address,
      pages: site.url,
      xrpSecret: xrpSender.seed!,
      xrpRecipients,
      stellarSecret: stellarSource.secret(),
      stellarRecipients,
    } as Record<string, unknown>,
    /** Mail the relay accepted. */
    mail,
    async close() {
      server.stop(true)
      await gateway.close()
      for (const standIn of [research, openai, replicate, solana, horizon, rippled, lifi, across, site]) standIn.stop()
      await mail.close()
    },
  }
}

/**
 * An axios client on `url` that pays a 402 as the original's clients pay it: an `x402Client` of @x402/axios with the
 * EVM `exact` scheme of @x402/evm registered for `signer`, wrapped around axios.
 */
export function payingAxios(url: string, signer: ClientEvmSigner): AxiosInstance {
  const client = new x402Client()
  // @x402/axios 2.11 (its newest release) brings its own @x402/core 2.11, and @x402/evm 2.27 declares the 2.27 client
  // it registers on: two declarations of the one shape its registration uses (register, registerV1) at run time.
  registerExactEvmScheme(client as unknown as Parameters<typeof registerExactEvmScheme>[0], { signer })
  return wrapAxiosWithPayment(axios.create({ baseURL: url }), client)
}
