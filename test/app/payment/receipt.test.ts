import { describe, expect, test } from 'bun:test'
import { verifyReceiptSignatureEIP712 } from '@x402/extensions/offer-receipt'
import { toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { libsecp256k1Sign } from '../../../adapters/crypto/libsecp256k1.js'
import { receiptSigner } from '../../../app/payment/receipt.js'

const native = await libsecp256k1Sign()

describe('receiptSigner', () => {
  test('behavior: a receipt verifies offline against the key, signed natively or in JS, the same bytes either way', async () => {
    const privateKey = generatePrivateKey()
    const { address } = privateKeyToAccount(privateKey)
    const signers = [receiptSigner({ privateKey }), ...(native ? [receiptSigner({ privateKey, native })] : [])]
    for (let round = 0; round < 5; round++) {
      const paid = {
        resource: `https://gateway.example/api/v1/rpc/chains?round=${round}`,
        payer: privateKeyToAccount(generatePrivateKey()).address,
        network: 'eip155:8453' as const,
        transaction: toHex(crypto.getRandomValues(new Uint8Array(32))),
      }
      const receipts = await Promise.all(signers.map((signer) => signer.sign(paid)))
      for (const receipt of receipts) {
        const { signer, payload } = await verifyReceiptSignatureEIP712(receipt)
        expect(signer).toBe(address)
        expect(payload).toMatchObject({ payer: paid.payer, resourceUrl: paid.resource, transaction: paid.transaction })
      }
      const [js, fast] = receipts
      if (fast && fast.payload.issuedAt === js!.payload.issuedAt) expect(fast.signature).toBe(js!.signature)
    }
  })
})
