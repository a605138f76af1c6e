import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstruction,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  getSignatureFromTransaction,
  getU64Encoder,
  isSolanaError,
  type KeyPairSigner,
  pipe,
  type Signature,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import * as Futures from '../../core/Futures.js'
import { keyBytes } from './pay.js'

/** SPL Token, the program of mainnet USDC (Token-2022 mints are not supported). */
const tokenProgram = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

/** The associated token account program. */
const associatedTokenProgram = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

/** SPL Token's `TransferChecked` instruction index. */
const transferChecked = 12

/** How often a refund's status is asked for while it waits, in ms. */
const pollMs = 250

/** The associated token account of `owner` for `mint` (SPL Token). */
export async function associatedTokenAccount(parameters: { owner: string; mint: string }): Promise<Address> {
  const encoder = getAddressEncoder()
  const [account] = await getProgramDerivedAddress({
    programAddress: associatedTokenProgram,
    seeds: [
      encoder.encode(address(parameters.owner)),
      encoder.encode(tokenProgram),
      encoder.encode(address(parameters.mint)),
    ],
  })
  return account
}

/**
 * The compute-futures treasury on Solana, over any JSON-RPC node. Deposits are read with `getSignatureStatuses` (how
 * final) and `getTransaction` (`json`, v0 included): the signers are the first `numRequiredSignatures` account keys,
 * the memos the top-level instructions of the SPL Memo programs, and the USDC moved the node's pre and post token
 * balances of the mint, which count a transfer whatever instruction or inner instruction made it. Refunds are one
 * SPL `TransferChecked` from the operator's associated token account, signed and paid for by the operator's key,
 * simulated, sent, then polled until `confirmed` or `confirmTimeoutMs`.
 */
