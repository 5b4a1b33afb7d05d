// The URLs a tool is given, read into the one target spelling the egress gate decides on: every other spelling of a
// host (numbers, case, IDN, a trailing dot) is that host, and what cannot be a host the gate judges is refused.
import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../environments/egress/addresses.js';
import { shownUrl, tlsName, toolUrl } from './tool-url.js';

const targetOf = (raw: string): string => {
  const r = toolUrl(raw);
  return 'error' in r ? `error: ${r.error}` : `${r.target.host}:${r.target.port}`;
};

describe('toolUrl', () => {
  it.each([
    ['https://Example.COM/a', 'example.com:443'],
    ['http://example.com./x', 'example.com:80'],
    ['HTTP://EXAMPLE.com:8080', 'example.com:8080'],
    ['https://bücher.example/', 'xn--bcher-kva.example:443'],
    ['https://BÜCHER.example./', 'xn--bcher-kva.example:443'],
    ['http://[2606:4700:0:0::1111]/', '2606:4700::1111:80'],
    // The URL parser writes every IPv4 number form as a dotted quad: each is the address it names.
    ['http://2130706433/', '127.0.0.1:80'],
    ['http://0x7f.1/', '127.0.0.1:80'],
    ['http://127.1/', '127.0.0.1:80'],
    ['http://0177.0.0.1/', '127.0.0.1:80'],
    ['http://127.0.0.1./', '127.0.0.1:80'],
  ])('%s is %s', (raw, expected) => {
    expect(targetOf(raw)).toBe(expected);
  });

  it('every spelling of loopback ends at the reserved-address table', () => {
    for (const raw of ['http://2130706433/', 'http://0x7f000001/', 'http://[::ffff:127.0.0.1]/', 'http://[::1]/']) {
      const r = toolUrl(raw);
      expect('error' in r ? r.error : refusedAddress(r.target.host)).toMatch(/loopback/);
    }
  });

  it.each([
    ['file:///etc/passwd', /only http and https URLs can be fetched, not file:/],
    ['javascript:alert(1)', /only http and https/],
    ['ftp://example.com/x', /only http and https/],
    ['example.com/x', /is not a valid URL/],
    // A person reading the first would think of the bank; the host is x.test. The password would go to x.test.
    ['https://bank.example@x.test/', /a URL with a user name or password is not fetched/],
    ['https://:secret@x.test/', /a URL with a user name or password/],
    ['http://localhost:8080/', /localhost is this machine/],
    ['http://a.localhost/', /localhost is this machine/],
    ['http://[fe80::1%25eth0]/', /not a valid URL|zone id/],
    [
      `http://${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.test/`,
      /not a valid host name|over-long/,
    ],
    [`http://${'a'.repeat(70)}.test/`, /not a valid host name/],
  ])('%s is refused', (raw, why) => {
    const r = toolUrl(raw);
    expect('error' in r ? r.error : 'accepted').toMatch(why);
  });

  it('shows a long URL by its start and its length', () => {
    const long = `https://x.test/?d=${'a'.repeat(5_000)}`;
    expect(shownUrl(long)).toMatch(/^https:\/\/x\.test\/\?d=a+… \(5018 characters in all\)$/);
    expect(shownUrl(long).length).toBeLessThan(2_100);
    expect(shownUrl('https://x.test/')).toBe('https://x.test/');
  });

  it('TLS names a host name, never an address', () => {
    const named = toolUrl('https://x.test/');
    const address = toolUrl('https://203.0.113.9/');
    expect('target' in named && tlsName(named.target)).toBe('x.test');
    expect('target' in address && tlsName(address.target)).toBeUndefined();
  });
});
