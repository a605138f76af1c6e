import { createParser } from 'eventsource-parser'

/** The first event of a server-sent event stream that carries data, and the bytes read to find it. */
export type First =
  | {
      /** An event with data arrived. */
      ok: true
      /** Its data lines, joined by `\n` (the `data:` prefix and one space removed). */
      data: string
      /** Every chunk read so far, to relay unchanged. */
      chunks: Uint8Array[]
      /** Their total size in bytes. */
      bytes: number
    }
  | {
      /** No such event. */
      ok: false
      /** The stream ended first, or grew past the limit first. */
      reason: 'closed' | 'too_large'
    }

/**
 * Reads `reader` until the first complete event that has data (comments and data-less events are skipped, as
 * an event-stream client skips them), without reading past `limitBytes`. The stream is parsed by eventsource-parser.
 */
export async function firstEvent(reader: ReadableStreamDefaultReader<Uint8Array>, limitBytes: number): Promise<First> {
  const decoder = new TextDecoder()
  const chunks: Uint8Array[] = []
  let bytes = 0
  let data: string | undefined
  const parser = createParser({
    onEvent: (event) => {
      data ??= event.data
    },
  })
  let endsInCr = false
  for (;;) {
    const { done, value } = await reader.read()
    if (done) {
      // The parser holds back a final CR in case an LF follows; at the end of the stream it ends its line alone.
      if (endsInCr) parser.feed('\n')
      return data === undefined ? { ok: false, reason: 'closed' } : { ok: true, data, chunks, bytes }
    }
    chunks.push(value)
    bytes += value.byteLength
    if (bytes > limitBytes) return { ok: false, reason: 'too_large' }
    const text = decoder.decode(value, { stream: true })
    if (text !== '') endsInCr = text.endsWith('\r')
    parser.feed(text)
    if (data !== undefined) return { ok: true, data, chunks, bytes }
  }
}

/**
 * The whole stream for the caller: the chunks already read, then the rest of `reader`, unchanged. Reads only when
 * the caller reads (no read-ahead). The upstream is aborted when the caller cancels, when nothing moves for
 * `idleTimeoutMs` (upstream silent or caller not reading), or when the stream grows past `limitBytes`.
 */
export function relay(parameters: relay.Parameters): ReadableStream<Uint8Array> {
  const { reader, head, limitBytes, idleTimeoutMs, abort } = parameters
  let bytes = parameters.bytes
  const queued = [...head]
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = () => {
    clearTimeout(timer)
    timer = setTimeout(() => abort(`no data moved for ${idleTimeoutMs} ms`), idleTimeoutMs)
  }
  return new ReadableStream<Uint8Array>(
    {
      start: arm,
      async pull(controller) {
        arm()
        const next = queued.shift()
        if (next) return controller.enqueue(next)
        try {
          const { done, value } = await reader.read()
          if (done) {
            clearTimeout(timer)
            return controller.close()
          }
          bytes += value.byteLength
          if (bytes > limitBytes) {
            clearTimeout(timer)
            abort(`the stream grew past ${limitBytes} bytes`)
            return controller.error(new Error(`The upstream's stream grew past ${limitBytes} bytes and was cut.`))
          }
          controller.enqueue(value)
        } catch (error) {
          clearTimeout(timer)
          controller.error(error)
        }
      },
      cancel(reason) {
        clearTimeout(timer)
        return reader.cancel(reason)
      },
    },
    // No read-ahead: the upstream is read only as fast as the caller reads.
    { highWaterMark: 0 },
  )
}

export declare namespace relay {
  type Parameters = {
    /** The upstream's body, positioned after `head`. */
    reader: ReadableStreamDefaultReader<Uint8Array>
    /** Chunks already read from it, sent first. */
    head: Uint8Array[]
    /** Size of `head` in bytes. */
    bytes: number
    /** Largest whole stream relayed, in bytes. */
    limitBytes: number
    /** Longest pause of the stream, in ms. */
    idleTimeoutMs: number
    /** Aborts the upstream request. */
    abort: (reason: string) => void
  }
}
