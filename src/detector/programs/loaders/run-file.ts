// A file a command runs or loads, judged from its content: scripts run by path (`sh x.sh`, `./x.sh`, `python x.py`,
// named by a glob), task runners' files, and the modules, hooks and configuration programs load by themselves.
// Read where the command runs; what cannot be read asks. Pure.
import { normalizePath } from '../../../common/paths.js';
import { classifyPath } from '../../engine/paths.js';
import { crontabCommands } from '../../engine/code-in-options.js';
import { shebangLanguage, type ScriptFile } from '../../engine/scripts.js';
import { runnerFile } from '../build/task-runners.js';
import type { CheckContext, Origin } from '../../checks/types.js';
import { literal, type Word } from '../../engine/words.js';
import { expandGlob } from './glob.js';

/** What judging a file needs from the analysis beyond a check's context. */
export interface FileHost extends CheckContext {
  /** Inside code that runs in a later call (an exported EDITOR): a file it runs may change before then. */
  readonly laterDepth: number;
  /** Commands seen so far in the line: a file missing now may be written by an earlier one. */
  readonly commandsSeen: number;
  /** Runs the judging of a file's content: its own commands are not commands of the line. */
  insideFile(run: () => void): void;
  /** Text this command line writes to the file earlier (`echo ... > x.sh; sh x.sh`). */
  writtenTextOf(key: string): string | undefined;
  /** The file as read, without asking for it. */
  fileAt(key: string): ScriptFile | undefined;
}

export const dirOf = (key: string): string => {
  const i = key.lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : key.slice(0, i);
};

export const joinKey = (dir: string, rest: string): string =>
  normalizePath(rest.startsWith('/') || dir === '.' ? rest : `${dir}/${rest}`);

/** A file missing before the line runs, which an earlier command of the line may write. */
export const mayBeWritten = (key: string): string =>
  `${key} does not exist before this command line runs; an earlier command may write it`;

/** A language an interpreter runs, not a task runner's file format (`make…`, `…:…`, runner-config). */
const INTERPRETED = /^(?!make)(?!runner-config$)[^:]*$/;

/** Where a program run from a file finds its modules: Python's sys.path[0] is the script's directory. */
export function originOf(key: string, language: string): Origin {
  return { file: key, roots: language === 'python' ? [dirOf(key)] : [] };
}

/** Judges text read from `key` as `language` (null: a shell, or what its `#!` line names). */
function judgeText(host: FileHost, key: string, text: string, language: string | null, origin?: Origin): void {
  host.insideFile(() => {
    if (language !== null && runnerFile(key, text, language, host)) return;
    const lang = language ?? shebangLanguage(text);
    // TypeScript is read with its own grammar: a `.ts` file run by node, tsx, deno or bun.
    const typescript = lang === 'javascript' && /\.(c|m)?tsx?$/.test(key);
    if (lang === undefined)
      host.add(
        'unread-script',
        `${key} is run by an interpreter the detector does not read (${text.split('\n')[0]!.slice(0, 60)})`,
      );
    else if (lang === 'crontab') for (const c of crontabCommands(text)) host.script(c);
    else if (lang === null) host.script(text);
    else host.code(text, typescript ? 'typescript' : lang, origin ?? originOf(key, lang));
  });
}

/** The origin of a program run from `key` given the interpreter's library directories (`-I`, PYTHONPATH). */
function withFile(key: string, language: string | null, origin: Origin | undefined): Origin | undefined {
  if (!origin || origin.file !== undefined) return origin;
  return { file: key, roots: language === 'python' ? [dirOf(key), ...origin.roots] : origin.roots };
}

/**
 * A script run by path. `optional`: a file a program reads only if it is there (a task runner's settings: missing,
 * it never asks), or the alternatives it picks from (`GNUmakefile`, `makefile`, `Makefile`: asks when all are missing
 * before a line in which an earlier command may write one).
 */
export function runFile(
  host: FileHost,
  path: Word,
  language: string | null,
  optional?: true | readonly string[],
  origin?: Origin,
): void {
  if (path.dynamic)
    return host.add('dynamic-command', `the script's path is computed at run time: ${path.text.slice(0, 80)}`);
  if (path.pattern) {
    // `sh g?.sh`, `. ./[g]7.sh`: bash expands the pattern against the directory; every file it names is judged.
    const r = expandGlob(path.text, host);
    if ('error' in r) host.add('unread-script', r.error);
    else if ('paths' in r) for (const p of r.paths) runFile(host, literal(p), language, optional, origin);
    return;
  }
  const key = host.keyOf(path.text);
  if (key === undefined) return;
  // Run by a later command (an exported EDITOR, BASH_ENV): a project file is judged as it is now; one elsewhere
  // (a shared /tmp, the home directory) asks, as does one that does not exist yet.
  if (host.laterDepth > 0 && classifyPath(path, host.where) !== 'inside')
    return host.add('carried-code', `${path.text} is run by later commands and is not a file of the project`);
  if (key === null) return host.add('unread-script', `${path.text} (after a cd to a directory known only at run time)`);
  const written = host.writtenTextOf(key);
  if (written !== undefined) return judgeText(host, key, written, language, withFile(key, language, origin));
  const file = host.fileAt(key);
  if (file && 'missing' in file && host.laterDepth > 0)
    return host.add('carried-code', `${key} does not exist yet: what is written there later runs in later commands`);
  if (file && 'missing' in file) {
    // Nothing runs from a file that is not there, unless an earlier command of this line makes it.
    const alternatives = optional === true ? [] : optional ? optional.map((p) => host.keyOf(p)) : [key];
    const allMissing = alternatives.every((k) => typeof k === 'string' && 'missing' in (host.fileAt(k) ?? {}));
    if (host.commandsSeen > 1 && alternatives.length > 0 && allMissing) host.add('unread-script', mayBeWritten(key));
    return;
  }
  const read = file ?? host.readFile(key);
  if (read === undefined) return;
  if ('error' in read) host.add('unread-script', `${key}: ${read.error}`);
  // `python3 app/` runs the directory's __main__.py.
  if ('directory' in read && language === 'python') runFile(host, literal(joinKey(key, '__main__.py')), 'python');
  // An interpreter given compiled bytes runs them (a zip app, .pyc): what they do cannot be read. Run directly, a
  // compiled program is not read at all, as installed programs are not.
  if ('binary' in read && language !== null && INTERPRETED.test(language))
    host.add('unread-script', `${key} is not text the detector can read (run by ${language})`);
  if ('text' in read) judgeText(host, key, read.text, language, withFile(key, language, origin));
}

/**
 * Code a program loads by itself from a file (a module it imports, a hook git runs): judged as `language`. A
 * missing file runs nothing, unless an earlier command of the line names it (`made`: it may create it).
 */
export function loadFile(host: FileHost, key: string, language: string | null, origin: Origin, made = false): void {
  const written = host.writtenTextOf(key);
  if (written !== undefined) return judgeText(host, key, written, language, origin);
  const read = host.readFile(key);
  if (read === undefined || 'directory' in read || 'entries' in read) return;
  if ('missing' in read) {
    if (made) host.add('unread-script', mayBeWritten(key));
    return;
  }
  if ('error' in read) host.add('unread-script', `${key}: ${read.error}`);
  else if ('binary' in read) host.add('unread-script', `${key} is compiled code the detector cannot read`);
  else judgeText(host, key, read.text, language, origin);
}
