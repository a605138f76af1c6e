import type { TSchema } from '@sinclair/typebox'
import { Elysia } from 'elysia'
import type * as Compute from '../../core/Compute.js'
import * as Module from '../../core/Module.js'
import {
  BatchBody,
  EmbeddingsBody,
  EstimateBody,
  ImageBody,
  ModelsQuery,
  SpeechBody,
  StatusParams,
  TextBody,
  TranscriptionBody,
  VideoBody,
} from './schema.js'
import * as Service from './service.js'

/** `/api/v1/compute/*` and the Replicate callback: validate (model and upstream before payment), call the service. */
export function routes(deps: Service.Deps) {
  /** The handler of a job endpoint: 200 with the output, or 202 with the job started. */
  const submit =
    (kind: Compute.Kind) =>
    async ({ body, paid, set }: { body: unknown; paid: Module.Paid; set: { status?: number | string } }) => {
      const answer = await Service.submit(deps, { kind, body: body as never, paid })
      set.status = answer.status
      return answer.body
    }
  const preflight =
    (kind: Compute.Kind, schema: TSchema) =>
    ({ body }: { body: unknown }) =>
      Service.preflight(deps, kind, schema, body)
  return new Elysia<'', { decorator: {}; store: {}; derive: {}; resolve: Module.Context }>({ name: 'compute' })
    .post('/api/v1/compute/text-inference', submit('text'), { body: TextBody, transform: preflight('text', TextBody) })
    .post('/api/v1/compute/embeddings', submit('embeddings'), {
      body: EmbeddingsBody,
      transform: preflight('embeddings', EmbeddingsBody),
    })
    .post('/api/v1/compute/text-to-speech', submit('tts'), {
      body: SpeechBody,
      transform: preflight('tts', SpeechBody),
    })
    .post('/api/v1/compute/speech-to-text', submit('stt'), {
      body: TranscriptionBody,
      transform: preflight('stt', TranscriptionBody),
    })
    .post('/api/v1/compute/image-generation', submit('image'), {
      body: ImageBody,
      transform: preflight('image', ImageBody),
    })
    .post('/api/v1/compute/video-generation', submit('video'), {
      body: VideoBody,
      transform: preflight('video', VideoBody),
    })
    .post('/api/v1/compute/batch', ({ body }) => Service.batch(deps, body), { body: BatchBody })
    .post('/api/v1/compute/estimate', ({ body }) => Service.estimate(deps, body), { body: EstimateBody })
    .get('/api/v1/compute/models', ({ query }) => Service.models(deps, query), { query: ModelsQuery })
    .get(
      '/api/v1/compute/status/:jobId',
      ({ params, paid }) => Service.status(Module.withJournal(deps, paid), { jobId: params.jobId, caller: paid.payer }),
      { params: StatusParams },
    )
    .get(
      '/api/v1/compute/status',
      ({ query, paid }) => Service.status(Module.withJournal(deps, paid), { jobId: query.jobId, caller: paid.payer }),
      {
        query: StatusParams,
      },
    )
    .post('/callbacks/compute/:jobId', ({ params, body, request }) =>
      Service.callback(deps, { jobId: params.jobId, body: String(body ?? ''), headers: request.headers }),
    )
}
