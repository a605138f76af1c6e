import { type Hash, type PublicClient, toEventSelector } from 'viem'

/** Topic 0 of EIP-3009 `AuthorizationUsed(address,bytes32)`: one log per settled payment. */
const authorizationUsed = toEventSelector('AuthorizationUsed(address,bytes32)')

/** Gas of settlement transactions per payment they settled. */
export async function gasPerPayment(parameters: gasPerPayment.Parameters): Promise<gasPerPayment.ReturnType> {
  const { client, transactions, token } = parameters
  let gas = 0n
  let payments = 0
  for (const hash of transactions) {
    const receipt = await client.getTransactionReceipt({ hash })
    if (receipt.status !== 'success') continue
    gas += receipt.gasUsed
    payments += receipt.logs.filter(
      (log) => log.address.toLowerCase() === token.toLowerCase() && log.topics[0] === authorizationUsed,
    ).length
  }
  return { transactions: transactions.length, payments, gasPerPayment: payments === 0 ? 0 : Number(gas) / payments }
}

export declare namespace gasPerPayment {
  type Parameters = {
    /** Reads receipts from the devnet. */
    client: PublicClient
    /** Settlement transactions. */
    transactions: Hash[]
    /** The token whose AuthorizationUsed logs count the payments. */
    token: string
  }
  type ReturnType = {
    /** Transactions read. */
    transactions: number
    /** Payments they settled. */
    payments: number
    /** Gas used per payment settled. */
    gasPerPayment: number
  }
}
