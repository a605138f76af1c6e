import { describe, expect, test } from 'bun:test'
import * as Outbound from '../../core/Outbound.js'

/** Parses and serialises; `undefined` when the text is no address. */
function canonical(text: string): string | undefined {
  const address = Outbound.parseAddress(text)
  return address && Outbound.serializeAddress(address)
}

/** The range of an address given as text. */
function rangeOf(text: string): Outbound.Range | undefined {
  const address = Outbound.parseAddress(text)
  if (address === undefined) throw new Error(`not an address: ${text}`)
  return Outbound.classify(address)
}

/** An allow-list from its text, failing the test when it does not parse. */
function allowList(text: string): Outbound.AllowList {
  const parsed = Outbound.parseAllowList(text)
  if (!parsed.ok) throw new Error(parsed.message)
  return parsed.list
}

describe('parseAddress', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.0.0.01', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0xA9.0xFE.0xA9.0xFE', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['4294967295', '255.255.255.255'],
  ])('behavior: IPv4 %p is %p (as the WHATWG URL parser reads it)', (text, expected) => {
    expect(canonical(text)).toBe(expected)
    expect(new URL(`http://${text}/`).hostname).toBe(expected)
  })

  test.each(['1.2.3.256', '4294967296', '1.2.3.4.5', '08.1.1.1', '0x1g.1', '1..2.3', '256.1'])(
    'error: %p ends in a number but is no IPv4 address, as for the URL parser',
    (text) => {
      expect(Outbound.parseAddress(text)).toBeUndefined()
      expect(() => new URL(`http://${text}/`)).toThrow()
    },
  )

  test.each([
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::FFFF:7F00:1', '::ffff:7f00:1'],
    ['64:ff9b::10.0.0.1', '64:ff9b::a00:1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:0:0:1:0:0', '2001:db8::1:0:0'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['1:0:3:4:5:6:7:8', '1:0:3:4:5:6:7:8'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['fd00:ec2::254', 'fd00:ec2::254'],
  ])('behavior: IPv6 %p is %p', (text, expected) => {
    expect(canonical(text)).toBe(expected)
  })

  test.each([
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':1',
    '1:',
    ':::',
    '12345::',
    '::1.2.3',
    '::1.2.3.04',
    '::256.1.1.1',
    'fe80::1%',
    'fe80::1%a b',
    '1:2:3:4:5:6:7::8',
    '[::1',
    'g::1',
  ])('error: %p is no IPv6 address', (text) => {
    expect(Outbound.parseAddress(text)).toBeUndefined()
  })

  test.each(['example.com', 'localhost', 'xn--bcher-kva.example', '127.0.0.1.example', ''])(
    'error: %p is a name, not an address',
    (text) => {
      expect(Outbound.parseAddress(text)).toBeUndefined()
    },
  )
})

