import { type Address, createTestClient, createWalletClient, erc20Abi, http } from 'viem'
import {
  english,
  generateMnemonic,
  generatePrivateKey,
  mnemonicToAccount,
  type PrivateKeyAccount,
  privateKeyToAccount,
} from 'viem/accounts'
import { devnet } from '../../adapters/chain/devnet.js'

/** A JSON-RPC call the chain holds until the test lets it go. */
export type Hold = {
  /** Resolves when a call of the held method arrives. */
  reached: Promise<void>
  /** Lets it go: `forward` sends it to the node (else it is dropped with a node error), then it is answered. */
  release: (forward: boolean) => void
}

/**
 * The devnet served over HTTP from this process, as a node in a process of its own is to a gateway: the gateway
 * reaches it at `url` (the path stands for an API key, which must never reach a log). `hold` makes the next call
 * of a method wait, before it reaches the node (`before`) or after the node has run it (`after`).
 */
export async function servedDevnet() {
  const chain = await devnet()
  const holds = new Map<string, { mode: 'before' | 'after'; arrive: () => void; released: Promise<boolean> }>()
  const delays = new Map<string, number>()

  async function answer(request: Request): Promise<Response> {
    const text = await request.text()
    let methods: string[] = []
    try {
      const body = JSON.parse(text) as { method?: string } | { method?: string }[]
      methods = (Array.isArray(body) ? body : [body]).map((item) => String(item.method))
    } catch {}
    const method = methods.find((candidate) => holds.has(candidate))
    const forward = () =>
      chain.handleJsonRpc(new Request(request.url, { method: 'POST', body: text, headers: request.headers }))
    const delay = Math.max(0, ...methods.map((candidate) => delays.get(candidate) ?? 0))
    if (delay > 0) {
      // The node runs the call at once and answers late, as a congested node does.
      const response = await forward()
      await Bun.sleep(delay)
      return response
    }
    if (method === undefined) return forward()
    const hold = holds.get(method)!
    holds.delete(method)
    hold.arrive()
    if (hold.mode === 'before' && !(await hold.released))
      return Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'dropped by the test chain' } })
    const response = await forward()
    if (hold.mode === 'after') await hold.released
    return response
  }

  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: answer })
  return {
    devnet: chain,
    url: `http://127.0.0.1:${server.port}/v3/node-api-key-never-logged`,
    /** Holds the next call of `method`. */
    hold(method: string, mode: 'before' | 'after'): Hold {
      const arrived = Promise.withResolvers<void>()
      const released = Promise.withResolvers<boolean>()
      holds.set(method, { mode, arrive: () => arrived.resolve(), released: released.promise })
      return { reached: arrived.promise, release: (forward) => released.resolve(forward) }
    },
    /** Answers every call of `method` `ms` late (after running it); 0 stops. */
    delay(method: string, ms: number) {
      delays.set(method, ms)
    },
    async close() {
      server.stop(true)
      await chain.close()
    },
  }
}

/** `address`'s balance of the devnet's USDC, in atomic units. */
export function usdcBalance(chain: devnet.Devnet, address: Address): Promise<bigint> {
  return chain.publicClient.readContract({
    address: chain.token.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
}

/** A new wallet on the devnet holding `usdc` (atomic units) and 0.1 ETH for gas, sent by the devnet's account #0. */
export async function fundedWallet(chain: devnet.Devnet, usdc: bigint): Promise<PrivateKeyAccount> {
  const wallet = privateKeyToAccount(generatePrivateKey())
  await chain.fund({ address: wallet.address, amount: usdc })
  const funder = createWalletClient({
    account: privateKeyToAccount(chain.accounts[0]!.privateKey),
    chain: chain.chain,
    transport: chain.transport,
  })
  await chain.publicClient.waitForTransactionReceipt({
    hash: await funder.sendTransaction({ to: wallet.address, value: 10n ** 17n }),
  })
  return wallet
}

/**
 * A relayer mnemonic of its own whose first `slots` keys hold 100 ETH for gas on the devnet at `rpcUrl`: the devnet's
 * test mnemonic is refused as RELAYER_MNEMONIC (its keys are the payee and the payers the banner prints).
 */
export async function relayerMnemonic(rpcUrl: string, slots = 4): Promise<string> {
  const phrase = generateMnemonic(english)
  const node = createTestClient({ mode: 'hardhat', transport: http(rpcUrl, { retryCount: 0 }) })
  for (let slot = 0; slot < slots; slot++)
    await node.setBalance({ address: mnemonicToAccount(phrase, { addressIndex: slot }).address, value: 10n ** 20n })
  return phrase
}
