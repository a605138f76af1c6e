import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../core/Errors.js'
import { echo } from '../core/internal/echo.js'
import { readBounded } from '../core/internal/stream.js'

/** Whether a declared `content-length` already exceeds the limit (checked before routing). */
export function exceedsDeclaredLength(request: Request, limitBytes: number): boolean {
  const declared = Number(request.headers.get('content-length') ?? 0)
  return Number.isFinite(declared) && declared > limitBytes
}

/**
 * Reads a JSON request body, counting bytes as they stream in so a body without `content-length` cannot
 * exceed the limit either. An empty body reads as `undefined`, which the route schema then judges.
 */
export async function readJson(request: Request, limitBytes: number): Promise<unknown> {
  const text = await readText(request, limitBytes)
  if (text.trim() === '') return undefined
  const contentType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (contentType && contentType !== 'application/json' && !contentType.endsWith('+json'))
    throw new UnsupportedMediaTypeError(`Request bodies are JSON; "${echo(contentType)}" is not accepted.`)
  try {
    return JSON.parse(text)
  } catch {
    // The parser's own message quotes the offending text, which may be a secret sent without quotes.
    throw new MalformedJsonError('The request body is not valid JSON.')
  }
}

/** Reads a request body as text, counting bytes as they stream in; throws {@link PayloadTooLargeError} past the limit. */
export async function readText(request: Request, limitBytes: number): Promise<string> {
  if (!request.body) return ''
  const bytes = await readBounded(request.body, limitBytes)
  if (bytes === undefined) throw new PayloadTooLargeError({ limitBytes })
  return new TextDecoder().decode(bytes)
}
