import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createKeyPairSignerFromPrivateKeyBytes, getBase58Decoder, getBase58Encoder } from '@solana/kit'
import { SOLANA_DEVNET_CAIP2 } from '@x402/svm'
import { feePayer, keyBytes } from '../../../adapters/solana/pay.js'
import { servedSolana } from '../../support/litesvm.js'

let node: Awaited<ReturnType<typeof servedSolana>>
beforeAll(async () => {
  node = await servedSolana()
})
afterAll(() => node.close())

/** A keypair's 64 bytes (secret, then public) and its address. */
async function keypair() {
  const seed = crypto.getRandomValues(new Uint8Array(32))
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed)
  return { bytes: new Uint8Array([...seed, ...getBase58Encoder().encode(signer.address)]), address: signer.address }
}

describe('keyBytes', () => {
  test('behavior: a solana-keygen JSON array and a base58 export read to the same 64 bytes', async () => {
    const { bytes } = await keypair()
    expect(keyBytes(JSON.stringify([...bytes]))).toEqual(bytes)
    expect(keyBytes(` ${getBase58Decoder().decode(bytes)}\n`)).toEqual(bytes)
  })

  test('error: anything but 64 bytes is refused', () => {
    expect(() => keyBytes(JSON.stringify([1, 2, 3]))).toThrow('A Solana keypair is 64 bytes')
  })
})

describe('feePayer', () => {
  test("default: the keypair's address is the fee payer; a signature the node never saw is unknown", async () => {
    const { bytes, address } = await keypair()
    const payer = await feePayer({
      url: node.url,
      secretKey: JSON.stringify([...bytes]),
      network: SOLANA_DEVNET_CAIP2,
      confirmTimeoutMs: 300,
    })
    expect(payer.address).toBe(address)
    expect(payer.signer.getAddresses()).toEqual([address])
    const unseen = getBase58Decoder().decode(new Uint8Array(64).fill(7))
    expect(await payer.status(unseen)).toEqual({ state: 'unknown' })
    expect(await payer.blockhashValid(node.svm.latestBlockhash())).toBe(true)
  })

  test('error: confirmation gives up after confirmTimeoutMs with a plain error (the scheme reads it as pending)', async () => {
    const { bytes } = await keypair()
    const payer = await feePayer({
      url: node.url,
      secretKey: JSON.stringify([...bytes]),
      network: SOLANA_DEVNET_CAIP2,
      confirmTimeoutMs: 300,
    })
    const unseen = getBase58Decoder().decode(new Uint8Array(64).fill(9))
    const error = await payer.signer.confirmTransaction(unseen, SOLANA_DEVNET_CAIP2).catch((caught: Error) => caught)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).name).toBe('Error')
    expect((error as Error).message).toBe('No confirmation within 300 ms.')
  })
})
