/**
 * Reads a byte stream to its end, counting bytes as they arrive; `undefined` (and the stream cancelled) as soon as
 * it exceeds `limitBytes`, so a body without a declared length cannot exceed the limit either.
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  limitBytes: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limitBytes) {
      await reader.cancel()
      return undefined
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
