import {
  type Address,
  type Chain,
  type CustomTransport,
  concat,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hash,
  type Hex,
  type LocalAccount,
  numberToHex,
  type PublicClient,
  parseEther,
  size,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

/** What a sequence of real transactions needs of a devnet. */
export type Chainlike = {
  /** viem chain of the devnet. */
  chain: Chain
  /** Transport to it. */
  transport: CustomTransport
  /** Public client on it. */
  publicClient: PublicClient<CustomTransport, Chain>
  /** The devnet USDC. */
  token: { address: Address }
}

/** Init code that deploys `runtime` as the contract's code. */
export function initCodeOf(runtime: Hex): Hex {
  const length = numberToHex(size(runtime), { size: 1 })
  // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, then the runtime (12 bytes of init code before it).
  return concat(['0x60', length, '0x600c600039', '0x60', length, '0x6000f3', runtime])
}

/** Runtime of a contract that answers every call with `address` as one 32-byte word (so `entryPoint()` answers it). */
export function answeringRuntime(address: Address): Hex {
  // PUSH20 address PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  return concat(['0x73', address, '0x60005260206000f3'])
}

/** Runtime of a contract that answers every call with nothing (STOP). */
export const silentRuntime: Hex = '0x00'

/**
 * Real transactions between devnet accounts, in this order: `payer` sends 1.5 ETH to a fresh account, then 12.5 USDC
 * to it; the fresh account sends 0.25 ETH back; `payer` deploys a silent contract and an "account" contract (its
 * `entryPoint()` answers `entryPoint`); the fresh account delegates itself to the account contract (EIP-7702).
 */
export async function sequence(devnet: Chainlike, payer: LocalAccount, entryPoint: Address) {
  const fresh = privateKeyToAccount(generatePrivateKey())
  const send = async (
    account: LocalAccount,
    transaction: { to?: Address; data?: Hex; value?: bigint; authorizationList?: never[] },
  ): Promise<{ hash: Hash; contract: Address | null }> => {
    const wallet = createWalletClient({ account, chain: devnet.chain, transport: devnet.transport })
    const hash = await wallet.sendTransaction(transaction as never)
    const receipt = await devnet.publicClient.waitForTransactionReceipt({ hash })
    return { hash, contract: receipt.contractAddress ? getAddress(receipt.contractAddress) : null }
  }
  const eth = await send(payer, { to: fresh.address, value: parseEther('1.5') })
  const usdc = await send(payer, {
    to: devnet.token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [fresh.address, 12_500_000n] }),
  })
  const back = await send(fresh, { to: payer.address, value: parseEther('0.25') })
  const silent = await send(payer, { data: initCodeOf(silentRuntime) })
  const account = await send(payer, { data: initCodeOf(answeringRuntime(entryPoint)) })
  const wallet = createWalletClient({ account: fresh, chain: devnet.chain, transport: devnet.transport })
  const authorization = await wallet.signAuthorization({ contractAddress: account.contract!, executor: 'self' })
  const delegation = await send(fresh, { to: fresh.address, authorizationList: [authorization] as never[] })
  return {
    fresh: fresh.address,
    eth: eth.hash,
    usdc: usdc.hash,
    back: back.hash,
    silent: { hash: silent.hash, address: silent.contract! },
    account: { hash: account.hash, address: account.contract! },
    delegation: delegation.hash,
  }
}
