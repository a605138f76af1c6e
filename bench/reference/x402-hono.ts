import { x402Facilitator } from '@x402/core/facilitator'
import type { FacilitatorClient } from '@x402/core/server'
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import { Hono } from 'hono'
import { type Address, createWalletClient, http, parseUnits, publicActions } from 'viem'
import { mnemonicToAccount, nonceManager } from 'viem/accounts'
import { baseSepolia } from 'viem/chains'
import { mnemonic } from '../../adapters/chain/devnet.js'
import * as Rpc from '../../core/Rpc.js'

// The reference stack of the benchmark: x402's own Hono middleware, resource server and facilitator, written the
// way the x402 TypeScript examples write them (servers/hono, servers/hono/custom-money-definition.ts,
// facilitator/basic), except that the facilitator runs in this process, wrapped as a FacilitatorClient the way
// x402's e2e servers do, instead of behind HTTP. It settles on the gateway's devnet over JSON-RPC, with its own
// relayer (mnemonic account #8; the gateway relays with #9), one transferWithAuthorization per payment.
// Usage: bun bench/reference/x402-hono.ts   (PORT, RPC_URL, ASSET, PAY_TO); the devnet's chain id is Base Sepolia's.

/** Mnemonic index of the reference facilitator's relayer. */
export const referenceRelayerIndex = 8

const port = Number(process.env.PORT ?? 4021)
const rpcUrl = process.env.RPC_URL ?? 'http://127.0.0.1:8545'
const network = `eip155:${baseSepolia.id}` as Network
const asset = process.env.ASSET as Address
const payTo = process.env.PAY_TO as Address
if (!asset || !payTo) {
  process.stderr.write('ASSET and PAY_TO are required.\n')
  process.exit(2)
}

// One relayer key settles concurrent payments, so its transactions go out one at a time with nonces counted in
// process (viem's nonceManager), as the gateway's relayer does. Without this, concurrent settlements read the same
// pending nonce, or reach the auto-mining devnet out of order ("nonce too high"), and fail: a handicap, not a
// measurement.
const account = mnemonicToAccount(mnemonic, { addressIndex: referenceRelayerIndex, nonceManager })
let sending: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(send: () => Promise<T>): Promise<T> {
  const result = sending.then(send, send)
  sending = result.catch(() => undefined)
  return result
}
const viemClient = createWalletClient({ account, chain: baseSepolia, transport: http(rpcUrl) }).extend(publicActions)

const evmSigner = toFacilitatorEvmSigner({
  getCode: (args: { address: `0x${string}` }) => viemClient.getCode(args),
  address: account.address,
  readContract: (args: {
    address: `0x${string}`
    abi: readonly unknown[]
    functionName: string
    args?: readonly unknown[]
  }) => viemClient.readContract({ ...args, args: args.args || [] } as Parameters<typeof viemClient.readContract>[0]),
  verifyTypedData: (args: {
    address: `0x${string}`
    domain: Record<string, unknown>
    types: Record<string, unknown>
    primaryType: string
    message: Record<string, unknown>
    signature: `0x${string}`
  }) => viemClient.verifyTypedData(args as Parameters<typeof viemClient.verifyTypedData>[0]),
  writeContract: (args: {
    address: `0x${string}`
    abi: readonly unknown[]
    functionName: string
    args: readonly unknown[]
  }) =>
    oneAtATime(() =>
      viemClient.writeContract({ ...args, args: args.args || [] } as Parameters<typeof viemClient.writeContract>[0]),
    ),
  sendTransaction: (args: { to: `0x${string}`; data: `0x${string}` }) =>
    oneAtATime(() => viemClient.sendTransaction(args)),
  waitForTransactionReceipt: (args: { hash: `0x${string}` }) => viemClient.waitForTransactionReceipt(args),
})

const facilitator = new x402Facilitator()
registerExactEvmScheme(facilitator, { signer: evmSigner, networks: network })

/** The in-process facilitator as the resource server's FacilitatorClient. */
const facilitatorClient: FacilitatorClient = {
  verify: (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
    facilitator.verify(paymentPayload, paymentRequirements),
  settle: (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
    facilitator.settle(paymentPayload, paymentRequirements),
  getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient['getSupported']>>,
}

const app = new Hono()

app.use(
  paymentMiddleware(
    {
      'GET /api/v1/rpc/chains': {
        // Same price, payee and validity window as the gateway's offer for this endpoint.
        accepts: { scheme: 'exact', price: '$0.001', network, payTo, maxTimeoutSeconds: 300 },
        description: 'The configured chains and the read-only JSON-RPC methods that may be forwarded.',
        mimeType: 'application/json',
      },
    },
    new x402ResourceServer(facilitatorClient).register(
      network,
      // The devnet's USDC is not in x402's table of default assets, so a money parser names it (6 decimals).
      new ExactEvmScheme().registerMoneyParser(async (amount, parsedNetwork) =>
        parsedNetwork === network
          ? { amount: parseUnits(String(amount), 6).toString(), asset, extra: { name: 'USD Coin', version: '2' } }
          : null,
      ),
    ),
  ),
)

// The same JSON as the gateway's GET /api/v1/rpc/chains on its embedded devnet.
app.get('/api/v1/rpc/chains', (c) =>
  c.json({ chains: [{ name: 'devnet', chainId: baseSepolia.id, network }], allowedMethods: [...Rpc.allowedMethods] }),
)

const server = Bun.serve({ port, hostname: '127.0.0.1', fetch: app.fetch })
process.stdout.write(`reference x402 stack listening on http://127.0.0.1:${server.port}\n`)
