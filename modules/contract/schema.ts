import { type Static, Type } from '@sinclair/typebox'
import * as ContractCall from '../../core/ContractCall.js'
import * as Units from '../../core/Units.js'

const evmAddress = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description })

/** What a read and a write both take: the chain, the contract, the function and its arguments. */
function call(example: { method: string; args: unknown[] }) {
  return {
    chain: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description:
          'The chain, as the original gateway names it (`base`, `base-mainnet`, `ethereum`, `eth`, `arbitrum`, `optimism`, `polygon`, `bsc`, `avalanche`...). Default: `base`, the settlement chain (the devnet on embedded defaults).',
      }),
    ),
    address: evmAddress('The contract.'),
    method: Type.String({
      minLength: 3,
      maxLength: ContractCall.maxMethodLength,
      description:
        "The function's signature: `balanceOf(address)`, or a whole fragment with its outputs, `function balanceOf(address) view returns (uint256)`. Without outputs and without `abi`, the outputs come from the contract's verified ABI (Sourcify, Blockscout) where there is one.",
      examples: [example.method],
    }),
    args: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: ContractCall.maxArgs,
        description:
          'Arguments in order, each read by its ABI type: integers as decimal (or 0x-hex) strings, addresses, booleans, 0x-hex bytes, arrays, tuples as arrays or objects.',
        examples: [example.args],
      }),
    ),
    abi: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: ContractCall.maxAbiItems,
        description:
          'The contract’s ABI (JSON items or human-readable signatures), when `method` alone is not enough (overloads, outputs).',
      }),
    ),
  }
}

/** Body of `POST /api/v1/contract/read`. */
export const ReadBody = Type.Object({
  ...call({ method: 'balanceOf(address)', args: ['0x1111111111111111111111111111111111111111'] }),
  from: Type.Optional(evmAddress('The sender the call is made as (`msg.sender`). Default: none (the zero address).')),
})
/** Body of `POST /api/v1/contract/read`. */
export type ReadBody = Static<typeof ReadBody>

/** Body of `POST /api/v1/contract/write`. A `privateKey` (or any secret) is refused: no key ever crosses the gateway. */
export const WriteBody = Type.Object({
  ...call({
    method: 'transfer(address,uint256)',
    args: ['0x1111111111111111111111111111111111111111', '1000000'],
  }),
  value: Type.Optional(
    Type.String({
      pattern: '^(0|[1-9][0-9]{0,77}|0x[0-9a-fA-F]{1,64})$',
      ...Units.amountOptions({
        unit: 'raw',
        description: 'Native coin sent with the call, in wei (RAW): "1000000000000000" is 0.001 ETH. Default: 0.',
      }),
    }),
  ),
  walletId: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$',
      description:
        'A custodial wallet of the payer’s (`wallet/create`) to sign and send with, on the settlement chain. Without it the answer is the unsigned transaction to sign yourself.',
    }),
  ),
  from: Type.Optional(
    evmAddress('Without `walletId`: the sender the transaction is simulated and estimated for. Default: the payer.'),
  ),
})
/** Body of `POST /api/v1/contract/write`. */
export type WriteBody = Static<typeof WriteBody>
