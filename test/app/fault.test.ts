import { describe, expect, test } from 'bun:test'
import { HttpRequestError, TimeoutError } from 'viem'
import { classify, fromFault } from '../../app/fault.js'
import { UpstreamUnavailableError, ValidationError } from '../../core/Errors.js'

const url = 'https://node.example/v2/key'
const timeout = new TimeoutError({ body: { method: 'eth_call' }, url })
const failed = new HttpRequestError({ url, status: 500, body: { method: 'eth_call' } })
const connection = Object.assign(new TypeError('Unable to connect.'), { code: 'ECONNREFUSED', path: url })
const ours = Object.assign(new Error('no such file'), { code: 'ENOENT' })

describe('classify', () => {
  test.each([
    ['a viem TimeoutError', timeout, 'timeout'],
    ['an AbortSignal.timeout', new DOMException('The operation timed out.', 'TimeoutError'), 'timeout'],
    ['a timeout under a wrapper', new Error('read failed', { cause: timeout }), 'timeout'],
    ['a viem HttpRequestError', failed, 'failed'],
    ['a refused connection', connection, 'failed'],
    ['a file that is not there', ours, undefined],
    ['a plain Error', new Error('bug'), undefined],
    ['not an Error', 'text', undefined],
  ])('behavior: %s', (_, error, kind) => {
    expect(classify(error)).toBe(kind as never)
  })
})

describe('fromFault', () => {
  test('behavior: raw faults become 504 or 502 with a message of ours', () => {
    expect(fromFault(timeout)).toMatchObject({ code: 'upstream_timeout' })
    expect(fromFault(failed)).toMatchObject({ code: 'upstream_failed' })
    expect(fromFault(timeout)!.message).not.toContain(url)
  })

  test("behavior: a module's 503 over a timeout is a 504; over anything else it stays as it is", () => {
    const overTimeout = new UpstreamUnavailableError('The chain could not be read.', { cause: timeout })
    expect(fromFault(overTimeout)).toMatchObject({ code: 'upstream_timeout', message: 'The chain could not be read.' })
    expect(fromFault(new UpstreamUnavailableError('down', { cause: failed }))).toBeUndefined()
    expect(fromFault(new ValidationError({ field: 'x', message: 'bad' }))).toBeUndefined()
  })

  test('behavior: faults of our own are left alone (a 500)', () => {
    expect(fromFault(ours)).toBeUndefined()
    expect(fromFault(new Error('bug'))).toBeUndefined()
  })
})
