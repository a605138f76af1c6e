import { type Address, parseAddress, serializeAddress } from './Outbound.js'

/** The key every loopback address (`127.0.0.0/8`, `::1`) shares: one machine is one client. */
export const loopback = 'loopback'

/**
 * The identity of a client by its source address, for limits: an IPv4 address as is; every loopback address as
 * one client; an IPv6 address by its /64 prefix (one subscriber's network, which hands its hosts any address in
 * it); an IPv4-mapped IPv6 address as its IPv4. Text that is no IP address (a request handled in process) is kept
 * as is.
 */
export function key(address: string): string {
  // Most clients are plain dotted quads: answered without parsing.
  if (dottedQuad.test(address)) return address.startsWith('127.') ? loopback : address
  const parsed = parseAddress(address)
  if (parsed === undefined) return address
  const ip = unmapped(parsed)
  if (ip.family === 4) return ip.value >> 24n === 127n ? loopback : serializeAddress(ip)
  if (ip.value === 1n) return loopback
  return `${serializeAddress({ family: 6, value: (ip.value >> 64n) << 64n })}/64`
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), or the address itself. */
function unmapped(address: Address): Address {
  if (address.family === 6 && address.value >> 32n === 0xffffn) return { family: 4, value: address.value & 0xffffffffn }
  return address
}

const dottedQuad = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
