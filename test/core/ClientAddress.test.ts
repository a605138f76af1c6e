import { describe, expect, test } from 'bun:test'
import * as ClientAddress from '../../core/ClientAddress.js'

describe('key', () => {
  test('default: an IPv4 address is its own client', () => {
    expect(ClientAddress.key('203.0.113.7')).toBe('203.0.113.7')
    expect(ClientAddress.key('10.0.0.1')).not.toBe(ClientAddress.key('10.0.0.2'))
  })

  test.each([
    ['127.0.0.1'],
    ['127.0.0.2'],
    ['127.0.0.8'],
    ['127.255.255.254'],
    ['::1'],
    ['0:0:0:0:0:0:0:1'],
    ['::ffff:127.0.0.5'],
    ['::ffff:7f00:2'],
  ])('behavior: every loopback address is one client (%s)', (address) => {
    expect(ClientAddress.key(address)).toBe(ClientAddress.loopback)
  })

  test.each([
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
  ])('behavior: an IPv6 address is keyed by its /64 (%s)', (address, expected) => {
    expect(ClientAddress.key(address)).toBe(expected)
  })

  test('behavior: addresses of different /64s are different clients', () => {
    expect(ClientAddress.key('2001:db8:1:2::1')).not.toBe(ClientAddress.key('2001:db8:1:3::1'))
  })

  test.each([
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:cb00:7107', '203.0.113.7'],
  ])('behavior: an IPv4-mapped IPv6 address is its IPv4 (%s)', (address, expected) => {
    expect(ClientAddress.key(address)).toBe(expected)
  })

  test('behavior: text that is no address (a request handled in process) is kept as is', () => {
    expect(ClientAddress.key('in-process')).toBe('in-process')
  })
})
