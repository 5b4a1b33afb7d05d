// Matches a command and its findings against command_allowlist: exact commands (anywhere, or in one directory),
// rule ids, or glob patterns whose wildcards stand for part of one word (never a space, a shell metacharacter or an
// option's dash); and says why an entry is refused when the configuration is loaded (it would allow anything). Pure.
import type { AllowlistEntry } from './approval-types.js';
import { normalizePath } from './paths.js';
import { isOpaqueRule, RULES } from './rules.js';

interface AllowlistSubject {
  command: string;
  rules: string[];
  /** Where it runs: an entry bound to a directory matches there only. */
  cwd?: string;
  /** The gate read files to judge it: an entry bound to a directory (written by `always`) covers no file content. */
  readsFiles?: boolean;
}

/**
 * What a wildcard may stand for: part of one word. Never white space (another argument), a shell metacharacter
 * (another command, a redirect, computed text), a quote or a backslash (which would join words), nor what bash
 * expands into other words (`{a,b}`, `[-]x*`, `~`, `!`) or a comment.
 */
const WILD = `[^\\s;&|<>()$\`'"\\\\{}\\[\\]*?~!#]`;

/**
 * A glob over the whole command: `*` any run of characters, `?` one character, both within one word; a wildcard that
 * begins a word never matches the `-` of an option (`git push origin *` is not `git push origin --receive-pack=x`).
 */
function globMatches(pattern: string, text: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    const wordStart = i === 0 || /\s/.test(pattern[i - 1]!);
    if (c === '*') re += `${wordStart ? '(?!-)' : ''}${WILD}*`;
    else if (c === '?') re += `${wordStart ? '(?!-)' : ''}${WILD}`;
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`${re}$`).test(text);
}

const isGlob = (e: string): boolean => /[*?]/.test(e);

/** An entry as the person reads it (in logs and `allowlistedBy`). */
export function describeEntry(e: AllowlistEntry): string {
  return typeof e === 'string' ? e : e.cwd === undefined ? e.command : `${e.command} (in ${e.cwd})`;
}

/**
 * The entry that allows the command, or undefined. A rule id allows a command only when every finding's rule is
 * allowed (one entry each); a rule meaning "tether could not read what runs" is never allowed by its id; hardline
 * findings are never allowed here (the caller refuses them first).
 */
export function allowlistMatch(entries: readonly AllowlistEntry[], subject: AllowlistSubject): string | undefined {
  const command = subject.command.trim();
  for (const e of entries) {
    if (typeof e !== 'string') {
      const here =
        e.cwd === undefined || (subject.cwd !== undefined && normalizePath(e.cwd) === normalizePath(subject.cwd));
      if (here && !subject.readsFiles && e.command.trim() === command) return describeEntry(e);
    } else if (
      !RULES.has(e) &&
      // `network:HOST:PORT` entries are hosts a person allowed (the egress proxy reads them), never commands.
      !e.startsWith('network:') &&
      (e === command || (isGlob(e) && globMatches(e, command)))
    )
      return e;
  }
  const ids = new Set(entries.filter((e): e is string => typeof e === 'string'));
  if (subject.rules.length > 0 && subject.rules.every((r) => ids.has(r) && !isOpaqueRule(r)))
    return subject.rules.join(', ');
  return undefined;
}

/**
 * Programs whose argument is itself what runs: a wrapper or a shell (the program or script it names), an
 * interpreter (a script or code), a task runner (a target or script the project's files define, which a run can
 * write). A wildcard after one allows anything.
 */
const RUNS_ITS_ARGUMENTS = new Set(
  (
    'sudo doas su runuser env exec command builtin eval nohup nice ionice timeout time xargs parallel stdbuf setsid ' +
    'chroot unshare nsenter strace ltrace watch script unbuffer flock taskset chrt firejail bwrap sh bash dash zsh ' +
    'ksh mksh fish busybox ssh python python2 python3 node nodejs deno bun perl ruby php lua tclsh awk gawk mawk ' +
    'pwsh powershell osascript make gmake npm npx pnpm yarn just rake'
  ).split(' '),
);

/**
 * Why an entry may not be in command_allowlist, or undefined when it may: one that allows every command (a
 * wildcard in the program's name, or after a program that runs its arguments), or a rule id that means "tether
 * could not read what runs".
 */
export function allowlistProblem(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && !Array.isArray(e)) {
    const { command, cwd, ...rest } = e as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return `unknown key ${Object.keys(rest)[0]} (an entry holds command and cwd)`;
    if (typeof command !== 'string' || command.trim() === '') return 'command must be a non-empty string';
    if (cwd !== undefined && (typeof cwd !== 'string' || !cwd.startsWith('/')))
      return 'cwd must be an absolute directory';
    return undefined;
  }
  if (typeof e !== 'string' || e.trim() === '') return 'an entry is a command, a rule id or a glob pattern';
  // A host a person allowed (network:HOST:PORT): the egress gate's, never matched against a command.
  if (e.startsWith('network:')) return undefined;
  const entry = JSON.stringify(e);
  if (RULES.has(e) && isOpaqueRule(e))
    return `${entry} means tether could not read what runs, so allowing it would allow any command: list the exact commands to allow instead`;
  if (!isGlob(e)) return undefined;
  const program = e.trim().split(/\s+/)[0]!;
  if (isGlob(program))
    return `${entry} matches every command (a wildcard in the program's name): begin the pattern with the program it allows`;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (RUNS_ITS_ARGUMENTS.has(name))
    return `${entry} matches every command ${name} can run (what it runs is named by its argument): list the exact commands to allow instead`;
  return undefined;
}
