import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { Mppx } from 'mppx/client'
import { evm } from 'mppx/evm/client'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  getAddress,
  http,
  type LocalAccount,
  parseUnits,
  toHex,
} from 'viem'
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { deployerIndex, mnemonic } from '../adapters/chain/devnet.js'
import { toTypedData } from '../core/Authorization.js'
import type { PaymentTerms } from '../core/PaymentTerms.js'

/** Fresh payer accounts, each minted `usdc` devnet USDC by the devnet's deployer (what `npm run fund` does). */
export async function fundedPayers(parameters: fundedPayers.Parameters): Promise<LocalAccount[]> {
  const { rpcUrl, terms, count, usdc } = parameters
  const transport = http(rpcUrl, { retryCount: 0 })
  const chainId = Number(terms.network.split(':')[1])
  const chain = defineChain({
    id: chainId,
    name: 'Devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  // The devnet's deployer is the token's minter; its key is public (test mnemonic) and exists only on the devnet.
  const deployer = mnemonicToAccount(mnemonic, { addressIndex: deployerIndex })
  const wallet = createWalletClient({ account: deployer, chain, transport })
  const client = createPublicClient({ chain, transport })
  const payers = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()))
  // One at a time: the deployer's nonces must arrive in order on an auto-mining devnet.
  for (const payer of payers) {
    const hash = await wallet.writeContract({
      address: terms.asset.address,
      abi: mintAbi,
      functionName: 'mint',
      args: [payer.address, parseUnits(usdc, 6)],
    })
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`Minting to ${payer.address} reverted in ${hash}.`)
  }
  const balance = await client.readContract({
    address: terms.asset.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [payers.at(-1)!.address],
  })
  if (balance !== parseUnits(usdc, 6)) throw new Error(`The last payer holds ${balance} atomic USDC, not ${usdc} USDC.`)
  return payers
}

export declare namespace fundedPayers {
  type Parameters = {
    /** JSON-RPC URL of the devnet. */
    rpcUrl: string
    /** The gateway's payment terms (network and token). */
    terms: PaymentTerms
    /** How many payers. */
    count: number
    /** USDC each one gets, as a decimal string. */
    usdc: string
  }
}

const mintAbi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [{ type: 'address' }, { type: 'uint256' }],
    outputs: [],
  },
] as const

/**
 * `PAYMENT-SIGNATURE` headers (x402 v2, exact, EIP-3009) signed before the clock starts, `perPayer` for each payer,
 * answering the requirements of a server's 402 the way @x402/fetch does, minus the 402 round trip.
 */
export async function presignX402(parameters: presignX402.Parameters): Promise<string[][]> {
  const { requirements, payers, perPayer } = parameters
  const { name, version } = requirements.extra as { name: string; version: string }
  const domain = {
    name,
    version,
    chainId: Number(requirements.network.split(':')[1]),
    verifyingContract: getAddress(requirements.asset),
  }
  const now = BigInt(Math.floor(Date.now() / 1000))
  const headers: string[][] = []
  for (const signer of payers) {
    const own: string[] = []
    for (let call = 0; call < perPayer; call++) {
      const authorization = {
        from: signer.address,
        to: getAddress(requirements.payTo),
        value: BigInt(requirements.amount),
        validAfter: now - 600n,
        validBefore: now + BigInt(requirements.maxTimeoutSeconds),
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      }
      const signature = await signer.signTypedData(toTypedData(authorization, domain))
      const wire = (value: bigint) => value.toString()
      own.push(
        encodePaymentSignatureHeader({
          x402Version: 2,
          accepted: requirements,
          payload: {
            signature,
            authorization: {
              ...authorization,
              value: wire(authorization.value),
              validAfter: wire(authorization.validAfter),
              validBefore: wire(authorization.validBefore),
            },
          },
        }),
      )
    }
    headers.push(own)
  }
  return headers
}

export declare namespace presignX402 {
  type Parameters = {
    /** The `exact` requirements of the server's 402 (`PAYMENT-REQUIRED`), echoed verbatim as `accepted`. */
    requirements: PaymentRequirements
    /** Who pays; one worker of the load per payer. */
    payers: LocalAccount[]
    /** Headers per payer. */
    perPayer: number
  }
}

/** The first `exact` requirements of the x402 v2 402 that `url` answers without payment. */
export async function requirementsOf(url: string): Promise<PaymentRequirements> {
  const response = await fetch(url)
  const header = response.headers.get('payment-required')
  if (response.status !== 402 || header === null)
    throw new Error(`Expected an x402 v2 402 from ${url}, got ${response.status}.`)
  const accepted = decodePaymentRequiredHeader(header).accepts.find((requirements) => requirements.scheme === 'exact')
  if (!accepted) throw new Error(`${url} offers no exact payment.`)
  return accepted
}

/**
 * `Authorization: Payment` credentials (MPP, evm charge) made by the mppx client before the clock starts. The
 * gateway's challenge for a route is the same for a whole second (its id is an HMAC over fields that change once
 * a second) and binds the authorization's nonce, so one payer can answer one challenge per second: each round of
 * `perPayer` credentials takes `perPayer` seconds, every payer answering the challenge of each second.
 */
export async function presignMpp(parameters: presignMpp.Parameters): Promise<string[][]> {
  const { url, terms, payers, perPayer } = parameters
  const clients = payers.map((account) =>
    Mppx.create({
      methods: [evm({ account, authorization: { name: terms.asset.name, version: terms.asset.version } })],
      fetch,
      polyfill: false,
    }),
  )
  const credentials: string[][] = payers.map(() => [])
  for (let second = 0; second < perPayer; second++) {
    if (second > 0) await Bun.sleep(1_005 - (Date.now() % 1_000))
    const challenge = await fetch(url)
    if (challenge.status !== 402) throw new Error(`Expected a 402 from ${url}, got ${challenge.status}.`)
    const body = await challenge.text()
    await Promise.all(
      clients.map(async (mppx, index) =>
        credentials[index]!.push(
          await mppx.createCredential(new Response(body, { status: 402, headers: challenge.headers })),
        ),
      ),
    )
  }
  return credentials
}

/**
 * The credentials of `perPayer` (one list per payer) dealt to `workers` workers: worker `w` gets the lists of payers
 * `w`, `w + workers`, `w + 2 * workers`, … in turn, one credential of each, so that consecutive calls of a worker come
 * from different payers.
 */
export function dealt(perPayer: readonly (readonly string[])[], workers: number): string[][] {
  return Array.from({ length: workers }, (_, worker) => {
    const own = perPayer.filter((_, payer) => payer % workers === worker)
    const longest = Math.max(0, ...own.map((credentials) => credentials.length))
    return Array.from({ length: longest }, (_, index) => own.map((credentials) => credentials[index])).flatMap(
      (round) => round.filter((credential) => credential !== undefined),
    )
  })
}

export declare namespace presignMpp {
  type Parameters = {
    /** The paid resource whose 402 carries the challenges. */
    url: string
    /** The gateway's payment terms. */
    terms: PaymentTerms
    /** Who pays; one worker of the load per payer. */
    payers: LocalAccount[]
    /** Credentials per payer (seconds it takes). */
    perPayer: number
  }
}
