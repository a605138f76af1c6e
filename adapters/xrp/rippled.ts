import type * as XrpNetwork from '../../core/XrpNetwork.js'

/**
 * An XRP Ledger network reached through a rippled server's JSON-RPC over HTTP (`{ method, params: [{...}] }`):
 * `account_info`, `fee`, `server_info` and `submit`. Refusals that concern the request (no such account, a rejected
 * transaction) become data; transport failures, HTTP errors and server states such as `tooBusy` throw.
 */
export function rippled(parameters: rippled.Parameters): XrpNetwork.XrpNetwork {
  const { timeoutMs = 20_000, fetch = globalThis.fetch } = parameters
  const { url } = parameters

  /** Sends one command; answers its `result`, which carries `error` when the server refused the request. */
  async function request(method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
    let response: Response
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ method, params: [params] }),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      // The URL may carry a provider key, so it is never part of the message.
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
      throw new Error(timedOut ? `rippled did not answer ${method} within ${timeoutMs} ms.` : 'rippled could not be reached.', {
        cause: error,
      })
    }
    if (!response.ok) throw new Error(`rippled answered ${method} with HTTP ${response.status}.`)
    let body: any
    try {
      body = await response.json()
    } catch {
      throw new Error(`rippled answered ${method} with a body that is not JSON.`)
    }
    const result = body?.result
    if (typeof result !== 'object' || result === null) throw new Error(`rippled answered ${method} without a result.`)
    if (typeof result.error === 'string' && serverStates.has(result.error))
      throw new Error(`rippled cannot serve ${method} now (${result.error}).`)
    return result
  }

  return {
    async accountInfo(address) {
      const result = await request('account_info', { account: address, ledger_index: 'current' })
      if (typeof result.error === 'string') {
        if (result.error === 'actNotFound' || result.error === 'actMalformed') return { ok: false, reason: result.error }
        throw new Error(`rippled refused account_info (${result.error}).`)
      }
      const data = result.account_data ?? {}
      return {
        ok: true,
        sequence: toUint32(data.Sequence, 'Sequence'),
        balance: toDrops(data.Balance, 'Balance'),
        ownerCount: toUint32(data.OwnerCount ?? 0, 'OwnerCount'),
      }
    },

    async fee() {
      const result = await request('fee', {})
      if (typeof result.error === 'string') throw new Error(`rippled refused fee (${result.error}).`)
      const drops = result.drops ?? {}
      return {
        baseFee: toDrops(drops.base_fee, 'drops.base_fee'),
        minimumFee: toDrops(drops.minimum_fee, 'drops.minimum_fee'),
        openLedgerFee: toDrops(drops.open_ledger_fee, 'drops.open_ledger_fee'),
        medianFee: toDrops(drops.median_fee, 'drops.median_fee'),
        currentLedger: toUint32(result.ledger_current_index, 'ledger_current_index'),
      }
    },

    async serverInfo() {
      const result = await request('server_info', {})
      if (typeof result.error === 'string') throw new Error(`rippled refused server_info (${result.error}).`)
      const info = result.info ?? {}
      const ledger = info.validated_ledger
      if (typeof ledger !== 'object' || ledger === null) throw new Error('rippled has no validated ledger yet.')
      const loadFactor = info.load_factor ?? 1
      if (typeof loadFactor !== 'number' || !(loadFactor > 0)) throw new Error('rippled answered an unreadable load_factor.')
      return {
        validatedLedger: toUint32(ledger.seq, 'validated_ledger.seq'),
        baseFee: xrpToDrops(ledger.base_fee_xrp, 'validated_ledger.base_fee_xrp'),
        reserveBase: xrpToDrops(ledger.reserve_base_xrp, 'validated_ledger.reserve_base_xrp'),
        reserveIncrement: xrpToDrops(ledger.reserve_inc_xrp, 'validated_ledger.reserve_inc_xrp'),
        loadFactor,
        networkId: typeof info.network_id === 'number' ? info.network_id : undefined,
      }
    },

    async submit(txBlob) {
      // fail_hard: a transaction that fails locally is neither retried nor relayed later, so a refusal stays one.
      const result = await request('submit', { tx_blob: txBlob, fail_hard: true })
      if (typeof result.error === 'string')
        return { ok: false, reason: result.error, message: String(result.error_message ?? result.error_exception ?? result.error) }
      const engineResult = result.engine_result
      if (typeof engineResult !== 'string') throw new Error('rippled answered submit without an engine_result.')
      const message = String(result.engine_result_message ?? engineResult)
      if (engineResult !== 'tesSUCCESS' && engineResult !== 'terQUEUED') return { ok: false, reason: engineResult, message }
      const hash = result.tx_json?.hash
      if (typeof hash !== 'string') throw new Error('rippled accepted the transaction but answered no hash.')
      return { ok: true, hash, result: engineResult }
    },
  }
}

export declare namespace rippled {
  type Parameters = {
    /** JSON-RPC URL of the rippled server, e.g. `https://s.altnet.rippletest.net:51234`; may carry a provider key, so it is never shown. */
    url: string
    /** Time limit of one request, in ms. @default 20_000 */
    timeoutMs?: number
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
  }
}

/** Errors that describe the server's own state rather than the request: faults, whatever the command. */
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
  throw new Error(`rippled answered an unreadable ${name}.`)
}

/** An unsigned 32-bit integer (sequence numbers, ledger indexes, counts). */
function toUint32(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff) return value
  throw new Error(`rippled answered an unreadable ${name}.`)
}

/**
 * An amount `server_info` sends as a JSON number of XRP (e.g. `0.00001`), in drops. Exact: a value with more than 6
 * decimals, or too large to hold them, is refused rather than rounded.
 */
function xrpToDrops(value: unknown, name: string): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1e11)
    throw new Error(`rippled answered an unreadable ${name}.`)
  const fixed = value.toFixed(6)
  if (Number(fixed) !== value) throw new Error(`rippled answered ${name} with more precision than a drop.`)
  const [whole = '0', fraction = ''] = fixed.split('.')
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))
}
