import { BadRequestError, ValidationError } from './Errors.js'

/**
 * The guard in front of every request to a URL a caller gave (webhook and callback URLs, probes, extraction, robot
 * endpoints): http and https only, no credentials in the URL, no port of another protocol, and every address the host
 * resolves to outside the special-purpose ranges of the IANA IPv4 and IPv6 registries (loopback, private, link-local,
 * CGNAT, multicast, cloud metadata, ...), unless the operator's allow-list names the host or the address. This file
 * decides; the adapter resolves, connects to the very address decided on, and re-checks every redirect.
 */

/** Why a request to a caller's URL may not go, or did not complete. Codes never change once published. */
export type Reason =
  /** Not an absolute URL, or a host that is not a valid name or IP address. */
  | 'invalid_url'
  /** A scheme other than http or https. */
  | 'scheme_not_allowed'
  /** A user name or password in the URL. */
  | 'credentials_not_allowed'
  /** A port that serves another protocol (the Fetch standard's "bad ports"), or port 0. */
  | 'port_not_allowed'
  /** The host is, or resolves to, an address in a special-purpose range the allow-list does not name. */
  | 'private_address'
  /** The host name does not resolve, or resolves to something that is not an IP address. */
  | 'unresolvable'
  /** The target redirected more times than allowed. */
  | 'too_many_redirects'
  /** No complete answer within the time limit. */
  | 'timeout'
  /** The answer's body is larger than allowed. */
  | 'too_large'
  /** The connection failed (refused, reset, TLS certificate not valid for the host). */
  | 'failed'

/** A special-purpose range an address falls in; an address in none of them is globally reachable. */
export type Range =
  /** `0.0.0.0/8`: "this network". */
  | 'this_network'
  /** `::/128`. */
  | 'unspecified'
  /** `127.0.0.0/8`, `::1/128`. */
  | 'loopback'
  /** `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `64:ff9b:1::/48` (local-use NAT64). */
  | 'private'
  /** `fc00::/7`. */
  | 'unique_local'
  /** `100.64.0.0/10`: shared address space of carrier-grade NAT. */
  | 'cgnat'
  /** `169.254.0.0/16`, `fe80::/10`. */
  | 'link_local'
  /** `fec0::/10` (deprecated site-local). */
  | 'site_local'
  /** Cloud instance metadata: `169.254.169.254`, `169.254.170.2`, `100.100.100.200`, `192.0.0.192`, `fd00:ec2::254`. */
  | 'metadata'
  /** `192.0.0.0/24`, `2001::/23`: IETF protocol assignments (Teredo, ORCHID, ...). */
  | 'ietf_protocol'
  /** `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`. */
  | 'documentation'
  /** `192.88.99.0/24`: the deprecated 6to4 relay anycast. */
  | 'relay_anycast'
  /** `198.18.0.0/15`, `2001:2::/48`. */
  | 'benchmarking'
  /** `224.0.0.0/4`, `ff00::/8`. */
  | 'multicast'
  /** `255.255.255.255`. */
  | 'broadcast'
  /** `100::/64`: discard-only. */
  | 'discard'
  /** `240.0.0.0/4`, `5f00::/16` (SRv6), and all of IPv6 outside `2000::/3` not named above (IPv4-compatible, SIIT, ...). */
  | 'reserved'

/** A request that may not go, or did not complete: data, never thrown. */
export type Refusal = {
  /** No request, or no answer. */
  ok: false
  /** Why, as a stable code. */
  reason: Reason
  /** One sentence, safe to show the caller: names at most the URL's origin, cut to 64 characters. */
  message: string
  /** The special-purpose range at fault, for `private_address`: for logs, never shown to the caller. */
  range?: Range | undefined
}

/** An IP address: its family and its value as an unsigned integer (32 bits for IPv4, 128 bits for IPv6). */
export type Address =
  | {
      /** IPv4. */
      family: 4
      /** The address as a 32-bit unsigned integer. */
      value: bigint
    }
  | {
      /** IPv6. */
      family: 6
      /** The address as a 128-bit unsigned integer. */
      value: bigint
      /** Zone id (`%eth0`), when one was given; it never changes how the address is classified. */
      zone?: string | undefined
    }

/** A CIDR block: the addresses whose first `prefix` bits equal those of `address`. */
export type Network = {
  /** First address of the block (no bits set past the prefix). */
  address: Address
  /** Length of the prefix in bits: 0-32 for IPv4, 0-128 for IPv6. */
  prefix: number
}

