// Addresses the egress proxy never connects to, whatever was approved: this machine (loopback, its own interfaces,
// where the worker and the Temporal dev server listen), link-local (cloud metadata services), multicast and reserved
// ranges. Private networks stay reachable once a host on them is allowed. Worker-only (node:net, node:os).
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { embeddedIPv4 } from './embedded-ipv4.js';

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

let own: { at: number; list: BlockList } | undefined;

/** This machine's interface addresses, read again at most every 10 s (an interface may come up later). */
function ownAddresses(): BlockList {
  if (own && Date.now() - own.at < 10_000) return own.list;
  const list = new BlockList();
  for (const infos of Object.values(networkInterfaces())) {
    for (const i of infos ?? []) {
      const address = i.address.split('%')[0]!;
      if (isIP(address)) list.addAddress(address, i.family === 'IPv4' ? 'ipv4' : 'ipv6');
    }
  }
  own = { at: Date.now(), list };
  return list;
}

/** Why the proxy refuses to connect to `address` (an IP literal), or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [kind, list] of LISTS) if (list.check(address, type)) return `${address} is a ${kind} address`;
  if (ownAddresses().check(address, type)) return `${address} is an address of this machine`;
  // NAT64, 6to4 and Teredo forms reach the IPv4 address they carry: judged as it.
  for (const inner of family === 6 ? embeddedIPv4(address) : []) {
    const reason = refusedAddress(inner);
    if (reason) return `${address} carries ${inner} (${reason.slice(inner.length + 1)})`;
  }
  return undefined;
}
