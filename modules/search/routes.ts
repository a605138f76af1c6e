import { Elysia } from 'elysia'
import { ExtractBody, QnaBody, WebBody } from './schema.js'
import * as Service from './service.js'

/** `POST /api/v1/search/web`; an option the engine cannot honour is refused in `transform`, before payment. */
export function web(deps: Parameters<typeof Service.web>[0]) {
  return new Elysia({ name: 'search-web' }).post('/api/v1/search/web', ({ body }) => Service.web(deps, body), {
    body: WebBody,
    transform: ({ body }) => Service.preflightOptions(deps.engine, body as Record<string, unknown> | null),
  })
}

/** `POST /api/v1/search/extract`; every URL's form is checked in `transform`, before payment. */
export function extract(deps: Parameters<typeof Service.extract>[0]) {
  return new Elysia({ name: 'search-extract' }).post(
    '/api/v1/search/extract',
    ({ body }) => Service.extract(deps, body),
    { body: ExtractBody, transform: ({ body }) => Service.preflightExtract(body as Partial<ExtractBody> | null) },
  )
}

/** `POST /api/v1/search/qna`; the question (`query` or `question`) and the topic are checked in `transform`, before payment. */
export function qna(deps: Service.QnaDeps) {
  return new Elysia({ name: 'search-qna' }).post('/api/v1/search/qna', ({ body }) => Service.qna(deps, body), {
    body: QnaBody,
    transform: ({ body }) => {
      const fields = body as Record<string, unknown> | null
      Service.questionOf(fields)
      Service.preflightOptions(deps.engine, fields)
    },
  })
}
