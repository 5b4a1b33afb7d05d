// Windows commands run by name (in a cmd or PowerShell terminal): cmd's del/rd with /s, format, shadow copies,
// boot configuration, event logs, the registry's policy and start-up keys, the firewall, local accounts, taskkill by
// image name, certutil downloads; PowerShell cmdlets no table names (Verb-Noun) go to the PowerShell check. Pure.
import { classifyPath, type Where } from '../engine/paths.js';
import { literal } from '../engine/words.js';
import { show, when, whenArg, type Check } from './types.js';
import { judges } from './registry.js';

const lower = (texts: string[]): string[] => texts.map((t) => t.toLowerCase());

/** A Windows path (drive, UNC, %VAR%, $env:) is outside the project; a relative one is judged like any path. */
export function windowsPathOutside(path: string, where: Parameters<typeof classifyPath>[1]): boolean {
  if (/^([A-Za-z]:|\\\\|%|\$env:|~)/i.test(path)) return true;
  const c = classifyPath(literal(path.replace(/\\/g, '/')), where);
  return c !== 'inside' && c !== 'temp';
}

/**
 * cmd's del/erase/rd/rmdir `verb` and the words after it: /s deletes what lies outside the project recursively. In a
 * `cmd /c` line (`inLine`) quotes are still on the paths, and `del C:\*` empties a drive's root without /s.
 */
export function cmdDeletes(verb: string, rest: string[], where: Where, inLine = false): boolean {
  const targets = rest.filter((t) => !/^\/[a-z]$/i.test(t));
  const root = inLine && /^(del|erase)$/i.test(verb) && targets.some((t) => /^[A-Za-z]:\\\*?$/.test(t));
  const outside = (t: string): boolean => windowsPathOutside(inLine ? t.replace(/^"|"$/g, '') : t, where);
  return (rest.some((t) => /^\/s$/i.test(t)) || root) && (targets.length === 0 || targets.some(outside));
}

/** del /s, rd /s (rmdir /s): recursive deletion of what lies outside the project. */
const cmdDelete: Check = (cmd, _io, ctx) => {
  const words = cmd.args.map((a) => a.text);
  if (cmdDeletes(cmd.written, words, ctx.where)) ctx.add('recursive-delete', show(cmd));
};

/** reg add/delete/import under HKLM: machine-wide settings, policies (Defender, UAC) and what runs at start-up. */
const reg: Check = (cmd, io, ctx) => {
  credentialDump(cmd, io, ctx);
  const [verb, key = ''] = cmd.args.map((a) => a.text);
  if (!verb || !/^(add|delete|import|restore|load|copy)$/i.test(verb)) return;
  if (/^(HKLM|HKEY_LOCAL_MACHINE)\b/i.test(key) || /\\(Run|RunOnce|Winlogon|Policies)\b/i.test(key))
    ctx.add(/\\Policies\\/i.test(key) ? 'security-posture' : 'overwrite-system-config', show(cmd));
  // The user's own start-up keys (HKCU ...\CurrentVersion\Run, also with bash's quoting having eaten the backslashes).
  if (
    /CurrentVersion\\?(Run|RunOnce|RunServices|RunServicesOnce|Explorer\\?StartupApproved\S*)$|Winlogon\\?$/i.test(key)
  )
    ctx.add('persistence', show(cmd));
};

/** certutil -urlcache -f URL FILE downloads FILE (running it later runs downloaded code). */
const certutil: Check = (cmd, _io, ctx) => {
  const w = cmd.args.map((a) => a.text);
  if (!w.some((t) => /^[-/]urlcache$/i.test(t))) return;
  const file = w.filter((t) => !/^[-/]/.test(t)).at(-1);
  if (file !== undefined && !/^https?:/i.test(file)) ctx.downloaded.add(file);
};

/** Reading credentials out of memory or the registry: an LSASS minidump, Mimikatz, the SAM and SECURITY hives. */
export const CREDENTIAL_DUMP =
  /comsvcs(\.dll)?\W+#?(MiniDump|24)\b|\b(Invoke-Mimikatz|Out-Minidump|sekurlsa::|lsadump::|mimikatz)\b|\bprocdump(64)?(\.exe)?\b[^;|]*\blsass\b|\breg(\.exe)?\s+save\s+(HKLM|HKEY_LOCAL_MACHINE)\\?(SAM|SECURITY|SYSTEM)\b|\bntdsutil\b[^;|]*\bifm\b/i;

/** Windows programs that dump credentials by name (rundll32 comsvcs.dll MiniDump, procdump of lsass, reg save HKLM\SAM). */
const credentialDump: Check = (cmd, _io, ctx) => {
  const text = [cmd.written, ...cmd.args.map((a) => a.text)].join(' ');
  if (CREDENTIAL_DUMP.test(text)) ctx.add('credential-dump', show(cmd));
  // rundll32 powrprof.dll,SetSuspendState: sleep or hibernate.
  if (/\bpowrprof(\.dll)?\W+SetSuspendState\b/i.test(text)) ctx.add('shutdown', show(cmd));
};

judges(import.meta.url, {
  'del erase rd rmdir': cmdDelete,
  // format X: formats a volume (format of a file name is not Windows' format).
  'format format.com': whenArg('format-filesystem', /^[A-Za-z]:\\?$/),
  // vssadmin delete shadows, wmic shadowcopy delete: the volume's restore points are gone.
  'vssadmin wmic': when(
    'storage-destroy',
    (w) => lower(w).includes('delete') && lower(w).some((t) => /^shadows?(copy)?$/.test(t)),
    'shadow copies',
  ),
  // bcdedit /set or /delete changes how (and whether) the machine boots and recovers.
  bcdedit: whenArg('security-posture', /^\/(set|delete|deletevalue|import)$/i),
  // wevtutil cl LOG clears an event log.
  wevtutil: when('log-wipe', ([verb]) => /^(cl|clear-log)$/i.test(verb ?? '')),
  'reg reg.exe': reg,
  // netsh advfirewall set ... state off, netsh firewall set opmode disable.
  netsh: when('firewall-flush', (w) =>
    /\b(advfirewall|firewall)\b.*\b(state\s+off|opmode\s+(mode=)?disable|reset)\b/.test(lower(w).join(' ')),
  ),
  // net user NAME PASS /add, net localgroup administrators NAME /add, /delete: local accounts.
  'net net.exe': when('account-change', (words) => {
    const w = lower(words);
    return /^(user|localgroup|group)$/.test(w[0] ?? '') && w.some((t) => /^\/(add|delete|del|active:no)$/.test(t));
  }),
  // taskkill /IM NAME kills every process of that image (by /PID it is one process).
  'taskkill taskkill.exe': whenArg('mass-kill', /^\/(im|fi)$/i),
  'certutil certutil.exe': certutil,
  [`rundll32 procdump procdump64 ntdsutil mimikatz pypykatz lsassy secretsdump.py rundll32.exe procdump.exe
    procdump64.exe ntdsutil.exe mimikatz.exe pypykatz.exe lsassy.exe secretsdump.py.exe`]: credentialDump,
});
