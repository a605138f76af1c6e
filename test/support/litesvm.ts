import {
  type Address,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
  lamports,
} from '@solana/kit'
import { findAssociatedTokenPda, getMintEncoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { FailedTransactionMetadata, LiteSVM } from 'litesvm'

/** Bytes of an SPL Token mint account and of a token account. */
const mintSize = 82
const tokenAccountSize = 165

/** A token balance as `getTransaction` tells it: the account's index in the transaction, its mint, owner and amount. */
type TokenBalance = {
  accountIndex: number
  mint: string
  owner: string
  programId: string
  uiTokenAmount: { amount: string; decimals: number; uiAmount: null; uiAmountString: string }
}

/** What the node keeps of a sent transaction: where it landed, how it ended, and what `getTransaction` answers. */
type Landed = { slot: number; err: unknown; transaction: unknown }

/** The genesis hash the stand-in answers: a local network of its own. */
export const genesisHash = 'LiteSVM1111111111111111111111111111111111111'

/**
 * A Solana node in this process: LiteSVM behind the JSON-RPC methods x402 `exact` on `solana:` uses (the official
 * client's `getAccountInfo` and `getLatestBlockhash`; the facilitator's `simulateTransaction`, `sendTransaction`,
 * `getSignatureStatuses`; reconciliation's `isBlockhashValid`; compute futures' `getTransaction` and `getGenesisHash`),
 * served over HTTP on 127.0.0.1 as a real node is. Sent transactions execute at once, signatures checked;
 * `sendTransaction` answers the signature even when it failed (as `skipPreflight` does), `getSignatureStatuses` tells
 * how it ended (at the commitment `commitment` sets, `finalized` by default) and `getTransaction` answers it in the
 * `json` encoding, with the pre and post balances of its token accounts. `holdConfirmations` makes statuses unknown until released (a congested
 * node) and `dropSends` loses what is sent; `svm.expireBlockhash()` moves to a new blockhash.
 */
export async function servedSolana() {
  const svm = new LiteSVM()
  const landed = new Map<string, Landed>()
  let slot = 1
  let held = false
  let dropping = false
  let commitment: 'processed' | 'confirmed' | 'finalized' = 'finalized'
  const methods: string[] = []

  const encodeBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
  const decodeTransaction = (base64: string) => getTransactionDecoder().decode(Buffer.from(base64, 'base64'))
  const signatureOf = (transaction: ReturnType<typeof decodeTransaction>) => {
    const first = Object.values(transaction.signatures)[0]
    return first ? getBase58Decoder().decode(first) : ''
  }
  const context = () => ({ slot, apiVersion: '2.2.0' })
  const errorOf = (failed: FailedTransactionMetadata) => ({ message: failed.toString(), logs: failed.meta().logs() })
  // SPL token account layout: mint (32), owner (32), amount (u64 little-endian); a mint's decimals are byte 44.
  const tokenBalances = (keys: readonly Address[]): TokenBalance[] =>
    keys.flatMap((key, accountIndex) => {
      const account = svm.getAccount(key)
      if (
        !account.exists ||
        account.programAddress !== TOKEN_PROGRAM_ADDRESS ||
        account.data.length !== tokenAccountSize
      )
        return []
      const data = Buffer.from(account.data)
      const mint = getAddressDecoder().decode(data.subarray(0, 32))
      const mintAccount = svm.getAccount(mint)
      const decimals = mintAccount.exists ? mintAccount.data[44]! : 0
      const amount = data.readBigUInt64LE(64).toString()
      return [
        {
          accountIndex,
          mint,
          owner: getAddressDecoder().decode(data.subarray(32, 64)),
          programId: TOKEN_PROGRAM_ADDRESS,
          uiTokenAmount: { amount, decimals, uiAmount: null, uiAmountString: amount },
        },
      ]
    })

  const handlers: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => ({
      context: context(),
      value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150 },
    }),
    // LiteSVM keeps one blockhash: any older one has expired.
    isBlockhashValid: ([blockhash]) => ({ context: context(), value: blockhash === svm.latestBlockhash() }),
    getAccountInfo: ([account]) => {
      const found = svm.getAccount(address(String(account)))
      return {
        context: context(),
        value: found.exists
          ? {
              data: [encodeBase64(found.data), 'base64'],
              executable: found.executable,
              lamports: Number(found.lamports),
              owner: found.programAddress,
              rentEpoch: 0,
              space: found.data.length,
            }
          : null,
      }
    },
    simulateTransaction: ([base64, config]) => {
      const transaction = decodeTransaction(String(base64))
      const checkSignatures = (config as { sigVerify?: boolean } | undefined)?.sigVerify === true
      // The fee payer has not signed yet when the facilitator simulates: signatures are not checked unless asked.
      svm.withSigverify(checkSignatures)
      const result = svm.simulateTransaction(transaction)
      svm.withSigverify(true)
      const failed = result instanceof FailedTransactionMetadata
      const meta = failed ? result.meta() : result.meta()
      return {
        context: context(),
        value: {
          err: failed ? errorOf(result) : null,
          logs: meta.logs(),
          accounts: null,
          unitsConsumed: Number(meta.computeUnitsConsumed()),
          returnData: null,
        },
      }
    },
    sendTransaction: ([base64]) => {
      const transaction = decodeTransaction(String(base64))
      const signature = signatureOf(transaction)
      // A dropped transaction never reaches a leader: the node answers its signature and never hears of it again.
      if (dropping) return signature
      const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
      const keys = message.staticAccounts
      const preTokenBalances = tokenBalances(keys)
      const result = svm.sendTransaction(transaction)
      slot++
      // A signature already processed keeps its first outcome: the cluster runs a transaction once.
      if (landed.has(signature)) return signature
      const err = result instanceof FailedTransactionMetadata ? errorOf(result) : null
      const { header } = message
      landed.set(signature, {
        slot,
        err,
        transaction: {
          slot,
          blockTime: null,
          version: message.version,
          transaction: {
            signatures: Object.values(transaction.signatures).map((bytes) =>
              bytes ? getBase58Decoder().decode(bytes) : '',
            ),
            message: {
              accountKeys: keys,
              header: {
                numRequiredSignatures: header.numSignerAccounts,
                numReadonlySignedAccounts: header.numReadonlySignerAccounts,
                numReadonlyUnsignedAccounts: header.numReadonlyNonSignerAccounts,
              },
              recentBlockhash: message.lifetimeToken,
              instructions: message.instructions.map((instruction) => ({
                programIdIndex: instruction.programAddressIndex,
                accounts: instruction.accountIndices ?? [],
                data: getBase58Decoder().decode(instruction.data ?? new Uint8Array()),
                stackHeight: null,
              })),
              addressTableLookups: [],
            },
          },
          meta: {
            err,
            status: err ? { Err: err } : { Ok: null },
            fee: 5000,
            preBalances: [],
            postBalances: [],
            preTokenBalances,
            postTokenBalances: tokenBalances(keys),
            innerInstructions: [],
            logMessages: [],
            loadedAddresses: { writable: [], readonly: [] },
            rewards: [],
          },
        },
      })
      return signature
    },
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as string[]).map((signature) => {
        const found = landed.get(signature)
        if (!found || held) return null
        return {
          slot: found.slot,
          confirmations: null,
          err: found.err,
          status: found.err ? { Err: found.err } : { Ok: null },
          confirmationStatus: commitment,
        }
      }),
    }),
    getTransaction: ([signature]) => {
      const found = landed.get(String(signature))
      return found && !held && commitment !== 'processed' ? found.transaction : null
    },
    getGenesisHash: () => genesisHash,
  }

  async function answer(request: Request): Promise<Response> {
    const body = (await request.json()) as { id: unknown; method: string; params?: unknown[] }
    methods.push(body.method)
    const handler = handlers[body.method]
    if (!handler)
      return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } })
    try {
      return Response.json({ jsonrpc: '2.0', id: body.id, result: handler(body.params ?? []) })
    } catch (error) {
      return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: String(error) } })
    }
  }

  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: answer })

  /** A funded keypair: `sol` lamports for fees. */
  async function wallet(sol = 1_000_000_000n): Promise<KeyPairSigner> {
    const signer = await generateKeyPairSigner()
    svm.airdrop(signer.address, lamports(sol))
    return signer
  }

  /** A USDC-like mint (6 decimals, SPL Token) at a new address. */
  async function mint(decimals = 6): Promise<Address> {
    const account = await generateKeyPairSigner()
    const data = new Uint8Array(
      getMintEncoder().encode({
        mintAuthority: account.address,
        supply: 0n,
        decimals,
        isInitialized: true,
        freezeAuthority: null,
      }),
    )
    svm.setAccount({
      address: account.address,
      data,
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(mintSize))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(mintSize),
    })
    return account.address
  }

  /** The associated token account of `owner` for `mint`, set to hold `amount`. */
  async function fund(parameters: { mint: Address; owner: Address; amount: bigint }): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({
      mint: parameters.mint,
      owner: parameters.owner,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const data = new Uint8Array(
      getTokenEncoder().encode({
        mint: parameters.mint,
        owner: parameters.owner,
        amount: parameters.amount,
        delegate: null,
        state: 1,
        isNative: null,
        delegatedAmount: 0n,
        closeAuthority: null,
      }),
    )
    svm.setAccount({
      address: ata,
      data,
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(tokenAccountSize))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(tokenAccountSize),
    })
    return ata
  }

  /** The token balance of `owner`'s associated account for `mint` (0 when it has none). */
  async function balance(parameters: { mint: Address; owner: Address }): Promise<bigint> {
    const [ata] = await findAssociatedTokenPda({
      mint: parameters.mint,
      owner: parameters.owner,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const account = svm.getAccount(ata)
    if (!account.exists) return 0n
    // SPL token account layout: mint (32), owner (32), amount (u64 little-endian).
    return Buffer.from(account.data).readBigUInt64LE(64)
  }

  return {
    url: `http://127.0.0.1:${server.port}/`,
    svm,
    wallet,
    mint,
    fund,
    balance,
    /** JSON-RPC methods called, in order. */
    methods,
    /** Makes signature statuses unknown (`null`) until called again with `false`. */
    holdConfirmations(hold: boolean) {
      held = hold
    },
    /** Makes every landed transaction as final as `level` (`finalized` until called). */
    commitment(level: 'processed' | 'confirmed' | 'finalized') {
      commitment = level
    },
    /** Drops every transaction sent (as a congested cluster may) until called again with `false`. */
    dropSends(drop: boolean) {
      dropping = drop
    },
    /** Whether a transaction with this signature landed (succeeded or failed). */
    landed: (signature: string) => landed.has(signature),
    async close() {
      await server.stop(true)
    },
  }
}
