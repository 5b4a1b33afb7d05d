// The verdict on what a tool call would run (a command with its stdin, a script it runs by path, a program) with
// the allowlist applied: what the approval activities and execute_code's terminal calls decide from. Worker-only
// (reads config.yaml's allowlist, loads the grammars).
import type { TetherConfig } from '../config/config.js';
import { allowlistMatch } from './allowlist.js';
import { readAllowlist } from './allowlist-file.js';
import { detect, type Verdict } from './detect.js';
import { loadBashParser } from './parser.js';
import { loadProgramReader, type ReadProgram } from './programs/load.js';
import type { ScriptFile } from './scripts.js';
import type { CallSubject } from './subject.js';

interface Assessed {
  verdict: Verdict;
  /** The allowlist entry that covers a dangerous (not hardline) command, if any. */
  allowlistedBy?: string;
  /** Scripts read to judge it (path → text), to show a person deciding. */
  scripts: Map<string, string>;
}

/** Reads scripts run by path where the command will run (the task's environment); keys as the detector names them. */
export type ReadScripts = (keys: string[]) => Promise<Map<string, ScriptFile>>;

/**
 * A script that runs another runs a third, a module imports another...: beyond this many rounds of reading, or this
 * many files and listings read, what is left asks.
 */
const READ_ROUNDS = 12;
const MAX_READS = 600;

/** The program reader, remembering what it read: each round judges the same files again. */
function remembering(read: ReadProgram): ReadProgram {
  const seen = new Map<string, ReturnType<ReadProgram>>();
  return (source, language) => {
    const key = `${language}\u0000${source}`;
    if (!seen.has(key)) seen.set(key, read(source, language));
    return seen.get(key);
  };
}

/**
 * Judges a tool call's subject: scripts it runs by path, modules they import, hooks git will run... are read
 * (through `read`) and judged as their program's text. Every file read is returned in `scripts` (path → text): what
 * the verdict was reached on, in one place.
 */
export async function judgeSubject(
  subject: CallSubject,
  cwd: string,
  read?: ReadScripts,
): Promise<{ verdict: Verdict; scripts: Map<string, string> }> {
  const parse = await loadBashParser();
  const programs = remembering(await loadProgramReader());
  const files = new Map<string, ScriptFile>();
  const opts = { cwd, stdin: subject.stdin, language: subject.language, programs };
  if (subject.text.trim() === '')
    return { verdict: { command: subject.text, dangerous: false, tier: null, findings: [] }, scripts: new Map() };
  let verdict = detect(parse, subject.text, { ...opts, files: read ? files : undefined });
  for (let round = 0; read && verdict.scripts && round < READ_ROUNDS; round += 1) {
    const wanted = verdict.scripts.filter((k) => !files.has(k)).slice(0, Math.max(0, MAX_READS - files.size));
    if (wanted.length === 0) break;
    for (const [k, v] of await read(wanted)) files.set(k, v);
    verdict = detect(parse, subject.text, { ...opts, files });
  }
  if (subject.inputOnly) {
    const before = new Set(
      detect(parse, subject.text, { ...opts, stdin: undefined, files: read ? files : undefined }).findings.map(
        (f) => f.description,
      ),
    );
    const findings = verdict.findings.filter((f) => !before.has(f.description));
    verdict = { ...verdict, findings, dangerous: findings.length > 0, tier: findings[0]?.tier ?? null };
  }
  const scripts = new Map<string, string>();
  for (const [k, v] of files) if ('text' in v) scripts.set(k, v.text);
  return { verdict, scripts };
}

/** The judged subject, then a dangerous verdict matched against command_allowlist (configuration and config.yaml). */
export async function assessSubject(
  subject: CallSubject,
  cwd: string,
  config: TetherConfig,
  configFile: string,
  opts: { read?: ReadScripts; onUnreadable?: (err: Error) => void } = {},
): Promise<Assessed> {
  const { verdict, scripts } = await judgeSubject(subject, cwd, opts.read);
  if (verdict.tier !== 'dangerous') return { verdict, scripts };
  let entries = config.command_allowlist;
  try {
    entries = [...entries, ...readAllowlist(configFile)];
  } catch (err) {
    // An unreadable config.yaml leaves the start-up allowlist.
    opts.onUnreadable?.(err as Error);
  }
  return {
    verdict,
    scripts,
    allowlistedBy: allowlistMatch(entries, { command: subject.text, rules: verdict.findings.map((f) => f.rule) }),
  };
}

/** Analyses a command line, then matches a dangerous one against command_allowlist. */
export function assess(
  command: string,
  cwd: string,
  config: TetherConfig,
  configFile: string,
  onUnreadable?: (err: Error) => void,
): Promise<Assessed> {
  return assessSubject({ text: command }, cwd, config, configFile, { onUnreadable });
}