/** What the operator allows despite the guard (`OUTBOUND_ALLOW`). */
export type AllowList = {
  /** Host names allowed whatever they resolve to: lowercase, ASCII (punycode), without a trailing dot. */
  hosts: readonly string[]
  /** Addresses and blocks allowed; a single address is a block of full length. */
  networks: readonly Network[]
}

/** An allow-list that allows nothing: the default. */
export const emptyAllowList: AllowList = { hosts: [], networks: [] }

/** A request the guard lets go. */
export type Allowed = {
  /** The request may go. */
  ok: true
  /** The URL, normalised (WHATWG serialisation). */
  url: string
  /** Every address the host resolved to, all checked, in the order they are tried. */
  addresses: readonly string[]
}

/** A request to send to a caller's URL. Bodies are bytes or text, so that a redirect can send them again. */
export type FetchInit = {
  /** HTTP method. @default 'GET' */
  method?: string | undefined
  /** Request headers; `host` is always set by the guard. */
  headers?: Record<string, string> | undefined
  /** Request body. */
  body?: string | Uint8Array<ArrayBuffer> | undefined
  /** Time limit of the whole exchange (DNS, every hop, the body), in ms. @default the guard's */
  timeoutMs?: number | undefined
  /** Largest answer body accepted, in bytes. @default the guard's */
  maxBytes?: number | undefined
}

/** The answer of a request that completed (any status: the caller decides what a status means). */
export type Fetched = {
  /** An answer arrived in full. */
  ok: true
  /** HTTP status of the last hop. */
  status: number
  /** Response headers of the last hop, names in lowercase. */
  headers: Record<string, string>
  /** The whole body, at most `maxBytes` long. */
  body: Uint8Array
  /** URL of the last hop, after redirects. */
  url: string
}

/** The port: every request to a URL a caller gave goes through one of these. */
export type Guard = {
  /** Whether a request to `url` may go now (DNS resolved, every address checked); nothing is sent. */
  check: (url: string) => Promise<Allowed | Refusal>
  /** Sends one request pinned to checked addresses, following at most `maxRedirects` redirects, each re-checked. */
  fetch: (url: string, init?: FetchInit) => Promise<Fetched | Refusal>
}

/** Longest text of a caller's URL a message shows. */
const shownLimit = 64

/**
 * Ports a caller's URL may not name: the Fetch standard's "bad ports" (protocols a crafted HTTP request could speak
 * to: SMTP, IRC, ...), and 0.
 */
const badPorts = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
])

/** Bits in an address of each family. */
const bitsOf = { 4: 32, 6: 128 } as const

// ---------------------------------------------------------------------------------------------------------------------
// Addresses

/** One part of a WHATWG IPv4 host: decimal, `0x` hex or `0` octal; `undefined` if it is none of them. */
function ipv4Number(part: string): bigint | undefined {
  if (part === '') return undefined
  let digits = part
  let pattern = /^[0-9]+$/
  let prefix = ''
  if (/^0x/i.test(part)) {
    digits = part.slice(2)
    pattern = /^[0-9a-f]+$/i
    prefix = '0x'
  } else if (part.length > 1 && part.startsWith('0')) {
    digits = part.slice(1)
    pattern = /^[0-7]+$/
    prefix = '0o'
  }
  if (digits === '') return 0n
  if (!pattern.test(digits)) return undefined
  return BigInt(`${prefix}${digits}`)
}

/**
 * Parses an IPv4 host the way the WHATWG URL host parser does (`2130706433`, `0x7f.1`, `0177.0.0.1` and `127.1` are
 * all 127.0.0.1): the value, `'invalid'` for a host that ends in a number but is no IPv4 address (the URL parser
 * refuses those), or `undefined` for a host name.
 */
function ipv4FromHost(host: string): bigint | 'invalid' | undefined {
  const parts = host.split('.')
  if (parts.length > 1 && parts.at(-1) === '') parts.pop()
  const last = parts.at(-1) ?? ''
  const endsInNumber = /^[0-9]+$/.test(last) || ipv4Number(last) !== undefined
  if (!endsInNumber) return undefined
  if (parts.length > 4) return 'invalid'
  const numbers = parts.map(ipv4Number)
  if (numbers.some((number) => number === undefined)) return 'invalid'
  const values = numbers as bigint[]
  if (values.slice(0, -1).some((value) => value > 255n)) return 'invalid'
  const tail = values.at(-1)!
  if (tail >= 256n ** BigInt(5 - values.length)) return 'invalid'
  return values.slice(0, -1).reduce((sum, value, index) => sum + (value << BigInt(8 * (3 - index))), tail)
}

