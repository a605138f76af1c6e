// A local rippled for tests: serves JSON-RPC over HTTP (`{ method, params: [{...}] }`) for `account_info`, `fee`,
// `server_info` and `submit` in rippled's documented shapes, over a tiny ledger of XRP balances. Submitted blobs are
// decoded, their signatures verified, and judged the way rippled would for XRP payments (sequence, fee, ledger
// window, reserves, destination), then applied to the open ledger; refusals carry rippled's engine result codes.
import { decode, deriveAddress, hashes, verifySignature } from 'xrpl'

/** An account of the local ledger. */
type LedgerAccount = { sequence: number; balance: bigint; ownerCount: number }

/** What the next request answers instead of its normal result. */
export type Fault = 'http_error' | 'too_busy' | 'not_json'

export type RippledFixture = {
  /** JSON-RPC URL of the server. */
  url: string
  /** Accounts by classic address. */
  accounts: Map<string, LedgerAccount>
  /** Every request body received, raw. */
  received: string[]
  /** Decoded transactions applied to the open ledger or queued (`queued: true`), with their `hash`, in order. */
  applied: Record<string, unknown>[]
  /** Base fee, in drops. */
  baseFee: bigint
  /** What the open ledger asks now, in drops. */
  openLedgerFee: bigint
  /** Account reserve, in drops. */
  reserveBase: bigint
  /** Owner reserve per object, in drops. */
  reserveIncrement: bigint
  /** Last validated ledger. */
  validatedLedger: number
  /** Network id reported by server_info. */
  networkId: number
  /** Faults to answer, one per request, oldest first. */
  faults: Fault[]
  /** Index (0-based, counted over submits) of a submit to answer `terQUEUED` instead of applying at once. */
  queueSubmit: number | undefined
  /** Funds an account with `xrp`. */
  fund: (address: string, xrp: string, sequence?: number) => void
  /** Stops the server. */
  stop: () => void
}

/** Engine results used here, with rippled's codes and messages. */
const engine = {
  tesSUCCESS: [0, 'The transaction was applied. Only final in a validated ledger.'],
  terQUEUED: [-89, 'Held until escalated fee drops.'],
  terPRE_SEQ: [-92, 'Missing/inapplicable prior transaction.'],
  terNO_ACCOUNT: [-96, 'The source account does not exist.'],
  tefPAST_SEQ: [-190, 'This sequence number has already passed.'],
  tefMAX_LEDGER: [-187, 'Ledger sequence too high.'],
  tefBAD_AUTH_MASTER: [-183, 'Auth for unclaimed account needs correct master key.'],
  telINSUF_FEE_P: [-394, 'Fee insufficient.'],
  temREDUNDANT: [-275, 'The transaction is redundant.'],
  temBAD_AMOUNT: [-298, 'Can only send positive amounts.'],
  tecUNFUNDED_PAYMENT: [104, 'Insufficient XRP balance to send.'],
  tecNO_DST_INSUF_XRP: [125, 'Destination does not exist. Too little XRP sent to create it.'],
} as const satisfies Record<string, readonly [number, string]>

