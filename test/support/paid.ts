import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import { type Address, type Hex, type LocalAccount, erc20Abi, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { boot } from '../../app/boot.js'
import { clients } from '../../app/clients.js'
import { parse } from '../../app/config.js'
import { silent } from '../../app/log.js'
import { toTypedData } from '../../core/Authorization.js'
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
    /** A PAYMENT-SIGNATURE header signed by hand, to send exactly the authorization a test needs. */
    async signedHeader(options: {
      signer: LocalAccount
      from?: Address
      to?: Address
      value?: bigint
      validAfter?: bigint
      validBefore?: bigint
      network?: `${string}:${string}`
      chainId?: number
      nonce?: Hex
    }): Promise<string> {
      const now = BigInt(Math.floor(Date.now() / 1000))
      const authorization = {
        from: options.from ?? options.signer.address,
        to: options.to ?? booted.terms.payTo,
        value: options.value ?? 1000n,
        validAfter: options.validAfter ?? now - 600n,
        validBefore: options.validBefore ?? now + 120n,
        nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
      }
      const signature = await options.signer.signTypedData(
        toTypedData(authorization, {
          name: 'USD Coin',
          version: '2',
          chainId: options.chainId ?? devnet.chainId,
          verifyingContract: devnet.token.address,
        }),
      )
      return encodePaymentSignatureHeader({
        x402Version: 2,
        accepted: {
          scheme: 'exact',
          network: options.network ?? booted.terms.network,
          amount: authorization.value.toString(),
          asset: devnet.token.address,
          payTo: authorization.to,
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
        payload: {
          signature,
          authorization: {
            ...authorization,
            value: authorization.value.toString(),
            validAfter: authorization.validAfter.toString(),
            validBefore: authorization.validBefore.toString(),
          },
        },
      } as never)
    },
  }
}
