// Addresses the egress proxy never connects to, whatever was approved: this machine (loopback, its own interfaces,
// where the worker and the Temporal dev server listen), link-local (cloud metadata services), multicast and reserved
// ranges. Private networks stay reachable once a host on them is allowed. Worker-only (node:net, node:os).
import { BlockList, isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { embeddedIPv4, groups } from './embedded-ipv4.js';

const RANGES: ReadonlyArray<readonly [kind: string, net: string, prefix: number, family: 'ipv4' | 'ipv6']> = [
  ['unspecified (this machine)', '0.0.0.0', 8, 'ipv4'],
  ['loopback (this machine)', '127.0.0.0', 8, 'ipv4'],
  ['link-local (cloud metadata lives here)', '169.254.0.0', 16, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved or broadcast', '240.0.0.0', 4, 'ipv4'],
  ['unspecified (this machine)', '::', 128, 'ipv6'],
  ['loopback (this machine)', '::1', 128, 'ipv6'],
  // ::a.b.c.d reaches IPv4 hosts on some stacks: it would be a second spelling of every address above.
  ['IPv4-compatible', '::', 96, 'ipv6'],
  // SIIT's IPv4-translated form and the local-use NAT64 prefix: IPv4 hosts of a translator's own network.
  ['IPv4-translated', '::ffff:0:0:0', 96, 'ipv6'],
  ['local-use NAT64', '64:ff9b:1::', 48, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['a cloud metadata service', 'fd00:ec2::254', 128, 'ipv6'],
];

// BlockList checks IPv4 rules against IPv4-mapped IPv6 addresses too (::ffff:127.0.0.1).
const LISTS: ReadonlyArray<readonly [string, BlockList]> = RANGES.map(([kind, net, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return [kind, list] as const;
});

/** One spelling per address: IPv4 dotted (an IPv4-mapped IPv6 address too), IPv6 as eight hex groups. */
function addressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const g = groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)
    return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return g.map((x) => x.toString(16)).join(':');
}

/** This machine's addresses of each family as last read. */
const own: { ipv4?: ReadonlySet<string>; ipv6?: ReadonlySet<string> } = {};

/**
 * Whether `address` is one of this machine's addresses. A miss reads that family's again: an interface that came up
 * after the last read (a VPN, a container bridge) is this machine from its first moment, and an allowed name resolving
 * to it reaches nothing (a list kept for seconds let it through; found by the attack pass).
 */
function ownAddress(address: string): boolean {
  const key = addressKey(address);
  const family = isIP(key) === 4 ? 'ipv4' : 'ipv6';
  if (own[family]?.has(key)) return true;
  own[family] = new Set(readOwnAddresses(family).map(addressKey));
  return own[family].has(key);
}

/**
 * On Linux every address of the family the kernel takes as local (an address on an interface without carrier,
 * docker0 with no container or an idle VPN link, still reaches this machine's services, and os.networkInterfaces()
 * leaves it out): the LOCAL leaves of /proc/net/fib_trie, the addresses of /proc/net/if_inet6. Elsewhere the
 * interfaces' addresses.
 */
function readOwnAddresses(family: 'ipv4' | 'ipv6'): string[] {
  const out: string[] = [];
  try {
    if (family === 'ipv4') {
      // A leaf "|-- 10.1.2.3" followed by "/32 host LOCAL" is an address of this machine.
      let leaf = '';
      for (const line of readFileSync('/proc/net/fib_trie', 'utf8').split('\n')) {
        const ip = /\|-- (\d+\.\d+\.\d+\.\d+)$/.exec(line)?.[1];
        if (ip) leaf = ip;
        else if (leaf && line.includes('/32 host LOCAL')) out.push(leaf);
      }
    } else {
      // The address as 32 hex digits first on each line.
      for (const line of readFileSync('/proc/net/if_inet6', 'utf8').split('\n')) {
        const hex = /^([0-9a-f]{32})\s/.exec(line)?.[1];
        if (hex) out.push(hex.match(/.{4}/g)!.join(':'));
      }
    }
    return out;
  } catch {
    // Not Linux (or IPv6 off, where no IPv6 address reaches this machine but ::1, which the ranges hold).
    const wanted = family === 'ipv4' ? 'IPv4' : 'IPv6';
    return Object.values(networkInterfaces())
      .flatMap((infos) => infos ?? [])
      .filter((i) => i.family === wanted)
      .map((i) => i.address.split('%')[0]!)
      .filter((a) => isIP(a) !== 0);
  }
}

/** Why the proxy refuses to connect to `address` (an IP literal), or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) if (list.check(address, type)) return `${address} is a ${kind} address`;
  if (ownAddress(address)) return `${address} is an address of this machine`;
  // NAT64, 6to4 and Teredo forms reach the IPv4 address they carry: judged as it.
  for (const inner of family === 6 ? embeddedIPv4(address) : []) {
    const reason = refusedAddress(inner);
    if (reason) return `${address} carries ${inner} (${reason.slice(inner.length + 1)})`;
  }
  return undefined;
}