/** Parses a dotted quad in its one strict form (four decimal parts, 0-255, no leading zeros), as inside IPv6. */
function ipv4Strict(text: string): bigint | undefined {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255))
    return undefined
  return parts.reduce((sum, part) => (sum << 8n) + BigInt(part), 0n)
}

/** Parses an IPv6 address without brackets: compressed `::`, a trailing dotted IPv4, an optional `%zone`. */
function ipv6FromText(input: string): Address | undefined {
  let text = input
  let zone: string | undefined
  const percent = text.indexOf('%')
  if (percent >= 0) {
    zone = text.slice(percent + 1)
    text = text.slice(0, percent)
    if (!/^[0-9A-Za-z._~-]+$/.test(zone)) return undefined
  }
  if (!text.includes(':')) return undefined
  let embedded: number[] = []
  const lastColon = text.lastIndexOf(':')
  const lastPart = text.slice(lastColon + 1)
  if (lastPart.includes('.')) {
    const ipv4 = ipv4Strict(lastPart)
    if (ipv4 === undefined) return undefined
    embedded = [Number(ipv4 >> 16n), Number(ipv4 & 0xffffn)]
    text = text.slice(0, lastColon + 1)
    if (!text.endsWith('::')) text = text.slice(0, -1)
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const pieces = (half: string) =>
    half === ''
      ? []
      : half.split(':').map((piece) => (/^[0-9a-f]{1,4}$/i.test(piece) ? Number.parseInt(piece, 16) : -1))
  const head = pieces(halves[0]!)
  const tail = halves.length === 2 ? [...pieces(halves[1]!), ...embedded] : []
  if (halves.length === 1) head.push(...embedded)
  if ([...head, ...tail].some((piece) => piece < 0)) return undefined
  const count = head.length + tail.length
  if (halves.length === 2 ? count > 7 : count !== 8) return undefined
  const all = [...head, ...new Array<number>(8 - count).fill(0), ...tail]
  const value = all.reduce((sum, piece) => (sum << 16n) + BigInt(piece), 0n)
  return zone === undefined ? { family: 6, value } : { family: 6, value, zone }
}

/** What a host is: an address, a name, or neither (a host ending in a number that is no IPv4 address). */
function hostKind(host: string): target.Host | undefined {
  const bracketed = host.startsWith('[') && host.endsWith(']')
  const bare = bracketed ? host.slice(1, -1) : host
  if (bracketed || bare.includes(':')) {
    const address = ipv6FromText(bare)
    return address && { type: 'address', address }
  }
  const ipv4 = ipv4FromHost(bare.toLowerCase())
  if (ipv4 === 'invalid') return undefined
  if (ipv4 !== undefined) return { type: 'address', address: { family: 4, value: ipv4 } }
  return { type: 'name', name: bare }
}

/**
 * Parses an IP address: IPv4 in any form the WHATWG URL parser accepts (dotted, `127.1`, `2130706433`, octal and hex
 * parts), IPv6 with or without brackets, `::`, a trailing dotted IPv4 and a `%zone`. `undefined` if it is not one.
 */
export function parseAddress(text: string): Address | undefined {
  const kind = hostKind(text.trim())
  return kind?.type === 'address' ? kind.address : undefined
}

/** The canonical text of an address: dotted quad, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
export function serializeAddress(address: Address): string {
  if (address.family === 4) return [24n, 16n, 8n, 0n].map((shift) => (address.value >> shift) & 0xffn).join('.')
  const pieces = Array.from({ length: 8 }, (_, index) => Number((address.value >> BigInt(112 - 16 * index)) & 0xffffn))
  let best = { start: -1, length: 0 }
  for (let start = 0; start < 8; ) {
    if (pieces[start] !== 0) {
      start++
      continue
    }
    let end = start
    while (end < 8 && pieces[end] === 0) end++
    if (end - start > best.length) best = { start, length: end - start }
    start = end
  }
  const hex = (list: number[]) => list.map((piece) => piece.toString(16)).join(':')
  const text =
    best.length < 2
      ? hex(pieces)
      : `${hex(pieces.slice(0, best.start))}::${hex(pieces.slice(best.start + best.length))}`
  return address.zone === undefined ? text : `${text}%${address.zone}`
}

/** Whether `address` lies in `network` (an IPv4-mapped IPv6 address lies in the IPv4 blocks of its IPv4 address). */
export function contains(network: Network, address: Address): boolean {
  const candidate = network.address.family === 4 && address.family === 6 ? mappedIpv4(address) : address
  if (candidate === undefined || candidate.family !== network.address.family) return false
  const shift = BigInt(bitsOf[candidate.family] - network.prefix)
  return candidate.value >> shift === network.address.value >> shift
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if it is one. */
function mappedIpv4(address: Address): Address | undefined {
  if (address.family !== 6 || address.value >> 32n !== 0xffffn) return undefined
  return { family: 4, value: address.value & 0xffffffffn }
}

/** Parses a CIDR block (`10.0.0.0/8`, `fd00::/8`); refuses a block with bits set past its prefix. */
export function parseNetwork(text: string): parseNetwork.ReturnType {
  const [base = '', length, ...rest] = text.trim().split('/')
  const address = parseAddress(base)
  if (address === undefined || rest.length > 0 || (address.family === 6 && address.zone !== undefined))
    return { ok: false, message: `"${cut(text)}" is not an IP address or CIDR block` }
  const bits = bitsOf[address.family]
  const prefix = length === undefined ? bits : /^[0-9]{1,3}$/.test(length) ? Number(length) : Number.NaN
  if (!(prefix >= 0 && prefix <= bits)) return { ok: false, message: `"${cut(text)}" has a prefix outside 0-${bits}` }
  const mask = (1n << BigInt(bits - prefix)) - 1n
  if ((address.value & mask) !== 0n) {
    const first = serializeAddress({ ...address, value: address.value & ~mask })
    return {
      ok: false,
      message: `"${cut(text)}" has bits set past its prefix (the block starts at ${first}/${prefix})`,
    }
  }
  return { ok: true, network: { address, prefix } }
}

export declare namespace parseNetwork {
  type ReturnType =
    | {
        /** The text is a CIDR block. */
        ok: true
        /** The block. */
        network: Network
      }
    | {
        /** The text is not a CIDR block. */
        ok: false
        /** Why, quoting the text (cut to 64 characters). */
        message: string
      }
}

/** Parses a literal CIDR block of this file's own tables. */
function block(text: string): Network {
  const parsed = parseNetwork(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.network
}

/** Special-purpose IPv4 blocks, the most specific first (IANA IPv4 Special-Purpose Address Registry, and metadata). */
const ipv4Ranges: readonly (readonly [Network, Range])[] = (
  [
    ['169.254.169.254/32', 'metadata'],
    ['169.254.170.2/32', 'metadata'],
    ['100.100.100.200/32', 'metadata'],
    ['192.0.0.192/32', 'metadata'],
    ['255.255.255.255/32', 'broadcast'],
    ['0.0.0.0/8', 'this_network'],
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'cgnat'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link_local'],
    ['172.16.0.0/12', 'private'],
    ['192.0.0.0/24', 'ietf_protocol'],
    ['192.0.2.0/24', 'documentation'],
    ['192.88.99.0/24', 'relay_anycast'],
    ['192.168.0.0/16', 'private'],
    ['198.18.0.0/15', 'benchmarking'],
    ['198.51.100.0/24', 'documentation'],
    ['203.0.113.0/24', 'documentation'],
    ['224.0.0.0/4', 'multicast'],
    ['240.0.0.0/4', 'reserved'],
  ] as const
).map(([text, range]) => [block(text), range] as const)

/** Special-purpose IPv6 blocks, the most specific first (IANA IPv6 Special-Purpose Address Registry, and metadata). */
const ipv6Ranges: readonly (readonly [Network, Range])[] = (
  [
    ['fd00:ec2::254/128', 'metadata'],
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['64:ff9b:1::/48', 'private'],
    ['100::/64', 'discard'],
    ['2001:2::/48', 'benchmarking'],
    ['2001:db8::/32', 'documentation'],
    ['2001::/23', 'ietf_protocol'],
    ['3fff::/20', 'documentation'],
    ['5f00::/16', 'reserved'],
    ['fc00::/7', 'unique_local'],
    ['fe80::/10', 'link_local'],
    ['fec0::/10', 'site_local'],
    ['ff00::/8', 'multicast'],
  ] as const
).map(([text, range]) => [block(text), range] as const)

/** IPv6 blocks that carry an IPv4 address, and where: classified by the IPv4 address they carry. */
const carriers: readonly (readonly [Network, bigint])[] = [
  [block('::ffff:0:0/96'), 0n],
  [block('64:ff9b::/96'), 0n],
  [block('2002::/16'), 80n],
]

/** Global unicast IPv6: outside it, nothing is globally reachable except what {@link carriers} carry. */
const globalUnicast = block('2000::/3')

/**
 * The special-purpose range an address falls in, or `undefined` for a globally reachable address. IPv6 that carries
 * an IPv4 address (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is classified by that
 * IPv4 address.
 */
export function classify(address: Address): Range | undefined {
  if (address.family === 4) return ipv4Ranges.find(([network]) => contains(network, address))?.[1]
  const bare: Address = { family: 6, value: address.value }
  for (const [network, shift] of carriers)
    if (contains(network, bare)) return classify({ family: 4, value: (bare.value >> shift) & 0xffffffffn })
  const named = ipv6Ranges.find(([network]) => contains(network, bare))?.[1]
  if (named !== undefined) return named
  return contains(globalUnicast, bare) ? undefined : 'reserved'
}

// ---------------------------------------------------------------------------------------------------------------------
// Allow-list

/** A host name as the allow-list compares it: lowercase, without a trailing dot. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '')
}

/**
 * Parses the operator's allow-list (`OUTBOUND_ALLOW`): comma-separated host names (exact, case-insensitive, no
 * wildcards), IP addresses and CIDR blocks. Empty text is an empty list.
 */
export function parseAllowList(text: string): parseAllowList.ReturnType {
  const hosts: string[] = []
  const networks: Network[] = []
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue
    const slash = entry.indexOf('/')
    if (slash >= 0 && parseAddress(entry.slice(0, slash)) !== undefined) {
      const parsed = parseNetwork(entry)
      if (!parsed.ok) return { ok: false, message: `OUTBOUND_ALLOW: ${parsed.message}` }
      networks.push(parsed.network)
      continue
    }
    const kind = slash >= 0 ? undefined : hostKind(entry)
    if (kind?.type === 'address') {
      if (kind.address.family === 6 && kind.address.zone !== undefined)
        return { ok: false, message: `OUTBOUND_ALLOW: "${cut(entry)}" has a zone id; list the address without it` }
      networks.push({ address: kind.address, prefix: bitsOf[kind.address.family] })
      continue
    }
    const name = kind && hostName(kind.name)
    if (name === undefined)
      return {
        ok: false,
        message: `OUTBOUND_ALLOW: "${cut(entry)}" is not a host name, IP address or CIDR block (no ports, paths or wildcards)`,
      }
    hosts.push(name)
  }
  return { ok: true, list: { hosts, networks } }
}

export declare namespace parseAllowList {
  type ReturnType =
    | {
        /** The text is a valid allow-list. */
        ok: true
        /** The parsed list. */
        list: AllowList
      }
    | {
        /** The text is not a valid allow-list. */
        ok: false
        /** Names the first bad entry. */
        message: string
      }
}

/** A host name as a URL would carry it (punycode, lowercase, no trailing dot); `undefined` if it is not one. */
function hostName(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(`http://${text}/`)
  } catch {
    return undefined
  }
  const name = normalizeName(url.hostname)
  if (url.host !== url.hostname || url.username !== '' || url.password !== '' || url.pathname !== '/') return undefined
  if (url.search !== '' || url.hash !== '' || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) return undefined
  return name
}

/** Whether the allow-list names this host name. */
function allowsName(allow: AllowList, name: string): boolean {
  return allow.hosts.includes(normalizeName(name))
}

/** Whether the allow-list names a block holding this address. */
function allowsAddress(allow: AllowList, address: Address): boolean {
  return allow.networks.some((network) => contains(network, address))
}

// ---------------------------------------------------------------------------------------------------------------------
// Decisions

/** Text cut to {@link shownLimit} characters, so that no message echoes a long caller URL. */
function cut(text: string): string {
  return text.length <= shownLimit ? text : `${text.slice(0, shownLimit - 3)}...`
}

/** What a message shows of a caller's URL: its origin (never credentials, path or query), cut to 64 characters. */
export function describe(url: string | URL): string {
  if (typeof url !== 'string') return cut(url.origin)
  try {
    return cut(new URL(url).origin)
  } catch {
    return cut(url)
  }
}

/** A refusal with its message. */
function refuse(reason: Reason, message: string, range?: Range): Refusal {
  return range === undefined ? { ok: false, reason, message } : { ok: false, reason, message, range }
}

/**
 * Checks what can be checked of a URL without DNS: http or https, no credentials, a port of HTTP's, a valid host.
 * Tells whether the host is an address (checked by {@link decide} as is) or a name (resolved first).
 */
export function target(url: string | URL): target.ReturnType {
  let parsed: URL
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href)
  } catch {
    return refuse('invalid_url', `"${cut(String(url))}" is not an absolute URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return refuse('scheme_not_allowed', `Only http and https URLs are allowed, not ${cut(parsed.protocol)}`)
  if (parsed.username !== '' || parsed.password !== '')
    return refuse('credentials_not_allowed', `The URL of ${describe(parsed)} must not carry a user name or password`)
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port)
  if (badPorts.has(port))
    return refuse('port_not_allowed', `Port ${port} of ${describe(parsed)} serves another protocol than HTTP`)
  const host = hostKind(parsed.hostname)
  if (host === undefined || (host.type === 'name' && normalizeName(host.name) === ''))
    return refuse('invalid_url', `${describe(parsed)} has no valid host`)
  return { ok: true, url: parsed, host }
}

export declare namespace target {
  type Host =
    | {
        /** An IP literal: checked as is, no DNS. */
        type: 'address'
        /** The address. */
        address: Address
      }
    | {
        /** A name: resolved, then every answer checked. */
        type: 'name'
        /** As the URL carries it (lowercase, punycode). */
        name: string
      }
  type ReturnType =
    | {
        /** Nothing refuses the URL before DNS. */
        ok: true
        /** The URL, parsed. */
        url: URL
        /** The host: an address (no DNS needed) or a name to resolve. */
        host: Host
      }
    | Refusal
}

/**
 * Decides whether a request to `url` may go, given what its host resolved to: every address must be outside the
 * special-purpose ranges, unless the allow-list names the host or a block holding the address. The addresses are
 * the ones to connect to, in order; no other address may be used.
 */
export function decide(parameters: decide.Parameters): decide.ReturnType {
  const { allow = emptyAllowList } = parameters
  const checked = target(parameters.url)
  if (!checked.ok) return checked
  const { url, host } = checked
  let addresses: Address[]
  if (host.type === 'address') addresses = [host.address]
  else {
    const answers = parameters.addresses ?? []
    const parsed = answers.map((answer) => parseAddress(answer))
    if (answers.length === 0 || parsed.some((address) => address === undefined))
      return refuse('unresolvable', `${describe(url)} does not resolve to an IP address`)
    addresses = parsed as Address[]
    if (allowsName(allow, host.name)) return { ok: true, url, addresses }
  }
  for (const address of addresses) {
    if (allowsAddress(allow, address)) continue
    const range = classify(address)
    if (range === undefined) continue
    const subject = host.type === 'address' ? `${describe(url)} is` : `${describe(url)} resolves to`
    // Neither the range nor the address: the answer would tell a caller where a name points inside a network.
    return refuse('private_address', `${subject} a private or reserved address, which is not allowed`, range)
  }
  return { ok: true, url, addresses }
}

export declare namespace decide {
  type Parameters = {
    /** The caller's URL. */
    url: string | URL
    /** What the host name resolved to (every answer, in order); ignored when the host is an IP literal. */
    addresses?: readonly string[] | undefined
    /** What the operator allows. @default emptyAllowList */
    allow?: AllowList | undefined
  }
  type ReturnType =
    | {
        /** The request may go. */
        ok: true
        /** The URL, parsed. */
        url: URL
        /** The checked addresses, in the order to try them. */
        addresses: readonly Address[]
      }
    | Refusal
}

/**
 * Where to connect for `url` pinned to `address`: the URL with the address in place of the host name, the `Host`
 * header to send, and for https the name the certificate must be valid for (sent as SNI).
 */
export function pin(parameters: pin.Parameters): pin.ReturnType {
  const { url, address } = parameters
  const host = hostKind(url.hostname)
  if (host?.type === 'address') return { url: url.href.replace(/#.*$/, ''), host: url.host, serverName: undefined }
  const literal = serializeAddress({ family: address.family, value: address.value })
  const authority = address.family === 6 ? `[${literal}]` : literal
  const port = url.port === '' ? '' : `:${url.port}`
  return {
    url: `${url.protocol}//${authority}${port}${url.pathname}${url.search}`,
    host: url.host,
    serverName: url.protocol === 'https:' ? normalizeName(url.hostname) : undefined,
  }
}

