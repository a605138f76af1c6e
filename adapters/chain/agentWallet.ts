import {
  type Address,
  BaseError,
  type Chain,
  concat,
  createWalletClient,
  decodeErrorResult,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  getContractAddress,
  type Hash,
  type Hex,
  isAddressEqual,
  isHex,
  numberToHex,
  type PublicClient,
  type Transport,
  toFunctionSelector,
} from 'viem'
import type { LocalAccount } from 'viem/accounts'
import type { AgentWalletChain, SessionKey } from '../../core/AgentWallet.js'
import { AuthorizationRefusedError } from '../../core/Errors.js'
import agentAccountJson from './contracts/artifacts/AgentAccount.json' with { type: 'json' }
import agentAccountFactoryJson from './contracts/artifacts/AgentAccountFactory.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'

/**
 * Off-chain side of our ERC-4337 agent wallet (`contracts/AgentAccount.sol`): the counterfactual address of an
 * account, the EIP-712 authorizations its owner signs, and the call data and signature layout of user operations.
 */

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
/** The account contract's artifact. */
export const agentAccount = agentAccountJson as unknown as Artifact
/** The factory contract's artifact. */
export const agentAccountFactory = agentAccountFactoryJson as unknown as Artifact

/** The account's `executeUserOp` selector: the only call data a session key may sign (EntryPoint v0.7 IAccountExecute). */
export const executeUserOpSelector = toFunctionSelector(
  'executeUserOp((address,uint256,bytes,bytes,bytes32,uint256,bytes32,bytes,bytes),bytes32)',
)

/** The CREATE2 address the factory gives the account of (owner, salt), computed off chain from the creation code. */
export function accountAddress(parameters: accountAddress.Parameters): Address {
  const { factory, entryPoint, owner, salt } = parameters
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: numberToHex(salt, { size: 32 }),
    bytecode: encodeDeployData({ abi: agentAccount.abi, bytecode: agentAccount.bytecode, args: [entryPoint, owner] }),
  })
}

export declare namespace accountAddress {
  type Parameters = {
    /** The AgentAccountFactory. */
    factory: Address
    /** The EntryPoint the factory's accounts trust. */
    entryPoint: Address
    /** The owning EOA. */
    owner: Address
    /** The owner's account number, from 0. */
    salt: bigint
  }
}

/**
 * Call data of a user operation that has the account call `target` with `value` and `data` through
 * `executeUserOp`, so that execution sees the signer (`executeUserOp.selector ++ abi.encode(target, value, data)`).
 */
export function executeCallData(parameters: executeCallData.Parameters): Hex {
  const { target, value = 0n, data } = parameters
  return concat([
    executeUserOpSelector,
    encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }], [target, value, data]),
  ])
}

export declare namespace executeCallData {
  type Parameters = {
    /** Called contract. */
    target: Address
    /** Wei sent along. @default 0n */
    value?: bigint
    /** Call data. */
    data: Hex
  }
}

/** Call data of a user operation transferring `amount` of `token` to `to`: the one shape a session key may sign. */
export function transferCallData(parameters: transferCallData.Parameters): Hex {
  const { token, to, amount } = parameters
  return executeCallData({
    target: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
  })
}

export declare namespace transferCallData {
  type Parameters = {
    /** The ERC-20. */
    token: Address
    /** Recipient. */
    to: Address
    /** Amount in atomic units. */
    amount: bigint
  }
}

/** A user operation signature by a session key: its address, then its 65-byte signature of the operation hash. */
export function sessionSignature(parameters: sessionSignature.Parameters): Hex {
  return concat([parameters.key, parameters.signature])
}

export declare namespace sessionSignature {
  type Parameters = {
    /** The session key's address. */
    key: Address
    /** Its EIP-191 signature of the user operation hash. */
    signature: Hex
  }
}

/**
 * The agent-wallet port over our contracts through a viem public client, with `relayer` sending (and paying for)
 * deployments and owner authorizations. Reads go to the latest block.
 */
