// egress.credentials: headers the proxy adds to the requests it allowed to a host (a forge token, a registry
// token), so a command can use a credential it never holds. Values come from the worker's environment (`${VAR}`) or
// a file (`${file:PATH}`, read again when it changes), are read when the worker starts, and go only into requests
// the proxy sends upstream over TLS: never into a sandbox, a command's environment, a result or a log line.
// Worker-only.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { TetherError } from '../../common/errors.js';
import { firstMatch, parsePattern, type HostPattern } from './patterns.js';

const SETTING = 'terminal.local.sandbox.egress.credentials';
/** An RFC 9110 token: a header name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers that frame or route a request, or belong to one hop: the proxy sets them itself. */
const NOT_ADDED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);
/** `${NAME}` (the worker's environment) or `${file:PATH}`; anything else after `${` is refused. */
const PLACEHOLDER = /\$\{([^}]*)\}/g;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const Entry = z
  .strictObject({
    /** A host pattern as in egress.allow (`api.github.com`, `*.example.com`, with `:port`); without a port, 443. */
    host: z.string(),
    header: z
      .string()
      .regex(TOKEN, 'a header name')
      .refine((h) => !NOT_ADDED.has(h.toLowerCase()), 'a header the proxy sets itself')
      .default('authorization'),
    /** The header's value, `${VAR}` and `${file:PATH}` replaced: `Bearer ${GITHUB_TOKEN}`. */
    value: z.string().min(1).optional(),
    /** `user:password` (placeholders as in value), sent as `Basic base64(...)`: git's `x-access-token:${TOKEN}`. */
    basic: z.string().min(1).optional(),
  })
  .refine((e) => (e.value === undefined) !== (e.basic === undefined), 'give value or basic (one of them)');

export interface CredentialEntry {
  pattern: HostPattern;
  header: string;
  template: string;
  basic: boolean;
}

export const CredentialsSchema = z
  .array(Entry)
  .transform((entries, ctx): CredentialEntry[] => {
    const out: CredentialEntry[] = [];
    entries.forEach((e, i) => {
      const p = parsePattern(e.host);
      if ('error' in p) return ctx.addIssue({ code: 'custom', path: [i, 'host'], message: p.error });
      const template = (e.value ?? e.basic)!;
      const bad = placeholders(template).find((n) => !VARIABLE.test(n) && !n.startsWith('file:'));
      if (bad !== undefined)
        return ctx.addIssue({
          code: 'custom',
          path: [i, e.value !== undefined ? 'value' : 'basic'],
          message: `\${${bad}} is neither \${VARIABLE} nor \${file:PATH}`,
        });
      // Without a port an entry covers 443 only: a credential never goes out over plain HTTP.
      out.push({ pattern: { ...p, port: p.port ?? 443 }, header: e.header, template, basic: e.basic !== undefined });
    });
    return out;
  })
  .prefault([]);

const placeholders = (template: string): string[] => [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);

const expandPath = (p: string): string => (p.startsWith('~/') ? join(homedir(), p.slice(2)) : p);

/** A credential ready to add: its header and a value read again when a file it names changes. */
export interface Credential {
  header: string;
  value(): string;
}

interface FileState {
  path: string;
  mtimeMs: number;
  text: string;
}

/**
 * The configured credentials with their values resolved from `env` and files. Throws a configuration error naming
 * the entry (a variable not set, a file not readable, a value with a line break); never the value itself.
 */
export function resolveCredentials(
  entries: readonly CredentialEntry[],
  env: NodeJS.ProcessEnv = process.env,
): { pattern: HostPattern; credential: Credential }[] {
  return entries.map((e, i) => {
    const where = `${SETTING}.${i}.${e.basic ? 'basic' : 'value'}`;
    const files = new Map<string, FileState>();
    const readFile = (name: string, strict: boolean): string => {
      const path = expandPath(name.slice('file:'.length));
      if (!isAbsolute(path)) throw fail(where, `\${${name}}: give an absolute path (or one starting with ~/)`);
      const known = files.get(path);
      try {
        const mtimeMs = statSync(path).mtimeMs;
        if (known && known.mtimeMs === mtimeMs) return known.text;
        const text = readFileSync(path, 'utf8').replace(/\r?\n+$/, '');
        files.set(path, { path, mtimeMs, text });
        return text;
      } catch (err) {
        // A file that went away after start keeps its last value: a token rotated by rename is briefly absent.
        if (!strict && known) return known.text;
        throw fail(where, `\${${name}}: ${(err as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
      }
    };
    const expand = (strict: boolean): string => {
      const text = e.template.replace(PLACEHOLDER, (_m, name: string) => {
        if (name.startsWith('file:')) return readFile(name, strict);
        const v = env[name];
        if (v === undefined || v === '') throw fail(where, `\${${name}} is not set in the worker's environment`);
        return v;
      });
      if (/[\r\n\0]/.test(text)) throw fail(where, 'the value holds a line break or NUL once expanded');
      return e.basic ? `Basic ${Buffer.from(text, 'utf8').toString('base64')}` : text;
    };
    let last = expand(true);
    const hasFile = placeholders(e.template).some((n) => n.startsWith('file:'));
    return {
      pattern: e.pattern,
      credential: {
        header: e.header,
        value: () => {
          if (!hasFile) return last;
          try {
            last = expand(false);
          } catch {
            // A changed file that became unusable: the last good value stays (the worker log said so at start).
          }
          return last;
        },
      },
    };
  });
}

function fail(where: string, why: string): TetherError {
  return new TetherError('Config.Invalid', `${where}: ${why}`, false);
}

/** The credential for a target, if one is configured for it (the first entry that covers it). */
export function credentialFor(
  list: readonly { pattern: HostPattern; credential: Credential }[],
  t: { host: string; port: number },
): Credential | undefined {
  return list.find((c) => firstMatch([c.pattern], t, 'any'))?.credential;
}

/** Raw header pairs with every copy of the credential's header replaced by the broker's value. */
export function withCredential(raw: readonly string[], c: Credential): string[] {
  const name = c.header.toLowerCase();
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== name) out.push(raw[i]!, raw[i + 1]!);
  out.push(c.header, c.value());
  return out;
}