export declare namespace pin {
  type Parameters = {
    /** The checked URL. */
    url: URL
    /** One of the addresses {@link decide} checked for it. */
    address: Address
  }
  type ReturnType = {
    /** The URL to connect to: the host replaced by the address literal, no fragment. */
    url: string
    /** The `Host` header: the URL's own host and port. */
    host: string
    /** For https to a host name: the name for SNI and certificate verification. */
    serverName: string | undefined
  }
}

/** Statuses that redirect, when they carry a `Location`. */
const redirectStatuses = new Set([301, 302, 303, 307, 308])

/**
 * What a response means for the next hop: `undefined` when it is no redirect (it is the answer), the next request
 * when it is one (the Fetch standard's method rules: 303 turns into GET, and so do 301 and 302 after a POST; the body
 * goes only with the method kept), or a refusal past `maxRedirects`. The next URL still has to pass {@link decide}.
 */
export function redirect(parameters: redirect.Parameters): redirect.ReturnType {
  const { url, status, location, method, redirects, maxRedirects } = parameters
  if (!redirectStatuses.has(status) || location === null) return undefined
  if (redirects >= maxRedirects)
    return refuse('too_many_redirects', `${describe(url)} redirected more than ${maxRedirects} times`)
  let next: URL
  try {
    next = new URL(location, url)
  } catch {
    return refuse('invalid_url', `${describe(url)} redirected to something that is not a URL`)
  }
  const upper = method.toUpperCase()
  const toGet =
    (status === 303 && upper !== 'GET' && upper !== 'HEAD') || ((status === 301 || status === 302) && upper === 'POST')
  return {
    ok: true,
    url: next,
    method: toGet ? 'GET' : method,
    keepBody: !toGet,
    crossOrigin: next.origin !== url.origin,
  }
}

