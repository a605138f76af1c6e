import { type AnyElysia, Elysia, ValidationError as ElysiaValidationError } from 'elysia'
import { type Address, getAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
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

/** Keys of three unrelated payers (the devnet's well-known accounts 1 to 3, never funded anywhere that matters). */
export const accounts = {
  alice: privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'),
  bob: privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a'),
  carol: privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6'),
} as const

/** Addresses of the three payers. */
export const payers = {
  alice: accounts.alice.address,
  bob: accounts.bob.address,
  carol: accounts.carol.address,
} as const
