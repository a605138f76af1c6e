import { type AnyElysia, Elysia, ValidationError as ElysiaValidationError } from 'elysia'
import { type Address, getAddress } from 'viem'
import { BaseError, ValidationError } from '../../core/Errors.js'
import * as Problem from '../../app/problem.js'

/** Header the stub caller reads: the address a test request pays as. */
export const callerHeader = 'x-test-caller'

/**
 * The gateway's `caller` context as the payment guard would give it, from {@link callerHeader} (or `header`) instead
 * of a verified payment: read lazily, so a request that never reads it needs no header.
 */
export function callerContext(header: string = callerHeader) {
  return new Elysia({ name: 'test-caller' }).derive({ as: 'global' }, (context) => {
    Object.defineProperty(context, 'caller', {
      configurable: true,
      enumerable: true,
      get: () => {
        const address = context.request.headers.get(header)
        if (!address) throw new Error(`test request without ${header}`)
        return getAddress(address)
      },
    })
    return {}
  })
}

/**
 * Mounts one module's plugin in a bare Elysia app that renders errors as the gateway does (core errors by code,
 * schema failures as 400 `validation_failed`), and sends it requests as a payer.
 */
export function mount(plugin: AnyElysia) {
  const app = new Elysia()
    .onError(({ error }) => {
      if (error instanceof BaseError) return Problem.toResponse(Problem.fromError(error))
      if (error instanceof ElysiaValidationError) {
        const first = error.all[0]
        const path = first && 'path' in first ? String(first.path).replace(/^\//, '').replaceAll('/', '.') : ''
        return Problem.toResponse(Problem.fromError(new ValidationError({ field: path || error.type, message: 'is invalid' })))
      }
    })
    .use(callerContext())
    .use(plugin)
  const send = (method: string, path: string, as: Address | undefined, body?: unknown) =>
    app.handle(
      new Request(`http://gateway.test${path}`, {
        method,
        headers: { ...(as ? { [callerHeader]: as } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )
  return {
    /** GET as the payer `as`. */
    get: (path: string, as?: Address) => send('GET', path, as),
    /** POST a JSON body as the payer `as`. */
    post: (path: string, body: unknown, as?: Address) => send('POST', path, as, body),
  }
}

/** Reads a 200 JSON answer. */
export async function ok(response: Response): Promise<any> {
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${await response.text()}`)
  return response.json()
}

/** Reads a problem+json answer with the expected status. */
export async function refused(response: Response, status: number): Promise<any> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  if (response.headers.get('content-type') !== 'application/problem+json') throw new Error(`not problem+json: ${text}`)
  return JSON.parse(text)
}

/** Addresses of three unrelated payers. */
export const payers = {
  alice: getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'),
  bob: getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'),
  carol: getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906'),
} as const
