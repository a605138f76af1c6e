import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as StellarNetwork from '../../core/StellarNetwork.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** SDF's public Horizon servers by network passphrase: keyless, so each is the default for its network. */
export const publicUrls: Readonly<Record<string, string>> = {
  'Public Global Stellar Network ; September 2015': 'https://horizon.stellar.org',
  'Test SDF Network ; September 2015': 'https://horizon-testnet.stellar.org',
  'Test SDF Future Network ; October 2022': 'https://horizon-futurenet.stellar.org',
}

/** SDF's public servers take 3,600 requests per hour from one address: one per second, in bursts of up to 10. */
const publicRateLimit = { capacity: 10, refill: 1, intervalMs: 1_000 }

/**
 * A Stellar network reached through a Horizon server's REST API: `GET /accounts/:id`, `GET /fee_stats` and the
 * synchronous `POST /transactions` (form body `tx=<base64 envelope XDR>`). Horizon's problem+json refusals (404 for
 * an account, 400 with `extras.result_codes`, 504 `timeout` for a submission still in flight) become the port's data;
 * anything else is an upstream failure, never thrown.
 */
export function horizon(parameters: horizon.Parameters): StellarNetwork.StellarNetwork {
  const { networkPassphrase, url, ...options } = parameters
  const baseUrl = url ?? publicUrls[networkPassphrase]
  if (baseUrl === undefined)
    throw new TypeError(
      `horizon: no public Horizon server is known for the network "${networkPassphrase}"; pass \`url\`.`,
    )
  const client = vendor({
    id: 'horizon',
    name: 'Horizon',
    baseUrl,
    // Above Horizon's own 30 s wait for a submission to reach a ledger.
    timeoutMs: 40_000,
    rateLimit: url === undefined ? publicRateLimit : undefined,
    errorMessage: ({ status, text }) => {
      if (text === undefined || text.trim() === '') return `Horizon answered HTTP ${status}.`
      const body = parse(text)
      if (body === undefined) return `Horizon answered HTTP ${status} with a body that is not JSON.`
      const type = problemType(body)
      return `Horizon answered HTTP ${status}${type ? ` (${type})` : ''}.`
    },
    ...options,
  })

  return {
    networkPassphrase,

    async loadAccount(address) {
      // Never cached: a stale sequence number makes the next transaction fail with tx_bad_seq.
      const answer = await client.get(`/accounts/${encodeURIComponent(address)}`, { accept: [404], cache: false })
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      if (answer.status === 404) return { ok: false, reason: problemType(body) ?? 'not_found' }
      return client.read(() => ({ ok: true, sequence: toInteger(body.sequence, 'account sequence') }), answer.status)
    },

    async feeStats() {
      const answer = await client.get('/fee_stats')
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      const charged = fieldsOf(body.fee_charged)
      return client.read(
        () => ({
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
        }),
        answer.status,
      )
    },

    async submit(envelopeXdr) {
      const answer = await client.json({
        method: 'POST',
        path: '/transactions',
        form: { tx: envelopeXdr },
        accept: [400, 504],
      })
      if (!answer.ok) return answer
      const { status } = answer
      const body = fieldsOf(answer.body)
      if (status === 504) {
        // Horizon stopped waiting for the ledger; the transaction may still be included until its time bounds pass.
        if (problemType(body) === 'timeout') return { ok: true, status: 'pending' }
        return client.fail('failed', `Horizon answered HTTP 504 (${problemType(body) ?? 'no problem type'}).`, status)
      }
      if (status === 400) {
        const codes = fieldsOf(fieldsOf(body.extras).result_codes)
        const reason = typeof codes.transaction === 'string' ? codes.transaction : (problemType(body) ?? 'bad_request')
        const operations = Array.isArray(codes.operations)
          ? codes.operations.filter((code): code is string => typeof code === 'string')
          : []
        return { ok: false, reason, operations }
      }
      if (body.successful === false) return { ok: false, reason: 'tx_failed', operations: [] }
      if (typeof body.hash !== 'string')
        return client.fail('failed', 'Horizon accepted the transaction but answered no hash.', status)
      const hash = body.hash
      return client.read(
        () => ({
          ok: true,
          status: 'success',
          hash,
          ledger: Number(toInteger(body.ledger, 'ledger')),
          feeCharged: toInteger(body.fee_charged, 'fee_charged'),
        }),
        status,
      )
    },

    available: () => client.available(),
  }
}

export declare namespace horizon {
  type Parameters = vendor.Options & {
    /**
     * Base URL of the Horizon server, e.g. `https://horizon-testnet.stellar.org`; may carry a provider key, so it is
     * never shown. @default SDF's public server for `networkPassphrase` (see {@link publicUrls}), rate-limited to its
     * published 3,600 requests per hour
     */
    url?: string | undefined
    /** Passphrase of the network the server is on, e.g. `Test SDF Network ; September 2015`. */
    networkPassphrase: string
  }
}

/** `text` as JSON, or `undefined` when it is not. */
function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The last path segment of a problem's `type`, e.g. `transaction_failed`. */
function problemType(body: unknown): string | undefined {
  const type = fieldsOf(body).type
  return typeof type === 'string' ? type.split('/').pop() || undefined : undefined
}

/** A non-negative integer Horizon sends as a string (int64) or a number. */
function toInteger(value: unknown, name: string): bigint {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value)
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  throw new UnreadableAnswerError(`Horizon answered an unreadable ${name}.`)
}
