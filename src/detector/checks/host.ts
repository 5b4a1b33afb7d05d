// The machine underneath: kernel modules and boot configuration, remote login, macOS accounts (dscl, dseditgroup,
// sysadminctl), trust and quarantine switches (trusted root certificates, Gatekeeper quarantine, SIP), sleep and
// power (pmset, rtcwake), things that start by themselves (user services and timers, login items, launch agents,
// autostart entries), zsh's TCP module, and AppleScript. Pure.
import { has, parseFlags } from '../engine/argv.js';
import { always, show, unlessArg, when, whenArg, type Check, type CheckContext } from './types.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';
import type { SystemdCheck } from '../programs/systemd/call.js';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|0\.0\.0\.0)$/;

const anyWord = (re: RegExp) => (w: string[]) => w.some((t) => re.test(t));
const lower = (w: string[]): string[] => w.map((t) => t.toLowerCase());

/** Kernel modules: loading one runs its code in the kernel; removing one takes a driver away. */
const kernelModules = (readOnly: RegExp): Check => when('boot-kernel', (w) => w.length > 0 && !anyWord(readOnly)(w));

/** efibootmgr with an option that writes (create, delete, order, next boot, activate); bare or -v it lists. */
const EFI_WRITES =
  /^--(create|delete|bootorder|bootnext|active|inactive|write|timeout|delete-bootorder|delete-bootnext|delete-timeout)/;
const efibootmgr = when('boot-kernel', (_w, cmd) => {
  const f = parseFlags(cmd.args, ['-b', '--bootnum', '-L', '--label', '-l', '--loader', '-d', '--disk', '-p']);
  return has(f, 'cBoOnNaAwDfFtT') || [...f.long].some((l) => EFI_WRITES.test(l));
});

/** nvram NAME=VALUE, -d NAME, -c, -f FILE write firmware variables (boot-args); `nvram -p` and `nvram NAME` read. */
const nvram = whenArg('boot-kernel', /=|^-[a-z]*[dcf]/);

/** grub-install, update-grub, grub-set-default, bless: the boot loader or what it boots; `bless --info` only reads. */
const boot = unlessArg('boot-kernel', /^(--info|--getBoot)$/);

/** systemsetup -setremotelogin on / -setremoteappleevents on: SSH and remote Apple events for anyone who can log in. */
const systemsetup = when('remote-access', (w) => {
  const at = lower(w).findIndex((t) => /^-set(remotelogin|remoteappleevents)$/.test(t));
  return at >= 0 && /^(on|yes|true)$/.test(lower(w)[at + 1] ?? '');
});

/** ARD's kickstart -activate / -configure -access -on: remote management of the Mac. */
const kickstart = when(
  'remote-access',
  (w) => anyWord(/^-(activate|restart)$/)(w) || (w.includes('-on') && w.includes('-access')),
);

/** dseditgroup -o edit|create|delete. */
const dseditgroup = when(
  'account-change',
  (w) => w.includes('-o') && /^(edit|create|delete)$/.test(w[w.indexOf('-o') + 1] ?? ''),
);

/** xattr -d/-c com.apple.quarantine: Gatekeeper no longer checks a downloaded program. */
const xattr = when(
  'security-posture',
  (w) => anyWord(/^-[a-z]*[dc]/)(w) && (w.includes('com.apple.quarantine') || anyWord(/^-[a-z]*c/)(w)),
);

/**
 * macOS `security`: trusting a root certificate or changing authorization rights weakens the machine; dumping a
 * keychain with -d prints every secret in it.
 */
const security: Check = (cmd, _io, ctx) => {
  const sub = cmd.args[0]?.text ?? '';
  if (/^(add-trusted-cert|trust-settings-import|add-certificates|authorizationdb|remove-trusted-cert)$/.test(sub)) {
    if (sub !== 'authorizationdb' || cmd.args.some((a) => /^(write|remove|merge)$/.test(a.text)))
      ctx.add('security-posture', show(cmd));
  }
  if (sub === 'dump-keychain' && cmd.args.some((a) => /^-[a-z]*d/.test(a.text))) ctx.add('credential-dump', show(cmd));
};

/** `trust anchor FILE`, NSS `certutil -A -t C,,`, `keytool -importcert ... cacerts`: a new certificate authority. */
const trust = when('security-posture', (w) => w[0] === 'anchor' && !w.includes('--remove'));

