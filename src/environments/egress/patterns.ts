// The entries of terminal.local.sandbox.egress.allow and .deny: a host name, `*.domain`, an IP address, each with
// an optional `:port` or `:*`. Parsed once when the worker starts; matched for every connection. Worker-only.
import { normalizeHost, parsePort, type Target } from './target.js';

/** Ports an entry without one covers: allow lists the web's two; deny refuses them all. */
const WEB_PORTS: readonly number[] = [80, 443];

export interface HostPattern {
  /** As written, for the log and the approval's "allowed by" line. */
  entry: string;
  /** An exact host, or the domain whose subdomains `*.` covers (not the domain itself). */
  host: string;
  subdomains: boolean;
  /** undefined: the list's default (allow: 80 and 443; deny: every port); 'any' for `:*`. */
  port: number | 'any' | undefined;
}

/** One entry read, or what is wrong with it (the setting's error names the entry). */
export function parsePattern(entry: string): HostPattern | { error: string } {
  const text = entry.trim().toLowerCase();
  const m = /^(\*\.)?(\[[^\]]+\]|[^:[\]]+)(?::(\*|[0-9]+))?$/.exec(text);
  if (!m) return { error: `${JSON.stringify(entry)}: a host name, *.domain or IP address, with :port or :* if needed` };
  const h = normalizeHost(m[2]!);
  if ('error' in h) return h;
  if (m[1] && h.ip !== 0) return { error: `${JSON.stringify(entry)}: *. goes before a domain name, not an address` };
  let port: HostPattern['port'];
  if (m[3] === '*') port = 'any';
  else if (m[3] !== undefined) {
    port = parsePort(m[3]);
    if (port === undefined) return { error: `${JSON.stringify(entry)}: ${m[3]} is not a port from 1 to 65535` };
  }
  return { entry, host: h.host, subdomains: Boolean(m[1]), port };
}

function hostMatches(p: HostPattern, host: string): boolean {
  return p.subdomains ? host.endsWith(`.${p.host}`) : host === p.host;
}

/** The first entry covering the target, for a list whose port-less entries cover `defaultPorts`. */
export function firstMatch(
  patterns: readonly HostPattern[],
  t: Pick<Target, 'host' | 'port'>,
  defaultPorts: 'web' | 'any',
): HostPattern | undefined {
  return patterns.find((p) => {
    if (!hostMatches(p, t.host)) return false;
    if (p.port === 'any') return true;
    if (p.port === undefined) return defaultPorts === 'any' || WEB_PORTS.includes(t.port);
    return p.port === t.port;
  });
}

/** Exact host names in a list (no `*.`, no address): the names a deny list can be checked against by address. */
export function exactNames(patterns: readonly HostPattern[]): string[] {
  return patterns.filter((p) => !p.subdomains && !/^[0-9.]+$|:/.test(p.host)).map((p) => p.host);
}
