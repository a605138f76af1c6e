import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Upstream from '../../core/Upstream.js'
import type * as XrpNetwork from '../../core/XrpNetwork.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * An XRP Ledger network reached through a rippled server's JSON-RPC over HTTP (`{ method, params: [{...}] }`):
 * `account_info`, `fee`, `server_info` and `submit`. Refusals that concern the request (no such account, a rejected
 * transaction) become the port's data; transport failures, HTTP errors and server states such as `tooBusy` are
 * upstream failures, never thrown. The three reads are retried; `submit` never is.
 */
export function rippled(parameters: rippled.Parameters): XrpNetwork.XrpNetwork {
  const { url, ...options } = parameters
  const client = vendor({
    id: 'rippled',
    name: 'rippled',
    baseUrl: url,
    timeoutMs: 20_000,
    errorMessage: ({ status, label }) => `rippled answered ${label} with HTTP ${status}.`,
    ...options,
  })

  /** Sends one command; answers its `result`, which carries `error` when the server refused the request. */
  async function request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Upstream.Outcome<{ result: Record<string, unknown> }>> {
    const answer = await client.json({
      method: 'POST',
      body: { method, params: [params] },
      label: method,
      idempotent: method !== 'submit',
      check: (body, status) => {
        const result = fieldsOf(body).result
        if (typeof result !== 'object' || result === null)
          return client.fail('failed', `rippled answered ${method} without a result.`, status)
        const error = fieldsOf(result).error
        if (typeof error !== 'string' || !serverStates.has(error)) return undefined
        // tooBusy and slowDown are rippled asking us to slow down, as a 429 would.
        const reason = error === 'tooBusy' || error === 'slowDown' ? 'rate_limited' : 'failed'
        return client.fail(reason, `rippled cannot serve ${method} now (${error}).`, status)
      },
    })
    return answer.ok ? { ok: true, result: fieldsOf(fieldsOf(answer.body).result) } : answer
  }

  return {
    async accountInfo(address) {
      const answer = await request('account_info', { account: address, ledger_index: 'current' })
      if (!answer.ok) return answer
      const { result } = answer
      if (typeof result.error === 'string') {
        if (result.error === 'actNotFound' || result.error === 'actMalformed')
          return { ok: false, reason: result.error }
        return client.fail('failed', `rippled refused account_info (${result.error}).`)
      }
      const data = fieldsOf(result.account_data)
      return client.read(() => ({
        ok: true,
        sequence: toUint32(data.Sequence, 'Sequence'),
        balance: toDrops(data.Balance, 'Balance'),
        ownerCount: toUint32(data.OwnerCount ?? 0, 'OwnerCount'),
      }))
    },

    async fee() {
      const answer = await request('fee', {})
      if (!answer.ok) return answer
      const { result } = answer
      if (typeof result.error === 'string') return client.fail('failed', `rippled refused fee (${result.error}).`)
      const drops = fieldsOf(result.drops)
      return client.read(() => ({
        baseFee: toDrops(drops.base_fee, 'drops.base_fee'),
        minimumFee: toDrops(drops.minimum_fee, 'drops.minimum_fee'),
        openLedgerFee: toDrops(drops.open_ledger_fee, 'drops.open_ledger_fee'),
        medianFee: toDrops(drops.median_fee, 'drops.median_fee'),
        currentLedger: toUint32(result.ledger_current_index, 'ledger_current_index'),
      }))
    },

    async serverInfo() {
      const answer = await request('server_info', {})
      if (!answer.ok) return answer
      const { result } = answer
      if (typeof result.error === 'string')
        return client.fail('failed', `rippled refused server_info (${result.error}).`)
      const info = fieldsOf(result.info)
      if (typeof info.validated_ledger !== 'object' || info.validated_ledger === null)
        return client.fail('failed', 'rippled has no validated ledger yet.')
      const ledger = fieldsOf(info.validated_ledger)
      const loadFactor = info.load_factor ?? 1
      if (typeof loadFactor !== 'number' || !(loadFactor > 0))
        return client.fail('failed', 'rippled answered an unreadable load_factor.')
      return client.read(() => ({
        validatedLedger: toUint32(ledger.seq, 'validated_ledger.seq'),
        baseFee: xrpToDrops(ledger.base_fee_xrp, 'validated_ledger.base_fee_xrp'),
        reserveBase: xrpToDrops(ledger.reserve_base_xrp, 'validated_ledger.reserve_base_xrp'),
        reserveIncrement: xrpToDrops(ledger.reserve_inc_xrp, 'validated_ledger.reserve_inc_xrp'),
        loadFactor,
        networkId: typeof info.network_id === 'number' ? info.network_id : undefined,
      }))
    },

    async submit(txBlob) {
      // fail_hard: a transaction that fails locally is neither retried nor relayed later, so a refusal stays one.
      const answer = await request('submit', { tx_blob: txBlob, fail_hard: true })
      if (!answer.ok) return answer
      const { result } = answer
      if (typeof result.error === 'string')
        return {
          ok: false,
          reason: result.error,
          message: String(result.error_message ?? result.error_exception ?? result.error),
        }
      const engineResult = result.engine_result
      if (typeof engineResult !== 'string')
        return client.fail('failed', 'rippled answered submit without an engine_result.')
      const message = String(result.engine_result_message ?? engineResult)
      if (engineResult !== 'tesSUCCESS' && engineResult !== 'terQUEUED')
        return { ok: false, reason: engineResult, message }
      const hash = fieldsOf(result.tx_json).hash
      if (typeof hash !== 'string')
        return client.fail('failed', 'rippled accepted the transaction but answered no hash.')
      return { ok: true, hash, result: engineResult }
    },

    available: () => client.available(),
  }
}

export declare namespace rippled {
  type Parameters = vendor.Options & {
    /**
     * JSON-RPC URL of the rippled server, e.g. `https://s.altnet.rippletest.net:51234`; may carry a provider key, so it
     * is never shown. @default timeoutMs 20_000
     */
    url: string
  }
}

/** Errors that describe the server's own state rather than the request: failures, whatever the command. */
const serverStates = new Set([
  'amendmentBlocked',
  'failedToForward',
  'internal',
  'noClosed',
  'noCurrent',
  'noNetwork',
  'notReady',
  'notSynced',
  'slowDown',
  'tooBusy',
  'unknownCmd',
])

/** A drops amount rippled sends as an integer string. */
function toDrops(value: unknown, name: string): bigint {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value)
  throw new UnreadableAnswerError(`rippled answered an unreadable ${name}.`)
}

/** An unsigned 32-bit integer (sequence numbers, ledger indexes, counts). */
function toUint32(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff) return value
  throw new UnreadableAnswerError(`rippled answered an unreadable ${name}.`)
}

/**
 * An amount `server_info` sends as a JSON number of XRP (e.g. `0.00001`), in drops. Exact: a value with more than 6
 * decimals, or too large to hold them, is refused rather than rounded.
 */
function xrpToDrops(value: unknown, name: string): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e11)
    throw new UnreadableAnswerError(`rippled answered an unreadable ${name}.`)
  const fixed = value.toFixed(6)
  if (Number(fixed) !== value)
    throw new UnreadableAnswerError(`rippled answered ${name} with more precision than a drop.`)
  const [whole = '0', fraction = ''] = fixed.split('.')
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))
}
