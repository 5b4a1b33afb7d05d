// Which addresses web_extract may fetch: http(s) only, and no loopback, private, link-local or other internal hosts. Worker-only.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { TetherError } from '../common/errors.js';

/** The kinds of address a model must not reach unless `web.allow_private` says so; checked in this order. */
const RANGES: ReadonlyArray<readonly [kind: string, net: string, prefix: number, family: 'ipv4' | 'ipv6']> = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['carrier-grade NAT', '100.64.0.0', 10, 'ipv4'],
  // Protocol assignments (192.0.0.0/24: NAT64 discovery, DS-Lite) and the three documentation networks: never a
  // public web server, sometimes routed inside a provider's network.
  ['special-purpose', '192.0.0.0', 24, 'ipv4'],
  ['documentation', '192.0.2.0', 24, 'ipv4'],
  ['documentation', '198.51.100.0', 24, 'ipv4'],
  ['documentation', '203.0.113.0', 24, 'ipv4'],
  // RFC 2544's benchmarking range: used for lab and internal networks (some clouds route it privately).
  ['benchmarking', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  // The deprecated IPv4-compatible form (::a.b.c.d) reaches IPv4 hosts on some stacks.
  ['IPv4-compatible', '::', 96, 'ipv6'],
  // SIIT's IPv4-translated form (::ffff:0:a.b.c.d) and the local-use NAT64 prefix: both reach IPv4 hosts of a
  // translator's own network.
  ['IPv4-translated', '::ffff:0:0:0', 96, 'ipv6'],
  ['local-use NAT64', '64:ff9b:1::', 48, 'ipv6'],
  ['discard-only', '100::', 64, 'ipv6'],
  ['documentation', '2001:db8::', 32, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  // Deprecated site-local addresses: still routed inside some sites.
  ['site-local', 'fec0::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const LISTS: ReadonlyArray<readonly [string, BlockList]> = RANGES.map(([kind, net, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return [kind, list] as const;
});

/** The eight 16-bit groups of an IPv6 address (a valid one, as isIP said), an embedded dotted IPv4 included. */
function groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

const ipv4 = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries to a translator or tunnel: NAT64's well-known prefix (64:ff9b::/96,
 * the last 32 bits), 6to4 (2002::/16, bits 16-47) and Teredo (2001::/32: the server in bits 32-63, the client
 * inverted in the last 32). Each reaches that IPv4 host, so each is judged as it.
 */
export function embeddedIPv4(address: string): string[] {
  const g = groups(address);
  if (g.length !== 8) return [];
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return [ipv4(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [ipv4(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4(g[2]!, g[3]!), ipv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}

/**
 * One spelling per address, to compare this machine's addresses with a literal: IPv4 dotted, an IPv4-mapped IPv6
 * address as its IPv4 address, any other IPv6 address as its eight groups in full.
 */
function canonical(address: string): string {
  if (isIP(address) !== 6) return address;
  const g = groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return ipv4(g[6]!, g[7]!);
  return g.map((x) => x.toString(16)).join(':');
}

/** Every address of this machine's interfaces, read when asked (addresses come and go). */
function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(canonical(a.address));
  return out;
}

/**
 * Why `address` (an IP literal) may not be fetched, or undefined when it may. BlockList matches IPv4 rules against
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1, ::ffff:7f00:1) too. An address of this machine is refused whatever
 * its range (a public address of this host reaches its services as loopback would), and so is an IPv6 address that
 * carries a refused IPv4 address to a translator or tunnel.
 */
export function blockedAddressReason(address: string, own: () => Set<string> = ownAddresses): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) {
    if (list.check(address, type)) return `${address} is a ${kind} address`;
  }
  if (family === 6) {
    for (const inner of embeddedIPv4(address)) {
      const reason = blockedAddressReason(inner, own);
      if (reason) return `${address} carries ${inner} (${reason.slice(inner.length + 1)})`;
    }
  }
  if (own().has(canonical(address))) return `${address} is an address of this machine`;
  return undefined;
}

/** The URL when its scheme may be fetched; throws a Web.AddressRefused TetherError for a malformed URL or another scheme. */
export function parseFetchableUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TetherError('Web.AddressRefused', `${JSON.stringify(raw)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TetherError(
      'Web.AddressRefused',
      `only http and https URLs can be fetched, not ${url.protocol} (${raw})`,
    );
  }
  return url;
}

/** A URL's host without the brackets of an IPv6 literal. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Throws a Web.AddressRefused TetherError when the host of `url` is an IP literal the policy refuses (names skip this: see guardedLookup). */
export function checkLiteralHost(url: URL, allowPrivate: boolean): void {
  const host = bareHost(url);
  if (allowPrivate || isIP(host) === 0) return;
  const reason = blockedAddressReason(host);
  if (reason)
    throw new TetherError(
      'Web.AddressRefused',
      `refused to fetch ${url.href}: ${reason} (set web.allow_private to allow it)`,
    );
}

/**
 * A `lookup` for http.request that resolves every address of a name and refuses the connection when any of them is
 * internal. The socket connects to the addresses checked here, so a DNS answer that changes between a check and the
 * connect (rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      if (!allowPrivate) {
        for (const a of addresses) {
          const reason = blockedAddressReason(a.address);
          if (reason) {
            return callback(
              new TetherError(
                'Web.AddressRefused',
                `refused to fetch from ${hostname}: it resolves to ${reason} (set web.allow_private to allow it)`,
              ),
              [],
            );
          }
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