export function agentWalletChain(parameters: agentWalletChain.Parameters): AgentWalletChain {
  const { client, chainId, entryPoint, factory, relayer, chain, transport, tokens } = parameters
  const wallet = createWalletClient({ account: relayer, chain, transport })
  // One relayer transaction at a time, so concurrent requests never race for its nonce.
  let queue: Promise<unknown> = Promise.resolve()
  function send(to: Address, data: Hex): Promise<Hash> {
    const run = async () => {
      const hash = await wallet.sendTransaction({ to, data, account: relayer, chain })
      const receipt = await client.waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`relayer transaction ${hash} to ${to} reverted.`)
      return hash
    }
    const result = queue.then(run, run)
    queue = result.catch(() => undefined)
    return result
  }
  const read = <T>(address: Address, functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address, abi: agentAccount.abi, functionName, args }) as Promise<T>
  return {
    chainId,
    entryPoint,
    factory,
    relayer: relayer.address,
    async predict(owner, salt) {
      const computed = accountAddress({ factory, entryPoint, owner, salt })
      const onChain = (await client.readContract({
        address: factory,
        abi: agentAccountFactory.abi,
        functionName: 'getAddress',
        args: [owner, salt],
      })) as Address
      if (!isAddressEqual(onChain, computed))
        throw new Error(`The factory ${factory} answers ${onChain} for ${owner}/${salt}; computed ${computed}.`)
      return computed
    },
    async read(account) {
      const code = await client.getCode({ address: account })
      const deployed = code !== undefined && code !== '0x'
      const native = await client.getBalance({ address: account })
      const balances = await Promise.all(
        tokens.map(async (token) => ({
          ...token,
          balance: await client.readContract({
            address: token.address,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [account],
          }),
        })),
      )
      if (!deployed)
        return { deployed, owner: undefined, native, tokens: balances, sessionKeys: [], authorizationNonce: 0n }
      const block = await client.getBlock()
      const [owner, authorizationNonce, keys] = await Promise.all([
        read<Address>(account, 'owner'),
        read<bigint>(account, 'authorizationNonce'),
        read<Address[]>(account, 'sessionKeys'),
      ])
      const sessionKeys: SessionKey[] = []
      for (const key of keys) {
        const [active, validAfter, validUntil, period, keyTokens] = await read<
          [boolean, number, number, number, Address[]]
        >(account, 'sessionKey', [key])
        if (!active || BigInt(validUntil) < block.timestamp) continue
        const allowances = await Promise.all(
          keyTokens.map(async (token) => {
            const [remaining, periodEnd] = await read<[bigint, bigint]>(account, 'remaining', [key, token])
            return { token: getAddress(token), remaining, periodEnd: Number(periodEnd) }
          }),
        )
        sessionKeys.push({ key: getAddress(key), validAfter, validUntil, period, allowances })
      }
      return { deployed, owner, native, tokens: balances, sessionKeys, authorizationNonce }
    },
    provision(owner, salt) {
      return send(
        factory,
        encodeFunctionData({ abi: agentAccountFactory.abi, functionName: 'createAccount', args: [owner, salt] }),
      )
    },
    addSessionKey(account, terms) {
      const { key, validUntil, period, tokens, limits, signature } = terms
      return submit(
        account,
        encodeFunctionData({
          abi: agentAccount.abi,
          functionName: 'addSessionKey',
          args: [key, validUntil, period, tokens, limits, signature],
        }),
      )
    },
    revokeSessionKey(account, key, signature) {
      return submit(
        account,
        encodeFunctionData({ abi: agentAccount.abi, functionName: 'revokeSessionKey', args: [key, signature] }),
      )
    },
  }

  /** Simulates, then sends from the relayer; a reverting simulation throws {@link AuthorizationRefusedError}. */
  async function submit(account: Address, data: Hex): Promise<Hash> {
    try {
      await client.call({ account: relayer.address, to: account, data })
    } catch (error) {
      // The node's revert data, wherever viem's error chain carries it.
      const carrier =
        error instanceof BaseError
          ? error.walk((cause) => isHex((cause as { data?: unknown }).data) && (cause as { data: Hex }).data !== '0x')
          : null
      const raw = (carrier as { data?: Hex } | null)?.data
      const reason = raw ? decodeErrorResult({ abi: agentAccount.abi, data: raw }).errorName : 'reverted'
      throw new AuthorizationRefusedError(reason)
    }
    return send(account, data)
  }
}

export declare namespace agentWalletChain {
  type Parameters = {
    /** Public client of the chain. */
    client: PublicClient
    /** Its chain id. */
    chainId: number
    /** The EntryPoint v0.7. */
    entryPoint: Address
    /** The AgentAccountFactory bound to it. */
    factory: Address
    /** Sends and pays for deployments and authorizations. */
    relayer: LocalAccount
    /** The viem chain, for the wallet client. */
    chain: Chain
    /** Transport to the chain. */
    transport: Transport
    /** The tokens whose balances `read` reports. */
    tokens: readonly {
      /** Symbol. */
      symbol: string
      /** Checksummed ERC-20. */
      address: Address
      /** Decimals. */
      decimals: number
    }[]
  }
}
