// Checks for commands that act on the machine: formatting and partitioning disks, services, shutdown, firewalls,
// cron, killing processes. Pure.
import { has, parseFlags } from '../engine/argv.js';
import { always, show, stdinText, unlessArg, when, whenArg, type Check } from './types.js';
import { SHARED_DIR } from './wrappers.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';
import type { SystemdCheck } from '../programs/systemd/call.js';
import type { FirewallCheck } from '../programs/firewall/call.js';

/** Formatting a device; formatting an image file (mkfs.ext4 disk.img, mkswap ./swapfile) is ordinary. */
const format: Check = (cmd, _io, ctx) => {
  const ops = parseFlags(cmd.args, names(`-t -L -b -N -m -O -E -U -I -i -n -c -p -s`)).operands;
  if (ops.some((o) => o.dynamic || o.text.startsWith('/dev/'))) ctx.add('format-filesystem', show(cmd));
};

const wipefs: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-o', '--offset', '-t', '--types', '-b', '--backup']);
  if (has(f, 'afo', '--all', '--force', '--offset')) ctx.add('format-filesystem', show(cmd));
};

/** Partitioning tools, except when they only list (fdisk -l, parted -l / print, sgdisk -p). */
function partition(listing: { short: string; long: string[]; words?: string[] }): Check {
  return (cmd, _io, ctx) => {
    const f = parseFlags(cmd.args);
    const destructive =
      [...f.long].some((l) => /^--(zap|zap-all|delete|new|clear|largest-new|mbrtogpt|load-backup|replicate)/.test(l)) ||
      [...'ZzdnoN'].some((c) => cmd.name === 'sgdisk' && f.short.has(c));
    if (!destructive && has(f, listing.short, ...listing.long)) return;
    if (
      listing.words &&
      f.operands.some((w) => listing.words!.includes(w.text.toLowerCase())) &&
      !f.operands.some((w) => /^(mklabel|mkpart|rm|resizepart|mkpartfs)$/.test(w.text))
    )
      return;
    if (f.operands.length === 0 && cmd.args.length === 0) return;
    ctx.add('partition-disk', show(cmd));
  };
}

/**
 * systemctl stopping the machine's services (the user's own units, `--user`, are not the system's), the machine
 * powered off, rebooted or put to sleep (systemctl or loginctl), a unit enabled from a directory anyone can write to.
 */
export const systemdStopsOrPowers: SystemdCheck = ({ verb, targets, user }, cmd, _io, ctx) => {
  if (!verb) return;
  if (
    (/^(start|isolate|restart)$/.test(verb) &&
      targets.some((u) => /^(poweroff|reboot|halt|kexec|rescue|emergency)\.target$/.test(u))) ||
    /^(poweroff|reboot|halt|kexec|rescue|emergency|soft-reboot|suspend|hibernate|hybrid-sleep|suspend-then-hibernate|sleep)$/.test(
      verb,
    )
  )
    ctx.add('shutdown', show(cmd));
  if (/^(stop|disable|mask|kill|isolate|freeze)$/.test(verb) && !user) ctx.add('service-stop', show(cmd));
  // `systemctl clean --what=state postgresql`: the service's state, cache or log directories deleted.
  if (verb === 'clean') ctx.add('resource-delete', `${show(cmd)} (the service's own data)`);
  // A unit file linked or enabled from a directory anyone can write to runs whatever is put there.
  if (/^(enable|link|start|restart|reenable)$/.test(verb) && targets.some((u) => SHARED_DIR.test(u)))
    ctx.add('schedule-unchecked', show(cmd));
};

const service = whenArg('service-stop', /^(stop|disable|--stop)$/);

/** /etc/init.d/NAME stop (the script's base name is the service): checked by where it lives. */
export function initScriptCheck(written: string): Check | undefined {
  return /^\/etc\/(init\.d|rc\.d)\//.test(written)
    ? (cmd, _io, ctx) => (cmd.args[0]?.text === 'stop' ? ctx.add('service-stop', show(cmd)) : undefined)
    : undefined;
}

