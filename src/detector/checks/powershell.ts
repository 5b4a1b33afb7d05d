// PowerShell and cmd.exe: pwsh -Command text and -EncodedCommand, Invoke-Expression (iex) of downloaded or computed
// text, recursive Remove-Item outside the project, Stop-Computer, Stop-Process by name, disk formatting; rd /s and
// del /s in cmd. Pure.
import { classifyPath } from '../engine/paths.js';
import { literal } from '../engine/words.js';
import { isCredentialPath, secretStdin } from './exfil.js';
import { shortened, show, stdinText, whenArg, type Check, type CheckContext } from './types.js';
import { CREDENTIAL_DUMP, cmdDeletes, windowsPathOutside } from './windows.js';
import { names } from '../engine/names.js';
import { judges } from './registry.js';

const DOWNLOAD =
  /\b(iwr|irm|curl|wget|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile|DownloadData|Net\.WebClient|Start-BitsTransfer)\b/i;
const EVAL = /(^|[\s;|(&{])(iex|Invoke-Expression|Invoke-Command)\b|\[scriptblock\]::Create|\.Invoke\(\s*\)|&\s*\(/i;
const REMOVE = /(^|[\s;|(&{])(Remove-Item|rm|ri|del|erase|rd|rmdir)\b([^;|]*)/gi;

/** What PowerShell text does beyond evaluating and removing, by the rule it asks under (in the order judged). */
const EFFECTS: Record<string, RegExp> = {
  shutdown: /\b(Stop-Computer|Restart-Computer)\b/i,
  'mass-kill':
    /\b(Stop-Process|spps|kill)\b[^;|]*-(Name|ProcessName)\b|\bGet-Process\b[^;]*\|\s*(Stop-Process|spps|kill)\b/i,
  'format-filesystem': /\b(Clear-Disk|Format-Volume|Initialize-Disk|Remove-Partition|Format-Disk)\b/i,
  'security-posture':
    /\b(Set-MpPreference\s+(-\w+\s+\S+\s+)*-Disable\w*|Add-MpPreference\s+-Exclusion|Set-ExecutionPolicy\s+(Unrestricted|Bypass)|Disable-WindowsOptionalFeature|New-LocalUser|Add-LocalGroupMember|Remove-LocalUser|Set-LocalUser)\b/i,
  'log-wipe': /\b(Clear-EventLog|Remove-EventLog|Limit-EventLog)\b|\bwevtutil(\.exe)?\s+(cl|clear-log)\b/i,
  'service-stop': /\b(Stop-Service|spsv|Remove-Service)\b|\bSet-Service\b[^;|]*-StartupType\s+Disabled\b/i,
  /**
   * Writes into Windows' own directories or the machine's registry hive (the hosts file, System32, Program Files,
   * HKLM:). Unquoted in bash the backslashes are gone (`C:WindowsSystem32...`), so they are optional here.
   */
  'overwrite-system-config':
    /\b(Add-Content|Set-Content|Out-File|Copy-Item|Move-Item|New-Item|Set-ItemProperty|New-ItemProperty|Tee-Object|ac|sc|cpi|mi|ni|sp)\b[^;|]*?(\b[A-Za-z]:\\?(Windows|Program ?Files|ProgramData)\b|\$env:(windir|SystemRoot|ProgramFiles|ProgramData)\b|%(windir|SystemRoot)%|\bHKLM:|drivers\\?etc\\?hosts\b)/i,
  // PowerShell remoting, Remote Desktop (fDenyTSConnections 0), the OpenSSH server installed or started.
  'remote-access':
    /\bEnable-PSRemoting\b|\bfDenyTSConnections\b[^;|]*-Value\s+0\b|\bAdd-WindowsCapability\b[^;|]*OpenSSH\.Server|\b(Start-Service|Set-Service)\b[^;|]*\bsshd\b|\bEnable-NetFirewallRule\b[^;|]*Remote ?Desktop/i,
  'credential-dump': CREDENTIAL_DUMP,
};

/** Judges PowerShell text: what it evaluates, removes, stops or formats. */
function analysePowerShell(text: string, ctx: CheckContext): void {
  const detail = `PowerShell: ${shortened(text)}`;
  if (EVAL.test(text)) ctx.add(DOWNLOAD.test(text) ? 'remote-code-exec' : 'dynamic-command', detail);
  for (const m of text.matchAll(REMOVE)) {
    const args = m[3] ?? '';
    if (!/-r(ecurse)?\b|\/s\b/i.test(args) && !/^\s*\|/.test(args)) continue;
    const target = /(?:-(?:Path|LiteralPath)\s+)?(["']?)([^\s"'-][^\s"']*)\1/.exec(
      args.replace(/-(Recurse|Force|r|fo|Confirm:\S+|ErrorAction\s+\S+)\b/gi, ' '),
    )?.[2];
    const c =
      target === undefined || /^[A-Za-z]:|^\\\\|^\$|^~/.test(target)
        ? 'outside'
        : classifyPath(literal(target.replace(/\\/g, '/')), ctx.where);
    if (c !== 'inside' && c !== 'temp') ctx.add('recursive-delete', detail);
  }
  if (/\|\s*(Remove-Item|rm|ri|del)\b/i.test(text) && /-Recurse\b|Get-ChildItem[^|]*(~|\$HOME|[A-Za-z]:\\)/i.test(text))
    ctx.add('recursive-delete', detail);
  for (const [rule, pattern] of Object.entries(EFFECTS)) if (pattern.test(text)) ctx.add(rule, detail);
}

const COMMAND_OPTS = /^-(c|command|com|comm|comma|comman)$/i;
const ENCODED_OPTS = /^-(e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedcommand)$/i;

/** pwsh / powershell: -Command TEXT (or the rest of the line), -EncodedCommand (hidden), -File, standard input. */
const pwsh: Check = (cmd, io, ctx) => {
  const args = cmd.args;
  const enc = args.findIndex((a) => ENCODED_OPTS.test(a.text));
  if (enc >= 0) return ctx.add('decoded-to-shell', show(cmd));
  const c = args.findIndex((a) => COMMAND_OPTS.test(a.text));
  if (c >= 0) {
    const rest = args.slice(c + 1);
    if (rest.some((a) => a.dynamic)) ctx.add('dynamic-command', `${show(cmd)} runs text computed at run time`);
    return analysePowerShell(rest.map((a) => a.text).join(' '), ctx);
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
  const name = (cmd.name ?? '').toLowerCase();
  if (/^(iex|invoke-expression)$/.test(name)) {
    const downloaded = DOWNLOAD.test(text) || io.upstream.some((u) => u.argv?.name && DOWNLOAD.test(u.argv.name));
    return ctx.add(downloaded ? 'remote-code-exec' : 'dynamic-command', show(cmd));
  }
  const value = (opt: RegExp): string | undefined => {
    const at = cmd.args.findIndex((a) => opt.test(a.text));
    return at >= 0 ? cmd.args[at + 1]?.text : undefined;
  };
  // Invoke-WebRequest URL -OutFile F: running F later in this command line runs downloaded code.
  if (/^(iwr|invoke-webrequest|start-bitstransfer|curl|wget)$/.test(name)) {
    const out = value(/^-(OutFile|o|Destination)$/i);
    if (out !== undefined) ctx.downloaded.add(out);
  }
  if (/^(start-process|saps|start|invoke-item|ii)$/.test(name)) {
    const target = value(/^-(FilePath)$/i) ?? cmd.args.find((a) => !a.text.startsWith('-'))?.text;
    if (target !== undefined && ctx.downloaded.has(target))
      ctx.add('remote-code-exec', `${show(cmd)} (downloaded in this command line)`);
  }
  // Get-Content SECRET | Invoke-RestMethod -Method Post: the secret is the request body; so is the environment
  // (Get-ChildItem Env: | ConvertTo-Json | irm ...), which holds every token the shell was given.
  const envDump = io.upstream.some(
    (u) =>
      /^(get-childitem|gci|dir|ls|get-item|gi)$/i.test(u.argv?.name ?? '') &&
      u.argv!.args.some((a) => /^env:/i.test(a.text)),
  );
  const request = /^(irm|iwr|invoke-restmethod|invoke-webrequest)$/.test(name);
  if (request && (secretStdin(io) || envDump)) ctx.add('exfiltration', show(cmd));
  // Invoke-RestMethod -InFile CREDENTIALS: the file is the request body.
  const inFile = value(/^-(InFile|inf)$/i)
    ?.replace(/\\/g, '/')
    .replace(/^\$(env:USERPROFILE|HOME|env:HOME)\b/i, '~');
  if (request && inFile !== undefined && isCredentialPath(inFile)) ctx.add('exfiltration', show(cmd));
  // Get-ChildItem -Recurse C:\Users | Remove-Item: everything it lists.
  if (/^(remove-item|ri|del|rm)$/.test(name)) {
    const lister = io.upstream.find((u) => /^(get-childitem|gci|ls|dir)$/i.test(u.argv?.name ?? ''))?.argv;
    const recursive = lister?.args.some((a) => /^-r(ecurse)?$/i.test(a.text));
    const path = lister?.args.find((a) => !a.text.startsWith('-'))?.text ?? '.';
    if (lister && recursive && windowsPathOutside(path, ctx.where)) ctx.add('recursive-delete', show(cmd));
  }
  analysePowerShell(text, ctx);
};

/** Any cmdlet in PowerShell's Verb-Noun form that no table names (Set-MpPreference, Clear-EventLog, Start-Process). */
export const powershellCheckFor = (name: string): Check | undefined =>
  /^[A-Z][a-z]+-[A-Z][A-Za-z]+$/.test(name) ? cmdlet : undefined;

/** cmd /c TEXT: rd /s, del /s /q, format, shutdown. */
const cmdExe: Check = (cmd, _io, ctx) => {
  const c = cmd.args.findIndex((a) => /^\/[ck]$/i.test(a.text));
  if (c < 0) return;
  const line = cmd.args.slice(c + 1);
  const text = line.map((a) => a.text).join(' ');
  const detail = `cmd: ${text}`;
  // Each command of the line (`&&`, `&`, `||`, `if exist X CMD`): rd /s and del /s judged by their paths, as typed alone.
  for (const segment of text.split(/&&|\|\||&/)) {
    const words = segment
      .trim()
      .replace(/^if\s+(not\s+)?exist\s+\S+\s+/i, '')
      .split(/\s+/)
      .filter((w) => w !== '');
    const [verb = '', ...rest] = words;
    if (/^(rd|rmdir|del|erase)$/i.test(verb) && cmdDeletes(verb, rest, ctx.where, true))
      ctx.add('recursive-delete', detail);
  }
  if (/\bformat\s+[A-Za-z]:/i.test(text)) ctx.add('format-filesystem', detail);
  if (/\bshutdown\s+\/[srp]/i.test(text)) ctx.add('shutdown', detail);
  if (/\bpowershell|\bpwsh/i.test(text)) analysePowerShell(text, ctx);
};

const CMDLETS = names(`
  iex iwr irm saps Invoke-Expression Remove-Item Stop-Computer Restart-Computer Stop-Process Clear-Disk Format-Volume
  Initialize-Disk Remove-Partition
`);

judges(
  import.meta.url,
  {
    'pwsh pwsh.exe powershell powershell.exe': pwsh,
    'cmd cmd.exe': cmdExe,
    // schtasks /create and launchctl load/bootstrap install tasks the detector cannot follow.
    'schtasks schtasks.exe': whenArg('schedule-unchecked', /^\/(create|change)$/i),
    launchctl: whenArg('schedule-unchecked', /^(load|bootstrap|submit|enable)$/),
    ...Object.fromEntries(CMDLETS.flatMap((n) => [n, n.toLowerCase()]).map((n) => [n, cmdlet])),
  },
  { claims: true },
);
