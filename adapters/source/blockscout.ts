import type * as ContractSource from '../../core/ContractSource.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'

/**
 * A Blockscout explorer's keyless API v2, on the one chain it indexes: `GET /api/v2/smart-contracts/{address}`
 * answers `name`, `language`, `compiler_version`, `abi`, `file_path` with `source_code`, `additional_sources`
 * (`file_path`, `source_code`) and `is_fully_verified`; an address it has no verified contract for is a 404 or an
 * answer without `source_code`. Answers are cached ten minutes.
 */
export function blockscoutSource(parameters: blockscoutSource.Parameters): ContractSource.Sources {
  const { chainId, baseUrl, ...options } = parameters
  const client = vendor({
    id: `blockscout-source-${chainId}`,
    name: 'Blockscout',
    baseUrl,
    timeoutMs: 8_000,
    retries: 1,
    maxResponseBytes: 8 * 1024 * 1024,
    cache: { ttlMs: 600_000, maxEntries: 500 },
    ...options,
  })
  return {
    name: 'blockscout',
    async find(parameters) {
      if (parameters.chainId !== chainId) return { ok: true, verified: null }
      const outcome = await client.get(`/api/v2/smart-contracts/${parameters.address}`, {
        accept: [404],
        label: 'smart-contracts',
      })
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, verified: null }
      return { ok: true, verified: verifiedOf(outcome.body) }
    },
    available: client.available,
  }
}

export declare namespace blockscoutSource {
  type Parameters = vendor.Options & {
    /** EIP-155 chain id of the chain the explorer indexes. */
    chainId: number
    /** Base URL of the explorer, e.g. `https://base.blockscout.com`. */
    baseUrl: string
  }
}

function verifiedOf(body: unknown): ContractSource.Verified | null {
  const fields = fieldsOf(body)
  if (typeof fields.source_code !== 'string' || fields.source_code === '') return null
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)
  const files = [
    { path: text(fields.file_path) ?? `${text(fields.name) ?? 'Contract'}.sol`, content: fields.source_code },
    ...(Array.isArray(fields.additional_sources) ? fields.additional_sources : []).flatMap((source) => {
      const { file_path: path, source_code: content } = fieldsOf(source)
      return typeof path === 'string' && typeof content === 'string' ? [{ path, content }] : []
    }),
  ]
  return {
    source: 'blockscout',
    match: fields.is_fully_verified === true ? 'exact' : 'partial',
    name: text(fields.name),
    language: text(fields.language),
    compiler: text(fields.compiler_version),
    abi: Array.isArray(fields.abi) ? fields.abi : null,
    files,
  }
}
