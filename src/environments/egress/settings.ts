// The `terminal.local.sandbox.egress` section: which hosts a sandboxed command reaches without asking, and for what
// (allow: reads only, or writes too, optionally under path prefixes), which never (deny), which the proxy does not
// read (passthrough), the credentials it adds for commands (credentials), the CA it trusts upstream besides the
// machine's (upstream_ca_file) and, for tests only, host names mapped to loopback stand-ins (resolve). Worker-only.
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { firstMatch, parsePattern, type HostPattern } from './patterns.js';
import { normalizeHost, parseAuthority } from './target.js';
import { entryCovers, normalPath, type Access } from './access.js';
import { CredentialsSchema } from './credentials.js';

/**
 * The package registries a developer needs, reached without asking for reading (ports 80 and 443: downloads pass, a
 * publish or upload asks): npm, PyPI (index and files), crates.io (index and downloads), Maven Central, Debian and
 * Ubuntu archives. Not the Go module proxy or checksum database: they fetch any module path from its own host on
 * request, so a request to them carries data to a host nobody allowed. docs/sandbox.md lists them; keep the two in
 * step.
 */
export const DEFAULT_ALLOW: readonly string[] = [
  'registry.npmjs.org',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  'repo.maven.apache.org',
  'repo1.maven.org',
  'deb.debian.org',
  'security.debian.org',
  'archive.ubuntu.com',
  '*.archive.ubuntu.com',
  'security.ubuntu.com',
  'ports.ubuntu.com',
];

/** In `allow`, this entry stands for DEFAULT_ALLOW, so a list can add hosts to the defaults instead of replacing them. */
const DEFAULTS_ENTRY = 'defaults';

/** An allow entry: a host pattern, what it may do there, and where (path prefixes; undefined: every path). */
export interface AllowRule extends HostPattern {
  access: Access;
  paths?: string[];
}

/** The default list's entries: reads only. */
const defaultRules = (): AllowRule[] =>
  DEFAULT_ALLOW.map((d) => ({ ...(parsePattern(d) as HostPattern), entry: `${d} (read)`, access: 'read' }));

const pathPrefix = z.string().refine((p) => normalPath(p) === p && !p.includes('?'), {
  message: 'a path prefix: starts with /, no query, no . or .. segments, no encoded / \\ or .',
});

const AllowObject = z.strictObject({
  host: z.string(),
  /** read: GET, HEAD, OPTIONS and git's fetch; write (the default): every method. */
  access: z.enum(['read', 'write']).default('write'),
  /** Only under these path prefixes (segment by segment); every path when absent. */
  paths: z.array(pathPrefix).min(1).optional(),
});

const allowList = z.array(z.unknown()).transform((entries, ctx): AllowRule[] => {
  const out: AllowRule[] = [];
  entries.forEach((raw, i) => {
    if (typeof raw === 'string' && raw.trim() === DEFAULTS_ENTRY) {
      out.push(...defaultRules());
      return;
    }
    // An entry is a host (a string) or an object; each is checked as what it is, so a mistake is named exactly.
    let e: string | z.output<typeof AllowObject>;
    if (typeof raw === 'string') e = raw;
    else {
      const parsed = AllowObject.safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.addIssue({
            code: 'custom',
            path: [i, ...(issue.path as (string | number)[])],
            message:
              typeof raw === 'object' && raw !== null
                ? issue.message
                : 'a host name, or {host, access: read|write, paths}',
          });
        return;
      }
      e = parsed.data;
    }
    const p = parsePattern(typeof e === 'string' ? e : e.host);
    if ('error' in p) {
      ctx.addIssue({ code: 'custom', path: typeof e === 'string' ? [i] : [i, 'host'], message: p.error });
      return;
    }
    // A host alone keeps its meaning: reads and writes, every path (the person's own list).
    if (typeof e === 'string') out.push({ ...p, access: 'write' });
    else
      out.push({
        ...p,
        entry: `${e.host} (${e.access}${e.paths ? ` ${e.paths.join(' ')}` : ''})`,
        access: e.access,
        ...(e.paths ? { paths: e.paths } : {}),
      });
  });
  return out;
});

const patternList = z.array(z.string()).transform((entries, ctx): HostPattern[] => {
  const out: HostPattern[] = [];
  entries.forEach((e, i) => {
    const p = parsePattern(e);
    if ('error' in p) ctx.addIssue({ code: 'custom', path: [i], message: p.error });
    else out.push(p);
  });
  return out;
});

