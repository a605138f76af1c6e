import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, erc20Abi, type LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { boot } from '../../app/boot.js'
import { clients } from '../../app/clients.js'
import { parse, variables } from '../../app/config.js'
import { type Logger, silent } from '../../app/log.js'
import * as Catalog from '../../core/Catalog.js'
import type { Ledger } from '../../core/Ledger.js'
import * as Price from '../../core/Price.js'

/** Every variable whose default is a URL off this machine: public nodes and keyless vendor APIs. */
export const offMachine = variables
  .filter(({ default: value }) => value !== undefined && /^https?:\/\//.test(value))
  .filter(({ default: value }) => !/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(value!))
  .map(({ name }) => name)

/** Origin the in-process gateway answers on. */
export const origin = 'http://gateway.test'

/**
 * A booted gateway on the embedded devnet with the three official clients wired to it in process. Its devnet keeps
 * no journal unless `env` sets DEVNET_PERSIST=true (a test that restarts on the same DATA_DIR needs it).
 */
export async function paidGateway(
  parameters: {
    ledger?: Ledger
    env?: Record<string, string>
    facilitator?: boot.Parameters['facilitator']
    store?: boot.Parameters['store']
    logger?: Logger
  } = {},
) {
  const config = parse({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-')),
    DEVNET_RPC_PORT: '0',
    DEVNET_PERSIST: 'false',
    // Tests never leave the machine: every public node and vendor API is on a closed local port unless a test says
    // otherwise.
    ...Object.fromEntries(offMachine.map((name) => [name, 'http://127.0.0.1:9'])),
    ...parameters.env,
  })
  const booted = await boot({
    config,
    logger: parameters.logger ?? silent(),
    ...(parameters.ledger ? { ledger: parameters.ledger } : {}),
    facilitator: parameters.facilitator,
    store: parameters.store,
  })
  const devnet = booted.devnet!
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
    booted.gateway.handle(new Request(input, init))) as typeof globalThis.fetch
  const account = (index: number) => privateKeyToAccount(devnet.accounts[index]!.privateKey)
  const pay = clients({ terms: booted.terms, fetch })

  return {
    ...booted,
    devnet,
    fetch,
    account,
    /** USDC balance in atomic units. */
    balance: (address: Address) =>
      devnet.publicClient.readContract({
        address: devnet.token.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      }),
    ...pay,
    /**
     * Sends `method path` with a JSON body (or none), paid by `payer` at the endpoint's catalog price, with an
     * authorization valid for `seconds` (an asynchronous job's endpoint takes one valid through its window).
     */
    async paid(payer: LocalAccount, method: string, path: string, body?: unknown, seconds?: number): Promise<Response> {
      const route = new URL(path, origin).pathname
      const entry = Catalog.entries.find(
        (candidate) => candidate.method === method && toPattern(candidate.path).test(route),
      )
      if (!entry) throw new Error(`No catalog entry for ${method} ${route}`)
      const header = await pay.presigned({
        signer: payer,
        value: Price.quote({ price: entry.price }),
        ...(seconds === undefined ? {} : { validBefore: BigInt(Math.floor(Date.now() / 1000) + seconds) }),
      })
      return fetch(`${origin}${path}`, {
        method,
        headers: { 'PAYMENT-SIGNATURE': header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    },
  }
}

/** Matches the concrete paths of a catalog path: `/x/:id` as `/x/abc`, and as the bare `/x` that takes `?id=`. */
function toPattern(path: string): RegExp {
  const bare = path.includes('/:') ? `|${path.slice(0, path.indexOf('/:'))}` : ''
  return new RegExp(`^(?:${path.replace(/:[A-Za-z]+/g, '[^/]+')}${bare})$`)
}
