// Files that other programs run or obey later, outside any sandbox (CI definitions, code owners, agent instructions
// and settings, editor tasks, .envrc, tether's own project files): the one table the local sandbox holds read-only
// and the file tools' gate asks about, with the `terminal.local.sandbox.protected` setting applied. Pure and
// workflow-safe (string work only).
import { normalizePath } from './paths.js';

/** Why a path is protected: what runs or obeys it. */
export type ProtectedKind = 'ci' | 'owners' | 'agent' | 'editor' | 'direnv' | 'tether' | 'configured';

/** What each kind of file does once the task has ended, as a person deciding (and the model) are told. */
export const PROTECTED_WHY: Readonly<Record<ProtectedKind, string>> = {
  ci: "a CI service runs it, with the repository's secrets",
  owners: 'it decides who must review changes',
  agent: 'other agents read it as their instructions or settings',
  editor: 'an editor runs or obeys it',
  direnv: 'direnv runs it when a shell enters the directory',
  tether: "tether's own project files (plugins)",
  configured: 'listed in terminal.local.sandbox.protected',
};

/**
 * The defaults, relative to the top of a project (the task directory, a `writable` path, the work tree of each git
 * repository found in them). An entry covers whatever is at that path: a file, a link, or a directory with
 * everything in it (a trailing `/` only says it is usually a directory).
 */
const DEFAULTS: readonly (readonly [string, ProtectedKind])[] = [
  // CI definitions: their steps run on the CI service with the repository's secrets.
  ['.github/workflows/', 'ci'],
  ['.github/actions/', 'ci'],
  ['.gitlab-ci.yml', 'ci'],
  ['.circleci/', 'ci'],
  ['Jenkinsfile', 'ci'],
  ['azure-pipelines.yml', 'ci'],
  ['.buildkite/', 'ci'],
  ['bitbucket-pipelines.yml', 'ci'],
  // Code owners, in each place GitHub and GitLab look for them.
  ['CODEOWNERS', 'owners'],
  ['.github/CODEOWNERS', 'owners'],
  ['docs/CODEOWNERS', 'owners'],
  ['.gitlab/CODEOWNERS', 'owners'],
  // Agent instructions and settings: what the person's other agents obey (and run: hooks, MCP servers).
  ['AGENTS.md', 'agent'],
  ['CLAUDE.md', 'agent'],
  ['GEMINI.md', 'agent'],
  ['.cursorrules', 'agent'],
  ['.cursor/', 'agent'],
  ['.claude/', 'agent'],
  ['.codex/', 'agent'],
  ['.gemini/', 'agent'],
  ['.github/copilot-instructions.md', 'agent'],
  ['.windsurfrules', 'agent'],
  ['.clinerules', 'agent'],
  ['.mcp.json', 'agent'],
  // Editor tasks and settings: tasks run on a keystroke or on opening the folder; settings choose programs to run.
  ['.vscode/tasks.json', 'editor'],
  ['.vscode/settings.json', 'editor'],
  ['.vscode/mcp.json', 'editor'],
  ['.idea/workspace.xml', 'editor'],
  ['.envrc', 'direnv'],
  ['.tether/', 'tether'],
];

export interface ProtectedEntry {
  /** Normalised, relative, without a trailing slash; compared without regard to case. */
  path: string;
  kind: ProtectedKind;
}

const key = (p: string): string => p.toLowerCase();

/** An entry as written, normalised (no trailing slash); undefined when it is not a relative path inside a project. */
export function normaliseEntry(text: string): string | undefined {
  if (text === '' || text.includes('\u0000') || text.startsWith('/') || text.startsWith('~')) return undefined;
  const parts = text.replace(/\/+$/, '').split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return undefined;
  return parts.join('/');
}

/** What is wrong with a `protected` setting's item (`PATH` adds, `!PATH` removes), or undefined. */
export function protectedItemProblem(item: string): string | undefined {
  const path = item.startsWith('!') ? item.slice(1) : item;
  if (normaliseEntry(path) === undefined)
    return `'${item}': give a path relative to the project (.github/workflows/, AGENTS.md), without '.' or '..' parts, or !PATH to remove one`;
  return undefined;
}

/** The defaults as entries. */
export const DEFAULT_PROTECTED: readonly ProtectedEntry[] = DEFAULTS.map(([p, kind]) => ({
  path: normaliseEntry(p)!,
  kind,
}));

/** A `protected` setting applied to the defaults: the entries in force, and each item that is wrong (by index). */
export function applyProtected(setting: readonly string[] = []): {
  entries: ProtectedEntry[];
  problems: { index: number; message: string }[];
} {
  const out = new Map<string, ProtectedEntry>(DEFAULT_PROTECTED.map((e) => [key(e.path), e]));
  const problems: { index: number; message: string }[] = [];
  setting.forEach((item, index) => {
    const problem = protectedItemProblem(item);
    if (problem) return void problems.push({ index, message: problem });
    const remove = item.startsWith('!');
    const path = normaliseEntry(remove ? item.slice(1) : item)!;
    if (!remove) {
      if (!out.has(key(path))) out.set(key(path), { path, kind: 'configured' });
    } else if (!out.delete(key(path)))
      problems.push({
        index,
        message: `'${item}' removes nothing: ${path} is not among the protected paths (docs/sandbox.md lists them)`,
      });
  });
  return { entries: [...out.values()], problems };
}

/**
 * The entries in force: the defaults, plus each `PATH` of the setting, minus each `!PATH` (applied in order). Throws
 * when an item is malformed or removes nothing, naming it: a typo must not leave a file unprotected unnoticed.
 */
export function resolveProtected(setting: readonly string[] = []): ProtectedEntry[] {
  const { entries, problems } = applyProtected(setting);
  if (problems.length > 0) throw new Error(problems.map((p) => p.message).join('; '));
  return entries;
}

/** The entry that covers `rel` (a path relative to a project's top): it is the entry's path or lies inside it. */
export function protectedEntryOf(rel: string, entries: readonly ProtectedEntry[]): ProtectedEntry | undefined {
  const p = key(normalizePath(rel));
  return entries.find((e) => {
    const k = key(e.path);
    return p === k || p.startsWith(`${k}/`);
  });
}

/** One line for a person and the model: which file, and why it is protected. */
export function protectedReason(shown: string, entry: ProtectedEntry): string {
  return `${shown} is protected (${PROTECTED_WHY[entry.kind]})`;
}
