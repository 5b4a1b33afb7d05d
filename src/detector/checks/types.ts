// What a per-command check receives: the canonical argv, what feeds its standard input, and ways to report
// findings or analyse nested commands; and the two simplest checks, built from a rule name. Pure.
import type { Argv } from '../engine/argv.js';
import type { Where } from '../engine/paths.js';
import type { ScriptFile } from '../engine/scripts.js';
import type { Word } from '../engine/words.js';
import type { WriteMode } from './traces.js';

/** Where code being judged came from: the file (for what it imports relative to itself) and the import roots. */
export interface Origin {
  /** The key of the file the code was read from; none for code given inline (`python -c`, standard input). */
  file?: string;
  /** Directories (keys) the program finds modules in: Python's sys.path entries of the project, Perl's @INC... */
  roots: string[];
}

export interface Upstream {
  /** Canonical argv of an earlier command in the same pipeline (null when nothing runs). */
  argv: Argv | null;
  /** The text it prints when that is known statically (echo, printf, cat <<EOF). */
  text?: string;
  /** It prints text computed at run time (echo "$x"). */
  dynamic?: boolean;
}

export interface Io {
  /** A here-document or here-string, or the literal text an upstream echo prints. */
  stdinText?: string;
  /** Every earlier command of the pipeline. */
  upstream: Upstream[];
  /** `< FILE` */
  stdinFile?: Word;
  /**
   * Where the command's output goes: shown (the terminal, which the model reads), or consumed (a file, a program that
   * uses it, a variable). Unknown counts as shown.
   */
  output?: 'shown' | 'consumed';
  /** The file standard output is redirected to, as written. */
  outputFile?: string;
}

export interface CheckContext {
  /** The project directory and the shell's current directory at this command. */
  readonly where: Where;
  /** Reports a finding; `detail` says what in the command triggered it. */
  add(rule: string, detail: string): void;
  /** Analyses a nested command line (sh -c STRING, eval, ssh HOST CMD, a here-document fed to a shell); `io` is its standard input. */
  script(source: string, io?: Io): void;
  /** Analyses a nested argument vector (docker exec C CMD..., find -exec CMD...). */
  argv(words: Word[], io?: Io): void;
  /** Interpreter code (python -c, node -e, awk programs); `origin`: where it was read from (imports are relative to it). */
  code(source: string, language: string, origin?: Origin): void;
  /** What a process substitution (`<(...)`) in this word produces, as standard input from its commands. */
  substitutionInput(word: Word): Io | undefined;
  /** Files written by a downloader earlier in the command line. */
  readonly downloaded: Set<string>;
  /** Git directories an earlier command of the line makes (`git init --bare x`), as keys. */
  readonly gitDirsMade?: Set<string>;
  /**
   * A script run by path (`sh x.sh`, `./x.sh`, `python x.py`, a glob naming it): judged from its content as `language`
   * (null: shell or its `#!` line). `optional`: a missing file never asks (a runner's settings), or the alternatives.
   */
  runsFile(path: Word, language: string | null, optional?: true | readonly string[], origin?: Origin): void;
  /**
   * A file's content, or a directory's names for a listing key (scripts.ts), read where the command runs. Undefined
   * while it has not been read (the gate's reader is asked for it) and when the detector runs without reading files.
   */
  readFile(key: string): ScriptFile | undefined;
  /** Files are read (the gate), so what is not yet read will be; false for the detector alone (a verdict table). */
  readonly reading: boolean;
  /** The key under which a path written in the command is read (scripts.ts `scriptKey`), here. */
  keyOf(written: string): string | null | undefined;
  /**
   * Code the program loads from a file of the project (a module it imports, a hook git runs): judged once per
   * judgment, as `language`, with `origin` for what it imports in turn. A missing file runs nothing.
   */
  loads(key: string, language: string, origin: Origin): void;
  /** Where the code being judged now came from (undefined outside a program). */
  readonly origin: Origin | undefined;
  /** NAME=VALUE settings of the command being judged (`PYTHONPATH=src python x.py`, `env NODE_OPTIONS=... node`). */
  readonly commandEnv: ReadonlyMap<string, Word>;
  /** Program text computed at run time (`sh -c "$(...)"`, `eval "$X"`): asks, and what can be seen of it is judged. */
  computed(word: Word, who: string, language?: string | null): void;
  /** Runs `judge` once the whole command line has been read (a trap's handler runs when the shell exits). */
  atExit?(judge: () => void): void;
  /** The text arriving on standard input when it is known, decoders (base64 -d, rev) seen through. */
  knownText(io: Io): string | undefined;
  /**
   * A file written with `text` (undefined: not known), judged as a redirect writing it is: where it goes, what the text
   * makes of it, and what a later command running it runs (tee).
   */
  writesText(target: Word, text: string | undefined, mode: WriteMode, detail: string): void;
}

