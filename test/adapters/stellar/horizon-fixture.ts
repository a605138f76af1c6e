// A local Horizon for tests: serves `GET /accounts/:id`, `GET /fee_stats` and `POST /transactions` in Horizon's
// documented shapes over a tiny ledger of native balances. Submitted envelopes are decoded and judged the way
// stellar-core would for native payments (source, sequence, time bounds, fee, signature, destinations, reserves),
// then applied; refusals come back as Horizon's `transaction_failed` problem with `extras.result_codes`.
import { extractBaseAddress, Keypair, type Transaction, TransactionBuilder } from '@stellar/stellar-sdk/base'
import { bytesToHex, formatUnits, parseUnits } from 'viem'

/** A funded account of the local ledger. */
type LedgerAccount = { sequence: bigint; balance: bigint; subentries: number }

/** What the next request answers instead of its normal result. */
export type Fault = 'server_error' | 'timeout' | 'rate_limited' | 'not_json'

export type HorizonFixture = {
  /** Base URL of the server. */
  url: string
  /** Network passphrase the server judges signatures against. */
  networkPassphrase: string
  /** Accounts by `G...` address. */
  accounts: Map<string, LedgerAccount>
  /** Every request body received, raw. */
  received: string[]
  /** Envelopes (base64 XDR) that were applied. */
  applied: string[]
  /** The base fee per operation, in stroops. */
  baseFee: bigint
  /** The 90th percentile of recent fees the stats report, in stroops. */
  p90: bigint
  /** Faults to answer, one per request, oldest first. */
  faults: Fault[]
  /** Current ledger sequence. */
  ledger: number
  /** Funds a new account with `xlm`. */
  fund: (address: string, xlm: string, sequence?: bigint) => void
  /** Stops the server. */
  stop: () => void
}

const networkPassphrase = 'Test SDF Network ; September 2015'
/** Base reserve per entry, in stroops (0.5 XLM). */
const baseReserve = 5_000_000n

