import type * as Search from '../../core/Search.js'
import { fieldsOf } from '../vendor/vendor.js'

/** Results of an engine's list, each read by the engine's field names; entries without a URL are left out. */
export function resultsOf(
  list: readonly unknown[],
  names: { snippet: string; published: string; score?: string },
): Search.Result[] {
  return list.flatMap((item) => {
    const fields = fieldsOf(item)
    if (typeof fields.url !== 'string' || fields.url === '') return []
    const score = names.score ? fields[names.score] : undefined
    const published = fields[names.published]
    return [
      {
        title: typeof fields.title === 'string' ? fields.title : '',
        url: fields.url,
        snippet: typeof fields[names.snippet] === 'string' ? (fields[names.snippet] as string) : '',
        published: typeof published === 'string' && published !== '' ? published : null,
        score: typeof score === 'number' && Number.isFinite(score) ? score : null,
      },
    ]
  })
}
