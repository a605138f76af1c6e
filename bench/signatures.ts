import { type Hex, recoverTypedDataAddress, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as Authorization from '../core/Authorization.js'

/** A signed authorization and its domain, as the gateway receives them. */
type Vector = { signed: Authorization.Signed; domain: Authorization.Domain }

/** `count` authorizations to the devnet token, each signed by a different random key (no cache can help). */
export async function vectors(count: number): Promise<Vector[]> {
  const domain: Authorization.Domain = {
    name: 'USD Coin',
    version: '2',
    chainId: 84_532,
    verifyingContract: '0xfbfbfDdd6e35dA57b7B0F9a2C10E34Be70B3A4E9',
  }
  const now = BigInt(Math.floor(Date.now() / 1000))
  return Promise.all(
    Array.from({ length: count }, async () => {
      const payer = privateKeyToAccount(generatePrivateKey())
      const authorization = {
        from: payer.address,
        to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as const,
        value: 1_000n,
        validAfter: now - 600n,
        validBefore: now + 300n,
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) as Hex,
      }
      const signature = await payer.signTypedData(Authorization.toTypedData(authorization, domain))
      return { signed: { ...authorization, signature }, domain }
    }),
  )
}

/** Recoveries per second of `recover` over `vectors`, one after another on this thread, for about `durationMs`. */
export async function rate(parameters: rate.Parameters): Promise<number> {
  const { recover, vectors, durationMs } = parameters
  let done = 0
  const started = performance.now()
  while (performance.now() - started < durationMs) {
    // Batches of 64 keep the clock out of the measured loop.
    for (let index = 0; index < 64; index++) {
      const { signed, domain } = vectors[(done + index) % vectors.length]!
      if ((await recover(signed, domain)) !== signed.from)
        throw new Error(`Recovery of a signature by ${signed.from} failed.`)
    }
    done += 64
  }
  return done / ((performance.now() - started) / 1000)
}

export declare namespace rate {
  type Parameters = {
    /** The implementation under test. */
    recover: (signed: Authorization.Signed, domain: Authorization.Domain) => Promise<string | undefined>
    /** Signatures to recover, in turn. */
    vectors: Vector[]
    /** How long to run, in ms. */
    durationMs: number
  }
}

/** viem's `recoverTypedDataAddress` on an authorization: the baseline. */
export function viaViem(signed: Authorization.Signed, domain: Authorization.Domain): Promise<string> {
  const { signature, ...authorization } = signed
  return recoverTypedDataAddress({ ...Authorization.toTypedData(authorization, domain), signature })
}