export function startRippled(): RippledFixture {
  const accounts = new Map<string, LedgerAccount>()
  let submits = 0
  const fixture: RippledFixture = {
    url: '',
    accounts,
    received: [],
    applied: [],
    baseFee: 10n,
    openLedgerFee: 10n,
    reserveBase: 1_000_000n,
    reserveIncrement: 200_000n,
    validatedLedger: 90_000_000,
    networkId: 1,
    faults: [],
    queueSubmit: undefined,
    fund(address, xrp, sequence = 7) {
      const [whole = '0', fraction = ''] = xrp.split('.')
      accounts.set(address, {
        sequence,
        balance: BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0')),
        ownerCount: 0,
      })
    },
    stop: () => server.stop(true),
  }

  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      const text = await request.text()
      fixture.received.push(text)
      const fault = fixture.faults.shift()
      if (fault === 'http_error') return new Response('Server is overloaded\n', { status: 503 })
      if (fault === 'not_json')
        return new Response('<html>gateway error</html>', { status: 200, headers: { 'content-type': 'text/html' } })
      if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 })
      let call: { method?: string; params?: Record<string, unknown>[] }
      try {
        call = JSON.parse(text)
      } catch {
        return json({
          result: {
            error: 'invalidParams',
            error_code: 31,
            error_message: 'Unable to parse request.',
            status: 'error',
          },
        })
      }
      const params = call.params?.[0] ?? {}
      const request_ = { command: call.method, ...params }
      if (fault === 'too_busy')
        return json({
          result: {
            error: 'tooBusy',
            error_code: 9,
            error_message: 'The server is too busy to help you now.',
            request: request_,
            status: 'error',
          },
        })
      const current = fixture.validatedLedger + 1

      switch (call.method) {
        case 'account_info': {
          const address = params.account
          if (typeof address !== 'string')
            return json({
              result: {
                error: 'invalidParams',
                error_code: 31,
                error_message: "Missing field 'account'.",
                request: request_,
                status: 'error',
              },
            })
          const account = accounts.get(address)
          if (!account)
            return json({
              result: {
                account: address,
                error: 'actNotFound',
                error_code: 19,
                error_message: 'Account not found.',
                ledger_current_index: current,
                request: request_,
                status: 'error',
                validated: false,
              },
            })
          return json({
            result: {
              account_data: {
                Account: address,
                Balance: account.balance.toString(),
                Flags: 0,
                LedgerEntryType: 'AccountRoot',
                OwnerCount: account.ownerCount,
                PreviousTxnID: '0'.repeat(64),
                PreviousTxnLgrSeq: fixture.validatedLedger,
                Sequence: account.sequence,
                index: 'A'.repeat(64),
              },
              account_flags: {
                defaultRipple: false,
                depositAuth: false,
                disableMasterKey: false,
                requireDestinationTag: false,
              },
              ledger_current_index: current,
              status: 'success',
              validated: false,
            },
          })
        }
        case 'fee':
          return json({
            result: {
              current_ledger_size: '14',
              current_queue_size: '0',
              drops: {
                base_fee: fixture.baseFee.toString(),
                median_fee: '5000',
                minimum_fee: fixture.baseFee.toString(),
                open_ledger_fee: fixture.openLedgerFee.toString(),
              },
              expected_ledger_size: '24',
              ledger_current_index: current,
              levels: {
                median_level: '128000',
                minimum_level: '256',
                open_ledger_level: '256',
                reference_level: '256',
              },
              max_queue_size: '480',
              status: 'success',
            },
          })
        case 'server_info':
          return json({
            result: {
              info: {
                build_version: '2.4.0',
                complete_ledgers: `32570-${fixture.validatedLedger}`,
                hostid: 'LOCAL',
                io_latency_ms: 1,
                last_close: { converge_time_s: 2, proposers: 35 },
                load_factor: 1,
                network_id: fixture.networkId,
                peers: 21,
                pubkey_node: 'n9KUjqxCr5FKThSNXdzb7oqN8rYwScB2dUnNqxQxbEA17JkaWy5x',
                server_state: 'full',
                server_state_duration_us: '1000000',
                uptime: 3600,
                validated_ledger: {
                  age: 2,
                  base_fee_xrp: Number(fixture.baseFee) / 1e6,
                  hash: 'B'.repeat(64),
                  reserve_base_xrp: Number(fixture.reserveBase) / 1e6,
                  reserve_inc_xrp: Number(fixture.reserveIncrement) / 1e6,
                  seq: fixture.validatedLedger,
                },
                validation_quorum: 28,
              },
              status: 'success',
            },
          })
        case 'submit':
          return json({ result: submit(params, request_) })
        default:
          return json({
            result: {
              error: 'unknownCmd',
              error_code: 32,
              error_message: 'Unknown method.',
              request: request_,
              status: 'error',
            },
          })
      }
    },
  })

  /** Judges and applies one signed transaction, as rippled would for an XRP payment. */
  function submit(params: Record<string, unknown>, request: Record<string, unknown>): Record<string, unknown> {
    const blob = params.tx_blob
    if (typeof blob !== 'string')
      return {
        error: 'invalidParams',
        error_code: 31,
        error_message: "Missing field 'tx_blob'.",
        request,
        status: 'error',
      }
    let tx: Record<string, any>
    try {
      tx = decode(blob)
    } catch (error) {
      return {
        error: 'invalidTransaction',
        error_exception: String((error as Error).message),
        request,
        status: 'error',
      }
    }
    let signatureValid = false
    try {
      signatureValid = verifySignature(blob)
    } catch {}
    if (!signatureValid)
      return {
        error: 'invalidTransaction',
        error_exception: 'fails local checks: Invalid signature.',
        request,
        status: 'error',
      }
    const hash = hashes.hashSignedTx(blob)
    const answer = (result: keyof typeof engine, applied = false) => ({
      accepted: result === 'tesSUCCESS' || result === 'terQUEUED',
      account_sequence_available: accounts.get(tx.Account)?.sequence ?? 0,
      account_sequence_next: accounts.get(tx.Account)?.sequence ?? 0,
      applied,
      broadcast: applied,
      engine_result: result,
      engine_result_code: engine[result][0],
      engine_result_message: engine[result][1],
      kept: result === 'tesSUCCESS' || result === 'terQUEUED',
      open_ledger_cost: fixture.openLedgerFee.toString(),
      queued: result === 'terQUEUED',
      status: 'success',
      tx_blob: blob,
      tx_json: { ...tx, hash },
      validated_ledger_index: fixture.validatedLedger,
    })

    if (tx.TransactionType !== 'Payment' || typeof tx.Amount !== 'string') return answer('temBAD_AMOUNT')
    if (fixture.networkId > 1024 ? tx.NetworkID !== fixture.networkId : tx.NetworkID !== undefined)
      return {
        error: 'invalidTransaction',
        error_exception: 'fails local checks: Malformed: NetworkID.',
        request,
        status: 'error',
      }
    const source = accounts.get(tx.Account)
    if (!source) return answer('terNO_ACCOUNT')
    // No regular key or signer list here: only the account's master key may sign for it.
    if (deriveAddress(tx.SigningPubKey) !== tx.Account) return answer('tefBAD_AUTH_MASTER')
    if (tx.Sequence < source.sequence) return answer('tefPAST_SEQ')
    if (tx.Sequence > source.sequence) return answer('terPRE_SEQ')
    if (tx.LastLedgerSequence !== undefined && tx.LastLedgerSequence < fixture.validatedLedger + 1)
      return answer('tefMAX_LEDGER')
    const fee = BigInt(tx.Fee)
    const amount = BigInt(tx.Amount)
    if (amount <= 0n) return answer('temBAD_AMOUNT')
    if (tx.Destination === tx.Account) return answer('temREDUNDANT')
    if (fee < fixture.openLedgerFee)
      return fee >= fixture.baseFee ? queue(source, { ...tx, hash }, answer) : answer('telINSUF_FEE_P')
    const reserve = fixture.reserveBase + fixture.reserveIncrement * BigInt(source.ownerCount)
    const destination = accounts.get(tx.Destination)
    if (!destination && amount < fixture.reserveBase) return answer('tecNO_DST_INSUF_XRP')
    if (source.balance - fee - amount < reserve) return answer('tecUNFUNDED_PAYMENT')
    const queued = fixture.queueSubmit === submits++
    if (queued) return queue(source, { ...tx, hash }, answer)
    source.balance -= fee + amount
    source.sequence += 1
    if (destination) destination.balance += amount
    else accounts.set(tx.Destination, { sequence: fixture.validatedLedger + 1, balance: amount, ownerCount: 0 })
    fixture.applied.push({ ...tx, hash })
    return answer('tesSUCCESS', true)
  }

  /** Holds a transaction for a later ledger: its sequence counts as used, nothing moves yet. */
  function queue(
    source: LedgerAccount,
    tx: Record<string, unknown>,
    answer: (result: 'terQUEUED') => Record<string, unknown>,
  ) {
    source.sequence += 1
    fixture.applied.push({ ...tx, queued: true })
    return answer('terQUEUED')
  }

  fixture.url = `http://127.0.0.1:${server.port}/`
  return fixture
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=UTF-8' } })
}
