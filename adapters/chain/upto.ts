import type { Address } from 'viem'
import permit2Json from './contracts/artifacts/Permit2.json' with { type: 'json' }
import proxyJson from './contracts/artifacts/X402UptoPermit2Proxy.json' with { type: 'json' }
import type { Artifact } from './contracts/build.js'

// JSON imports widen ABI literals, so the committed artifacts are typed here once.
const permit2 = permit2Json as unknown as Artifact
const proxy = proxyJson as unknown as Artifact

/** Uniswap's Permit2, at its canonical address (the same on every chain). */
export const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'

/** x402's `upto` proxy (`x402UptoPermit2Proxy`), at its canonical address (CREATE2, the same on every chain). */
export const uptoProxyAddress: Address = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002'

/** The ABI of our Permit2 (`contracts/Permit2.sol`), the signature-transfer half of Uniswap's. */
export const permit2Abi = permit2.abi

/** The ABI of our `upto` proxy (`contracts/X402UptoPermit2Proxy.sol`), the ABI of x402's. */
export const uptoProxyAbi = proxy.abi

/** Our compatible contracts' runtime code at the canonical addresses, for the devnet's genesis. */
export const uptoContractsGenesis = [
  { address: permit2Address, code: permit2.deployedBytecode },
  { address: uptoProxyAddress, code: proxy.deployedBytecode },
] as const