const shutdown: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args);
  if (!(cmd.name === 'shutdown' && has(f, 'c', '--cancel')) && !has(f, '', '--help')) ctx.add('shutdown', show(cmd));
};

/** Firewall rules flushed, tables or chains deleted, a policy of accept, the firewall disabled or reset. */
export const firewallOff: FirewallCheck = ({ rule, text, ops }, cmd, _io, ctx) => {
  const off =
    (rule !== undefined && (rule.flush || (rule.command === 'policy' && rule.target === 'ACCEPT'))) ||
    /\b(flush\s+(ruleset|table|chain)|(delete|destroy)\s+(table|chain))\b|\bpolicy\s+accept\b/.test(text) ||
    (cmd.name === 'ufw' && ops.some((w) => w === 'disable' || w === 'reset')) ||
    // `ufw default allow [incoming|routed]`: everything comes in (allowing outgoing is the usual default).
    (cmd.name === 'ufw' && ops[0] === 'default' && ops[1] === 'allow' && ops[2] !== 'outgoing');
  if (off) ctx.add('firewall-flush', show(cmd));
};

/** The command of each crontab line: after `@reboot`-style specials or five time fields (and a user in system tables). */
function cronCommands(table: string): string[] {
  const out: string[] = [];
  for (const raw of table.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    const m = /^(?:@\w+|(?:\S+\s+){4}\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    out.push(m[1]!);
    // /etc/crontab and cron.d lines name a user first: judge the rest as well.
    const user = /^[a-z_][a-z0-9_-]*\s+(.*)$/.exec(m[1]!);
    if (user) out.push(user[1]!);
  }
  return out;
}

const crontab: Check = (cmd, io, ctx) => {
  const f = parseFlags(cmd.args, ['-u']);
  if (has(f, 'r', '--remove')) ctx.add('crontab-remove', show(cmd));
  if (has(f, 'le', '--list', '--edit')) return;
  // Installing a table replaces every job: an empty one deletes them; a file or computed text cannot be checked.
  const file = f.operands[0]?.text;
  if (file === undefined) return;
  const text = file === '-' ? stdinText(io) : undefined;
  if (file === '/dev/null' || (text !== undefined && text.trim() === '')) ctx.add('crontab-remove', show(cmd));
  else if (text === undefined) ctx.add('schedule-unchecked', show(cmd));
  else
    for (const c of cronCommands(text)) {
      ctx.script(c);
      // A job that runs a program from a directory anyone can write to runs whatever is put there.
      if (SHARED_DIR.test(c.split(/\s+/)[0] ?? '')) ctx.add('schedule-unchecked', show(cmd));
    }
};

const SIGNAL = /^-(\d+|[A-Z][A-Z0-9+-]*)$/;

const kill: Check = (cmd, io, ctx) => {
  const args = cmd.args.map((a) => a.text);
  if (args.some((a) => a === '-l' || a === '-L' || a === '--list')) return;
  // A lone `kill -1` is ambiguous (signal 1 to nothing, or everything): treated as kill-all.
  if (args.length === 1 && args[0] === '-1') return ctx.add('kill-all', show(cmd));
  let i = 0;
  if (args[0] === '-s' || args[0] === '-n' || args[0] === '--signal') i = 2;
  else if (args[0] !== undefined && (SIGNAL.test(args[0]) || args[0].startsWith('--signal='))) i = 1;
  const targets = args.slice(i).filter((a) => a !== '--');
  if (targets.includes('-1')) ctx.add('kill-all', show(cmd));
  // Process ids from standard input (ps ... | xargs kill): any process at all, unless they are a dev server's port.
  const from = io.upstream.length === 1 ? io.upstream[0]!.argv : null;
  const lister = from ? [from.written, ...from.args.map((a) => a.text)].join(' ') : '';
  if (cmd.viaXargs && !devPortListener(lister)) ctx.add('mass-kill', `${show(cmd)} (process ids from xargs)`);
  const signal = i === 2 ? args[1] : i === 1 ? args[0]!.replace(/^--signal=/, '') : undefined;
  if (signal === '0' || signal === '-0') return;
  if (targets.includes('1')) ctx.add('kill-init', show(cmd));
  // A list computed by pgrep, pidof, ps, lsof or a text filter: whatever processes match a name or user (unless the
  // list is the agent's own user's processes narrowed further: `lsof -t -a -i :8000 -u "$USER"`, `pgrep -u "$USER" -f x`).
  const subs = cmd.args.slice(i).flatMap((w) => w.substitutions.map((n) => n.text));
  if (
    subs.some(
      (t) => COMPUTED_PIDS.test(t) && !ownNarrowed(t) && !ownPgrep(t) && !devPortListener(t.replace(/^\$\(|\)$/g, '')),
    )
  )
    ctx.add('mass-kill', show(cmd));
};

/** Ports of shared services (databases, queues, caches) that a dev server does not use. */
const SERVICE_PORTS = new Set([3306, 5432, 5433, 6379, 27017, 9200, 9300, 11211, 5672, 15672, 9092, 2181, 8500, 2379]);
/** An unprivileged port that no shared service uses: a dev server's. */
const devPort = (port: string): boolean => Number(port) >= 1024 && !SERVICE_PORTS.has(Number(port));

/**
 * `lsof -ti tcp:5173`, `lsof -t -i :3000`: the process listening on one unprivileged port, the dev server the agent
 * started; a privileged port (< 1024) or a database's port is a system service.
 */
function devPortListener(text: string): boolean {
  const m = /^\s*lsof\s+(.*)$/.exec(text);
  if (!m || /[|;&`$]/.test(m[1]!) || !/(^|\s)-[a-zA-Z]*t/.test(m[1]!)) return false;
  const ports = [...m[1]!.matchAll(/(?:^|\s)-[a-zA-Z]*i\s*(?:tcp|udp|TCP|UDP)?(?:@[\w.-]+)?:(\d+)(?=\s|$)/g)];
  return ports.length > 0 && ports.every((p) => devPort(p[1]!));
}

/** `-u "$USER"`, `-u $(whoami)`, `-u "$(id -un)"`: the user running the command. */
const OWN_USER = /(^|\s)-u\s*"?(\$\{?(USER|LOGNAME)\}?|\$\((whoami|id -un?)\))"?(\s|$|\))/;

/** A process list limited to the agent's own user and narrowed by a port (lsof -a -i) or a pattern (pgrep PATTERN). */
function ownNarrowed(text: string): boolean {
  if (!OWN_USER.test(text) || /[|;&]/.test(text)) return false;
  if (/^\$\(\s*lsof\b/.test(text)) return /\s-a\b|\s-[a-zA-Z]*a/.test(text) && /\s-i\s*\S/.test(text);
  return /^\$\(\s*pgrep\b/.test(text) && /\s(-f\s+)?['"]?[\w./-][^)]*\)$/.test(text.replace(OWN_USER, ' '));
}

const COMPUTED_PIDS = /\b(pgrep|pidof|ps|lsof|awk|grep|jobs|fuser|pstree)\b/;

/**
 * A command line that names what the agent started, not every instance of a program: a script file or a path
 * (`node server.js`, `./bin/dev`), an application of the project by its entry point (`uvicorn app.main:app`,
 * `gunicorn proj.wsgi:application`), or a dev server on one unprivileged port (`vite --port 5173`, `:4000`).
 */
function ownCommandLine(pattern: string): boolean {
  const SCRIPT =
    /(^|[\s/])[\w.-]+\.(js|mjs|cjs|ts|mts|tsx|py|rb|php|pl|go|jar|sh|exs?)(\s|$)|(^|\s)\.{0,2}\/[\w.-]+\/|\s[A-Za-z_][\w.]*:[A-Za-z_]\w*(\s|$)/;
  const port = /(--port[= ]|-p\s|:)(\d{4,5})\b/.exec(pattern);
  return SCRIPT.test(pattern) || (port !== null && devPort(port[2]!) && /\w+\s/.test(pattern));
}

/** `$(pgrep -f 'node server.js --port 4000')`: the agent's own process, by a command line that names it. */
function ownPgrep(text: string): boolean {
  const m = /^\$\(\s*pgrep\s+(?:-[a-zA-Z]*f[a-zA-Z]*\s+)(?:-[a-zA-Z]+\s+)*(['"])([^'"]+)\1\s*\)$/.exec(text);
  return m !== null && ownCommandLine(m[2]!);
}

/** pkill signals every process whose name (or command line, or user) matches: only signal 0 (a probe) is harmless. */
const pkill: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, names(`-u -U -g -G -P -s -t --signal --euid --uid --parent --session`));
  if (cmd.args.some((a) => a.text === '-0' || a.text === '--signal=0') || f.values.get('--signal') === '0') return;
  // The agent's own user's processes matching a pattern (`pkill -u "$USER" -f 'jest --watch'`): its own tools.
  const user = f.values.get('-u') ?? f.values.get('--euid') ?? f.values.get('-U') ?? f.values.get('--uid');
  if (user !== undefined && OWN_USER.test(`-u ${user}`) && f.operands.length > 0) return;
  // `pkill -f 'node server.js'`, `pkill -f ./bin/dev`: a command line naming a script file or path the agent started,
  // not every instance of a program (`pkill -f gunicorn`, `pkill -f 'npm run'`).
  const full = cmd.args.some((a) => /^-[a-zA-Z]*f$|^--full$/.test(a.text));
  if (full && user === undefined && f.operands.length > 0 && f.operands.every((o) => ownCommandLine(o.text))) return;
  ctx.add('mass-kill', show(cmd));
};

/** fuser -k kills every process using a file, mount or port; skill/snice act on users, terminals and names. */
const fuser: Check = (cmd, _io, ctx) => {
  if (!cmd.args.some((a) => /^-[a-zA-Z]*k/.test(a.text) || a.text === '--kill')) return;
  // `fuser -k 8080/tcp`: the listener on one unprivileged port that is not a database's, as with lsof -ti :8080.
  const targets = cmd.args.filter((a) => !a.text.startsWith('-'));
  const ports = targets.map((t) => /^(\d+)\/(tcp|udp)$/.exec(t.text));
  if (ports.length > 0 && ports.every((m) => m && devPort(m[1]!))) return;
  ctx.add('mass-kill', show(cmd));
};

judges(
  import.meta.url,
  {
    'mkfs mke2fs mkswap mkdosfs mkntfs': format,
    wipefs,
    fdisk: partition({ short: 'l', long: ['--list'] }),
    sfdisk: partition({ short: 'ld', long: ['--list', '--dump', '--show-size', '--json'] }),
    gdisk: partition({ short: 'l', long: [] }),
    sgdisk: partition({ short: 'pvi', long: ['--print', '--verify', '--info'] }),
    cfdisk: partition({ short: '', long: [] }),
    parted: partition({ short: 'lv', long: ['--list', '--version', '--help'], words: ['print', 'p', 'help'] }),
    blkdiscard: always('raw-disk-write'),
    // cryptsetup luksFormat / erase, nvme format: destroy a device's data.
    'cryptsetup nvme': whenArg(
      'format-filesystem',
      /^(luksFormat|erase|luksErase|format|sanitize|reopen --type plain)$/,
    ),
    'service rc-service': service,
    'invoke-rc.d': (cmd, io, ctx) => service({ ...cmd, args: cmd.args.slice(1) }, io, ctx),
    'shutdown reboot halt poweroff': shutdown,
    'init telinit': whenArg('shutdown', /^[06]$/),
    crontab,
    kill,
    'killall killall5': unlessArg('mass-kill', /^(-l|--list|-0)$/),
    pkill,
    fuser,
    skill: when('mass-kill', (w) => w.length > 0 && !w.some((t) => t === '-l' || t === '-L' || t === '--list')),
  },
  { claims: true },
);

/** Commands checked by prefix (mkfs.ext4, mkfs.xfs, ...). */
export const systemCheckFor = (name: string): Check | undefined => (/^mkfs\./.test(name) ? format : undefined);
