// The verdict on what a tool call would run (a command with its stdin, a script it runs by path, a program) with
// the allowlist applied, the digest of every file read to reach it, and what a wider approval of it would cover:
// what the approval activities and execute_code's terminal calls decide from. Worker-only (loads the grammars).
import type { AllowlistEntry, ApprovalScope } from '../common/approval-types.js';
import { allowlistMatch } from '../common/allowlist.js';
import { detect, type Verdict } from '../detector/engine/detect.js';
import type { Finding } from '../detector/engine/analysis-state.js';
import { loadBashParser } from '../detector/engine/parser.js';
import { loadProgramReader, type ReadProgram } from '../detector/programs/code/load.js';
import { approvalScope } from './scope.js';
import { writtenByTheLine } from '../detector/engine/changed-before-run.js';
import { keepListings, planReads, type Listings } from '../detector/engine/listed-reads.js';
import type { ScriptFile } from '../detector/engine/scripts.js';
import type { CallSubject } from '../detector/engine/subject.js';
import type { ProtectedEntry } from '../common/protected-paths.js';
import { judgeProtectedChange } from './protected-change.js';
import { contentDigest } from './protected-ledger.js';

interface Assessed {
  verdict: Verdict;
  /** The allowlist entry that covers a dangerous (not hardline) command, if any. */
  allowlistedBy?: string;
  /** Scripts read to judge it (path → text), to show a person deciding. */
  scripts: Map<string, string>;
  /** Every file read to judge it (path → digest of what was read): the verdict holds for these contents only. */
  reads: Record<string, string>;
  /** What session and always would cover (for a dangerous verdict). */
  scope?: ApprovalScope;
  /** What the person is shown instead of the subject's own text (a protected file's change, as a diff). */
  shown?: string;
}

/** The files a running background process was judged on (absolute paths), which a later call must not change unasked. */
export interface HeldFiles {
  id: string;
  command: string;
  files: string[];
}

/** Reads scripts run by path where the command will run (the task's environment); keys as the detector names them. */
export type ReadScripts = (keys: string[]) => Promise<Map<string, ScriptFile>>;

/**
 * A script that runs another runs a third, a module imports another...: beyond this many rounds of reading, or this
 * many files and listings read, what is left asks.
 */
const READ_ROUNDS = 12;
const MAX_READS = 600;

/** What a read gave, as one comparable string: the content's digest, or why there was none. */
export function fileDigest(f: ScriptFile): string {
  if ('text' in f) return f.digest ?? `sha256:${contentDigest(f.text)}`;
  if ('binary' in f) return f.digest ?? 'binary';
  if ('missing' in f) return 'missing';
  if ('directory' in f) return 'directory';
  // A listing (globs, test discovery): the names in it, so a file added or removed there counts as a change.
  if ('entries' in f) return `entries:${contentDigest([...f.entries].sort().join('\u0000'))}`;
  return `unread: ${f.error}`;
}

/** The digests of what was read, by path. */
export function digestsOf(files: ReadonlyMap<string, ScriptFile>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, f] of files) out[k] = fileDigest(f);
  return out;
}

/** The program reader, remembering what it read: each round judges the same files again. */
function remembering(read: ReadProgram): ReadProgram {
  const seen = new Map<string, ReturnType<ReadProgram>>();
  return (source, language) => {
    const key = `${language}\u0000${source}`;
    if (!seen.has(key)) seen.set(key, read(source, language));
    return seen.get(key);
  };
}

/** A verdict and what was read to reach it: the scripts' texts and every file (by the detector's key). */
interface Judged {
  verdict: Verdict;
  scripts: Map<string, string>;
  files: Map<string, ScriptFile>;
}

/** A verdict reached from these findings alone, with nothing read. */
function unread(command: string, findings: Finding[]): Judged {
  const tier = findings.some((f) => f.tier === 'hardline') ? 'hardline' : findings.length > 0 ? 'dangerous' : null;
  return { verdict: { command, dangerous: findings.length > 0, tier, findings }, scripts: new Map(), files: new Map() };
}

/** The verdict with one more finding: dangerous now, unless it was hardline already. */
function withFinding(verdict: Verdict, finding: Finding): Verdict {
  return { ...verdict, dangerous: true, tier: verdict.tier ?? 'dangerous', findings: [...verdict.findings, finding] };
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
  held: readonly HeldFiles[] = [],
): Promise<Judged> {
  // The tool said what the call is (an MCP server's tool): nothing to parse, nothing to read.
  if (subject.findings) return unread(subject.text, [...subject.findings]);
  try {
    return await judgeWithin(subject, cwd, read, held);
  } catch (err) {
    // Nesting deep enough to exhaust the stack (`a && a && …` 20,000 times, `$(` 2,000 deep): a person decides.
    if (!(err instanceof RangeError)) throw err;
    return unread(subject.text, [
      { rule: 'too-deep', tier: 'dangerous', description: 'commands nested too deeply to check' },
    ]);
  }
}

