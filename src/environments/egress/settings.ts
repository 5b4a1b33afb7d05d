// The `terminal.local.sandbox.egress` section: which hosts a sandboxed command reaches without asking (allow), which
// never (deny), and, for tests only, host names mapped to loopback stand-ins (resolve). Worker-only.
import { isIP } from 'node:net';
import { z } from 'zod';
import { firstMatch, parsePattern, type HostPattern } from './patterns.js';
import { normalizeHost, parseAuthority } from './target.js';

/**
 * The package registries a developer needs, reached without asking (ports 80 and 443): npm, PyPI (index and files),
 * crates.io (index and downloads), Maven Central, Debian and Ubuntu archives. Not the Go module proxy or checksum
 * database: they fetch any module path from its own host on request, so a request to them carries data to a host
 * nobody allowed. docs/sandbox.md lists them; keep the two in step.
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

const patternList = (what: 'allow' | 'deny') =>
  z.array(z.string()).transform((entries, ctx): HostPattern[] => {
    const out: HostPattern[] = [];
    entries.forEach((e, i) => {
      if (what === 'allow' && e.trim() === DEFAULTS_ENTRY) {
        out.push(...DEFAULT_ALLOW.map((d) => parsePattern(d) as HostPattern));
        return;
      }
      const p = parsePattern(e);
      if ('error' in p) ctx.addIssue({ code: 'custom', path: [i], message: p.error });
      else out.push(p);
    });
    return out;
  });

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
    /** Reached without asking; an entry without a port covers 80 and 443. Default: DEFAULT_ALLOW. */
    allow: patternList('allow').prefault([...DEFAULT_ALLOW]),
    /** Always refused, before `allow`; an entry without a port covers every port. */
    deny: patternList('deny').prefault([]),
    /** Tests only: a host name → a loopback host:port the proxy connects to instead of resolving the name. */
    resolve: resolveMap.prefault({}),
  })
  .prefault({});

export type EgressSettings = z.output<typeof EgressSchema>;

/** What the policy says before anyone is asked: refused by deny, allowed by allow, or undecided (ask). */
export function listVerdict(
  s: Pick<EgressSettings, 'allow' | 'deny'>,
  t: { host: string; port: number },
): { verdict: 'deny' | 'allow'; entry: string } | undefined {
  const denied = firstMatch(s.deny, t, 'any');
  if (denied) return { verdict: 'deny', entry: denied.entry };
  const allowed = firstMatch(s.allow, t, 'web');
  if (allowed) return { verdict: 'allow', entry: allowed.entry };
  return undefined;
}
