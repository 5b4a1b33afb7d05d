// Which addresses web_extract may fetch: http(s) only, and no loopback, private, link-local or other internal hosts. Worker-only.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
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
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  // The deprecated IPv4-compatible form (::a.b.c.d) reaches IPv4 hosts on some stacks.
  ['IPv4-compatible', '::', 96, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
];

const LISTS: ReadonlyArray<readonly [string, BlockList]> = RANGES.map(([kind, net, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return [kind, list] as const;
});

/** Raised when a URL or an address it resolves to is refused; the message is for the model. */
/**
 * Why `address` (an IP literal) may not be fetched, or undefined when it may. BlockList matches IPv4 rules against
 * IPv4-mapped IPv6 addresses (::ffff:127.0.0.1, ::ffff:7f00:1) too.
 */
export function blockedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) {
    if (list.check(address, type)) return `${address} is a ${kind} address`;
  }
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
