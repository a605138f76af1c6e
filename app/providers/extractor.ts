import { Type } from '@sinclair/typebox'
import { readability } from '../../adapters/extract/readability.js'
import { define } from './shared.js'

/** Our page extractor (Readability), every page fetched through the outbound guard (built before it). */
export const extractor = define({
  port: 'extractor',
  description: 'a page extractor',
  env: Type.Object({
    EXTRACT_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 10_000,
      description:
        'time limit of each page `/api/v1/search/extract` fetches (all the URLs of one call at once), redirects included, in ms',
    }),
    EXTRACT_MAX_BYTES: Type.Integer({
      minimum: 1024,
      maximum: 16 * 1024 * 1024,
      default: 2 * 1024 * 1024,
      description: 'largest page `/api/v1/search/extract` reads, in bytes; a larger one is reported `too_large`',
    }),
    EXTRACT_MAX_CHARS: Type.Integer({
      minimum: 100,
      maximum: 1_000_000,
      default: 50_000,
      description: 'longest text kept per page, in characters; a longer one is cut and marked `truncated`',
    }),
  }),
  build: ({ env, ports }) =>
    ports.outbound &&
    readability({
      outbound: ports.outbound,
      timeoutMs: env.EXTRACT_TIMEOUT_MS,
      maxBytes: env.EXTRACT_MAX_BYTES,
      maxChars: env.EXTRACT_MAX_CHARS,
    }),
})
