import { Type } from '@sinclair/typebox'
import * as Module from '../../core/Module.js'
import * as Routes from './routes.js'
import { ExtractOutput, QnaOutput, WebOutput } from './schema.js'

/**
 * Web search (`POST /api/v1/search/web`) through a search API: Tavily by default, Brave Search or Exa by SEARCH_ENGINE;
 * unavailable until the chosen engine's key is set.
 */
export const webManifest = Module.define({
  name: 'search-web',
  paths: ['/api/v1/search/web'],
  needs: ['webSearch'],
  outputs: { 'POST /api/v1/search/web': WebOutput },
  routes: ({ ports }) => Routes.web({ engine: ports.webSearch }),
  ready: ({ ports }) => Module.reasonOf(ports.webSearch.available()),
})

/**
 * Page extraction (`POST /api/v1/search/extract`, up to ten URLs): our own extractor, each page fetched through the
 * outbound guard, HTML and plain text only, the main text found by Readability.
 */
export const extractManifest = Module.define({
  name: 'search-extract',
  paths: ['/api/v1/search/extract'],
  needs: ['extractor'],
  outputs: { 'POST /api/v1/search/extract': ExtractOutput },
  routes: ({ ports }) => Routes.extract({ extractor: ports.extractor }),
})

/**
 * Question answering (`POST /api/v1/search/qna`): search, extract the top results, and an OpenAI-compatible model
 * (the chat upstream) answers from those texts only, with numbered citations; no answer without a source.
 */
export const qnaManifest = Module.define({
  name: 'search-qna',
  paths: ['/api/v1/search/qna'],
  needs: ['webSearch', 'extractor', 'chat'],
  env: Type.Object({
    QNA_MODEL: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'model of the chat upstream (CHAT_UPSTREAM_URL) that answers `/api/v1/search/qna`; unset, qna is unavailable',
      }),
    ),
  }),
  outputs: { 'POST /api/v1/search/qna': QnaOutput },
  routes: ({ ports, env }) =>
    Routes.qna({ engine: ports.webSearch, extractor: ports.extractor, chat: ports.chat, model: env.QNA_MODEL ?? '' }),
  ready: ({ ports, env }) =>
    env.QNA_MODEL === undefined
      ? 'set QNA_MODEL to a model of the chat upstream'
      : (Module.reasonOf(ports.webSearch.available()) ?? Module.reasonOf(ports.chat.available())),
})
