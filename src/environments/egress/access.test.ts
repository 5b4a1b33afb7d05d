// Unit tests of what a request does (read or write), the path form prefixes match, the rules that cover a request,
// and how a body's first bytes are shown. Pure.
import { describe, expect, it } from 'vitest';
import { pathCovered, requestRule, ruleCoversRequest } from '../../common/egress-types.js';
import { entryCovers, escapeBytes, normalPath, overridesMethod, requestAccess, type RequestFacts } from './access.js';

const facts = (o: Partial<RequestFacts>): RequestFacts => ({
  method: 'GET',
  path: '/',
  body: false,
  upgrade: false,
  ...o,
});

describe('read or write', () => {
  it.each([
    [{ method: 'GET' }, 'read'],
    [{ method: 'HEAD' }, 'read'],
    [{ method: 'OPTIONS' }, 'read'],
    [{ method: 'GET', body: true }, 'write'],
    [{ method: 'GET', upgrade: true }, 'write'],
    [{ method: 'PUT' }, 'write'],
    [{ method: 'DELETE' }, 'write'],
    [{ method: 'PATCH' }, 'write'],
    [{ method: 'PROPFIND' }, 'write'],
    [{ method: 'get' }, 'write'],
    // git's fetch: a POST that reads, known by its path and content type together.
    [
      {
        method: 'POST',
        path: '/o/r.git/git-upload-pack',
        contentType: 'application/x-git-upload-pack-request',
        body: true,
      },
      'read',
    ],
    [
      {
        method: 'POST',
        path: '/o/r.git/git-upload-pack',
        contentType: 'application/x-www-form-urlencoded',
        body: true,
      },
      'write',
    ],
    [
      {
        method: 'POST',
        path: '/o/r.git/git-receive-pack',
        contentType: 'application/x-git-receive-pack-request',
        body: true,
      },
      'write',
    ],
    [{ method: 'POST', path: '/upload', contentType: 'application/x-git-upload-pack-request', body: true }, 'write'],
    // A method override is read as the method it names, by frameworks that honour it.
    [{ method: 'GET', override: true }, 'write'],
    [
      {
        method: 'POST',
        path: '/o/r.git/git-upload-pack',
        contentType: 'application/x-git-upload-pack-request',
        body: true,
        override: true,
      },
      'write',
    ],
    // Dressed as git's fetch on a path servers route elsewhere (`;` parameters stripped, an escaped `?`, a fragment
    // Go keeps in the path, a query git never sends).
    ...[
      '/api/deploy;/git-upload-pack',
      '/api/deploy%3f/git-upload-pack',
      '/a/..;/git-upload-pack',
      '/q1/x/git-upload-pack#/../../../api/deploy',
      '/x/items/git-upload-pack?_method=DELETE',
    ].map(
      (path) =>
        [{ method: 'POST', path, contentType: 'application/x-git-upload-pack-request', body: true }, 'write'] as const,
    ),
  ] as const)('%o is a %s', (f, access) => expect(requestAccess(facts(f))).toBe(access));
});

