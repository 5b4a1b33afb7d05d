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
