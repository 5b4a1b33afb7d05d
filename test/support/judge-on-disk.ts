// The gate as its activity runs it, on files a test lays out as if on disk: the detector tests of the route families
// (launchers, abbreviations, git's surfaces and config content, values evaluated again) judge through this.
import { posix } from 'node:path';
import { expect, it } from 'vitest';
import { normalizePath } from '../../src/common/paths.js';
import { judgeSubject, type ReadScripts } from '../../src/approval/assess.js';
import { listedDir, type ScriptFile } from '../../src/detector/engine/scripts.js';
import type { CallSubject } from '../../src/detector/engine/subject.js';
import type { Verdict } from '../../src/detector/engine/detect.js';

/**
 * Reads `disk` (path relative to `cwd` → text) as the task's environment would: a path with files below it is a
 * directory, a listing names what is right below it, anything else is missing. `shell` is where an earlier `cd`
 * left the task's shell: relative keys are looked up there.
 */
export function diskReader(cwd: string, disk: Record<string, string>, shell = ''): ReadScripts {
  const one = (key: string): ScriptFile => {
    const listed = listedDir(key);
    const abs = normalizePath((listed ?? key).startsWith('/') ? (listed ?? key) : `${cwd}/${shell}/${listed ?? key}`);
    // Relative to the task directory, `..` included: a test may lay out files above it.
    const rel = posix.relative(cwd, abs);
    const prefix = rel === '' ? '' : `${rel}/`;
    const below = Object.keys(disk).filter((p) => p.startsWith(prefix));
    if (listed !== undefined) {
      if (below.length === 0 && rel !== '') return { missing: true };
      return { entries: [...new Set(below.map((p) => p.slice(prefix.length).replace(/\/.*$/, '/')))] };
    }
    if (disk[rel] !== undefined) return { text: disk[rel] };
    return rel === '' || below.length > 0 ? { directory: true } : { missing: true };
  };
  return async (keys) => new Map(keys.map((key): [string, ScriptFile] => [key, one(key)]));
}

/** The verdict on a command line (or a tool's subject) over `disk`: its tier, rules, findings and reasons. */
export async function judgedOnDisk(
  subject: string | CallSubject,
  cwd: string,
  disk: Record<string, string> = {},
  shell = '',
): Promise<{ tier: string | null; rules: string[]; findings: Verdict['findings']; reasons: string }> {
  const s = typeof subject === 'string' ? { text: subject } : subject;
  const { verdict } = await judgeSubject(s, cwd, diskReader(cwd, disk, s.workdir === undefined ? shell : ''));
  return {
    tier: verdict.tier,
    rules: verdict.findings.map((f) => f.rule),
    findings: verdict.findings,
    reasons: verdict.findings.map((f) => f.description).join(' | '),
  };
}

/** A command, the files it finds, a rule it must be judged under, and a text its reasons must hold. */
export type Asks = [command: string, disk: Record<string, string>, rule: string, reason: string];
/** A look-alike that must not ask, and the files it finds. */
export type Benign = [command: string, disk: Record<string, string>];

/** One test per row: each of `asks` asks under its rule with its reason; each of `benign` asks nothing. */
export function judgedTable(cwd: string, asks: readonly Asks[], benign: readonly Benign[]): void {
  it.each(asks)('%s asks', async (command, disk, rule, reason) => {
    const r = await judgedOnDisk(command, cwd, disk);
    expect(r.tier, r.reasons).not.toBeNull();
    expect(r.rules, r.reasons).toContain(rule);
    expect(r.reasons).toContain(reason);
  });
  it.each(benign)('%s does not ask', async (command, disk) => {
    const r = await judgedOnDisk(command, cwd, disk);
    expect(r, r.reasons).toMatchObject({ tier: null, rules: [] });
  });
}
