import { describe, expect, test } from 'bun:test'
import { scope } from '../../app/scope.js'

/** A source of addresses that counts how often it is read, as the server's `requestIP` would be. */
function source(addresses: ReadonlyMap<Request, string>) {
  const reads: Request[] = []
  return {
    reads,
    addressOf: (request: Request) => {
      reads.push(request)
      return addresses.get(request)
    },
  }
}

describe('scope', () => {
  test("default: a server's request counts against its source address, read once and only when asked", () => {
    const requests = scope()
    const request = new Request('http://gateway.test/free/timestamp')
    const addresses = source(new Map([[request, '203.0.113.7']]))
    requests.readAddresses(addresses.addressOf)
    requests.enter(request, false)
    expect(addresses.reads).toEqual([])
    expect(requests.clientOf(request)).toBe('203.0.113.7')
    expect(requests.clientOf(request)).toBe('203.0.113.7')
    expect(addresses.reads).toEqual([request])
  })

  test('behavior: IPv6 clients count by their /64, as ClientAddress.key says', () => {
    const requests = scope()
    const [first, second] = [new Request('http://gateway.test/a'), new Request('http://gateway.test/b')]
    const addresses = source(
      new Map([
        [first, '2001:db8:1:2:aaaa::1'],
        [second, '2001:db8:1:2:bbbb::2'],
      ]),
    )
    requests.readAddresses(addresses.addressOf)
    for (const request of [first, second]) requests.enter(request, false)
    expect(requests.clientOf(first)).toBe(requests.clientOf(second))
  })

  test('behavior: a request made in process counts against the request it is made within', () => {
    const requests = scope()
    const outer = new Request('http://gateway.test/mcp')
    const addresses = source(new Map([[outer, '198.51.100.4']]))
    requests.readAddresses(addresses.addressOf)
    requests.enter(outer, false)
    const inner = new Request('http://gateway.test/api/v1/rpc/chains')
    requests.enter(inner, true)
    expect(requests.clientOf(inner)).toBe('198.51.100.4')
    // One made within that one, too, without reading any address again.
    const innermost = new Request('http://gateway.test/free/uuid')
    requests.enter(innermost, true)
    expect(requests.clientOf(innermost)).toBe('198.51.100.4')
    expect(addresses.reads).toEqual([outer])
  })

  test('behavior: a request made in process outside any other has no client; many in a row keep no chain', () => {
    const requests = scope()
    const addresses = source(new Map())
    requests.readAddresses(addresses.addressOf)
    const made = Array.from({ length: 1_000 }, (_, index) => new Request(`http://gateway.test/free/uuid?n=${index}`))
    // Entered one after the other in one context, each sees the one before as the request being handled.
    for (const request of made) requests.enter(request, true)
    expect(requests.clientOf(made.at(-1))).toBeUndefined()
    expect(addresses.reads.length).toBeLessThanOrEqual(1)
  })

  test('behavior: unpaidClient names the client of the request being handled until it is paying', () => {
    const requests = scope()
    const request = new Request('http://gateway.test/api/v1/webhooks/test')
    const addresses = source(new Map([[request, '192.0.2.9']]))
    requests.readAddresses(addresses.addressOf)
    requests.enter(request, false)
    expect(requests.unpaidClient()).toBe('192.0.2.9')
    requests.paying(request)
    expect(requests.unpaidClient()).toBeUndefined()
    expect(requests.clientOf(request)).toBe('192.0.2.9')
  })
})
