import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Research from '../../core/Research.js'
import { fieldsOf, vendor } from '../vendor/vendor.js'
import { stringOf, stringsOf } from './paper.js'

/**
 * The Free Dictionary API (`https://api.dictionaryapi.dev/api/v2/entries/{language}/{word}`), answering `[{ word,
 * phonetic, phonetics: [{ text, audio }], meanings: [{ partOfSpeech, definitions: [{ definition, example, synonyms,
 * antonyms }], synonyms, antonyms }], sourceUrls }]`; an unknown word is a 404 `{ title: "No Definitions Found" }`.
 * Limit: 10 requests/s from this gateway (none published); answers cached a day.
 */
export function dictionary(parameters: dictionary.Parameters): Research.Dictionary {
  const { baseUrl = 'https://api.dictionaryapi.dev/api/v2', userAgent, ...options } = parameters
  const client = vendor({
    id: 'dictionary',
    name: 'the Free Dictionary API',
    baseUrl,
    headers: { 'user-agent': userAgent },
    timeoutMs: 10_000,
    retries: 1,
    rateLimit: { capacity: 10, refill: 10, intervalMs: 1_000, maxWaitMs: 5_000 },
    cache: { ttlMs: 24 * 60 * 60_000, maxEntries: 5_000 },
    ...options,
  })

  return {
    async entries({ word, language }) {
      const outcome = await client.get(`/entries/${language}/${encodeURIComponent(word)}`, {
        accept: [404],
        label: 'entries',
      })
      if (!outcome.ok) return outcome
      if (outcome.status === 404) return { ok: true, found: null }
      const read = client.read(() => {
        if (!Array.isArray(outcome.body)) throw new UnreadableAnswerError('the Free Dictionary API answered no list')
        return outcome.body.map((value) => {
          const entry = fieldsOf(value)
          return {
            word: stringOf(entry.word) ?? word,
            phonetic: stringOf(entry.phonetic),
            phonetics: (Array.isArray(entry.phonetics) ? entry.phonetics : []).map((phonetic) => {
              const fields = fieldsOf(phonetic)
              return { text: stringOf(fields.text), audio: stringOf(fields.audio) }
            }),
            meanings: (Array.isArray(entry.meanings) ? entry.meanings : []).map((meaning) => {
              const fields = fieldsOf(meaning)
              return {
                partOfSpeech: stringOf(fields.partOfSpeech),
                definitions: (Array.isArray(fields.definitions) ? fields.definitions : []).map((definition) => {
                  const item = fieldsOf(definition)
                  return {
                    definition: stringOf(item.definition) ?? '',
                    example: stringOf(item.example),
                    synonyms: stringsOf(item.synonyms),
                    antonyms: stringsOf(item.antonyms),
                  }
                }),
                synonyms: stringsOf(fields.synonyms),
                antonyms: stringsOf(fields.antonyms),
              }
            }),
            sourceUrls: stringsOf(entry.sourceUrls),
          }
        })
      })
      return 'ok' in read ? read : { ok: true, found: read }
    },
    available: () => client.available(),
  }
}

export declare namespace dictionary {
  type Parameters = vendor.Options & {
    /** Base URL of the API (`/entries/{language}/{word}` is appended). @default 'https://api.dictionaryapi.dev/api/v2' */
    baseUrl?: string
    /** User-Agent naming the gateway and the operator's contact. */
    userAgent: string
  }
}
