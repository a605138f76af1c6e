import type * as StellarNetwork from '../../core/StellarNetwork.js'

/**
 * A Stellar network reached through a Horizon server's REST API: `GET /accounts/:id`, `GET /fee_stats` and the
 * synchronous `POST /transactions` (form body `tx=<base64 envelope XDR>`). Horizon's problem+json refusals become
 * data (`extras.result_codes`); transport failures, rate limits and server errors throw.
 */
export function horizon(parameters: horizon.Parameters): StellarNetwork.StellarNetwork {
  const { networkPassphrase, timeoutMs = 40_000, fetch = globalThis.fetch } = parameters
  const base = parameters.url.replace(/\/+$/, '')

  async function call(path: string, init: RequestInit = {}) {
    let response: Response
    try {
      response = await fetch(`${base}${path}`, {
        ...init,
        headers: { accept: 'application/json', ...init.headers },
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      // The URL may carry a provider key, so it is never part of the message.
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
      throw new Error(timedOut ? `Horizon did not answer within ${timeoutMs} ms.` : 'Horizon could not be reached.', { cause: error })
    }
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`Horizon answered HTTP ${response.status} with a body that is not JSON.`)
    }
    return { status: response.status, body: body as Record<string, any> }
  }

  return {
    networkPassphrase,

    async loadAccount(address) {
      const { status, body } = await call(`/accounts/${encodeURIComponent(address)}`)
      if (status === 200) return { ok: true, sequence: toInteger(body.sequence, 'account sequence') }
      if (status === 404) return { ok: false, reason: problemType(body) ?? 'not_found' }
      throw unexpected(status, body)
    },

    async feeStats() {
      const { status, body } = await call('/fee_stats')
      if (status !== 200) throw unexpected(status, body)
      const charged = body.fee_charged ?? {}
      return {
        ledger: Number(toInteger(body.last_ledger, 'last_ledger')),
        baseFee: toInteger(body.last_ledger_base_fee, 'last_ledger_base_fee'),
        charged: {
          min: toInteger(charged.min, 'fee_charged.min'),
          mode: toInteger(charged.mode, 'fee_charged.mode'),
          p50: toInteger(charged.p50, 'fee_charged.p50'),
          p90: toInteger(charged.p90, 'fee_charged.p90'),
          p99: toInteger(charged.p99, 'fee_charged.p99'),
          max: toInteger(charged.max, 'fee_charged.max'),
        },
      }
    },

    async submit(envelopeXdr) {
      const { status, body } = await call('/transactions', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ tx: envelopeXdr }).toString(),
      })
      if (status === 200) {
        if (body.successful === false) return { ok: false, reason: 'tx_failed', operations: [] }
        if (typeof body.hash !== 'string') throw new Error('Horizon accepted the transaction but answered no hash.')
        return {
          ok: true,
          status: 'success',
          hash: body.hash,
          ledger: Number(toInteger(body.ledger, 'ledger')),
          feeCharged: toInteger(body.fee_charged, 'fee_charged'),
        }
      }
      // Horizon stopped waiting for the ledger; the transaction may still be included until its time bounds pass.
      if (status === 504 && problemType(body) === 'timeout') return { ok: true, status: 'pending' }
      if (status === 400) {
        const codes = body.extras?.result_codes
        const reason = typeof codes?.transaction === 'string' ? codes.transaction : (problemType(body) ?? 'bad_request')
        const operations = Array.isArray(codes?.operations) ? codes.operations.filter((code: unknown) => typeof code === 'string') : []
        return { ok: false, reason, operations }
      }
      throw unexpected(status, body)
    },
  }
}

export declare namespace horizon {
  type Parameters = {
    /** Base URL of the Horizon server, e.g. `https://horizon-testnet.stellar.org`; may carry a provider key, so it is never shown. */
    url: string
    /** Passphrase of the network the server is on, e.g. `Test SDF Network ; September 2015`. */
    networkPassphrase: string
    /** Time limit of one request, in ms; above Horizon's own 30 s submission wait. @default 40_000 */
    timeoutMs?: number
    /** Fetch implementation. @default globalThis.fetch */
    fetch?: typeof globalThis.fetch
  }
}

/** The last path segment of a problem's `type`, e.g. `transaction_failed`. */
function problemType(body: Record<string, any>): string | undefined {
  return typeof body.type === 'string' ? body.type.split('/').pop() || undefined : undefined
}

/** A non-negative integer Horizon sends as a string (int64) or a number. */
function toInteger(value: unknown, name: string): bigint {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value)
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  throw new Error(`Horizon answered an unreadable ${name}.`)
}

function unexpected(status: number, body: Record<string, any>): Error {
  const type = problemType(body)
  return new Error(`Horizon answered HTTP ${status}${type ? ` (${type})` : ''}.`)
}