const nssCertutil = when('security-posture', (w) => {
  const t = w.indexOf('-t');
  const adds = (w.includes('-A') && t >= 0 && /C/.test(w[t + 1] ?? '')) || anyWord(/^[-/]addstore$/i)(w);
  return adds && (anyWord(/^root$|^ca$|^authroot$/i)(w) || w.includes('-A'));
});

const keytool = when(
  'security-posture',
  (w) => anyWord(/^-(importcert|import)$/)(w) && w.some((t) => t === '-cacerts' || /(^|\/)cacerts$/.test(t)),
);

/** pmset sleepnow, or a schedule that sleeps, shuts down or restarts the machine. */
const pmset = when('shutdown', (w) => {
  const l = lower(w);
  const schedule = l.includes('schedule') || l.includes('repeat');
  return l.includes('sleepnow') || (schedule && anyWord(/^(sleep|shutdown|restart|poweroff)$/)(l));
});

/** rtcwake -m mem|disk|off|standby suspends (or powers off) until the clock wakes it. */
const rtcwake = when('shutdown', (_w, cmd) => {
  const f = parseFlags(cmd.args, names(`-m --mode -s --seconds -t --time -d --device -A --adjfile`));
  return /^(mem|disk|off|standby|freeze)$/.test(f.values.get('-m') ?? f.values.get('--mode') ?? '');
});

/** Units that let others in: SSH, remote desktops, VNC, telnet. */
const REMOTE_UNITS =
  /^(ssh|sshd|openssh(-server)?|dropbear|xrdp|vncserver[\w@.:-]*|x11vnc|tigervnc[\w@.-]*|telnet[\w.-]*|inetd|xinetd|tailscale-ssh)(\.service|\.socket)?$/;

/**
 * systemctl enable/start of a remote-login service; a user unit enabled (it starts at every login), a timer (it runs
 * a command on a schedule) or a user left lingering (`loginctl enable-linger`: their services run without a login):
 * each starts by itself later, running what its unit files say.
 */
export const systemdStartsLater: SystemdCheck = ({ verb, targets, user }, cmd, _io, ctx) => {
  if (!verb) return;
  if (/^(enable|start|restart|reenable|unmask)$/.test(verb) && targets.some((u) => REMOTE_UNITS.test(u)))
    ctx.add('remote-access', show(cmd));
  const timer = /^(enable|reenable|start|restart|link)$/.test(verb) && targets.some((u) => /\.timer$/.test(u));
  if ((/^(enable|reenable|link|preset|add-wants)$/.test(verb) && user) || verb === 'enable-linger' || timer)
    ctx.add('persistence', show(cmd));
};

/** `service ssh start`, `rc-service sshd start`: the same for SysV and OpenRC. */
const service = when(
  'remote-access',
  ([unit, verb]) => unit !== undefined && REMOTE_UNITS.test(unit) && /^(start|restart|enable)$/.test(verb ?? ''),
);

/** defaults write com.apple.loginwindow LoginHook SCRIPT (runs as root at every login); LSQuarantine off. */
const defaults: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  if (w[0] !== 'write') return;
  if (w.some((t) => /^Log(in|out)Hook$/.test(t))) ctx.add('persistence', show(cmd));
  if (w.some((t) => t === 'LSQuarantine') && w.some((t) => /^(false|no|0)$/i.test(t)))
    ctx.add('security-posture', show(cmd));
};

/** zsh's TCP module: `ztcp HOST PORT` (or zsocket) opens a connection a shell's input and output can be tied to. */
const ztcp = when('reverse-shell', (_w, cmd) => {
  const f = parseFlags(cmd.args, ['-d']);
  const host = f.operands[0]?.text;
  // -l, -a, -c, -L, -t: listen, accept, close, list, test.
  return !has(f, 'lacLt') && host !== undefined && f.operands.length >= 2 && !LOOPBACK.test(host);
});

/**
 * osascript -e SCRIPT: `do shell script "..."` is a shell command (as root `with administrator privileges`), a login
 * item starts by itself at every login, System Events can sleep, restart or shut the machine down.
 */
