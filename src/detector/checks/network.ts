// Network and power: interfaces and routes taken down or flushed, network managers and radios off, firewall
// default-deny policies and DROP rules, suspend/hibernate/kexec. Showing state stays ordinary. Pure.
import { parseFlags } from '../engine/argv.js';
import { always, show, unlessArg, when, whenArg, type Check } from './types.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';
import type { FirewallCheck } from '../programs/firewall/call.js';

/** ip OBJECT VERB ...: the object may be abbreviated (`ip r del`, `ip a flush`). */
const IP_FLUSHED =
  /^(a|ad|add|addr|addre|addres|address|r|ro|rou|rout|route|n|ne|nei|neigh|ru|rule|netns|tunnel|xfrm)$/;

const ip = when('network-down', (_w, cmd) => {
  const words = parseFlags(cmd.args, ['-n', '-netns', '-b', '-batch', '-f', '-family']).operands.map((o) => o.text);
  const [object = '', verb = ''] = words;
  return (
    (/^(l|li|lin|link)$/.test(object) && (/^(del|delete)$/.test(verb) || (verb === 'set' && words.includes('down')))) ||
    (IP_FLUSHED.test(object) && /^(del|delete|flush|f)$/.test(verb)) ||
    (/^(r|ro|rou|rout|route)$/.test(object) && /^(replace|change|add|append)$/.test(verb) && words[2] === 'default')
  );
});

/** nmcli networking off, radio ... off, connection down/delete, device disconnect/delete. */
const nmcli = when('network-down', (_w, cmd) => {
  const flags = parseFlags(cmd.args, names(`-f --fields -g --get-values -w --wait -c --colors -e --escape`));
  const [object = '', verb = ''] = flags.operands.map((o) => o.text);
  return (
    (/^(n|networking|r|radio|g|general)/.test(object) && flags.operands.some((o) => o.text === 'off')) ||
    (/^c/.test(object) && /^(down|delete|del)$/.test(verb)) ||
    (/^d/.test(object) && /^(disconnect|delete|down)$/.test(verb))
  );
});

/** Rules that drop traffic (`iptables -A INPUT -j DROP`, nft `… drop`, `ufw deny`), default-deny policies, ufw rules deleted. */
export const firewallDrops: FirewallCheck = ({ rule, text, ops: w }, cmd, _io, ctx) => {
  // Blocking one address or network (`-s 203.0.113.5 -j DROP`, `ufw deny from …`) is ordinary hygiene.
  const oneSource =
    (rule?.source !== undefined && !/^(0\.0\.0\.0|::)?\/0$|^0\/0$/.test(rule.source)) ||
    /\bsaddr\s+(?!0\.0\.0\.0\/0)\S/.test(text) ||
    (cmd.name === 'ufw' && w[0] !== 'delete' && w.includes('from') && !w.includes('any'));
  const drops =
    (rule !== undefined &&
      /^(DROP|REJECT)$/.test(rule.target ?? '') &&
      /^(policy|append|insert|replace)$/.test(rule.command ?? '')) ||
    /\b(add|insert|replace)\s+rule\b.*\b(drop|reject)\b/.test(text) ||
    /\bpolicy\s+drop\b/.test(text) ||
    (cmd.name === 'ufw' &&
      ((w[0] === 'default' && /^(deny|reject)$/.test(w[1] ?? '')) ||
        /^(deny|reject|delete)$/.test(w[0] ?? '') ||
        (w[0] === 'insert' && w.some((x) => x === 'deny' || x === 'reject'))));
  if (drops && !(oneSource && rule?.command !== 'policy')) ctx.add('firewall-flush', show(cmd));
};

/** ssh's one-letter options that take a value (`-i key`, `-p 22`, `-Fconfig`). */
const SSH_VALUED = 'BbcDEeFIiJLlmOoPpQRSWw';

/** ssh -R (and -R in a combined flag word): a port of this side is opened on the remote side, for whoever is there. */
const sshRemoteForward: Check = (cmd, _io, ctx) => {
  for (let i = 0; i < cmd.args.length; i += 1) {
    const t = cmd.args[i]!.text;
    if (!t.startsWith('-')) break; // the host: what follows is the remote command
    if (t.startsWith('--')) continue;
    // Flags up to the first that takes a value; the value is the rest of the word or the next word.
    const at = [...t.slice(1)].findIndex((c) => SSH_VALUED.includes(c)) + 1;
    const flags = at > 0 ? t.slice(1, at + 1) : t.slice(1);
    const value = at > 0 ? t.slice(at + 1) || cmd.args[(i += 1)]?.text : undefined;
    // -D/-L bound to every interface (`-D 0.0.0.0:1080`, `-g`): a proxy or forward into this network for anyone.
    const bound = /[DL]$/.test(flags) && /^(0\.0\.0\.0|\*|\[::\]|::):/.test(value ?? '');
    if (bound || /[gR]/.test(flags) || (flags.endsWith('o') && /^\s*RemoteForward/i.test(value ?? '')))
      return ctx.add('expose-service', show(cmd));
  }
};

judges(
  import.meta.url,
  {
    ssh: sshRemoteForward,
    // ngrok tcp/tls, cloudflared --url ssh://..., bore local: a raw port (a shell's, SSH's, a database's) made public.
    'ngrok cloudflared bore': when(
      'expose-service',
      (w, cmd) =>
        (cmd.name === 'ngrok' && /^(tcp|tls)$/.test(w[0] ?? '')) ||
        (cmd.name === 'cloudflared' && w.some((t) => /^(--url=?)?(ssh|tcp|rdp|smb):\/\//.test(t))) ||
        (cmd.name === 'bore' && w[0] === 'local'),
    ),
    ip,
    ifconfig: whenArg('network-down', /^down$/),
    route: whenArg('network-down', /^(del|flush|-F)$/),
    'ifdown if-down': always('network-down'),
    nmcli,
    rfkill: whenArg('network-down', /^block$/),
    // Panic mode, a dropping default zone, removing services or ports (SSH).
    'firewall-cmd': whenArg(
      'firewall-flush',
      /^--(panic-on|set-default-zone=(drop|block)|remove-service|remove-port|remove-interface|remove-source|complete-reload)|^--set-target=(DROP|REJECT|%%REJECT%%)/,
    ),
    'iptables-restore ip6tables-restore': unlessArg('firewall-flush', /^(-t|--test)$/),
    'systemd-sleep': always('shutdown'),
    kexec: whenArg('shutdown', /^-[a-zA-Z]*e$|^--exec$|^-f$|^--force$/),
  },
  { claims: true },
);