export function startHorizon(options: { now?: () => Date } = {}): HorizonFixture {
  const now = options.now ?? (() => new Date())
  const accounts = new Map<string, LedgerAccount>()
  const fixture: HorizonFixture = {
    url: '',
    networkPassphrase,
    accounts,
    received: [],
    applied: [],
    baseFee: 100n,
    p90: 100n,
    faults: [],
    ledger: 1_000_000,
    fund(address, xlm, sequence = 4_294_967_296n) {
      accounts.set(address, { sequence, balance: parseUnits(xlm, 7), subentries: 0 })
    },
    stop: () => server.stop(true),
  }

  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const body = request.method === 'POST' ? await request.text() : ''
      fixture.received.push(body)
      const fault = fixture.faults.shift()
      if (fault === 'server_error')
        return problem(500, 'server_error', 'Internal Server Error', 'An error occurred while processing this request.')
      if (fault === 'rate_limited')
        return problem(
          429,
          'rate_limit_exceeded',
          'Rate Limit Exceeded',
          'The rate limit for the requesting IP address is over its alloted limit.',
        )
      if (fault === 'not_json')
        return new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })
      if (fault === 'timeout')
        return problem(
          504,
          'timeout',
          'Timeout',
          'Your request timed out before completing. Please try your request again. If you are submitting a transaction make sure you are sending exactly the same transaction (with the same sequence number).',
        )

      const account = /^\/accounts\/([^/]+)$/.exec(url.pathname)
      if (request.method === 'GET' && account) {
        const id = decodeURIComponent(account[1]!)
        const entry = accounts.get(id)
        if (!entry)
          return problem(
            404,
            'not_found',
            'Resource Missing',
            'The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.',
          )
        return json(200, {
          _links: { self: { href: `${url.origin}/accounts/${id}` } },
          id,
          account_id: id,
          sequence: entry.sequence.toString(),
          sequence_ledger: fixture.ledger,
          subentry_count: entry.subentries,
          last_modified_ledger: fixture.ledger,
          thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
          flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
          balances: [
            {
              balance: formatUnits(entry.balance, 7),
              buying_liabilities: '0.0000000',
              selling_liabilities: '0.0000000',
              asset_type: 'native',
            },
          ],
          signers: [{ weight: 1, key: id, type: 'ed25519_public_key' }],
          num_sponsoring: 0,
          num_sponsored: 0,
          paging_token: id,
        })
      }

      if (request.method === 'GET' && url.pathname === '/fee_stats') {
        const charged = (value: bigint) => value.toString()
        return json(200, {
          last_ledger: fixture.ledger.toString(),
          last_ledger_base_fee: fixture.baseFee.toString(),
          ledger_capacity_usage: '0.12',
          fee_charged: Object.fromEntries(
            ['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map(
              (key) => [
                key,
                charged(
                  key === 'p90' || key === 'p95' || key === 'p99' || key === 'max' ? fixture.p90 : fixture.baseFee,
                ),
              ],
            ),
          ),
          max_fee: Object.fromEntries(
            ['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map(
              (key) => [key, '100000'],
            ),
          ),
        })
      }

      if (request.method === 'POST' && url.pathname === '/transactions') {
        if (request.headers.get('content-type')?.split(';')[0] !== 'application/x-www-form-urlencoded')
          return problem(
            415,
            'unsupported_media_type',
            'Unsupported Media Type',
            'The request has an unsupported content type.',
          )
        const envelope = new URLSearchParams(body).get('tx')
        if (!envelope)
          return problem(400, 'bad_request', 'Bad Request', 'The request you sent was invalid in some way.', {
            invalid_field: 'tx',
            reason: 'tx is required',
          })
        let transaction: Transaction
        try {
          transaction = TransactionBuilder.fromXDR(envelope, networkPassphrase) as Transaction
        } catch {
          return problem(
            400,
            'transaction_malformed',
            'Transaction Malformed',
            'Horizon could not decode the transaction envelope in this request.',
            {
              envelope_xdr: envelope,
            },
          )
        }
        return submit(transaction, envelope)
      }
      return problem(404, 'not_found', 'Resource Missing', 'The resource at the url requested was not found.')
    },
  })

  /** Judges and applies a decoded transaction, as stellar-core would for native payments. */
  function submit(transaction: Transaction, envelope: string): Response {
    const failed = (code: string, operations?: string[]) =>
      problem(
        400,
        'transaction_failed',
        'Transaction Failed',
        'The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this response contains further details.  Descriptions of each code can be found at: https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/result-codes/transactions',
        { envelope_xdr: envelope, result_codes: { transaction: code, ...(operations ? { operations } : {}) } },
      )
    const source = accounts.get(transaction.source)
    if (!source) return failed('tx_no_source_account')
    if (BigInt(transaction.sequence) !== source.sequence + 1n) return failed('tx_bad_seq')
    const nowSeconds = Math.floor(now().getTime() / 1000)
    const bounds = transaction.timeBounds
    if (bounds && Number(bounds.maxTime) !== 0 && Number(bounds.maxTime) < nowSeconds) return failed('tx_too_late')
    const operationCount = BigInt(transaction.operations.length)
    if (operationCount === 0n) return failed('tx_missing_operation')
    if (BigInt(transaction.fee) < fixture.baseFee * operationCount) return failed('tx_insufficient_fee')
    const signer = Keypair.fromPublicKey(transaction.source)
    const signed = transaction.signatures.some((signature) => signer.verify(transaction.hash(), signature.signature))
    if (!signed) return failed('tx_bad_auth')

    const charged = fixture.baseFee * operationCount
    if (source.balance - charged < minimumBalance(source)) return failed('tx_insufficient_balance')
    // Operations apply to a scratch copy; the transaction applies whole or not at all.
    const scratch = new Map([...accounts].map(([address, entry]) => [address, { ...entry }]))
    scratch.get(transaction.source)!.balance -= charged
    const codes: string[] = []
    for (const operation of transaction.operations) {
      if (operation.type !== 'payment' || !operation.asset.isNative()) {
        codes.push('op_not_supported')
        continue
      }
      // A muxed `M...` destination pays into its base `G...` account.
      const destination = scratch.get(extractBaseAddress(operation.destination))
      const from = scratch.get(operation.source ?? transaction.source)!
      const amount = parseUnits(operation.amount, 7)
      if (!destination) codes.push('op_no_destination')
      else if (from.balance - amount < minimumBalance(from)) codes.push('op_underfunded')
      else {
        from.balance -= amount
        destination.balance += amount
        codes.push('op_success')
      }
    }
    if (codes.some((code) => code !== 'op_success')) return failed('tx_failed', codes)

    for (const [address, entry] of scratch) accounts.set(address, entry)
    accounts.get(transaction.source)!.sequence += 1n
    fixture.ledger += 1
    fixture.applied.push(envelope)
    const hash = bytesToHex(transaction.hash()).slice(2)
    return json(200, {
      _links: { transaction: { href: `/transactions/${hash}` } },
      id: hash,
      paging_token: `${fixture.ledger}`,
      successful: true,
      hash,
      ledger: fixture.ledger,
      created_at: now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
      source_account: transaction.source,
      source_account_sequence: transaction.sequence,
      fee_account: transaction.source,
      fee_charged: charged.toString(),
      max_fee: transaction.fee,
      operation_count: transaction.operations.length,
      envelope_xdr: envelope,
      memo_type: 'none',
      signatures: transaction.signatures.map((signature) =>
        Buffer.from(signature.signature.toBytes()).toString('base64'),
      ),
      valid_after: new Date(Number(bounds?.minTime ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(bounds && Number(bounds.maxTime) !== 0
        ? { valid_before: new Date(Number(bounds.maxTime) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') }
        : {}),
      preconditions: {
        timebounds: { min_time: bounds?.minTime ?? '0', ...(bounds ? { max_time: bounds.maxTime } : {}) },
      },
    })
  }

  fixture.url = `http://127.0.0.1:${server.port}`
  return fixture
}

/** Least balance an account must keep: (2 + subentries) base reserves. */
function minimumBalance(account: LedgerAccount): bigint {
  return (2n + BigInt(account.subentries)) * baseReserve
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/hal+json; charset=utf-8' },
  })
}

function problem(
  status: number,
  type: string,
  title: string,
  detail: string,
  extras?: Record<string, unknown>,
): Response {
  return new Response(
    JSON.stringify({
      type: `https://stellar.org/horizon-errors/${type}`,
      title,
      status,
      detail,
      ...(extras ? { extras } : {}),
    }),
    { status, headers: { 'content-type': 'application/problem+json; charset=utf-8' } },
  )
}
