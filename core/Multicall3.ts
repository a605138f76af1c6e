import { type Address, parseAbi } from 'viem'

/** Canonical Multicall3 address, the same on every chain (the devnet has it from genesis). */
export const address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** The Multicall3 functions the gateway calls: `aggregate3` (each call allowed to fail or not) and `getEthBalance`. */
export const abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'function aggregate3(Call3[] calls) payable returns ((bool success, bytes returnData)[])',
  'function getEthBalance(address addr) view returns (uint256 balance)',
])
