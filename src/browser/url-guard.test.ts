// Unit tests of the browser's URL guard: schemes, internal addresses (the web tools' ranges), names that resolve inward. Worker-only.
import { describe, expect, test } from 'vitest';
import { refuseUrl, type Resolver } from './url-guard.js';

const fixed =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return found;
  };

describe('refuseUrl', () => {
  const dns = fixed({
    'example.org': ['93.184.215.14'],
    'inward.test': ['93.184.215.14', '10.0.0.5'],
    localhost: ['127.0.0.1'],
  });

  test('public http(s) URLs pass', async () => {
    expect(await refuseUrl('https://example.org/a?b=1', false, dns)).toBeUndefined();
    expect(await refuseUrl('http://8.8.8.8/', false, dns)).toBeUndefined();
  });

  test('other schemes and malformed URLs are refused even when private addresses are allowed', async () => {
    expect(await refuseUrl('file:///etc/passwd', true, dns)).toMatch(/only http and https.*file:/);
    expect(await refuseUrl('javascript:alert(1)', true, dns)).toMatch(/only http and https/);
    expect(await refuseUrl('example.org', true, dns)).toMatch(/not a valid URL/);
  });

  test('internal literals and names resolving inward are refused, naming the setting', async () => {
    expect(await refuseUrl('http://127.0.0.1:8080/', false, dns)).toMatch(
      /127\.0\.0\.1 is a loopback address.*browser\.allow_private/,
    );
    expect(await refuseUrl('http://[::1]/', false, dns)).toMatch(/loopback/);
    // The URL parser turns a decimal host into dotted form, so this is 127.0.0.1 too.
    expect(await refuseUrl('http://2130706433/', false, dns)).toMatch(/loopback/);
    expect(await refuseUrl('http://localhost/', false, dns)).toMatch(
      /localhost resolves to 127\.0\.0\.1, and 127\.0\.0\.1 is a loopback address/,
    );
    expect(await refuseUrl('http://inward.test/', false, dns)).toMatch(/10\.0\.0\.5.*private/);
    expect(await refuseUrl('http://169.254.169.254/latest/meta-data/', false, dns)).toMatch(/link-local/);
    expect(await refuseUrl('http://[fd00::1]/', false, dns)).toMatch(/private/);
    expect(await refuseUrl('http://[::ffff:127.0.0.1]/', false, dns)).toMatch(/loopback/);
    expect(await refuseUrl('http://0.0.0.0:3000/', false, dns)).toMatch(/unspecified/);
    expect(await refuseUrl('http://nowhere.test/', false, dns)).toMatch(/cannot resolve nowhere\.test/);
  });

  test('allow_private lets internal addresses through', async () => {
    expect(await refuseUrl('http://127.0.0.1:8080/', true, dns)).toBeUndefined();
  });
});
