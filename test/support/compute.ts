/** The pinned Replicate version of the catalog's video model. */
export const videoVersion = 'a'.repeat(64)

/**
 * An operator's compute catalog (`COMPUTE_MODELS`) on the OpenAI and Replicate stand-ins: a cheap and a dear chat model,
 * embeddings, speech both ways, an image model priced by size and a video model at one price.
 */
export const computeModels = {
  'cheap-chat': { kind: 'text', upstream: 'openai', upstreamModel: 'small-model', price: '0.003' },
  'big-chat': {
    kind: 'text',
    upstream: 'openai',
    upstreamModel: 'large-model',
    price: '0.10',
    limits: { maxTokens: 4096 },
  },
  embed: { kind: 'embeddings', upstream: 'openai', upstreamModel: 'small-model', price: '0.005' },
  speak: { kind: 'tts', upstream: 'openai', upstreamModel: 'tts-model', price: '0.03' },
  listen: { kind: 'stt', upstream: 'openai', upstreamModel: 'whisper-model', price: '0.02' },
  flux: {
    kind: 'image',
    upstream: 'replicate',
    upstreamModel: 'black-forest-labs/flux-schnell',
    prices: { '1024x1024': '0.04', '512x512': '0.02' },
  },
  clip: { kind: 'video', upstream: 'replicate', upstreamModel: `someone/video-model:${videoVersion}`, price: '0.45' },
}
