// Unit tests: how the egress proxy reads a target (one spelling per host; numeric tricks, zone ids and localhost
// refused) and matches egress.allow / egress.deny entries.
import { describe, expect, it } from 'vitest';
import { firstMatch, parsePattern, type HostPattern } from './patterns.js';
import { EgressSchema, listVerdict, requestVerdict } from './settings.js';
import { normalizeHost, parseAuthority, targetText } from './target.js';

describe('egress targets', () => {
  it.each([
    ['Example.COM', 'example.com', 0],
    ['example.com.', 'example.com', 0],
    ['bücher.de', 'xn--bcher-kva.de', 0],
    ['a_b.example', 'a_b.example', 0],
    ['93.184.216.34', '93.184.216.34', 4],
    ['[::1]', '::1', 6],
    ['[0:0:0:0:0:0:0:1]', '::1', 6],
    ['::FFFF:127.0.0.1', '::ffff:7f00:1', 6],
  ])('%s reads as %s', (raw, host, ip) => {
    expect(normalizeHost(raw)).toEqual({ host, ip });
  });

  it.each([
    ['127.1', /numeric address/],
    ['2130706433', /numeric address/],
    ['0x7f000001', /numeric address/],
    ['0x7f.0.0.1', /numeric address/],
    ['0177.0.0.1', /numeric address/],
    ['010.0.0.1', /numeric address/],
    ['example.123', /numeric address|not a valid host name/],
    ['127.000.000.001', /numeric address|leading zeros/],
    ['localhost', /localhost is this machine/],
    ['LOCALHOST.', /localhost is this machine/],
    ['db.localhost', /localhost is this machine/],
    ['[fe80::1%lo]', /zone id/],
    ['fe80::1%25eth0', /zone id/],
    ['[example.com]', /not an IPv6 address/],
    ['exa mple.com', /not a valid host name/],
    ['a..b', /not a valid host name/],
    ['-a.example', /not a valid host name/],
    ['', /empty/],
    ['x'.repeat(300), /over-long/],
    ['evil.com\r\nHost: x', /not a valid host name/],
  ])('%j is refused', (raw, why) => {
    const r = normalizeHost(raw);
    expect('error' in r && r.error).toMatch(why);
  });

  it('reads host:port and [v6]:port, nothing else', () => {
    expect(parseAuthority('Example.com:443')).toEqual({ host: 'example.com', port: 443, ip: 0 });
    expect(parseAuthority('[2001:db8::1]:8443')).toEqual({ host: '2001:db8::1', port: 8443, ip: 6 });
    for (const bad of [
      'example.com',
      'example.com:',
      'example.com:0',
      'example.com:65536',
      'example.com:+80',
      'a:b:c',
      '::1:80',
    ])
      expect(parseAuthority(bad)).toHaveProperty('error');
    expect(targetText({ host: '2001:db8::1', port: 443 })).toBe('[2001:db8::1]:443');
  });
});

