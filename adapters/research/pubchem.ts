import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { numberOf, stringOf } from './paper.js'

/** Properties asked for every compound (PUG-REST property names; `SMILES` since 2025, `IsomericSMILES` before). */
const properties = 'MolecularFormula,MolecularWeight,IUPACName,InChIKey,SMILES,IsomericSMILES,XLogP'

/**
 * PubChem PUG-REST (`https://pubchem.ncbi.nlm.nih.gov/rest/pug`): `/compound/{cid|name|fastformula}/{x}/property/
 * .../JSON` (`{ PropertyTable: { Properties: [{ CID, ... }] } }`), `/compound/cid/{cid}/assaysummary/JSON` (`{ Table: {
 * Columns: { Column }, Row: [{ Cell }] } }`) and `/compound/fastsimilarity_2d/cid/{cid}/cids/JSON` (`{ IdentifierList:
 * { CID } }`); errors are `{ Fault: { Code, Message } }`, 404 `PUGREST.NotFound`, 503 `PUGREST.ServerBusy`. Limit: 5
 * requests/s (PubChem's published limit, with 400/min); answers cached a day.
 */
export function pubchem(parameters: pubchem.Parameters): Research.Chemistry {
  const { baseUrl = 'https://pubchem.ncbi.nlm.nih.gov/rest/pug', userAgent, ...options } = parameters
  const client = vendor({
    id: 'pubchem',
    name: 'PubChem',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 30_000,
    retries: 1,
    rateLimit: { capacity: 5, refill: 5, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 24 * 60 * 60_000, maxEntries: 2_000 },
    maxResponseBytes: 8 * 1024 * 1024,
    errorMessage: ({ status, text }) => {
      try {
        const fault = fieldsOf(fieldsOf(JSON.parse(text ?? '')).Fault)
        return `${String(fault.Code ?? status)}: ${String(fault.Message ?? '')}`
      } catch {
        return `answered HTTP ${status}`
      }
    },
    ...options,
  })

  async function get(path: string, query: Record<string, string>, label: string) {
    return client.get(path, { query, accept: [404], label })
  }

  return {
    async compounds(parameters) {
      const { max } = parameters
      const path =
        'cid' in parameters
          ? `/compound/cid/${parameters.cid}`
          : 'name' in parameters
            ? `/compound/name/${encodeURIComponent(parameters.name)}`
            : `/compound/fastformula/${encodeURIComponent(parameters.formula)}`
      const outcome = await get(
        `${path}/property/${properties}/JSON`,
        'formula' in parameters ? { MaxRecords: String(max) } : {},
        'compound',
      )
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, found: null }
      const read = client.read(() => {
        const list = fieldsOf(fieldsOf(outcome.body).PropertyTable).Properties
        if (!Array.isArray(list)) throw new UnreadableAnswerError('PubChem answered no PropertyTable')
        return list.slice(0, max).map((entry) => {
          const fields = fieldsOf(entry)
          const cid = numberOf(fields.CID)
          if (cid === null) throw new UnreadableAnswerError('a PubChem property row has no CID')
          return {
            cid,
            formula: stringOf(fields.MolecularFormula),
            weight: fields.MolecularWeight === undefined ? null : String(fields.MolecularWeight),
            iupacName: stringOf(fields.IUPACName),
            inchiKey: stringOf(fields.InChIKey),
            smiles: stringOf(fields.SMILES) ?? stringOf(fields.IsomericSMILES),
            xlogp: numberOf(fields.XLogP),
          }
        })
      })
      return 'ok' in read ? read : { ok: true, found: read }
    },
    async bioactivity({ cid, max }) {
      const outcome = await get(`/compound/cid/${cid}/assaysummary/JSON`, {}, 'assaysummary')
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, found: null }
      const read = client.read(() => {
        const table = fieldsOf(fieldsOf(outcome.body).Table)
        const columns = fieldsOf(table.Columns).Column
        if (!Array.isArray(columns) || !Array.isArray(table.Row))
          throw new UnreadableAnswerError('PubChem answered no Table')
        const rows = table.Row.slice(0, max).map((row) => {
          const cells = fieldsOf(row).Cell
          return Object.fromEntries(
            columns.map((column, index) => {
              const cell = Array.isArray(cells) ? cells[index] : undefined
              const value = typeof cell === 'string' || typeof cell === 'number' ? cell : null
              return [String(column), value === '' ? null : value]
            }),
          )
        })
        return { total: table.Row.length, rows }
      })
      return 'ok' in read ? read : { ok: true, found: read }
    },
    async similar({ cid, threshold, max }) {
      const outcome = await get(
        `/compound/fastsimilarity_2d/cid/${cid}/cids/JSON`,
        { Threshold: String(threshold), MaxRecords: String(max) },
        'similarity',
      )
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, found: null }
      const list = fieldsOf(fieldsOf(outcome.body).IdentifierList).CID
      if (!Array.isArray(list)) return client.fail('failed', 'PubChem answered no IdentifierList')
      return { ok: true, found: list.filter((id): id is number => typeof id === 'number').slice(0, max) }
    },
    available: () => client.available(),
  }
}

export declare namespace pubchem {
  type Parameters = vendor.Options & {
    /** Base URL of PUG-REST. @default 'https://pubchem.ncbi.nlm.nih.gov/rest/pug' */
    baseUrl?: string
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}
