// Unit tests of egress.credentials: the setting's shape, values from the worker's environment and files (never
// named in an error), Basic encoding, which requests get one, and the broker's value replacing the command's.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialFor, CredentialsSchema, resolveCredentials, withCredential } from './credentials.js';

const parse = (entries: unknown) => CredentialsSchema.safeParse(entries);
const resolve = (entries: unknown, env: NodeJS.ProcessEnv = {}) =>
  resolveCredentials(CredentialsSchema.parse(entries), env);

describe('egress.credentials', () => {
  it('refuses entries it cannot use, naming them', () => {
    for (const [entry, why] of [
      [{ host: 'api.example.com' }, /give value or basic/],
      [{ host: 'api.example.com', value: 'a', basic: 'b' }, /give value or basic/],
      [{ host: 'api.example.com', header: 'Host', value: 'x' }, /a header the proxy sets itself/],
      [{ host: 'api.example.com', header: 'bad header', value: 'x' }, /a header name/],
      [{ host: 'http://api.example.com', value: 'x' }, /a host name/],
      [{ host: 'api.example.com', value: 'Bearer ${TOKEN:-x}' }, /is neither \$\{VARIABLE\} nor \$\{file:PATH\}/],
      [{ host: 'api.example.com', value: 'x', extra: 1 }, /Unrecognized key/],
    ] as const) {
      const r = parse([entry]);
      expect(r.success, JSON.stringify(entry)).toBe(false);
      expect(r.error?.issues.map((i) => i.message).join('; ')).toMatch(why);
    }
  });

  it('a variable not set is a start-up error naming the entry, never a value', () => {
    expect(() => resolve([{ host: 'a.example', value: 'Bearer ${GH_TOKEN}' }], {})).toThrow(
      "terminal.local.sandbox.egress.credentials.0.value: ${GH_TOKEN} is not set in the worker's environment",
    );
    expect(() => resolve([{ host: 'a.example', value: 'Bearer ${T}' }], { T: 'line\r\nX-Injected: 1' })).toThrow(
      /credentials\.0\.value: the value holds a line break or NUL once expanded$/,
    );
  });

  it('values from the environment, Basic encoded for git, for the entry host only (443 unless a port is given)', () => {
    const list = resolve(
      [
        { host: 'github.com', basic: 'x-access-token:${T}' },
        { host: 'api.github.com', value: 'Bearer ${T}' },
        { host: '*.npm.example', header: 'X-Npm-Token', value: '${T}' },
      ],
      { T: 'tok' },
    );
    expect(credentialFor(list, { host: 'github.com', port: 443 })?.value()).toBe(
      `Basic ${Buffer.from('x-access-token:tok').toString('base64')}`,
    );
    expect(credentialFor(list, { host: 'api.github.com', port: 443 })?.value()).toBe('Bearer tok');
    expect(credentialFor(list, { host: 'github.com', port: 80 })).toBeUndefined();
    expect(credentialFor(list, { host: 'gist.github.com', port: 443 })).toBeUndefined();
    expect(credentialFor(list, { host: 'r.npm.example', port: 443 })?.header).toBe('X-Npm-Token');
  });

  it('a value from a file is read again when the file changes; a file gone keeps the last value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-cred-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'one\n');
    const [c] = resolve([{ host: 'a.example', value: 'Bearer ${file:' + file + '}' }]);
    expect(c!.credential.value()).toBe('Bearer one');
    writeFileSync(file, 'two\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(c!.credential.value()).toBe('Bearer two');
    rmSync(dir, { recursive: true });
    expect(c!.credential.value()).toBe('Bearer two');
    expect(() => resolve([{ host: 'a.example', value: '${file:' + file + '}' }])).toThrow(
      /credentials\.0\.value: \$\{file:.*\}: ENOENT$/,
    );
    expect(() => resolve([{ host: 'a.example', value: '${file:relative/token}' }])).toThrow(/absolute path/);
  });

  it("the broker's value replaces every copy of the header the command sent, whatever its case", () => {
    const [c] = resolve([{ host: 'a.example', value: 'Bearer broker' }]);
    expect(
      withCredential(['Authorization', 'Bearer mine', 'accept', '*/*', 'AUTHORIZATION', 'Basic eA=='], c!.credential),
    ).toEqual(['accept', '*/*', 'authorization', 'Bearer broker']);
  });
});