describe('egress.allow and egress.deny', () => {
  const list = (...entries: string[]): HostPattern[] => entries.map((e) => parsePattern(e) as HostPattern);

  it('an exact name, *.domain (subdomains only), an address; without a port: 80 and 443 for allow, every port for deny', () => {
    const allow = list('registry.npmjs.org', '*.example.org', '203.0.113.5:8443', 'git.example.net:*');
    expect(firstMatch(allow, { host: 'registry.npmjs.org', port: 443 }, 'web')?.entry).toBe('registry.npmjs.org');
    expect(firstMatch(allow, { host: 'registry.npmjs.org', port: 22 }, 'web')).toBeUndefined();
    expect(firstMatch(allow, { host: 'a.b.example.org', port: 80 }, 'web')?.entry).toBe('*.example.org');
    expect(firstMatch(allow, { host: 'example.org', port: 80 }, 'web')).toBeUndefined();
    expect(firstMatch(allow, { host: 'badexample.org', port: 80 }, 'web')).toBeUndefined();
    expect(firstMatch(allow, { host: '203.0.113.5', port: 8443 }, 'web')).toBeDefined();
    expect(firstMatch(allow, { host: '203.0.113.5', port: 443 }, 'web')).toBeUndefined();
    expect(firstMatch(allow, { host: 'git.example.net', port: 22 }, 'web')).toBeDefined();
    expect(firstMatch(list('evil.example'), { host: 'evil.example', port: 22 }, 'any')).toBeDefined();
  });

  it('deny comes before allow; the defaults are the package registries, and "defaults" adds them to a list', () => {
    const s = EgressSchema.parse({ allow: ['*.example.org'], deny: ['bad.example.org'] });
    expect(listVerdict(s, { host: 'bad.example.org', port: 443 })).toEqual({
      verdict: 'deny',
      entry: 'bad.example.org',
    });
    expect(listVerdict(s, { host: 'ok.example.org', port: 443 })).toEqual({ verdict: 'allow', entry: '*.example.org' });
    expect(listVerdict(s, { host: 'pypi.org', port: 443 })).toBeUndefined();
    const defaults = EgressSchema.parse({});
    for (const host of [
      'registry.npmjs.org',
      'pypi.org',
      'files.pythonhosted.org',
      'repo1.maven.org',
      'us.archive.ubuntu.com',
    ])
      expect(listVerdict(defaults, { host, port: 443 })?.verdict).toBe('allow');
    expect(listVerdict(defaults, { host: 'github.com', port: 443 })).toBeUndefined();
    // The Go proxy fetches any module path from its own host: a request to it could carry data anywhere.
    expect(listVerdict(defaults, { host: 'proxy.golang.org', port: 443 })).toBeUndefined();
    const both = EgressSchema.parse({ allow: ['defaults', 'api.example.com'] });
    expect(listVerdict(both, { host: 'crates.io', port: 443 })?.verdict).toBe('allow');
    expect(listVerdict(both, { host: 'api.example.com', port: 443 })?.verdict).toBe('allow');
  });

  it('refuses entries it cannot read, naming them', () => {
    for (const [entry, why] of [
      ['*.1.2.3.4', /numeric address|\*\. goes before a domain name/],
      ['example.com:99999', /not a port/],
      ['localhost:8080', /localhost/],
      ['http://example.com', /a host name, \*\.domain or IP address/],
    ] as const) {
      const p = parsePattern(entry);
      expect('error' in p && p.error).toMatch(why);
    }
    expect(EgressSchema.safeParse({ resolve: { 'x.example': '192.168.1.1:80' } }).success).toBe(false);
    expect(EgressSchema.safeParse({ resolve: { 'x.example': '127.0.0.1:80' } }).success).toBe(true);
    expect(EgressSchema.safeParse({ resolve: { '127.0.0.1': '127.0.0.1:80' } }).success).toBe(false);
  });
});

describe('egress.allow by access and path', () => {
  it('the default list is read-only; a host alone allows writes too; an entry may say read or write and paths', () => {
    const s = EgressSchema.parse({
      allow: [
        'defaults',
        'api.example.com',
        { host: 'github.com', access: 'read' },
        { host: 'github.com', access: 'write', paths: ['/me/project.git/'] },
      ],
    });
    expect(listVerdict(s, { host: 'registry.npmjs.org', port: 443 })).toEqual({
      verdict: 'allow',
      entry: 'registry.npmjs.org (read)',
      requests: true,
    });
    expect(listVerdict(s, { host: 'api.example.com', port: 443 })).toEqual({
      verdict: 'allow',
      entry: 'api.example.com',
    });
    expect(requestVerdict(s, { host: 'github.com', port: 443 }, 'read', '/other/repo.git/info/refs')?.entry).toBe(
      'github.com (read)',
    );
    expect(
      requestVerdict(s, { host: 'github.com', port: 443 }, 'write', '/me/project.git/git-receive-pack')?.entry,
    ).toBe('github.com (write /me/project.git/)');
    expect(
      requestVerdict(s, { host: 'github.com', port: 443 }, 'write', '/me/other.git/git-receive-pack'),
    ).toBeUndefined();
    expect(
      requestVerdict(EgressSchema.parse({}), { host: 'pypi.org', port: 443 }, 'write', '/legacy/'),
    ).toBeUndefined();
  });

  it('refuses entries it cannot read, naming them', () => {
    for (const [allow, why] of [
      [[{ host: 'github.com', access: 'push' }], /access/],
      [[{ host: 'github.com', paths: ['me/repo'] }], /a path prefix: starts with \//],
      [[{ host: 'github.com', paths: ['/a/../b'] }], /a path prefix/],
      [[{ host: 'github.com', paths: ['/a?x=1'] }], /a path prefix/],
      [[{ host: 'github.com', paths: [] }], /too_small|at least|>=1/i],
      [[{ host: 'localhost', access: 'read' }], /localhost/],
      [[{ host: 'github.com', acess: 'read' }], /Unrecognized key/],
    ] as const) {
      const r = EgressSchema.safeParse({ allow });
      expect(r.success, JSON.stringify(allow)).toBe(false);
      expect(r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')).toMatch(why);
    }
    expect(EgressSchema.safeParse({ upstream_ca_file: 'relative.pem' }).success).toBe(false);
    expect(EgressSchema.safeParse({ passthrough: ['pinned.example.com', '*.bank.example'] }).success).toBe(true);
  });
});
