import type * as ContractSource from '../../core/ContractSource.js'
import { UnreadableAnswerError } from '../../core/Errors.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * Sourcify's keyless API v2: `GET /v2/contract/{chainId}/{address}?fields=sources,abi,compilation` answers the
 * verified contract with `match` (`exact_match` or `match`), `sources` (path to `{ content }`), `abi` and
 * `compilation` (`language`, `compilerVersion`, `name`); a contract it has not verified is a 404. Answers are cached
 * ten minutes: a verification never changes once made.
 */
export function sourcify(parameters: sourcify.Parameters = {}): ContractSource.Sources {
  const { baseUrl = 'https://sourcify.dev/server', ...options } = parameters
  const client = vendor({
    id: 'sourcify',
    name: 'Sourcify',
    baseUrl,
    timeoutMs: 8_000,
    retries: 1,
    maxResponseBytes: 8 * 1024 * 1024,
    cache: { ttlMs: 600_000, maxEntries: 500 },
    ...options,
  })
  return {
    name: 'sourcify',
    async find({ chainId, address }) {
      const outcome = await client.get(`/v2/contract/${chainId}/${address}`, {
        query: { fields: 'sources,abi,compilation' },
        accept: [404],
        label: 'contract',
      })
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, verified: null }
      const read = client.read(() => ({ verified: verifiedOf(outcome.body) }))
      return 'ok' in read ? read : { ok: true, ...read }
    },
    available: client.available,
  }
}

export declare namespace sourcify {
  type Parameters = vendor.Options & {
    /** Base URL of the server. @default 'https://sourcify.dev/server' */
    baseUrl?: string
  }
}

function verifiedOf(body: unknown): ContractSource.Verified | null {
  const fields = fieldsOf(body)
  if (fields.match !== 'exact_match' && fields.match !== 'match') return null
  const sources = fieldsOf(fields.sources)
  const files = Object.entries(sources).map(([path, file]) => {
    const content = fieldsOf(file).content
    if (typeof content !== 'string') throw new UnreadableAnswerError(`Sourcify source ${path} has no content`)
    return { path, content }
  })
  const compilation = fieldsOf(fields.compilation)
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)
  return {
    source: 'sourcify',
    match: fields.match === 'exact_match' ? 'exact' : 'partial',
    name: text(compilation.name),
    language: text(compilation.language),
    compiler: text(compilation.compilerVersion),
    abi: Array.isArray(fields.abi) ? fields.abi : null,
    files,
  }
}
