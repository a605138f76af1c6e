import {
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  type Hash,
  http,
  type PublicClient,
  parseUnits,
  type Transport,
  type WalletClient,
} from 'viem'
import { type HDAccount, mnemonicToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../adapters/chain/devnet.js'

/** The gateway the dev commands call: GATEWAY_URL, else the one `npm start` serves on this machine at `PORT` (3402). */
export function gatewayUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return (env.GATEWAY_URL ?? `http://127.0.0.1:${env.PORT ?? 3402}`).replace(/\/+$/, '')
}

/** The devnet the dev commands reach: DEVNET_RPC_URL, else the one `npm start` serves at `DEVNET_RPC_PORT` (8545). */
export function devnetRpcUrl(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.DEVNET_RPC_URL ?? `http://127.0.0.1:${env.DEVNET_RPC_PORT ?? 8545}`
}

/**
 * The running devnet at {@link devnetRpcUrl}, as the dev commands (`npm run fund`,
 * `npm run price`) reach it: as its deployer, whose key is public (test mnemonic) and exists only on the devnet.
 * Exits with one line when no chain answers there, or when `expected` has no code on it.
 */
export async function connectDevnet(parameters: connectDevnet.Parameters): Promise<connectDevnet.ReturnType> {
  const { expected } = parameters
  const url = devnetRpcUrl()
  const transport = http(url, { retryCount: 0 })
  const chainId = await createPublicClient({ transport })
    .getChainId()
    .catch(() => {
      process.stderr.write(
        `No devnet answers at ${url}: start one with \`npm start\` or \`npm run devnet\` (or set DEVNET_RPC_URL).\n`,
      )
      return process.exit(1)
    })
  const chain = defineChain({
    id: chainId,
    name: 'Devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex })
  const client = createPublicClient({ chain, transport }) as PublicClient
  if ((await client.getCode({ address: expected.address })) === undefined) {
    process.stderr.write(
      `The chain at ${url} has no ${expected.name} at ${expected.address}: DEVNET_RPC_URL must be the JSON-RPC of a devnet.\n`,
    )
    process.exit(1)
  }
  return { url, chain, deployer, client, wallet: createWalletClient({ account: deployer, chain, transport }) }
}

export declare namespace connectDevnet {
  type Parameters = {
    /** The contract the command acts on; its absence means the URL is not one of our devnets. */
    expected: {
      /** For the message, e.g. `devnet USDC`. */
      name: string
      /** Its address. */
      address: Address
    }
  }
  type ReturnType = {
    /** The JSON-RPC URL. */
    url: string
    /** The devnet's chain, by the id its node answers. */
    chain: Chain
    /** The deployer account (mints tokens, owns the price feeds). */
    deployer: HDAccount
    /** Reads the chain. */
    client: PublicClient
    /** Sends as the deployer. */
    wallet: WalletClient<Transport, Chain, HDAccount>
  }
}

/** The mint and balance functions of the devnet's USDC. */
const devnetUsdcAbi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'address' }, { type: 'uint256' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
] as const

/**
 * Mints devnet USDC to `address` on the running devnet (`npm run fund`, `agent-pay fund`): the mint transaction and the
 * balance after it, in atomic units. Exits with one line as {@link connectDevnet} does when no devnet answers.
 */
export async function mintDevnetUsdc(parameters: {
  /** Recipient. */
  address: Address
  /** Amount in USDC, up to 6 decimals, e.g. `250.5`. */
  amount: string
}): Promise<{ hash: Hash; balance: bigint }> {
  const { address, amount } = parameters
  const token = getContractAddress({
    from: mnemonicToAccount(mnemonic, { addressIndex: deployerIndex }).address,
    nonce: 0n,
  })
  const { client, wallet } = await connectDevnet({ expected: { name: 'devnet USDC', address: token } })
  const hash = await wallet.writeContract({
    address: token,
    abi: devnetUsdcAbi,
    functionName: 'mint',
    args: [address, parseUnits(amount, 6)],
  })
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`mint reverted in ${hash}`)
  const balance = await client.readContract({
    address: token,
    abi: devnetUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })
  return { hash, balance }
}
