// What a sandboxed program asks the egress proxy to reach (a host and a port), read strictly: one spelling per host,
// so a policy entry, an approval and a log line all name the same thing. Worker-only (node:net, node:url).
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/** A host and port as the proxy handles them: a lower-case ASCII name, a dotted IPv4 or a bare IPv6 literal. */
export interface Target {
  host: string;
  port: number;
  /** 0 for a name, 4 or 6 for an IP literal. */
  ip: 0 | 4 | 6;
}

/** `host:port` as shown to a person and written in the log (`[v6]:port` for IPv6). */
export function targetText(t: Pick<Target, 'host' | 'port'>): string {
  return `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** A label inet_aton reads as a number (decimal, octal or hex): resolvers turn `127.1` or `0x7f000001` into an address. */
const NUMERIC = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/**
 * The host in its one spelling, or why it is refused. Names: IDN to punycode, lower case, one trailing dot dropped;
 * labels of letters, digits, `-` and `_`. Refused: numeric forms other than a dotted quad (`127.1`, `2130706433`,
 * `0x7f.0.0.1`: a resolver would read them as loopback), names whose last label is a number, IPv6 zone ids and
 * `localhost` names (RFC 6761: they are this machine).
 */
export function normalizeHost(raw: string): { host: string; ip: 0 | 4 | 6 } | { error: string } {
  let h = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  if (h.length === 0 || h.length > 255) return { error: 'an empty or over-long host name' };
  if (h.includes('%')) return { error: `${raw}: an IPv6 zone id (only global addresses are reached)` };
  const family = isIP(h);
  if (family === 4) {
    // Node accepts only the strict dotted quad; leading zeros (octal to some parsers) are refused too.
    if (h.split('.').some((o) => o.length > 1 && o.startsWith('0')))
      return { error: `${raw}: an IPv4 address with leading zeros` };
    return { host: h, ip: 4 };
  }
  if (family === 6) return { host: compressV6(h), ip: 6 };
  if (raw.startsWith('[')) return { error: `${raw}: not an IPv6 address` };
  if (h.endsWith('.')) h = h.slice(0, -1);
  const ascii = domainToASCII(h);
  if (ascii === '' || ascii.length > 253) return { error: `${raw}: not a valid host name` };
  const labels = ascii.split('.');
  if (labels.some((l) => !LABEL.test(l))) return { error: `${raw}: not a valid host name` };
  if (labels.every((l) => NUMERIC.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1]!))
    return { error: `${raw}: a numeric address in a form other than a dotted quad` };
  if (ascii === 'localhost' || ascii.endsWith('.localhost'))
    return { error: `${raw}: localhost is this machine, never reached through the proxy` };
  return { host: ascii, ip: 0 };
}

/** The canonical (RFC 5952) text of an IPv6 address, as the URL parser writes it. */
function compressV6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** A port given as text: 1 to 65535, decimal digits only. */
export function parsePort(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65_535 ? n : undefined;
}

/** `host:port` or `[v6]:port` (a CONNECT request's target): the target, or why it cannot be used. */
export function parseAuthority(text: string): Target | { error: string } {
  const m = /^(\[[^\]]*\]|[^:[\]]+):([^:]*)$/.exec(text);
  if (!m) return { error: `${JSON.stringify(text.slice(0, 200))} is not host:port` };
  return target(m[1]!, m[2]!);
}

/** A target from a host and a port as given (SOCKS, an absolute URL). */
export function target(host: string, port: string | number): Target | { error: string } {
  const p = typeof port === 'number' ? (port >= 1 && port <= 65_535 ? port : undefined) : parsePort(port);
  if (p === undefined) return { error: `port ${JSON.stringify(String(port))} is not a port from 1 to 65535` };
  const h = normalizeHost(host);
  if ('error' in h) return h;
  return { host: h.host, ip: h.ip, port: p };
}
