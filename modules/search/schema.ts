import { type Static, Type } from '@sinclair/typebox'

/** Most URLs one extraction call takes. */
export const maxUrls = 10

/** Body of `POST /api/v1/search/web`. */
export const WebBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 400, description: 'What to search the web for.' }),
  max_results: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 20, description: 'Most results, 1 to 20. @default 5' }),
  ),
})
/** Body of `POST /api/v1/search/web`. */
export type WebBody = Static<typeof WebBody>

/** Body of `POST /api/v1/search/extract`. */
export const ExtractBody = Type.Object({
  urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    minItems: 1,
    maxItems: maxUrls,
    description: `http(s) URLs of pages, 1 to ${maxUrls}; each is fetched through the outbound guard.`,
  }),
})
/** Body of `POST /api/v1/search/extract`. */
export type ExtractBody = Static<typeof ExtractBody>

/** Body of `POST /api/v1/search/qna`. */
export const QnaBody = Type.Object({
  question: Type.String({ minLength: 3, maxLength: 500, description: 'The question.' }),
  max_sources: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 5, description: 'Search results read to answer, 1 to 5. @default 3' }),
  ),
})
/** Body of `POST /api/v1/search/qna`. */
export type QnaBody = Static<typeof QnaBody>
