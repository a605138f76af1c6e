import {
  type Blockhash,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  type Signature,
} from '@solana/kit'
import { type FacilitatorSvmSigner, TransactionOnchainFailureError, toFacilitatorSvmSigner } from '@x402/svm'
import type { FeePayer, Status } from '../../core/FeePayer.js'

/** How often a confirmation is asked for while the caller waits, in ms. */
const pollMs = 250

/**
 * The fee payer of Solana x402 payments: a keypair (64 bytes, as `solana-keygen` writes it: a JSON array of
 * numbers, or base58) and a node's JSON-RPC URL. `@x402/svm`'s own signer does the signing and the RPC calls; only
 * confirmation is ours, bounded in time so that a paid call is never held longer than the settlement timeout.
 */
export async function feePayer(parameters: feePayer.Parameters): Promise<FeePayer<FacilitatorSvmSigner>> {
  const { url, secretKey, network, confirmTimeoutMs } = parameters
  const keypair = await createKeyPairSignerFromBytes(keyBytes(secretKey))
  const rpc = createSolanaRpc(url)
  // Keyed by network: the RPC client is a proxy, which `toFacilitatorSvmSigner` does not recognise as a single node.
  const signer = toFacilitatorSvmSigner(keypair, { [network]: rpc } as never)

  async function status(signature: string): Promise<Status> {
    const { value } = await rpc
      .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
      .send()
    const found = value[0]
    if (!found || (found.confirmationStatus !== 'confirmed' && found.confirmationStatus !== 'finalized'))
      return { state: 'unknown' }
    if (found.err)
      return {
        state: 'failed',
        message: JSON.stringify(found.err, (_, value) => (typeof value === 'bigint' ? `${value}` : value)),
      }
    return { state: 'confirmed' }
  }

  return {
    address: keypair.address,
    signer: {
      ...signer,
      async confirmTransaction(signature) {
        const deadline = Date.now() + confirmTimeoutMs
        for (;;) {
          const found = await status(signature)
          if (found.state === 'confirmed') return
          if (found.state === 'failed')
            throw new TransactionOnchainFailureError(`Transaction failed onchain: ${found.message}`)
          if (Date.now() + pollMs > deadline) throw new Error(`No confirmation within ${confirmTimeoutMs} ms.`)
          await new Promise((resolve) => setTimeout(resolve, pollMs))
        }
      },
    },
    status,
    async blockhashValid(blockhash) {
      const { value } = await rpc.isBlockhashValid(blockhash as Blockhash, { commitment: 'processed' }).send()
      return value
    },
  }
}

export declare namespace feePayer {
  type Parameters = {
    /** JSON-RPC URL of a node of the network; may carry a provider's key, so never shown. */
    url: string
    /** The fee payer's 64-byte keypair: a JSON array of numbers or base58. Never logged. */
    secretKey: string
    /** CAIP-2 network, `solana:<genesis hash>`. */
    network: string
    /** How long a settlement waits for its confirmation before it is `settlement_pending`, in ms. */
    confirmTimeoutMs: number
  }
}

/** The 64 bytes of a keypair written as `solana-keygen` does (a JSON array) or as wallets export it (base58). */
export function keyBytes(secretKey: string): Uint8Array {
  const text = secretKey.trim()
  const bytes = text.startsWith('[')
    ? Uint8Array.from(JSON.parse(text) as number[])
    : new Uint8Array(getBase58Encoder().encode(text))
  if (bytes.length !== 64) throw new Error('A Solana keypair is 64 bytes (secret key, then public key).')
  return bytes
}