/**
 * The same context with its `add` replaced (to count findings, or to drop some); every other member is the real
 * context's, called on it, since its methods keep state of their own.
 */
export function withAdd(ctx: CheckContext, add: (rule: string, detail: string) => void): CheckContext {
  // Each method is bound once per view, not on every read (the checks read the context many times).
  const bound = new Map<unknown, unknown>();
  return new Proxy(ctx, {
    get: (target, key) => {
      if (key === 'add') return add;
      const v: unknown = Reflect.get(target, key, target);
      if (typeof v !== 'function') return v;
      if (!bound.has(v)) bound.set(v, (v as (...a: unknown[]) => unknown).bind(target));
      return bound.get(v);
    },
  });
}

/** Commands that pass their input through unchanged. */
const PASS_THROUGH = new Set(['cat', 'tee', 'stdbuf', 'pv', 'dd']);

/** The text arriving on standard input when it is known: a here-document, or what an earlier command prints (through cat/tee). */
export function stdinText(io: Io): string | undefined {
  if (io.stdinText !== undefined) return io.stdinText;
  for (let i = io.upstream.length - 1; i >= 0; i -= 1) {
    const u = io.upstream[i]!;
    if (u.text !== undefined) return u.text;
    if (
      !u.argv?.name ||
      !PASS_THROUGH.has(u.argv.name) ||
      (u.argv.name === 'cat' && u.argv.args.some((a) => !a.text.startsWith('-')))
    )
      return undefined;
  }
  return undefined;
}

/** Paths that name the program's own standard input. */
export const STDIN_PATHS = /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0|\/proc\/\$\$\/fd\/0)$/;

/** Standard input is known to come from computed text (`echo "$x" | sh`). */
export const stdinIsDynamic = (io: Io): boolean => io.upstream.at(-1)?.dynamic === true;

export type Check = (cmd: Argv, io: Io, ctx: CheckContext) => void;

/** Text for a finding's detail, cut to `max` characters. */
export const shortened = (text: string, max = 80): string =>
  text.length > max ? `${text.slice(0, max - 3)}...` : text;

/** Shows a command briefly in a finding's detail. */
export function show(cmd: Argv): string {
  let text = cmd.written;
  // Only what is shown is joined: checks call this once per argument, so a line of 10,000 arguments stays linear.
  for (let i = 0; i < cmd.args.length && text.length <= 120; i += 1) text += ` ${cmd.args[i]!.text}`;
  return shortened(text, 120);
}

/** The value of the option at `words[i]` when its name matches `names`: `--name=value`, or `--name value`. */
export function valueAt(words: readonly string[], i: number, names: RegExp): string | undefined {
  const t = words[i]!;
  const eq = t.indexOf('=');
  if (eq > 0 && names.test(t.slice(0, eq))) return t.slice(eq + 1);
  return names.test(t) ? words[i + 1] : undefined;
}

/** A check that reports `rule` whenever the program runs (`bfg`, `useradd`, `blkdiscard`). */
export function always(rule: string): Check {
  return (cmd, _io, ctx) => ctx.add(rule, show(cmd));
}

/**
 * A check that reports `rule` when `test` holds of the arguments' texts (`wevtutil cl LOG`, `dscl . -create`); `why`
 * is added to the detail.
 */
export function when(rule: string, test: (words: string[], cmd: Argv) => boolean, why?: string): Check {
  return (cmd, _io, ctx) => {
    const words = cmd.args.map((a) => a.text);
    if (test(words, cmd)) ctx.add(rule, why === undefined ? show(cmd) : `${show(cmd)} (${why})`);
  };
}

/** A check that reports `rule` when an argument matches `pattern` (`ifconfig eth0 down`, `taskkill /IM x.exe`). */
export const whenArg = (rule: string, pattern: RegExp, why?: string): Check =>
  when(rule, (w) => w.some((t) => pattern.test(t)), why);

/** A check that reports `rule` unless an argument matches `pattern`, an option that only reads (`passwd -S`). */
export const unlessArg = (rule: string, pattern: RegExp): Check => when(rule, (w) => !w.some((t) => pattern.test(t)));
