import { privateKeyToAccount } from 'viem/accounts'

/** Reads a 200 JSON answer. */
export async function ok(response: Response): Promise<any> {
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${await response.text()}`)
  return response.json()
}

/** Reads a problem+json answer with the expected status. */
export async function refused(response: Response, status: number): Promise<any> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  if (response.headers.get('content-type') !== 'application/problem+json') throw new Error(`not problem+json: ${text}`)
  return JSON.parse(text)
}

/** Keys of three unrelated payers (the devnet's well-known accounts 1 to 3, never funded anywhere that matters). */
export const accounts = {
  alice: privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
  bob: privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'),
  carol: privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'),
} as const

/** Addresses of the three payers. */
export const payers = {
  alice: accounts.alice.address,
  bob: accounts.bob.address,
  carol: accounts.carol.address,
} as const
