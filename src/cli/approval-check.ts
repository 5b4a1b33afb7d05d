// `tether approval check`: the verdict on commands, one at a time or as JSON lines on standard input. Worker-only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { judgeSubject, type ReadScripts } from '../approval/assess.js';
import type { Verdict } from '../detector/engine/detect.js';
import { listedDir, MAX_SCRIPT_BYTES, type ScriptFile } from '../detector/engine/scripts.js';
import { CliError } from './errors.js';
import { visibleText } from '../approval/visible-text.js';

export interface CheckOptions {
  json?: boolean;
  jsonl?: boolean;
  cwd?: string;
  /** Text given to the command on standard input. */
  stdin?: string;
  /** The words are a program in this language (as execute_code runs it), not a command line. */
  language?: string;
}

/** Rules that mean "could not be understood": the verdict asks because of what it could not see. */
const NOT_UNDERSTOOD = new Set([
  'dynamic-command',
  'unparsed',
  'too-deep',
  'too-long',
  'unread-script',
  'check-failed',
]);

/** Scripts and modules the gate asks for, and directory listings, read from this machine (relative to `cwd`). */
function localReader(cwd: string): ReadScripts {
  const at = (key: string): string => (key.startsWith('~/') ? resolve(homedir(), key.slice(2)) : resolve(cwd, key));
  const readOne = (key: string): ScriptFile => {
    const dir = listedDir(key);
    try {
      if (dir !== undefined) {
        if (!statSync(at(dir || '.')).isDirectory()) return { missing: true };
        return {
          entries: readdirSync(at(dir || '.'), { withFileTypes: true }).map((e) =>
            e.isDirectory() ||
            (e.isSymbolicLink() && statSync(resolve(at(dir || '.'), e.name), { throwIfNoEntry: false })?.isDirectory())
              ? `${e.name}/`
              : e.name,
          ),
        };
      }
      const info = statSync(at(key));
      if (info.isDirectory()) return { directory: true };
      if (!info.isFile()) return { error: 'is not a readable file' };
      if (info.size > MAX_SCRIPT_BYTES)
        return { error: `is too big to check (${info.size} bytes; at most ${MAX_SCRIPT_BYTES} are read)` };
      const text = readFileSync(at(key), 'utf8');
      return text.includes('\u0000') || text.startsWith('\u007fELF') ? { binary: true } : { text };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? { missing: true } : { error: (err as Error).message };
    }
  };
  return async (keys) => new Map(keys.map((key) => [key, readOne(key)]));
}

/** Exit code of `approval check` for a dangerous verdict (0 when nothing was found). */
const DANGEROUS_EXIT = 3;

const publicVerdict = (v: Verdict) => {
  const unknown = v.findings.filter((f) => NOT_UNDERSTOOD.has(f.rule)).map((f) => f.description);
  return {
    command: v.command,
    dangerous: v.dangerous,
    tier: v.tier,
    findings: v.findings.map((f) => ({ rule: f.rule, tier: f.tier, description: f.description })),
    /** What the gate does in manual mode: run, ask a person, or refuse (hardline). */
    decision: v.tier === 'hardline' ? 'refuse' : v.dangerous ? 'ask' : 'ok',
    ...(v.findings[0] ? { reason: v.findings[0].description } : {}),
    ...(unknown.length > 0 ? { unknown } : {}),
  };
};

function printHuman(v: Verdict): void {
  if (!v.dangerous) {
    process.stdout.write('ok: nothing dangerous found\n');
    return;
  }
  const head =
    v.tier === 'hardline'
      ? 'HARDLINE: never run, whatever the approval mode'
      : v.findings.every((f) => NOT_UNDERSTOOD.has(f.rule))
        ? 'ASKS: not understood, so a person decides'
        : 'DANGEROUS: asks for approval';
  process.stdout.write(
    `${head}\n${v.findings.map((f) => `  [${f.rule}] ${visibleText(f.description, { newlines: 'escape' })}`).join('\n')}\n`,
  );
}

/** Reads JSON-encoded command strings, one per line, and writes one verdict per line in the same order. */
async function checkLines(cwd: string): Promise<number> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  const out: string[] = [];
  const flush = (): void => {
    if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
    out.length = 0;
  };
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let command: unknown;
    try {
      command = JSON.parse(line);
    } catch (err) {
      out.push(JSON.stringify({ line: n, error: `line ${n} is not JSON: ${(err as Error).message}` }));
      continue;
    }
    if (typeof command !== 'string') {
      out.push(
        JSON.stringify({
          line: n,
          error: `line ${n} is not a JSON string (got ${Array.isArray(command) ? 'array' : typeof command})`,
        }),
      );
      continue;
    }
    out.push(JSON.stringify(publicVerdict((await judgeSubject({ text: command }, cwd, localReader(cwd))).verdict)));
    if (out.length >= 256) flush();
  }
  flush();
  return 0;
}

export async function runApprovalCheck(words: string[], opts: CheckOptions): Promise<number> {
  const cwd = opts.cwd ?? process.cwd();
  if (opts.jsonl) return checkLines(cwd);
  const command = words.join(' ');
  if (opts.language !== undefined && opts.language !== 'python' && opts.language !== 'javascript')
    throw new CliError(`--language must be python or javascript (got '${opts.language}')`, 2);
  const { verdict } = await judgeSubject(
    { text: command, stdin: opts.stdin, language: opts.language },
    cwd,
    localReader(cwd),
  );
  if (opts.json) process.stdout.write(`${JSON.stringify(publicVerdict(verdict), null, 2)}\n`);
  else printHuman(verdict);
  return verdict.dangerous ? DANGEROUS_EXIT : 0;
}