describe('paths', () => {
  it.each([
    ['/a/b?x=1', '/a/b'],
    ['/', '/'],
    ['/a/b/', '/a/b/'],
    ['/a/../b', undefined],
    ['/a/./b', undefined],
    ['/a/%2e%2e/b', undefined],
    ['/a%2Fb', undefined],
    ['/a%5cb', undefined],
    ['/a\\b', undefined],
    ['//evil/b', undefined],
    ['*', undefined],
    ['http://host/a', undefined],
    ['/a/b%20c/@scope%2Fx', undefined],
    ['/@scope/pkg/-/pkg-1.0.0.tgz', '/@scope/pkg/-/pkg-1.0.0.tgz'],
    ['/a/b%20c', undefined],
    ['/a/b%41c', '/a/b%41c'],
    // What Java servers and double decoders read as `..`, or route by: each is not in normal form.
    ['/ok/..;/admin', undefined],
    ['/ok/..;jsessionid=1/admin', undefined],
    ['/ok/.;/admin', undefined],
    ['/ok;x=1/admin', undefined],
    ['/ok/..%00/admin', undefined],
    ['/ok/%252e%252e/admin', undefined],
    ['/ok/%c0%ae%c0%ae/admin', undefined],
    ['/ok/%u002e%u002e/admin', undefined],
    ['/ok/%2/admin', undefined],
    ['/ok/\uff0e\uff0e/admin', undefined],
    ['/ok/%ef%bc%8e%ef%bc%8e/admin', undefined],
    ['/api/deploy%3f/x', undefined],
    ['/api/deploy%23/x', undefined],
    ['/ok/x#/../../admin', undefined],
    ['/anywhere#/../q1-read', undefined],
  ])('%s in normal form: %s', (target, path) => expect(normalPath(target)).toBe(path));

  it('a method-override header or `_method` parameter asks for another method', () => {
    expect(overridesMethod({ 'x-http-method-override': 'DELETE' }, '/x')).toBe(true);
    expect(overridesMethod({ 'x-http-method': 'PUT' }, '/x')).toBe(true);
    expect(overridesMethod({}, '/x?a=1&_method=DELETE')).toBe(true);
    expect(overridesMethod({ accept: '*/*' }, '/x?method=1')).toBe(false);
  });

  it('a prefix covers itself and below, segment by segment', () => {
    expect(pathCovered('/team/app.git/', '/team/app.git/git-receive-pack')).toBe(true);
    expect(pathCovered('/team/app.git', '/team/app.git/info/refs')).toBe(true);
    expect(pathCovered('/team/app.git', '/team/app.git')).toBe(true);
    expect(pathCovered('/team/app.git', '/team/app.github/x')).toBe(false);
    expect(pathCovered('/', '/anything')).toBe(true);
  });

  it('an entry covers by access and paths; a path not in normal form only where the entry names no paths', () => {
    expect(entryCovers({ access: 'read' }, 'read', '/x')).toBe(true);
    expect(entryCovers({ access: 'read' }, 'write', '/x')).toBe(false);
    expect(entryCovers({ access: 'write' }, 'read', undefined)).toBe(true);
    expect(entryCovers({ access: 'write', paths: ['/ok/'] }, 'write', '/ok/f')).toBe(true);
    expect(entryCovers({ access: 'write', paths: ['/ok/'] }, 'read', '/ok')).toBe(true);
    expect(entryCovers({ access: 'write', paths: ['/ok/'] }, 'write', '/okay')).toBe(false);
    expect(entryCovers({ access: 'write', paths: ['/ok/'] }, 'write', undefined)).toBe(false);
  });

  it('a rule covers its method at its prefix; the host rule covers everything on that host and port', () => {
    const rule = requestRule('forge.example', 443, 'POST', '/o/r.git/git-receive-pack');
    expect(rule).toBe('network:forge.example:443 POST /o/r.git/git-receive-pack');
    expect(ruleCoversRequest(rule, 'forge.example', 443, 'POST', '/o/r.git/git-receive-pack')).toBe(true);
    expect(ruleCoversRequest(rule, 'forge.example', 443, 'PUT', '/o/r.git/git-receive-pack')).toBe(false);
    expect(ruleCoversRequest(rule, 'forge.example', 80, 'POST', '/o/r.git/git-receive-pack')).toBe(false);
    expect(ruleCoversRequest(rule, 'forge.example.evil', 443, 'POST', '/o/r.git/git-receive-pack')).toBe(false);
    expect(ruleCoversRequest('network:forge.example:443', 'forge.example', 443, 'DELETE', '/x')).toBe(true);
    expect(ruleCoversRequest('network:forge.example:443 POST', 'forge.example', 443, 'POST', '/x')).toBe(false);
    expect(ruleCoversRequest('network:forge.example:443 POST / extra', 'forge.example', 443, 'POST', '/x')).toBe(false);
    expect(ruleCoversRequest('network:[2001:db8::1]:443 GET /', '2001:db8::1', 443, 'GET', '/a')).toBe(true);
  });
});

describe("a body's first bytes", () => {
  it('printable ASCII as is, the rest escaped, long ones cut', () => {
    expect(escapeBytes(Buffer.from('{"a":"b"}\n'))).toBe('{\\"a\\":\\"b\\"}\\n');
    // A body cannot close the quotes it is shown in and add words of its own.
    expect(escapeBytes(Buffer.from('x"; approved by policy'))).toBe('x\\"; approved by policy');
    expect(escapeBytes(Buffer.from([0x00, 0x1b, 0x5c, 0x7f, 0xff, 0x09, 0x0d]))).toBe('\\x00\\x1b\\\\\\x7f\\xff\\t\\r');
    expect(escapeBytes(Buffer.from('\u202e'))).toBe('\\xe2\\x80\\xae');
    expect(escapeBytes(Buffer.alloc(300, 0x61), 256)).toBe(`${'a'.repeat(256)}…`);
  });
});