/** `~/x` or an absolute path (a file read when the worker starts). */
const filePath = z
  .string()
  .min(1)
  .transform((p) => (p.startsWith('~/') ? join(homedir(), p.slice(2)) : p))
  .refine((p) => isAbsolute(p), 'an absolute path (or one starting with ~/)');

/** `name: 127.0.0.1:port`: only loopback targets, so a test can never send traffic anywhere else by this map. */
const resolveMap = z.record(z.string(), z.string()).transform((map, ctx) => {
  const out = new Map<string, { host: string; port: number }>();
  for (const [name, to] of Object.entries(map)) {
    const n = normalizeHost(name);
    const t = parseAuthority(to);
    if ('error' in n || n.ip !== 0) {
      ctx.addIssue({ code: 'custom', path: [name], message: `${JSON.stringify(name)} is not a host name` });
      continue;
    }
    const loopback = !('error' in t) && (t.host === '::1' || (isIP(t.host) === 4 && t.host.startsWith('127.')));
    if ('error' in t || !loopback) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `${JSON.stringify(to)}: give a loopback address and port (127.0.0.1:8443); this map is for tests`,
      });
      continue;
    }
    out.set(n.host, { host: t.host, port: t.port });
  }
  return out;
});

export const EgressSchema = z
  .strictObject({
    /**
     * Reached without asking; an entry without a port covers 80 and 443. A host name alone allows reads and writes;
     * `{host, access: read|write, paths}` limits it. Default: DEFAULT_ALLOW, for reading.
     */
    allow: allowList.prefault([DEFAULTS_ENTRY]),
    /** Always refused, before `allow`; an entry without a port covers every port. */
    deny: patternList.prefault([]),
    /** Never opened by the proxy (certificate-pinning clients): decided per host, like a host nobody read; every port when none is given. */
    passthrough: patternList.prefault([]),
    /** Headers the proxy adds to requests it allowed (a token the command uses but never holds); see credentials.ts. */
    credentials: CredentialsSchema,
    /** A PEM file of CA certificates the proxy trusts upstream besides the machine's (a private registry's CA). */
    upstream_ca_file: filePath.optional(),
    /** Tests only: a host name → a loopback host:port the proxy connects to instead of resolving the name. */
    resolve: resolveMap.prefault({}),
  })
  .prefault({});

export type EgressSettings = z.output<typeof EgressSchema>;

export type ListVerdict =
  | { verdict: 'deny'; entry: string }
  /** requests: what the entries allow depends on each request (read only, or some paths), so each is decided. */
  | { verdict: 'allow'; entry: string; requests?: true };

/**
 * What the policy says of a connection before anyone is asked: refused by deny, allowed by allow (host-wide, or
 * request by request), or undecided (ask). A passthrough host is never read, so only a host-wide write entry
 * allows it.
 */
export function listVerdict(
  s: Pick<EgressSettings, 'allow' | 'deny'> & Partial<Pick<EgressSettings, 'passthrough'>>,
  t: { host: string; port: number },
): ListVerdict | undefined {
  const denied = firstMatch(s.deny, t, 'any');
  if (denied) return { verdict: 'deny', entry: denied.entry };
  const matching = s.allow.filter((r) => firstMatch([r], t, 'web'));
  const whole = matching.find((r) => r.access === 'write' && !r.paths);
  if (whole) return { verdict: 'allow', entry: whole.entry };
  if (matching.length === 0 || isPassthrough(s, t)) return undefined;
  return { verdict: 'allow', entry: matching[0]!.entry, requests: true };
}

/** The allow entry covering one request the proxy read, or undefined (it is asked about). */
export function requestVerdict(
  s: Pick<EgressSettings, 'allow'>,
  t: { host: string; port: number },
  need: Access,
  path: string | undefined,
): AllowRule | undefined {
  return s.allow.find((r) => firstMatch([r], t, 'web') && entryCovers(r, need, path));
}

/** Whether the proxy leaves this host's traffic unread (egress.passthrough). */
export function isPassthrough(
  s: Partial<Pick<EgressSettings, 'passthrough'>>,
  t: { host: string; port: number },
): boolean {
  return firstMatch(s.passthrough ?? [], t, 'any') !== undefined;
}