describe('classify', () => {
  test.each([
    ['0.0.0.0', 'this_network'],
    ['0.255.255.255', 'this_network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.100.100.200', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.1', 'ietf_protocol'],
    ['192.0.0.192', 'metadata'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', 'relay_anycast'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ] as const)('behavior: IPv4 %p is %p', (text, range) => {
    expect(rangeOf(text)).toBe(range)
  })

  test.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('behavior: IPv4 %p is globally reachable', (text) => {
    expect(rangeOf(text)).toBeUndefined()
  })

  test.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:0.0.0.0', 'this_network'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a00:1::1', 'private'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['100::1', 'discard'],
    ['2001::1', 'ietf_protocol'],
    ['2001:0:4136:e378::1', 'ietf_protocol'],
    ['2001:2::1', 'benchmarking'],
    ['2001:1ff:ffff::1', 'ietf_protocol'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'reserved'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['1::', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
  ] as const)('behavior: IPv6 %p is %p', (text, range) => {
    expect(rangeOf(text)).toBe(range)
  })

  test.each([
    '2606:4700:4700::1111',
    '2001:200::1',
    '2a00:1450:4001::1',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '3fff:1000::1',
  ])('behavior: IPv6 %p is globally reachable', (text) => {
    expect(rangeOf(text)).toBeUndefined()
  })
})

describe('parseNetwork', () => {
  test('default: an address alone is a block of full length', () => {
    const parsed = Outbound.parseNetwork('10.0.0.1')
    expect(parsed.ok && parsed.network.prefix).toBe(32)
  })

  test('behavior: blocks contain their addresses and no others', () => {
    const network = (text: string) => {
      const parsed = Outbound.parseNetwork(text)
      if (!parsed.ok) throw new Error(parsed.message)
      return parsed.network
    }
    const inside = (block: string, address: string) =>
      Outbound.contains(network(block), Outbound.parseAddress(address)!)
    expect(inside('10.0.0.0/8', '10.255.0.1')).toBe(true)
    expect(inside('10.0.0.0/8', '11.0.0.1')).toBe(false)
    expect(inside('0.0.0.0/0', '8.8.8.8')).toBe(true)
    expect(inside('fd00::/8', 'fd12::1')).toBe(true)
    expect(inside('fd00::/8', 'fe80::1')).toBe(false)
    expect(inside('127.0.0.1/32', '::ffff:127.0.0.1')).toBe(true)
    expect(inside('::ffff:127.0.0.1/128', '127.0.0.1')).toBe(false)
    expect(inside('10.0.0.0/8', '::a00:1')).toBe(false)
  })

  test.each([
    ['10.0.0.1/8', 'bits set past its prefix (the block starts at 10.0.0.0/8)'],
    ['10.0.0.0/33', 'prefix outside 0-32'],
    ['fd00::/129', 'prefix outside 0-128'],
    ['10.0.0.0/', 'prefix outside 0-32'],
    ['10.0.0.0/x', 'prefix outside 0-32'],
    ['10.0.0.0/8/8', 'not an IP address or CIDR block'],
    ['example.com/8', 'not an IP address or CIDR block'],
    ['fe80::%eth0/64', 'not an IP address or CIDR block'],
  ])('error: %p is refused (%s)', (text, message) => {
    const parsed = Outbound.parseNetwork(text)
    expect(parsed.ok).toBe(false)
    expect(!parsed.ok && parsed.message).toContain(message)
  })
})

describe('parseAllowList', () => {
  test('default: empty text allows nothing', () => {
    expect(Outbound.parseAllowList('')).toEqual({ ok: true, list: { hosts: [], networks: [] } })
    expect(Outbound.parseAllowList(' , ,')).toEqual({ ok: true, list: { hosts: [], networks: [] } })
  })

  test('behavior: host names, IPs and CIDR blocks, normalised', () => {
    const list = allowList(' Hooks.Example.COM., 127.0.0.1, [::1], 10.0.0.0/8 ,fd00::/8, 0x7f.2, bücher.example')
    expect(list.hosts).toEqual(['hooks.example.com', 'xn--bcher-kva.example'])
    expect(list.networks.map((network) => `${Outbound.serializeAddress(network.address)}/${network.prefix}`)).toEqual([
      '127.0.0.1/32',
      '::1/128',
      '10.0.0.0/8',
      'fd00::/8',
      '127.0.0.2/32',
    ])
  })

  test.each([
    ['*.example.com', 'is not a host name'],
    ['example.com:8080', 'is not a host name'],
    ['http://example.com', 'is not a host name'],
    ['user@example.com', 'is not a host name'],
    ['1.2.3.256', 'is not a host name'],
    ['exa mple.com', 'is not a host name'],
    ['fe80::1%eth0', 'has a zone id'],
    ['10.0.0.1/8', 'bits set past its prefix'],
  ])('error: %p is refused (%s), naming the entry', (text, message) => {
    const parsed = Outbound.parseAllowList(`example.org, ${text}`)
    expect(parsed.ok).toBe(false)
    expect(!parsed.ok && parsed.message).toContain(message)
    expect(!parsed.ok && parsed.message).toStartWith('OUTBOUND_ALLOW: ')
  })
})

describe('target', () => {
  test('default: an https URL with a name needs DNS; with an address it does not', () => {
    const named = Outbound.target('https://hooks.example.com/path?q=1')
    expect(named.ok && named.host).toEqual({ type: 'name', name: 'hooks.example.com' })
    const literal = Outbound.target('http://8.8.8.8:8080/')
    expect(literal.ok && literal.host.type).toBe('address')
  })

  test.each([
    ['ftp://example.com/', 'scheme_not_allowed'],
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['gopher://127.0.0.1:70/', 'scheme_not_allowed'],
    ['javascript:alert(1)', 'scheme_not_allowed'],
    ['data:text/plain,hi', 'scheme_not_allowed'],
    ['ws://example.com/', 'scheme_not_allowed'],
    ['/relative/path', 'invalid_url'],
    ['http://', 'invalid_url'],
    ['http://1.2.3.256/', 'invalid_url'],
    ['http://./', 'invalid_url'],
    ['http://user:secret@example.com/', 'credentials_not_allowed'],
    ['http://user@example.com/', 'credentials_not_allowed'],
    ['http://example.com:25/', 'port_not_allowed'],
    ['https://example.com:22/', 'port_not_allowed'],
    ['http://example.com:6379x/', 'invalid_url'],
    ['http://example.com:0/', 'port_not_allowed'],
  ])('error: %p is refused as %p', (url, reason) => {
    const checked = Outbound.target(url)
    expect(checked.ok).toBe(false)
    expect(!checked.ok && checked.reason).toBe(reason as Outbound.Reason)
  })

  test('security: messages never show credentials, paths, or more than 64 characters of a URL', () => {
    const credentials = Outbound.target('http://admin:hunter2@example.com/')
    expect(!credentials.ok && credentials.message).not.toContain('hunter2')
    const long = `ftp://${'a'.repeat(200)}.example/secret-token`
    const scheme = Outbound.decide({ url: `http://${'b'.repeat(100)}.example/secret-token`, addresses: ['10.0.0.1'] })
    for (const refusal of [Outbound.target(long), scheme, Outbound.target(`not a url ${'c'.repeat(100)}`)]) {
      expect(refusal.ok).toBe(false)
      if (refusal.ok) continue
      expect(refusal.message).not.toContain('secret-token')
      expect(refusal.message).not.toMatch(/[abc]{65}/)
    }
  })
})

describe('decide', () => {
  const publicAnswer = ['93.184.215.14']

  test('default: a name resolving to public addresses may go, to those addresses in order', () => {
    const decided = Outbound.decide({
      url: 'https://example.com/hook',
      addresses: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', ...publicAnswer],
    })
    expect(decided.ok).toBe(true)
    expect(decided.ok && decided.addresses.map(Outbound.serializeAddress)).toEqual([
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      '93.184.215.14',
    ])
  })

  test.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0.0.0.0/', 'this_network'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://100.64.0.1/', 'cgnat'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::1]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[::127.0.0.1]/', 'reserved'],
    ['http://[64:ff9b::10.0.0.1]/', 'private'],
    ['http://[2002:c0a8:1::1]/', 'private'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://[fc00::1]/', 'unique_local'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
  ] as const)('security: %p is refused (%s)', (url, range) => {
    const decided = Outbound.decide({ url })
    expect(decided).toMatchObject({ ok: false, reason: 'private_address', range })
  })

  test.each([
    [['10.0.0.5'], 'private'],
    [['127.0.0.1'], 'loopback'],
    [['::1'], 'loopback'],
    [['::ffff:127.0.0.1'], 'loopback'],
    [['169.254.169.254'], 'metadata'],
    [[...publicAnswer, '10.0.0.5'], 'private'],
    [['2606:4700:4700::1111', 'fd00::1'], 'unique_local'],
    [['fe80::1%eth0'], 'link_local'],
  ] as const)('security: a name resolving to %p is refused (%s): every address is checked', (addresses, range) => {
    expect(Outbound.decide({ url: 'https://hooks.example.com/', addresses })).toMatchObject({
      ok: false,
      reason: 'private_address',
      range,
    })
  })

  test('error: a name that resolves to nothing, or to something that is no address, is unresolvable', () => {
    expect(Outbound.decide({ url: 'https://nowhere.example/', addresses: [] })).toMatchObject({
      reason: 'unresolvable',
    })
    expect(Outbound.decide({ url: 'https://nowhere.example/' })).toMatchObject({ reason: 'unresolvable' })
    expect(Outbound.decide({ url: 'https://odd.example/', addresses: ['1.2.3.4', 'not-an-ip'] })).toMatchObject({
      reason: 'unresolvable',
    })
  })

  test('behavior: the allow-list lets listed addresses, blocks and hosts through, and nothing else', () => {
    const allow = allowList('127.0.0.1, 10.1.0.0/16, internal.example.com')
    expect(Outbound.decide({ url: 'http://127.0.0.1:8080/', allow }).ok).toBe(true)
    expect(Outbound.decide({ url: 'http://[::ffff:127.0.0.1]:8080/', allow }).ok).toBe(true)
    expect(Outbound.decide({ url: 'http://127.0.0.2:8080/', allow })).toMatchObject({ reason: 'private_address' })
    expect(Outbound.decide({ url: 'http://[::1]:8080/', allow })).toMatchObject({ reason: 'private_address' })
    expect(Outbound.decide({ url: 'http://a.example/', addresses: ['10.1.2.3'], allow }).ok).toBe(true)
    expect(Outbound.decide({ url: 'http://a.example/', addresses: ['10.1.2.3', '10.2.0.1'], allow })).toMatchObject({
      reason: 'private_address',
    })
    expect(Outbound.decide({ url: 'http://INTERNAL.example.com./x', addresses: ['192.168.9.9'], allow }).ok).toBe(true)
    expect(
      Outbound.decide({ url: 'http://sub.internal.example.com/', addresses: ['192.168.9.9'], allow }),
    ).toMatchObject({ reason: 'private_address' })
    expect(
      Outbound.decide({ url: 'http://internal.example.com.evil.example/', addresses: ['192.168.9.9'], allow }),
    ).toMatchObject({
      reason: 'private_address',
    })
  })

  test('behavior: the allow-list does not lift the URL checks', () => {
    const allow = allowList('127.0.0.1, internal.example.com')
    expect(Outbound.decide({ url: 'ftp://127.0.0.1/', allow })).toMatchObject({ reason: 'scheme_not_allowed' })
    expect(Outbound.decide({ url: 'http://127.0.0.1:25/', allow })).toMatchObject({ reason: 'port_not_allowed' })
    expect(Outbound.decide({ url: 'http://u:p@internal.example.com/', addresses: ['10.0.0.1'], allow })).toMatchObject({
      reason: 'credentials_not_allowed',
    })
  })
})

