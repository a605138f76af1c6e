import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, erc20Abi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { boot } from '../../app/boot.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { silent } from '../../app/log.js'
import type { Ledger } from '../../core/Ledger.js'

/** Origin the in-process gateway answers on. */
export const origin = 'http://gateway.test'

/** A booted gateway on the embedded devnet with the three official clients wired to it in process. */
export async function paidGateway(parameters: { ledger?: Ledger; env?: Record<string, string> } = {}) {
  const config = parse({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-')), DEVNET_RPC_PORT: '0', ...parameters.env })
  const booted = await boot({ config, logger: silent(), ...(parameters.ledger ? { ledger: parameters.ledger } : {}) })
  const devnet = booted.devnet!
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
    booted.gateway.handle(new Request(input, init))) as typeof globalThis.fetch
  const account = (index: number) => privateKeyToAccount(devnet.accounts[index]!.privateKey)

  return {
    ...booted,
    devnet,
    fetch,
    account,
    /** USDC balance in atomic units. */
    balance: (address: Address) =>
      devnet.publicClient.readContract({ address: devnet.token.address, abi: erc20Abi, functionName: 'balanceOf', args: [address] }),
    ...clients({ terms: booted.terms, fetch }),
  }
}
