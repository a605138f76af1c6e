import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  erc20Abi,
  getContractAddress,
  type Hex,
  numberToHex,
  toFunctionSelector,
} from 'viem'
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

/** The EIP-712 domain of an account: name `AgentAccount`, version `1`. */
export function domain(parameters: domain.Parameters) {
  const { account, chainId } = parameters
  return { name: 'AgentAccount', version: '1', chainId, verifyingContract: account } as const
}

export declare namespace domain {
  type Parameters = {
    /** The account, the verifying contract. */
    account: Address
    /** Its chain id. */
    chainId: number
  }
}

/** EIP-712 types of the owner's `AddSessionKey` authorization. */
export const addSessionKeyTypes = {
  AddSessionKey: [
    { name: 'key', type: 'address' },
    { name: 'validUntil', type: 'uint48' },
    { name: 'period', type: 'uint48' },
    { name: 'tokens', type: 'address[]' },
    { name: 'limits', type: 'uint256[]' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

/** EIP-712 types of the owner's `RevokeSessionKey` authorization. */
export const revokeSessionKeyTypes = {
  RevokeSessionKey: [
    { name: 'key', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

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
