import { describe, expect, it } from 'vitest';
import { blockedAddressReason, checkLiteralHost, guardedLookup, parseFetchableUrl } from './address-policy.js';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'],
  ])('refuses %s as %s', (address, kind) => {
    expect(blockedAddressReason(address)).toBe(`${address} is a ${kind} address`);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('allows %s', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });
});

describe('parseFetchableUrl and checkLiteralHost', () => {
  it('accepts http and https and refuses other schemes and garbage', () => {
    expect(parseFetchableUrl('https://example.com/a').href).toBe('https://example.com/a');
    expect(() => parseFetchableUrl('file:///etc/passwd')).toThrow(/only http and https URLs can be fetched, not file:/);
    expect(() => parseFetchableUrl('javascript:alert(1)')).toThrow(
      expect.objectContaining({ code: 'Web.AddressRefused' }),
    );
    expect(() => parseFetchableUrl('not a url')).toThrow(/is not a valid URL/);
  });

  it('refuses internal IP literals, bracketed IPv6 included, unless private addresses are allowed', () => {
    expect(() => checkLiteralHost(new URL('http://169.254.169.254/latest/meta-data'), false)).toThrow(
      /169\.254\.169\.254 is a link-local address/,
    );
    expect(() => checkLiteralHost(new URL('http://[::1]:8080/'), false)).toThrow(/::1 is a loopback address/);
    expect(() => checkLiteralHost(new URL('http://[::1]:8080/'), true)).not.toThrow();
    expect(() => checkLiteralHost(new URL('http://8.8.8.8/'), false)).not.toThrow();
    // A name is judged when it is resolved (guardedLookup), not here.
    expect(() => checkLiteralHost(new URL('http://localhost/'), false)).not.toThrow();
  });
});

describe('guardedLookup', () => {
  const resolve = (allowPrivate: boolean, all: boolean) =>
    new Promise<{ err: Error | null; address: unknown }>((done) => {
      guardedLookup(allowPrivate)('localhost', { all }, (err, address) => done({ err, address }));
    });

  it('refuses a name that resolves to loopback, naming the address', async () => {
    const { err } = await resolve(false, true);
    expect(err).toMatchObject({ code: 'Web.AddressRefused' });
    expect(err!.message).toMatch(/localhost: it resolves to (127\.0\.0\.1|::1) is a loopback address/);
  });

  it('passes the addresses through when private addresses are allowed, in both callback forms', async () => {
    const many = await resolve(true, true);
    expect(many.err).toBeNull();
    expect((many.address as { address: string }[]).map((a) => a.address)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]),
    );
    const one = await resolve(true, false);
    expect(one.err).toBeNull();
    expect(one.address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe('blockedAddressReason: translators, tunnels, special ranges and this machine', () => {
  it.each([
    ['198.18.0.1', 'is a benchmarking address'],
    ['198.19.255.254', 'is a benchmarking address'],
    ['192.0.0.8', 'is a special-purpose address'],
    ['192.0.2.10', 'is a documentation address'],
    ['fec0::1', 'is a site-local address'],
    ['feff:ffff::1', 'is a site-local address'],
    ['64:ff9b:1::a00:1', 'is a local-use NAT64 address'],
    ['::ffff:0:7f00:1', 'is a IPv4-translated address'],
    ['2001:db8::1', 'is a documentation address'],
    ['100::1', 'is a discard-only address'],
    ['64:ff9b::7f00:1', 'carries 127.0.0.1 (is a loopback address)'],
    ['64:ff9b::169.254.169.254', 'carries 169.254.169.254 (is a link-local address)'],
    ['64:ff9b::a00:1', 'carries 10.0.0.1 (is a private address)'],
    ['2002:7f00:1::1', 'carries 127.0.0.1 (is a loopback address)'],
    ['2002:a9fe:a9fe::', 'carries 169.254.169.254 (is a link-local address)'],
    ['2002:c0a8:0101:0:0:0:0:1', 'carries 192.168.1.1 (is a private address)'],
    // Teredo: the server in bits 32-63, the client inverted in the last 32 (0x80fffffe ^ 0xffffffff = 127.0.0.1).
    ['2001:0:a00:1::1', 'carries 10.0.0.1 (is a private address)'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'carries 127.0.0.1 (is a loopback address)'],
  ])('refuses %s', (address, why) => {
    expect(blockedAddressReason(address)).toBe(`${address} ${why}`);
  });

  it.each(['64:ff9b::808:808', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', '198.20.0.1'])(
    'allows %s (a public IPv4 host behind the translator, or outside the range)',
    (address) => {
      expect(blockedAddressReason(address)).toBeUndefined();
    },
  );

  it("refuses this machine's own addresses, whatever their range and spelling", () => {
    const own = (): Set<string> => new Set(['203.0.114.7', '2a01:4f8:0:0:0:0:0:7']);
    expect(blockedAddressReason('203.0.114.7', own)).toBe('203.0.114.7 is an address of this machine');
    expect(blockedAddressReason('::ffff:203.0.114.7', own)).toBe('::ffff:203.0.114.7 is an address of this machine');
    expect(blockedAddressReason('2a01:4f8::7', own)).toBe('2a01:4f8::7 is an address of this machine');
    expect(blockedAddressReason('2A01:04F8:0::0007', own)).toBe('2A01:04F8:0::0007 is an address of this machine');
    expect(blockedAddressReason('203.0.114.8', own)).toBeUndefined();
  });

  it("reads this machine's addresses from its interfaces by default", async () => {
    const { networkInterfaces } = await import('node:os');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4');
    if (!external) return; // a machine with loopback only has nothing more to refuse
    expect(blockedAddressReason(external.address)).toBeDefined();
  });
});