export declare namespace redirect {
  type Parameters = {
    /** URL of the hop that answered. */
    url: URL
    /** Its status. */
    status: number
    /** Its `Location` header, as sent (may be relative). */
    location: string | null
    /** Method of the request that got this answer. */
    method: string
    /** Redirects followed before this answer. */
    redirects: number
    /** Most redirects followed. */
    maxRedirects: number
  }
  type ReturnType =
    | undefined
    | {
        /** Follow it. */
        ok: true
        /** The next URL, resolved against the hop's URL. */
        url: URL
        /** Method of the next request. */
        method: string
        /** Whether the body goes again (false: drop it and its content headers). */
        keepBody: boolean
        /** Whether the next hop is another origin (drop credentials: `authorization`, `cookie`). */
        crossOrigin: boolean
      }
    | Refusal
}

/**
 * The error a handler throws for a caller's URL that the guard refuses before payment: a 400 (`bad_request`) naming
 * the field and the reason; nothing is charged.
 */
export function toError(refusal: Refusal, parameters: toError.Parameters): BadRequestError {
  const { field } = parameters
  return new BadRequestError(`${field}: ${refusal.message}`, { details: { field, reason: refusal.reason } })
}

export declare namespace toError {
  type Parameters = {
    /** Dotted path of the field that holds the URL, e.g. `webhook.url`. */
    field: string
  }
}

/**
 * What the guard fetched from a caller's URL, when it answered 2xx: a refusal, or another status, throws a 400 naming
 * `field` (a handler that throws charges nothing), saying `what` the URL should have answered.
 */
export function assertAnswered(fetched: Fetched | Refusal, parameters: assertAnswered.Parameters): Fetched {
  const { field, what } = parameters
  if (!fetched.ok) throw toError(fetched, { field })
  if (fetched.status < 200 || fetched.status > 299)
    throw new ValidationError({ field, message: `answered HTTP ${fetched.status}, not ${what}.` })
  return fetched
}

export declare namespace assertAnswered {
  type Parameters = {
    /** Dotted path of the field that holds the URL, e.g. `audio_url`. */
    field: string
    /** What the URL should answer, in a refusal, e.g. `the audio`. */
    what: string
  }
}
