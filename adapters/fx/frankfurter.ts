import { UnreadableAnswerError } from '../../core/Errors.js'
import type { FxReference, Rates } from '../../core/FxReference.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/** How long one day's rates are served again, in ms: they change once a working day. */
const cacheTtlMs = 60_000

/**
 * Reference exchange rates from a Frankfurter server (`GET /latest?base=USD&symbols=EUR,GBP`, answering
 * `{ amount, base, date, rates: { EUR: 0.92, ... } }`). Each rate is passed on as the decimal text of the JSON
 * number (Frankfurter publishes at most 5 significant digits, whose shortest decimal form is that text); a rate
 * that is not a plain positive decimal makes the answer unreadable.
 */
export function frankfurter(parameters: frankfurter.Parameters): FxReference {
  const { url, ...options } = parameters
  const client = vendor({
    id: 'frankfurter',
    name: 'Frankfurter',
    baseUrl: url,
    timeoutMs: 10_000,
    cache: { ttlMs: cacheTtlMs },
    errorMessage: ({ status }) => `Frankfurter answered HTTP ${status}.`,
    ...options,
  })
  return {
    name: 'Frankfurter (ECB reference rates)',
    async latest(base, symbols) {
      const answer = await client.get('/latest', { query: { base, symbols: symbols.join(',') }, label: 'latest' })
      if (!answer.ok) return answer
      const body = fieldsOf(answer.body)
      return client.read((): { ok: true } & Rates => {
        if (body.base !== base)
          throw new UnreadableAnswerError(`Frankfurter answered rates against ${String(body.base)}, not ${base}.`)
        if (typeof body.date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(body.date))
          throw new UnreadableAnswerError('Frankfurter answered without a date.')
        const published = fieldsOf(body.rates)
        const rates: Record<string, string> = {}
        for (const [symbol, rate] of Object.entries(published)) {
          const text = typeof rate === 'number' ? String(rate) : ''
          if (!/^\d+(\.\d+)?$/.test(text) || /^0(\.0+)?$/.test(text))
            throw new UnreadableAnswerError(
              `Frankfurter answered ${symbol} as ${JSON.stringify(rate)}, not a positive rate.`,
            )
          rates[symbol] = text
        }
        return { ok: true, base, date: body.date, rates }
      }, answer.status)
    },
    available: () => client.available(),
  }
}

export declare namespace frankfurter {
  type Parameters = vendor.Options & {
    /** Base URL of the API, up to `/v1`, e.g. `https://api.frankfurter.dev/v1` (the public one, keyless). */
    url: string
  }
}
