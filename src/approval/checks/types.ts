// What a per-command check receives: the canonical argv, what feeds its standard input, and ways to report
// findings or analyse nested commands. Pure (types only).
import type { Argv } from '../argv.js';
import type { Word } from '../words.js';

export interface Upstream {
  /** Canonical argv of an earlier command in the same pipeline (null when nothing runs). */
  argv: Argv | null;
  /** The text it prints when that is known statically (echo, printf, cat <<EOF). */
  text?: string;
}

export interface Io {
  /** A here-document or here-string, or the literal text an upstream echo prints. */
  stdinText?: string;
  /** Every earlier command of the pipeline. */
  upstream: Upstream[];
  /** `< FILE` */
  stdinFile?: Word;
}

export interface CheckContext {
  cwd?: string;
  /** Reports a finding; `detail` says what in the command triggered it. */
  add(rule: string, detail: string): void;
  /** Analyses a nested command line (sh -c STRING, eval, ssh HOST CMD, a here-document fed to a shell). */
  script(source: string): void;
  /** Analyses a nested argument vector (docker exec C CMD..., find -exec CMD...). */
  argv(words: Word[], io?: Io): void;
  /** Interpreter code (python -c, node -e, awk programs). */
  code(source: string, language: string): void;
}

/** The text arriving on standard input when it is known: a here-document, or what the previous command prints. */
export const stdinText = (io: Io): string | undefined => io.stdinText ?? io.upstream.at(-1)?.text;

export type Check = (cmd: Argv, io: Io, ctx: CheckContext) => void;

/** Shows a command briefly in a finding's detail. */
export function show(cmd: Argv): string {
  const text = [cmd.written, ...cmd.args.map((a) => a.text)].join(' ');
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
