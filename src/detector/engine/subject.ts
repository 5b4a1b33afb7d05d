// What a tool call would run, as the approval gate judges it: a command line with its standard input, or a
// program in a language, and the text a person is shown. Workflow-safe (types only).
import type { ApprovalFinding, ReadFiles } from '../../common/approval-types.js';

export interface CallSubject {
  /** A command line, or a program when `language` is set. */
  text: string;
  /** `text` is a program in this language (execute_code), not a command line. */
  language?: string;
  /** The command's standard input (terminal `stdin`, data for a background process). */
  stdin?: string;
  /** The directory it runs in, as the tool was given it (terminal `workdir`). */
  workdir?: string;
  /** `stdin` is typed on a terminal (a PTY): line editing and history act on it before the program reads it. */
  terminal?: boolean;
  /** Only what `stdin` adds is judged: the command itself was judged when it started (a background process). */
  inputOnly?: boolean;
  /** What a person deciding is shown, when it differs from `text`. */
  shown?: string;
  /** The content a file tool writes to the file of its `: > PATH` (its git configuration is judged wherever it goes). */
  written?: string;
  /**
   * What the tool itself says of the call, instead of analysing `text` as a command (a tool of an MCP server not
   * marked trusted): the call asks for these findings; `text` is kept as it is for the approval's scope.
   */
  findings?: readonly ApprovalFinding[];
  /** What a file tool would do to its file: a protected one asks, showing the change (protected-change.ts). */
  change?: FileChange;
}

/** A file tool's change to one file: its whole new content (write_file), or a replacement in it (patch). */
export type FileChange = { path: string } & ({ content: string } | { old: string; new: string; all: boolean });

/** Where a tool's gate function looks things up (a background process's command). */
export interface GateContext {
  taskId: string;
  cwd: string;
  backend?: string;
}

/**
 * The most a person can be asked to read for one call (the command, its input, every script it runs): a call that
 * needs approval and shows more is refused (the model is told to split it), never approved unseen. It keeps a
 * pending approval well inside Temporal's payload limits.
 */
export const MAX_APPROVAL_CHARS = 100_000;

/**
 * Everything the call would run, whole (the command, its standard input, each script read with its content), and
 * where in it the files read begin (so views can show them apart from what the model asked).
 */
export function shownParts(
  subject: CallSubject,
  scripts: ReadonlyMap<string, string> = new Map(),
): { text: string; readFiles?: ReadFiles } {
  let out = subject.shown ?? subject.text;
  if (subject.stdin !== undefined && subject.shown === undefined) out += `\n# standard input:\n${subject.stdin}`;
  const at = out.length;
  const files: ReadFiles['files'] = [];
  for (const [path, text] of scripts) {
    out += `\n# ${path}:\n${text}`;
    files.push({ path, chars: text.length });
  }
  return files.length > 0 ? { text: out, readFiles: { at, files } } : { text: out };
}

/** Why a call's text cannot be shown for approval (too large), or undefined when it can. */
export function unshowable(shown: string): string | undefined {
  if (shown.length <= MAX_APPROVAL_CHARS) return undefined;
  return (
    `This call needs a person's approval, but what they would have to read (the command with its input and the ` +
    `scripts it runs) is ${shown.length} characters, more than the ${MAX_APPROVAL_CHARS} a person can be shown, ` +
    'so it was not run and not shown. Split it into smaller steps, each short enough to read.'
  );
}

/**
 * A file tool's write (write_file, patch), judged as the shell redirect that would write the same file: the write
 * rules of the command line (git hooks and .git/config, shell start-up files, system configuration, ~/.ssh) apply to
 * every channel that writes files. The content is judged where it runs (a script by path, a makefile, package.json).
 */
export function fileWriteSubject(
  tool: string,
  path: unknown,
  content: unknown,
  edit?: { old: string; new: string; all: boolean },
): CallSubject | undefined {
  if (typeof path !== 'string' || path === '') return undefined;
  const quoted = `'${path.replace(/'/g, `'\\''`)}'`;
  const text = typeof content === 'string' ? content : '';
  const change: FileChange = edit ? { path, ...edit } : { path, content: text };
  // A file tool's relative path is the task directory's, not the shell's (after a `cd`): files are read there too.
  return { text: `: > ${quoted}`, shown: `${tool} ${path}:\n${text}`, workdir: '.', written: text, change };
}
