// The host's own network settings, beyond taking things down (network.ts): firewall rules that open an admin or
// database port (or every port) to any address, firewalls switched off (pf, the macOS application firewall), and the
// machine's DNS servers pointed elsewhere. Opening a web port, or an admin port to one network, stays ordinary. Pure.
import { ADMIN_PORT } from './grants.js';
import { show, when, whenArg, type Check, type CheckContext } from './types.js';
import { judges } from './registry.js';
import { keyTable } from '../engine/names.js';
import type { FirewallCheck } from '../programs/firewall/call.js';

/** A source that is every address (or none given). */
const ANY_SOURCE = /^(any|0\.0\.0\.0\/0|0\/0|::\/0|\*)$/i;

function open(cmd: Parameters<Check>[0], ctx: CheckContext, port: string | undefined): void {
  const what = port === undefined ? 'every port' : `port ${port}`;
  ctx.add('access-grant', `${show(cmd)} (${what} opened to every address)`);
}

/** Admin and database services by the names firewalls take for their ports. */
const SERVICE_PORTS = keyTable({
  ssh: '22',
  telnet: '23',
  mysql: '3306',
  'postgresql postgres': '5432',
  redis: '6379',
  mongodb: '27017',
  'rdp ms-wbt-server': '3389',
  vnc: '5900',
});
/** The ports a rule names, split on lists and ranges' ends (`22,80`, `5432:5440`, `3306/tcp`). */
const ports = (value: string): string[] =>
  value.split(/[,:]/).map((p) => SERVICE_PORTS[p.replace(/\/\w+$/, '')] ?? p.replace(/\/\w+$/, ''));
const admin = (value: string): boolean => ports(value).some((p) => ADMIN_PORT.test(p));

/**
 * An admin or database port (or every port) opened to any address: `iptables -A INPUT … -j ACCEPT` from no particular
 * source, nft `add rule … tcp dport 6379 accept` without a source address, `ufw allow 5432`.
 */
export const firewallOpens: FirewallCheck = ({ rule, text, ops: w }, cmd, _io, ctx) => {
  if (rule !== undefined) {
    if (!/^(append|insert|replace)$/.test(rule.command ?? '') || rule.target !== 'ACCEPT') return;
    if (!/^(INPUT|FORWARD|DOCKER-USER)$/.test(rule.chain ?? '')) return;
    if (rule.source !== undefined && !ANY_SOURCE.test(rule.source)) return;
    // Loopback, established connections and other matches narrow the rule; without a port it opens every port.
    if (!rule.narrowed && (rule.port === undefined || admin(rule.port))) open(cmd, ctx, rule.port);
    return;
  }
  // nft: a rule that accepts, with no source but every address; on a port (an admin one), or on every port.
  const nftRule = /\b(add|insert|replace)\s+rule\s+(.*)\baccept\b/.exec(text)?.[2];
  const narrowed = /\b(saddr\s+(?!0\.0\.0\.0\/0)|iifname\s+"?lo|ct\s+state|sport)\b/.test(nftRule ?? '');
  const dport = /\bdport\s+(\{[^}]*\}|\S+)/.exec(nftRule ?? '')?.[1];
  const inbound = /^\S+\s+\S+\s+(input|forward)\b/i.test(nftRule ?? '');
  if (nftRule !== undefined && !narrowed && (dport === undefined ? inbound : admin(dport.replace(/[{}\s]/g, ''))))
    open(cmd, ctx, dport);
  // ufw: `allow` (or `limit`, which allows at a rate) an admin port or service, or everything from anywhere.
  const allow = w.findIndex((x) => x === 'allow' || x === 'limit');
  if (cmd.name !== 'ufw' || allow < 0 || !/^(allow|limit|insert|prepend)$/.test(w[0] ?? '')) return;
  const rest = w.slice(allow + 1);
  const from = rest.indexOf('from');
  if (from >= 0 && !ANY_SOURCE.test(rest[from + 1] ?? '')) return;
  const port = rest.includes('port') ? rest[rest.indexOf('port') + 1] : rest.find((x) => /^\d/.test(x));
  const service = rest.find((x) => /^(ssh|OpenSSH|mysql|postgresql|postgres|redis|mongodb|telnet|vnc|rdp)$/i.test(x));
  if ((port !== undefined && admin(port)) || service !== undefined) open(cmd, ctx, port ?? service);
  else if (port === undefined && from >= 0 && rest.length <= 2) open(cmd, ctx, undefined);
};

const ADMIN_SERVICES = /^(mysql|postgresql|redis|mongodb|telnet|vnc-server|rdp|docker-swarm|etcd-client)$/;
/** firewall-cmd --add-port=3306/tcp, --add-service=mysql (a web port stays ordinary). */
const firewallCmd: Check = (cmd, _io, ctx) => {
  for (const a of cmd.args) {
    const m = /^--add-(port|service|rich-rule)=(.*)$/.exec(a.text);
    if (!m) continue;
    if (m[1] === 'port' && admin(m[2]!.replace(/-/g, ','))) open(cmd, ctx, m[2]);
    if (m[1] === 'service' && ADMIN_SERVICES.test(m[2]!)) open(cmd, ctx, m[2]);
  }
};

/** pfctl -d disables pf; the macOS application firewall switched off. */
const pfctl = whenArg('firewall-flush', /^-d$|^-F/);
const socketfilterfw = when(
  'firewall-flush',
  (w) =>
    w.some((x, i) => /^--(setglobalstate|setstealthmode|setblockall)$/.test(x) && w[i + 1] === 'off') ||
    w.includes('--add'),
);

/** DNS servers pointed elsewhere: networksetup, nmcli ipv4.dns, resolvectl dns IFACE ADDR, systemd-resolve --set-dns. */
const DNS_OPTION = /^[+-]?ipv[46]\.(dns|dns-search|ignore-auto-dns)$/;
const dns = when(
  'dns-change',
  (w, { name }) =>
    (name === 'networksetup' && w.some((x, i) => /^-setdnsservers$/i.test(x) && (w[i + 2] ?? 'Empty') !== 'Empty')) ||
    (name === 'nmcli' && w.some((x) => DNS_OPTION.test(x))) ||
    (name === 'resolvectl' && /^(dns|domain)$/.test(w[0] ?? '') && w.length >= 3) ||
    (name === 'systemd-resolve' && w.some((x) => /^--set-dns(=|$)/.test(x))),
);

judges(import.meta.url, {
  'firewall-cmd': firewallCmd,
  pfctl,
  socketfilterfw,
  'networksetup nmcli resolvectl systemd-resolve': dns,
});