async function judgeWithin(
  subject: CallSubject,
  cwd: string,
  read: ReadScripts | undefined,
  held: readonly HeldFiles[],
): Promise<Judged> {
  const parse = await loadBashParser();
  const programs = remembering(await loadProgramReader());
  const files = new Map<string, ScriptFile>();
  const { stdin, language, terminal, written } = subject;
  const opts = { cwd, stdin, language, programs, terminal, written };
  if (subject.text.trim() === '') return unread(subject.text, []);
  let verdict = detect(parse, subject.text, { ...opts, files: read ? files : undefined });
  const listings: Listings = new Map();
  const ahead = new Map<string, ScriptFile>();
  for (let round = 0; read && verdict.scripts && round < READ_ROUNDS; round += 1) {
    const wanted = verdict.scripts.filter((k) => !files.has(k)).slice(0, Math.max(0, MAX_READS - files.size));
    if (wanted.length === 0) break;
    // What a listing read earlier shows cannot exist is missing, and a file read ahead is known, without a round.
    const plan = planReads(wanted, listings, ahead);
    for (const k of plan.missing) files.set(k, { missing: true });
    for (const k of plan.known) files.set(k, ahead.get(k)!);
    if (plan.read.length > 0) {
      const got = await read([...plan.read, ...plan.listed]);
      for (const k of plan.read) files.set(k, got.get(k) ?? { error: 'could not be read' });
      keepListings(got, plan.listed, listings, ahead);
    }
    verdict = detect(parse, subject.text, { ...opts, files });
  }
  // What was read is what is on disk now; a file the line itself rewrites first is judged on a guess: a person decides.
  const writtenFirst = (keys: string[]): string[] =>
    keys.length > 0 && subject.language === undefined
      ? parse(subject.text, (root) => (root ? writtenByTheLine(root, cwd, keys, parse) : []))
      : [];
  const rewritten = writtenFirst([...files.keys()]);
  if (rewritten.length > 0) {
    const description = `a file it runs or loads is changed by the same command line first: ${rewritten.slice(0, 5).join(', ')}`;
    verdict = withFinding(verdict, { rule: 'changed-before-run', tier: 'dangerous', description });
  }
  // A running background process was judged on files it may run at any later time: writing one changes what it runs.
  const changesHeld = writtenFirst(held.flatMap((h) => h.files));
  if (changesHeld.length > 0) {
    const by = held.filter((h) => h.files.some((f) => changesHeld.includes(f)));
    const description = `changes ${changesHeld.slice(0, 5).join(', ')}, which background process ${by.map((h) => `${h.id} (${h.command.slice(0, 80)})`).join(', ')} was checked on and may still run`;
    verdict = withFinding(verdict, { rule: 'changes-held-file', tier: 'dangerous', description });
  }
  if (subject.inputOnly) {
    const alone = detect(parse, subject.text, { ...opts, stdin: undefined, files: read ? files : undefined });
    const before = new Set(alone.findings.map((f) => f.description));
    const findings = verdict.findings.filter((f) => !before.has(f.description));
    verdict = { ...verdict, findings, dangerous: findings.length > 0, tier: findings[0]?.tier ?? null };
  }
  const scripts = new Map<string, string>();
  for (const [k, v] of files) if ('text' in v) scripts.set(k, v.text);
  return { verdict, scripts, files };
}

/**
 * The judged subject; then a dangerous verdict matched against command_allowlist (the entries the worker holds:
 * read at its start, plus what `always` added since), with what a wider approval of it would cover.
 */
export async function assessSubject(
  subject: CallSubject,
  cwd: string,
  allowlist: readonly AllowlistEntry[],
  opts: {
    read?: ReadScripts;
    tool?: string;
    /** The directory the command will really run in (the task shell's own, after an earlier `cd`). */
    where?: () => Promise<string>;
    /** Files the task's running background processes were judged on. */
    held?: readonly HeldFiles[];
    /** The protected paths in force: a file tool's change to one asks, shown as a diff (protected-change.ts). */
    protectedPaths?: readonly ProtectedEntry[];
  } = {},
): Promise<Assessed & { cwd: string }> {
  const judged = await judgeSubject(subject, cwd, opts.read, opts.held);
  const { scripts } = judged;
  let { verdict, files } = judged;
  let shown: string | undefined;
  if (subject.change && opts.read && opts.protectedPaths) {
    const p = await judgeProtectedChange(opts.tool ?? 'a file tool', subject.change, opts.protectedPaths, opts.read);
    files = new Map([...files, ...p.files]);
    if (p.finding) {
      verdict = withFinding(verdict, p.finding);
      shown = p.shown;
    }
  }
  const reads = digestsOf(files);
  if (verdict.tier !== 'dangerous') return { verdict, scripts, reads, cwd };
  // Asked only for what may ask a person: a wider approval covers the command where it really runs.
  const at = opts.where ? await opts.where().catch(() => cwd) : cwd;
  const parse = await loadBashParser();
  const asShown = shown === undefined ? subject : { ...subject, shown };
  return {
    verdict,
    scripts,
    reads,
    cwd: at,
    ...(shown !== undefined ? { shown } : {}),
    scope: approvalScope(parse, {
      tool: opts.tool ?? 'terminal',
      subject: asShown,
      cwd: at,
      findings: verdict.findings,
      reads,
    }),
    allowlistedBy: allowlistMatch(allowlist, {
      command: subject.text,
      rules: verdict.findings.map((f) => f.rule),
      cwd: at,
      readsFiles: files.size > 0,
    }),
  };
}

/** Analyses a command line, then matches a dangerous one against command_allowlist. */
export function assess(
  command: string,
  cwd: string,
  allowlist: readonly AllowlistEntry[],
): Promise<Assessed & { cwd: string }> {
  return assessSubject({ text: command }, cwd, allowlist);
}