const osascript: Check = (cmd, _io, ctx) => {
  const f = parseFlags(cmd.args, ['-e', '-l', '-s']);
  const scripts = cmd.args.filter((_, i) => i > 0 && cmd.args[i - 1]!.text === '-e').map((a) => a.text);
  if (f.values.get('-l') === 'JavaScript') return void scripts.forEach((s) => ctx.code(s, 'javascript'));
  for (const s of scripts) appleScript(s, ctx, show(cmd));
};

export function appleScript(text: string, ctx: CheckContext, detail: string): void {
  for (const m of text.matchAll(/do shell script\s+"((?:\\.|[^"\\])*)"/gi))
    ctx.script(m[1]!.replace(/\\(["\\])/g, '$1'));
  if (/do shell script[\s\S]*with administrator privileges/i.test(text)) ctx.add('privilege-escalation', detail);
  if (/\bmake\s+(new\s+)?login item\b/i.test(text)) ctx.add('persistence', detail);
  if (
    /\bto\s+(sleep|shut\s*down|restart|log\s*out)\b|\b(sleep|shut\s*down|restart)\s*(\}|$)/i.test(text) &&
    /System Events|Finder|loginwindow/i.test(text)
  )
    ctx.add('shutdown', detail);
}

judges(
  import.meta.url,
  {
    'insmod rmmod': kernelModules(/^(-h|--help|-V|--version)$/),
    modprobe: kernelModules(
      /^(-n|--dry-run|-c|--showconfig|--show-depends|-D|-V|--version|-h|--help|--dump-modversions|-l|--list)$/,
    ),
    'kextload kextunload': kernelModules(/^-h$/),
    // kmutil load/unload/install, kmod load: a subcommand that changes the running kernel.
    kmutil: when('boot-kernel', (w) => /^(load|unload|install|create|rebuild|trigger-panic-medic)$/.test(w[0] ?? '')),
    efibootmgr,
    nvram,
    // bootctl install/update/remove/set-default/set-oneshot.
    bootctl: whenArg('boot-kernel', /^(install|update|remove|set-default|set-oneshot|set-timeout|unlink|cleanup)$/),
    'grub-install grub2-install grub-reboot grub-set-default grub2-set-default grub2-reboot update-grub bless': boot,
    // csrutil disable / clear / authenticated-root disable: System Integrity Protection off.
    csrutil: whenArg('security-posture', /^(disable|clear)$/),
    systemsetup,
    kickstart,
    // dscl . -create/-append/-delete/-passwd/-change/-merge: users and groups in Directory Services.
    dscl: whenArg(
      'account-change',
      /^-?(create|createpl|append|appendpl|delete|deletepl|passwd|change|changei|merge|mergepl)$/i,
    ),
    dseditgroup,
    // sysadminctl -addUser/-deleteUser/-resetPasswordFor/-secureTokenOn...
    sysadminctl: whenArg(
      'account-change',
      /^-(addUser|deleteUser|resetPasswordFor|secureTokenOn|secureTokenOff|adminUser|guestAccount|autologin)$/,
    ),
    dsenableroot: always('account-change'),
    xattr,
    security,
    trust,
    certutil: nssCertutil,
    keytool,
    pmset,
    rtcwake,
    'pm-suspend pm-hibernate pm-suspend-hybrid zzz ZZZ': always('shutdown'),
    'service rc-service': service,
    defaults,
    'ztcp zsocket': ztcp,
    osascript,
  },
  { claims: true },
);

/**
 * Where things that start by themselves are installed: systemd user units, launch agents and daemons, XDG and KDE
 * autostart entries, the Windows Startup folder. A file written there runs at the next login or boot.
 */
const PERSISTENCE =
  /(^|\/)(\.config\/systemd\/user|\.local\/share\/systemd\/user|Library\/(LaunchAgents|LaunchDaemons|StartupItems)|\.config\/autostart|\.kde4?\/Autostart|\.config\/plasma-workspace\/(env|shutdown)|etc\/systemd\/(system|user)|etc\/xdg\/autostart|etc\/init|etc\/rc\.local)(\/|$)|Start Menu[\\/]Programs[\\/]Startup|StartMenu\\?Programs\\?Startup/i;

export function persistenceWrite(path: string, detail: string, ctx: CheckContext): void {
  if (PERSISTENCE.test(path)) ctx.add('persistence', detail);
}
