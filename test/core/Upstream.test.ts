import { describe, expect, test } from 'bun:test'
import * as Problem from '../../app/problem.js'
import * as Upstream from '../../core/Upstream.js'

describe('reasonOf', () => {
  test.each([
    [400, 'rejected'],
    [422, 'rejected'],
    [429, 'rate_limited'],
    [401, 'failed'],
    [403, 'failed'],
    [404, 'failed'],
    [413, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
  ] as const)('behavior: HTTP %i is %s', (status, reason) => {
    expect(Upstream.reasonOf(status)).toBe(reason)
  })
})

describe('isFailure', () => {
  test.each([
    ['a failure is one', { ok: false, reason: 'timeout', status: undefined, message: 'x' }, true],
    ['a failure with a status is one', { ok: false, reason: 'failed', status: 500, message: 'x' }, true],
    ["a port's refusal (no status) is not", { ok: false, reason: 'not_found' }, false],
    ["a port's refusal with a message is not", { ok: false, reason: 'tefPAST_SEQ', message: 'x' }, false],
    ['a refusal in a reason of ours, without status, is not', { ok: false, reason: 'failed', message: 'x' }, false],
    ['a success that carries a status is not', { ok: true, status: 'success', hash: 'ab' }, false],
    ['a value without ok is not', { ledger: 1 }, false],
  ] as const)('behavior: %s', (_, value, expected) => {
    expect(Upstream.isFailure(value)).toBe(expected)
  })
})

describe('isUnhealthy', () => {
  test.each([
    ['failed', true],
    ['timeout', true],
    ['rate_limited', true],
    ['rejected', false],
    ['too_large', false],
    ['unavailable', false],
  ] as const)('behavior: %s counts toward the breaker: %p', (reason, unhealthy) => {
    expect(Upstream.isUnhealthy({ ok: false, reason, status: undefined, message: 'x' })).toBe(unhealthy)
  })
})

describe('toError', () => {
  test.each([
    ['rejected', 400, 'upstream_rejected', 400],
    ['rate_limited', 429, 'upstream_unavailable', 503],
    ['unavailable', undefined, 'upstream_unavailable', 503],
    ['failed', 500, 'upstream_failed', 502],
    ['too_large', 200, 'upstream_failed', 502],
    ['timeout', undefined, 'upstream_timeout', 504],
  ] as const)('behavior: %s (HTTP %p) is %s, status %i', (reason, status, code, httpStatus) => {
    const error = Upstream.toError({ ok: false, reason, status, message: 'the upstream said no' })
    expect(error.code).toBe(code)
    expect(Problem.statusOf[error.code]).toBe(httpStatus)
    expect(error.message).toContain('the upstream said no')
    expect(error.details).toEqual({ upstream: { status: status ?? null, reason, message: 'the upstream said no' } })
  })
})
