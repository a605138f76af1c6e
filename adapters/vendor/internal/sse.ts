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
  | { /** No such event. */ ok: false; /** The stream ended first, or grew past the limit first. */ reason: 'closed' | 'too_large' }

/**
 * Reads `reader` until the first complete event that has data (comments and data-less events are skipped, as
 * an event-stream client skips them), without reading past `limitBytes`.
 */
export async function firstEvent(reader: ReadableStreamDefaultReader<Uint8Array>, limitBytes: number): Promise<First> {
  const decoder = new TextDecoder()
  const chunks: Uint8Array[] = []
  let bytes = 0
  let text = ''
  let scanned = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { ok: false, reason: 'closed' }
    chunks.push(value)
    bytes += value.byteLength
    if (bytes > limitBytes) return { ok: false, reason: 'too_large' }
    text += decoder.decode(value, { stream: true })
    const boundary = /\r\n\r\n|\n\n|\r\r/g
    boundary.lastIndex = scanned
    for (let match = boundary.exec(text); match; match = boundary.exec(text)) {
      const data = dataOf(text.slice(scanned, match.index))
      scanned = match.index + match[0].length
      if (data !== undefined) return { ok: true, data, chunks, bytes }
    }
  }
}

/** The data of one event block, or `undefined` when it has no data lines. */
function dataOf(block: string): string | undefined {
  const lines = block
    .split(/\r\n|\n|\r/)
    .filter((line) => line === 'data' || line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''))
  return lines.length === 0 ? undefined : lines.join('\n')
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