describe('pin', () => {
  const pinned = (url: string, address: string) =>
    Outbound.pin({ url: new URL(url), address: Outbound.parseAddress(address)! })

  test('default: http connects to the address and sends the original Host', () => {
    expect(pinned('http://hooks.example.com:8080/a/b?c=d#frag', '93.184.215.14')).toEqual({
      url: 'http://93.184.215.14:8080/a/b?c=d',
      host: 'hooks.example.com:8080',
      serverName: undefined,
    })
  })

  test('behavior: https keeps the name for SNI and the certificate; IPv6 goes in brackets; the zone is dropped', () => {
    expect(pinned('https://Hooks.Example.com./x', 'fe80::1%eth0')).toEqual({
      url: 'https://[fe80::1]/x',
      host: 'hooks.example.com.',
      serverName: 'hooks.example.com',
    })
  })

  test('behavior: a URL whose host is already an address is sent as is', () => {
    expect(pinned('https://[2606:4700:4700::1111]/dns', '2606:4700:4700::1111')).toEqual({
      url: 'https://[2606:4700:4700::1111]/dns',
      host: '[2606:4700:4700::1111]',
      serverName: undefined,
    })
  })
})

describe('redirect', () => {
  const from = new URL('https://hooks.example.com/a/b')
  const hop = (status: number, location: string | null, method = 'POST', redirects = 0) =>
    Outbound.redirect({ url: from, status, location, method, redirects, maxRedirects: 3 })

  test('default: an answer that is no redirect is the answer', () => {
    expect(hop(200, null)).toBeUndefined()
    expect(hop(304, '/x')).toBeUndefined()
    expect(hop(300, '/x')).toBeUndefined()
    expect(hop(302, null)).toBeUndefined()
  })

  test.each([
    [301, 'POST', 'GET', false],
    [302, 'POST', 'GET', false],
    [303, 'POST', 'GET', false],
    [303, 'PUT', 'GET', false],
    [303, 'HEAD', 'HEAD', true],
    [301, 'PUT', 'PUT', true],
    [307, 'POST', 'POST', true],
    [308, 'POST', 'POST', true],
    [302, 'GET', 'GET', true],
  ] as const)('behavior: %p after %p goes on as %p (body kept: %p)', (status, method, next, keepBody) => {
    expect(hop(status, '/c', method)).toMatchObject({ ok: true, method: next, keepBody })
  })

  test('behavior: a relative Location is resolved against the hop; leaving the origin is flagged', () => {
    expect(hop(302, 'c?d=1')).toMatchObject({ url: new URL('https://hooks.example.com/a/c?d=1'), crossOrigin: false })
    expect(hop(302, '//other.example/x')).toMatchObject({ url: new URL('https://other.example/x'), crossOrigin: true })
    expect(hop(302, 'http://hooks.example.com/a')).toMatchObject({ crossOrigin: true })
  })

  test('error: a redirect past the limit is refused', () => {
    expect(hop(302, '/x', 'GET', 2)).toMatchObject({ ok: true })
    expect(hop(302, '/x', 'GET', 3)).toMatchObject({ ok: false, reason: 'too_many_redirects' })
  })

  test('error: a Location that is no URL is refused', () => {
    expect(hop(302, 'http://[::1')).toMatchObject({ ok: false, reason: 'invalid_url' })
  })
})

describe('toError', () => {
  test('default: a refusal is a 400 bad_request naming the field and the reason', () => {
    const refusal = Outbound.decide({ url: 'http://10.0.0.1/' })
    if (refusal.ok) throw new Error('expected a refusal')
    const error = Outbound.toError(refusal, { field: 'webhook.url' })
    expect(error.code).toBe('bad_request')
    expect(error.message).toStartWith('webhook.url: ')
    expect(error.details).toEqual({ field: 'webhook.url', reason: 'private_address' })
  })
})
