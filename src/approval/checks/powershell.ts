// PowerShell and cmd.exe: pwsh -Command text and -EncodedCommand, Invoke-Expression (iex) of downloaded or computed
// text, recursive Remove-Item outside the project, Stop-Computer, Stop-Process by name, disk formatting; rd /s and
// del /s in cmd. Pure.
import { classifyPath } from '../paths.js';
import { literal } from '../words.js';
import { show, stdinText, type Check, type CheckContext } from './types.js';

const DOWNLOAD =
  /\b(iwr|irm|curl|wget|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile|DownloadData|Net\.WebClient|Start-BitsTransfer)\b/i;
const EVAL = /(^|[\s;|(&{])(iex|Invoke-Expression|Invoke-Command)\b|\[scriptblock\]::Create|\.Invoke\(\s*\)|&\s*\(/i;
const REMOVE = /(^|[\s;|(&{])(Remove-Item|rm|ri|del|erase|rd|rmdir)\b([^;|]*)/gi;
const POWER = /\b(Stop-Computer|Restart-Computer)\b/i;
const KILL =
  /\b(Stop-Process|spps|kill)\b[^;|]*-(Name|ProcessName)\b|\bGet-Process\b[^;]*\|\s*(Stop-Process|spps|kill)\b/i;
const DISK = /\b(Clear-Disk|Format-Volume|Initialize-Disk|Remove-Partition|Format-Disk)\b/i;
const SECURITY =
  /\b(Set-MpPreference\s+-Disable|Set-ExecutionPolicy\s+(Unrestricted|Bypass)|Disable-WindowsOptionalFeature|New-LocalUser|Add-LocalGroupMember|Remove-LocalUser|Set-LocalUser)\b/i;

/** Judges PowerShell text: what it evaluates, removes, stops or formats. */
function analysePowerShell(text: string, ctx: CheckContext): void {
  const detail = `PowerShell: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
  if (EVAL.test(text)) ctx.add(DOWNLOAD.test(text) ? 'remote-code-exec' : 'dynamic-command', detail);
  for (const m of text.matchAll(REMOVE)) {
    const args = m[3] ?? '';
    if (!/-r(ecurse)?\b|\/s\b/i.test(args) && !/^\s*\|/.test(args)) continue;
    const target = /(?:-(?:Path|LiteralPath)\s+)?(["']?)([^\s"'-][^\s"']*)\1/.exec(
      args.replace(/-(Recurse|Force|r|fo|Confirm:\S+|ErrorAction\s+\S+)\b/gi, ' '),
    )?.[2];
    const c =
      target === undefined
        ? 'outside'
        : /^[A-Za-z]:|^\\\\|^\$|^~/.test(target)
          ? 'outside'
          : classifyPath(literal(target.replace(/\\/g, '/')), ctx.where);
    if (c !== 'inside' && c !== 'temp') ctx.add('recursive-delete', detail);
  }
  if (/\|\s*(Remove-Item|rm|ri|del)\b/i.test(text) && /-Recurse\b|Get-ChildItem[^|]*(~|\$HOME|[A-Za-z]:\\)/i.test(text))
    ctx.add('recursive-delete', detail);
  if (POWER.test(text)) ctx.add('shutdown', detail);
  if (KILL.test(text)) ctx.add('mass-kill', detail);
  if (DISK.test(text)) ctx.add('format-filesystem', detail);
  if (SECURITY.test(text)) ctx.add('security-posture', detail);
}

const COMMAND_OPTS = /^-(c|command|com|comm|comma|comman)$/i;
const ENCODED_OPTS = /^-(e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedcommand)$/i;

/** pwsh / powershell: -Command TEXT (or the rest of the line), -EncodedCommand (hidden), -File, standard input. */
const pwsh: Check = (cmd, io, ctx) => {
  const args = cmd.args;
  const enc = args.findIndex((a) => ENCODED_OPTS.test(a.text));
  if (enc >= 0) {
    ctx.add('decoded-to-shell', show(cmd));
    return;
  }
  const c = args.findIndex((a) => COMMAND_OPTS.test(a.text));
  if (c >= 0) {
    const rest = args.slice(c + 1);
    if (rest.some((a) => a.dynamic)) ctx.add('dynamic-command', `${show(cmd)} runs text computed at run time`);
    analysePowerShell(rest.map((a) => a.text).join(' '), ctx);
    return;
  }
  if (args.some((a) => /^-f(ile)?$/i.test(a.text))) return;
  const input = stdinText(io);
  if (input !== undefined) analysePowerShell(input, ctx);
  else if (io.upstream.length > 0 && io.upstream.some((u) => u.argv?.name && DOWNLOAD.test(u.argv.name)))
    ctx.add('remote-code-exec', show(cmd));
};

/** A PowerShell cmdlet run as a command of its own (in a PowerShell terminal, or by mistake in bash). */
const cmdlet: Check = (cmd, io, ctx) => {
  const text = [cmd.written, ...cmd.args.map((a) => a.text)].join(' ');
  if (/^(iex|invoke-expression)$/i.test(cmd.name ?? '')) {
    const downloaded = DOWNLOAD.test(text) || io.upstream.some((u) => u.argv?.name && DOWNLOAD.test(u.argv.name));
    ctx.add(downloaded ? 'remote-code-exec' : 'dynamic-command', show(cmd));
    return;
  }
  analysePowerShell(text, ctx);
};

/** cmd /c TEXT: rd /s, del /s /q, format, shutdown. */
const cmdExe: Check = (cmd, _io, ctx) => {
  const c = cmd.args.findIndex((a) => /^\/[ck]$/i.test(a.text));
  if (c < 0) return;
  const text = cmd.args
    .slice(c + 1)
    .map((a) => a.text)
    .join(' ');
  const detail = `cmd: ${text}`;
  if (/\b(rd|rmdir)\s+\/s|\bdel\s+(\/[a-z]\s+)*\/s|\bdel\s+(\/[a-z]\s+)*\/q\s+[A-Za-z]:\\\*?\s*$/i.test(text))
    ctx.add('recursive-delete', detail);
  if (/\bformat\s+[A-Za-z]:/i.test(text)) ctx.add('format-filesystem', detail);
  if (/\bshutdown\s+\/[srp]/i.test(text)) ctx.add('shutdown', detail);
  if (/\bpowershell|\bpwsh/i.test(text)) analysePowerShell(text, ctx);
};

/** schtasks /create and launchctl load/bootstrap install tasks the detector cannot follow. */
const schtasks: Check = (cmd, _io, ctx) => {
  if (cmd.args.some((a) => /^\/(create|change)$/i.test(a.text))) ctx.add('schedule-unchecked', show(cmd));
};

const launchctl: Check = (cmd, _io, ctx) => {
  if (cmd.args.some((a) => /^(load|bootstrap|submit|enable)$/.test(a.text))) ctx.add('schedule-unchecked', show(cmd));
};

const CMDLETS = [
  'iex',
  'Invoke-Expression',
  'Remove-Item',
  'Stop-Computer',
  'Restart-Computer',
  'Stop-Process',
  'Clear-Disk',
  'Format-Volume',
  'Initialize-Disk',
  'Remove-Partition',
];

export const powershellChecks: Record<string, Check> = {
  pwsh,
  'pwsh.exe': pwsh,
  powershell: pwsh,
  'powershell.exe': pwsh,
  cmd: cmdExe,
  'cmd.exe': cmdExe,
  schtasks,
  'schtasks.exe': schtasks,
  launchctl,
  ...Object.fromEntries(
    CMDLETS.flatMap((n) => [
      [n, cmdlet],
      [n.toLowerCase(), cmdlet],
    ]),
  ),
};