export async function solanaFuturesTreasury(
  parameters: solanaFuturesTreasury.Parameters,
): Promise<Futures.SolanaTreasury> {
  const { url, mint, secretKey, confirmTimeoutMs = 60_000 } = parameters
  const rpc = createSolanaRpc(url)
  const operator = secretKey ? await createKeyPairSignerFromBytes(keyBytes(secretKey)) : undefined
  const depositAddress = parameters.depositAddress ?? operator?.address
  if (!depositAddress) throw new Error('A Solana futures treasury needs a deposit address or an operator key.')
  const depositTokenAccount = await associatedTokenAccount({ owner: depositAddress, mint })
  let network: Promise<Futures.SolanaNetwork> | undefined

  async function transaction(signature: string): Promise<Futures.SolanaTransaction | undefined> {
    const { value } = await rpc
      .getSignatureStatuses([signature as Signature], { searchTransactionHistory: true })
      .send()
    const status = value[0]
    if (!status) return undefined
    const found = await rpc
      .getTransaction(signature as Signature, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send()
    if (!found?.meta) return undefined
    const { message } = found.transaction
    const keys: string[] = [
      ...message.accountKeys,
      ...(found.meta.loadedAddresses?.writable ?? []),
      ...(found.meta.loadedAddresses?.readonly ?? []),
    ]
    const memos = message.instructions
      .filter((instruction) => Futures.memoPrograms.includes(keys[instruction.programIdIndex] ?? ''))
      .map((instruction) => new TextDecoder().decode(getBase58Encoder().encode(instruction.data)))
    const balances = new Map<number, { owner: string; pre: bigint; post: bigint }>()
    for (const [side, list] of [
      ['pre', found.meta.preTokenBalances ?? []],
      ['post', found.meta.postTokenBalances ?? []],
    ] as const)
      for (const balance of list) {
        if (balance.mint !== mint) continue
        const entry = balances.get(balance.accountIndex) ?? { owner: balance.owner ?? '', pre: 0n, post: 0n }
        entry[side] = BigInt(balance.uiTokenAmount.amount)
        balances.set(balance.accountIndex, entry)
      }
    return {
      status: found.meta.err === null ? 'success' : 'failed',
      // Nodes leave confirmationStatus out only of statuses rooted long ago.
      commitment: status.confirmationStatus ?? 'finalized',
      signers: message.accountKeys.slice(0, message.header.numRequiredSignatures),
      memos,
      // The owner before the transaction: whose USDC it was when it left (an owner change in it needs their key).
      changes: [...balances]
        .map(([index, { owner, pre, post }]) => ({ tokenAccount: keys[index] ?? '', owner, change: post - pre }))
        .filter((change) => change.change !== 0n),
    }
  }

  const treasury: Futures.SolanaTreasury = {
    mint,
    depositAddress,
    depositTokenAccount,
    network() {
      network ??= rpc
        .getGenesisHash()
        .send()
        .then((hash): Futures.SolanaNetwork => `solana:${hash.slice(0, 32)}`)
      network.catch(() => {
        network = undefined
      })
      return network
    },
    transaction,
  }
  if (!operator) return treasury
  const source = await associatedTokenAccount({ owner: operator.address, mint })
  return { ...treasury, send: (transfer) => send({ rpc, operator, source, mint, confirmTimeoutMs, ...transfer }) }
}

export declare namespace solanaFuturesTreasury {
  type Parameters = {
    /** JSON-RPC URL of a node of the network; may carry a provider's key, so never shown. */
    url: string
    /** The deposit mint (USDC), base58. */
    mint: string
    /** Owner of the deposit token account (its associated token account for `mint`), base58. @default the operator's address */
    depositAddress?: string | undefined
    /** The operator's 64-byte keypair (JSON array or base58), with SOL for fees and USDC for refunds. Never logged. */
    secretKey?: string | undefined
    /** How long a refund waits for `confirmed` before its outcome is reported unknown, in ms. @default 60_000 */
    confirmTimeoutMs?: number
  }
}

/**
 * One refund: checks that `to` is still a token account of `mint` owned by `owner` (a token account's owner can be
 * changed, and the credit belongs to whoever deposited), builds a `TransferChecked` of `amount`, simulates it (a
 * failure is `not_sent`), sends it and polls its status: failed is `reverted`, confirmed is `sent`, and no answer
 * in time `unknown` (it may still land before its blockhash expires).
 */
async function send(parameters: {
  rpc: ReturnType<typeof createSolanaRpc>
  operator: KeyPairSigner
  source: Address
  mint: string
  to: string
  owner: string
  amount: bigint
  confirmTimeoutMs: number
}): Promise<Futures.Sent<string>> {
  const { rpc, operator, source, amount, confirmTimeoutMs } = parameters
  const mint = address(parameters.mint)
  let signature: Signature
  let wire: ReturnType<typeof getBase64EncodedWireTransaction>
  try {
    const [destination, mintAccount] = await Promise.all(
      [parameters.to, mint].map((account) =>
        rpc
          .getAccountInfo(address(account), { encoding: 'base64' })
          .send()
          .then(({ value }) => value),
      ),
    )
    // SPL Token layouts: a token account starts with its mint then its owner; a mint's decimals are byte 44.
    const data = destination && destination.owner === tokenProgram ? bytesOf(destination.data[0]) : undefined
    const decoder = getAddressDecoder()
    if (!data || decoder.decode(data.slice(0, 32)) !== mint || decoder.decode(data.slice(32, 64)) !== parameters.owner)
      return { status: 'not_sent', reason: `${parameters.to} is no longer a ${mint} account of ${parameters.owner}` }
    if (!mintAccount) return { status: 'not_sent', reason: `no mint ${mint}` }
    const decimals = bytesOf(mintAccount.data[0])[44]!
    const { value: blockhash } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(operator, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash(blockhash, draft),
      (draft) =>
        appendTransactionMessageInstruction(
          {
            programAddress: tokenProgram,
            accounts: [
              { address: source, role: AccountRole.WRITABLE },
              { address: mint, role: AccountRole.READONLY },
              { address: address(parameters.to), role: AccountRole.WRITABLE },
              { address: operator.address, role: AccountRole.READONLY_SIGNER, signer: operator },
            ],
            data: new Uint8Array([transferChecked, ...getU64Encoder().encode(amount), decimals]),
          },
          draft,
        ),
    )
    const signed = await signTransactionMessageWithSigners(message)
    signature = getSignatureFromTransaction(signed)
    wire = getBase64EncodedWireTransaction(signed)
    const simulated = await rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: true }).send()
    if (simulated.value.err) return { status: 'not_sent', reason: `simulation failed: ${textOf(simulated.value.err)}` }
  } catch (error) {
    return { status: 'not_sent', reason: messageOf(error) }
  }
  try {
    await rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send()
  } catch (error) {
    // The node answered with an error: it refused the transaction. Any other failure may follow its broadcast.
    if (isSolanaError(error) && !isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR))
      return { status: 'not_sent', reason: messageOf(error) }
    return { status: 'unknown', hash: signature, reason: messageOf(error) }
  }
  const deadline = Date.now() + confirmTimeoutMs
  let reason = `no confirmation within ${confirmTimeoutMs} ms`
  for (;;) {
    try {
      const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()
      const status = value[0]
      if (status?.err) return { status: 'reverted', hash: signature }
      if (status && status.confirmationStatus !== 'processed') return { status: 'sent', hash: signature }
    } catch (error) {
      reason = messageOf(error)
    }
    if (Date.now() + pollMs > deadline) return { status: 'unknown', hash: signature, reason }
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

/** The bytes of an account's base64 data. */
function bytesOf(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, 'base64'))
}

/** A transaction error as one line of JSON (it may hold u64s as bigint). */
function textOf(error: unknown): string {
  return JSON.stringify(error, (_, value) => (typeof value === 'bigint' ? `${value}` : value))
}

/** The first line of an error's message. */
function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!
}
