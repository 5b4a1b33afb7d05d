// A file tool's change to a protected file (src/common/protected-paths.ts: CI definitions, agent instructions,
// editor tasks, .envrc, ... at the top of the task directory or of a repository in it) asks a person, who is shown
// the change as a diff against the file as it is now; the file's content (and each `.git` that made a directory a
// project's top) is bound to the verdict, so a file changed after the approval is judged again before the write.
// Worker-only (reads through the gate's reader).
import { resolve } from 'node:path';
import { normalizePath } from '../common/paths.js';
import { noteApprovedWrite } from './protected-ledger.js';
import { PROTECTED_WHY, protectedEntryOf, type ProtectedEntry } from '../common/protected-paths.js';
import { unifiedDiff } from './line-diff.js';
import type { ScriptFile } from '../detector/engine/scripts.js';
import type { FileChange } from '../detector/engine/subject.js';
import type { Finding } from '../detector/engine/analysis-state.js';
import type { ReadScripts } from './assess.js';

export interface ProtectedJudgement {
  finding?: Finding;
  /** What the person is shown instead of the whole content: the change as a diff. */
  shown?: string;
  /** What was read, by key: the verdict holds for these contents only. */
  files: Map<string, ScriptFile>;
}

/** The file's content after the change, as the tool makes it; undefined when the tool would refuse (as patch does). */
export function applyChange(before: string | undefined, change: FileChange): string | undefined {
  if ('content' in change) return change.content;
  if (before === undefined || change.old === '') return undefined;
  const found = before.split(change.old).length - 1;
  if (found === 0 || (found > 1 && !change.all)) return undefined;
  return change.all ? before.split(change.old).join(change.new) : before.replace(change.old, () => change.new);
}

/** The directories from the task directory down to the file's (relative to it), nearest the file last. */
function ancestors(rel: string): string[] {
  const parts = rel.split('/').slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * The entry covering the change's file at some project top: the task directory, or a directory above the file that
 * holds a `.git` (read through `read`). Paths outside the task directory are judged from their repositories only.
 */
async function coveringEntry(
  rel: string,
  entries: readonly ProtectedEntry[],
  read: ReadScripts,
  files: Map<string, ScriptFile>,
): Promise<ProtectedEntry | undefined> {
  const outside = rel.startsWith('/') || rel === '..' || rel.startsWith('../');
  const dirs = outside ? ancestors(rel).filter((d) => d !== '') : ancestors(rel);
  const below = (top: string): string => (top === '' ? rel : rel.slice(top.length + 1));
  // Only a directory where an entry would match is asked whether it is a project's top.
  const candidates = dirs.filter((d) => protectedEntryOf(below(d), entries));
  const atTaskDir = outside ? undefined : protectedEntryOf(rel, entries);
  if (candidates.length === 0) return atTaskDir;
  const keys = candidates.map((d) => `${d}/.git`);
  const got = await read(keys);
  for (const k of keys) files.set(k, got.get(k) ?? { error: 'could not be read' });
  // The deepest repository decides (a nested repository's own CI, not the outer one's file of the same name).
  for (const d of [...candidates].reverse()) {
    const git = files.get(`${d}/.git`);
    if (git && ('directory' in git || 'text' in git)) return protectedEntryOf(below(d), entries);
  }
  return atTaskDir;
}

/**
 * Judges a file tool's change against the protected paths: a change to one is a `protected-file` finding, shown as
 * a diff; no change (the same content) needs nobody. `tool` and the path as given name it for the person.
 */
export async function judgeProtectedChange(
  tool: string,
  change: FileChange,
  entries: readonly ProtectedEntry[],
  read: ReadScripts,
): Promise<ProtectedJudgement> {
  const files = new Map<string, ScriptFile>();
  const rel = normalizePath(change.path);
  const entry = await coveringEntry(rel, entries, read, files);
  if (!entry) return { files };
  const current = (await read([change.path])).get(change.path) ?? { error: 'could not be read' };
  files.set(change.path, current);
  const before = 'text' in current ? current.text : 'missing' in current ? undefined : null;
  const why = `${change.path} is protected (${PROTECTED_WHY[entry.kind]})`;
  const finding: Finding = {
    rule: 'protected-file',
    tier: 'dangerous',
    description: `changes ${change.path}, a file other programs run or obey later: ${PROTECTED_WHY[entry.kind]}`,
  };
  if (before === null) {
    // Unreadable here (binary, too big, a directory): the person sees what the tool would write instead.
    const reason = 'error' in current ? current.error : 'binary' in current ? 'is binary' : 'is not a plain file';
    const what =
      'content' in change
        ? `its whole new content:\n${change.content}`
        : `the replacement${change.all ? ' (every occurrence)' : ''}:\n--- old\n${change.old}\n+++ new\n${change.new}`;
    return {
      files,
      finding,
      shown: `${tool} ${change.path}: ${why}; its current content ${reason}, so here is ${what}`,
    };
  }
  const after = applyChange(before, change);
  // The tool will refuse (patch text not found) or change nothing: nobody needs to decide.
  if (after === undefined || after === before) return { files };
  const diff = unifiedDiff(before ?? '', after, {
    from: before === undefined ? '/dev/null (a new file)' : `${change.path} (now)`,
    to: `${change.path} (after this ${tool})`,
  });
  return { files, finding, shown: `${tool} ${change.path}: ${why}. The change:\n${diff}` };
}

/**
 * A file tool's change about to run on a decision (its files unchanged since): the content it writes is recorded,
 * so that the local sandbox, seeing that file appear while the task's processes run, keeps it (protected-guard.ts).
 */
export function noteApprovedChange(cwd: string, change: FileChange, files: ReadonlyMap<string, ScriptFile>): void {
  const read = files.get(change.path);
  const before = read && 'text' in read ? read.text : read && 'missing' in read ? undefined : null;
  if (before === null && !('content' in change)) return;
  const after = applyChange(before ?? undefined, change);
  if (after !== undefined) noteApprovedWrite(resolve(cwd, change.path), after);
}
