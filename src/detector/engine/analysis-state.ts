// The state of one command line's judgement and the ways into it: findings, variables, scripts and files the line
// names or writes, modules programs load, nested command lines and programs (script, code, argv). The walker
// (detect.ts) extends it with how each piece of bash syntax is visited. Pure once the parser is loaded.
import { peel, type Argv } from './argv.js';
import { analyseCode } from '../checks/code.js';
import { commandWords, firstCommand, named, pipelineLeaves, printedText } from './syntax.js';
import { type Where } from './paths.js';
import { lineGrants } from '../checks/agent-rules.js';
import { lineScriptsNoop, lineSkipsChecks } from '../checks/test-tampering.js';
import { shortened, stdinText, type Io, type Origin, type Upstream } from '../checks/types.js';
import { decodedText } from './decode.js';
import { type CarryContext } from './later-commands.js';
import type { WriteMode } from '../checks/traces.js';
import { RUN_TIME, ValueState, type ValueContext } from './reevaluation.js';
import { listedDir, scriptKey, type ScriptFile } from './scripts.js';
import { loadFile, runFile } from '../programs/loaders/run-file.js';
import { inlineOrigin, programLoad } from '../programs/loaders/program-loads.js';
import { readLanguage } from '../programs/interpreters/languages.js';
import type { ParseBash, SyntaxNode } from './parser.js';
import type { ProgramEffect, ProgramStdin } from '../programs/code/effects.js';
import type { ReadProgram } from '../programs/code/load.js';
import { rule, type Tier } from '../../common/rules.js';
import { type Fds } from './stdin.js';
import { literal, type Word } from './words.js';

export interface Finding {
  rule: string;
  tier: Tier;
  description: string;
}

export interface Verdict {
  command: string;
  dangerous: boolean;
  /** The worst tier found; null when nothing was found. */
  tier: Tier | null;
  findings: Finding[];
  /** Scripts run by path that `files` did not hold (keys for a reader to fetch); absent when there are none. */
  scripts?: string[];
}

const MAX_DEPTH = 8;
/** Files loaded by programs (modules, hooks) judged at most per command line. */
const MAX_LOADS = 400;
/** Syntax trees deeper than this are not walked: they ask. */
const MAX_TREE_DEPTH = 400;
/** Commands and nested scripts judged at most per command line, and characters of script text parsed (a string doubled
 * 22 times and `eval`ed, scripts that each source the next five times): past either, what is left is not judged (the
 * gate would take minutes, or run out of memory), and a person decides. */
const MAX_STEPS = 20_000;
const MAX_TEXT = 1_000_000;

export interface DetectOptions {
  /** The project directory: absolute paths inside it count as the project's own files. */
  cwd?: string;
  /** Text on the command's standard input (terminal `stdin`, data written to a background process). */
  stdin?: string;
  /** Scripts run by path, read in the task's environment. Given, a script missing from it asks; absent, scripts are not judged. */
  files?: ReadonlyMap<string, ScriptFile>;
  /** Reads Python and JavaScript with a real grammar (loadProgramReader()); without it, only the one-liner patterns apply. */
  programs?: ReadProgram;
  /** The text is a program in this language (an execute_code program), not a command line. */
  language?: string;
  /** `stdin` is typed on a terminal: what line editing and history would do to it asks (line-editing.ts). */
  terminal?: boolean;
  /** What a file tool writes to the file of its `: > PATH` subject. */
  written?: string;
}

/** A command line's judgement: its state; the walker gives how each node is visited. */
export abstract class AnalysisState implements CarryContext, ValueContext {
  readonly findings = new Map<string, Finding>();
  readonly where: Where;
  /** Variables assigned with literal values so far (`D=/dev/sda; ...`). */
  protected readonly vars = new Map<string, string>();
  /** Variables set at run time and declared integer: where bash evaluates values again (reevaluation.ts). */
  readonly values = new ValueState();

  valueOf(name: string): string | typeof RUN_TIME | undefined {
    return this.vars.get(name) ?? (this.values.runtime.has(name) ? RUN_TIME : undefined);
  }
  /** What earlier pipeline elements print (upstreamOf), by tree and node, while the known variables stay the same. */
  protected upstreamSeen = new WeakMap<SyntaxNode, Upstream>();
  /** Standard input of a nested script (ssh HOST CMD <<EOF): every top-level command of it reads it. */
  protected inherited: Io | undefined;
  /** Aliases defined so far (`alias ls='rm -rf'`), and those being expanded (bash does not expand one in itself). */
  protected readonly aliases = new Map<string, string>();
  protected readonly expanding = new Set<string>();
  /** Files written by a downloader in this command line (`curl -o x.sh URL && bash x.sh`). */
  readonly downloaded = new Set<string>();
  /** Git directories an earlier command of the line makes (`git init --bare x`): keys. */
  readonly gitDirsMade = new Set<string>();

  /** Scripts run by path that `files` did not hold. */
  readonly wanted = new Set<string>();
  /** Files this command line writes with text not known here (`gen > x.py`, a program's shutil.copy to x.py). */
  protected readonly overwritten = new Set<string>();
  /** Files this command line writes known text to (`echo ... > x.sh; sh x.sh`). */
  protected readonly writtenText = new Map<string, string>();
  /** What a file tool writes (its subject is `: > PATH`): judged as the content of that write. */
  fileToolContent: string | undefined;
  /** Commands seen so far: a script missing before a list runs may be written by an earlier command of it. */
  commandsSeen = 0;
  protected fileDepth = 0;
  /** Commands and nested scripts judged so far (MAX_STEPS), and the length of the script text parsed (MAX_TEXT). */
  private steps = 0;
  private textLength = 0;

  /** Runs `run` with `counter` one higher, lowered again however it ends. */
  private deeper(counter: 'fileDepth' | 'laterDepth' | 'depth', run: () => void): void {
    this[counter] += 1;
    try {
      run();
    } finally {
      this[counter] -= 1;
    }
  }

  insideFile(run: () => void): void {
    this.deeper('fileDepth', run);
  }
  /** Inside code that runs in a later call (an exported PAGER): a script it runs by path may change before then. */
  laterDepth = 0;
  /** Paths (keys) named by the commands seen so far: a file missing now that one names may be made by it. */
  protected readonly named = new Set<string>();
  /** Files programs load by themselves (modules, hooks), judged after the line, once each. */
  protected readonly queue: {
    key: string;
    language: string;
    origin: Origin;
    cwd: Where['cwd'];
    later: number;
    /** An earlier command of the line names the file: it may make it. */
    made: boolean;
  }[] = [];
  protected readonly loaded = new Set<string>();
  /** Where the code being judged came from (imports are relative to it). */
  origin: Origin | undefined;
  /** NAME=VALUE settings of the command being judged (`PYTHONPATH=src python x.py`). */
  commandEnv: ReadonlyMap<string, Word> = new Map();
  /** Variables the line exported (or set, for search paths usually exported already), for later commands' lookups. */
  protected readonly exported = new Map<string, Word>();

  constructor(
    protected readonly parse: ParseBash,
    project: string | undefined,
    protected depth = 0,
    protected readonly files?: ReadonlyMap<string, ScriptFile>,
    protected readonly programs?: ReadProgram,
  ) {
    this.where = { project, cwd: project };
  }

  runsFile(path: Word, language: string | null, optional?: true | readonly string[], origin?: Origin): void {
    runFile(this, path, language, optional, origin);
  }

  get reading(): boolean {
    return this.files !== undefined;
  }

  keyOf(written: string): string | null | undefined {
    return scriptKey(written, this.where);
  }

  fileAt(key: string): ScriptFile | undefined {
    return this.files?.get(key);
  }

  readFile(key: string): ScriptFile | undefined {
    const file = this.files?.get(key);
    if (file === undefined) {
      this.wanted.add(key);
      // Judged again once it is read; if it never is, this finding stays and the call asks.
      if (this.files) this.add('unread-script', `${listedDir(key) ?? key} was not read`);
    }
    return file;
  }

  writtenTextOf(key: string): string | undefined {
    return this.writtenText.get(key);
  }

  protected namedEarlier(key: string): boolean {
    for (const n of this.named) if (n === key || (n !== '.' && key.startsWith(`${n}/`))) return true;
    return false;
  }

  loads(key: string, language: string, origin: Origin): void {
    const id = `${language}\u0000${key}`;
    if (this.loaded.has(id)) return;
    this.loaded.add(id);
    this.queue.push({
      key,
      language,
      origin,
      cwd: this.where.cwd,
      later: this.laterDepth,
      made: this.namedEarlier(key),
    });
  }

  /** Judges the files programs load by themselves (modules, hooks), once each, until none is left. */
  drainLoads(): void {
    for (let i = 0; i < this.queue.length && i < MAX_LOADS; i += 1) {
      const { key, language, origin, cwd, later, made } = this.queue[i]!;
      // A module the line itself writes with text not known here (a program copying a file over it): unreadable now.
      if (this.overwritten.has(key) && this.writtenText.get(key) === undefined)
        this.add(
          'unread-script',
          `${key} is written by this command line before it is loaded; what it will hold is not known`,
        );
      const [before, depth] = [this.where.cwd, this.laterDepth];
      this.where.cwd = cwd;
      this.laterDepth = later;
      try {
        loadFile(this, key, language === 'shell' ? null : language, origin, made);
      } finally {
        this.where.cwd = before;
        this.laterDepth = depth;
      }
    }
    if (this.queue.length > MAX_LOADS)
      this.add('unread-script', `the program loads more than ${MAX_LOADS} files of the project; not all were read`);
  }

  computed(word: Word, who: string, language: string | null = null): void {
    this.add('dynamic-command', `${who} runs text computed at run time: ${shortened(word.text)}`);
    // What can be seen through (`sh -c "$(printf 'kill -9 -1')"`) is judged as well: hardline stays hardline.
    const sub = word.substitutions.length === 1 ? word.substitutions[0]! : undefined;
    if (!sub || sub.text !== word.text) return;
    const text = this.knownText(this.ioOf(sub));
    if (text === undefined) return;
    if (language === null) this.script(text);
    else this.code(text, language);
  }

  later(run: () => void): void {
    this.deeper('laterDepth', run);
  }

  /** Directories of the task a PATH set in the line searches first, and names `hash -p` bound to files. */
  protected pathDirs: string[] = [];
  protected readonly hashed = new Map<string, Word>();

  /** Descriptors `exec` opened earlier in the line (`exec 3<f`, `exec <f`), by number or variable. */
  protected fds: Fds = new Map();

  protected readonly exitHandlers: (() => void)[] = [];

  atExit(judge: () => void): void {
    this.exitHandlers.push(judge);
  }

  /** Judges the trap handlers set while the command line was read, with the variables as they are at its end. */
  runExitHandlers(): void {
    for (let i = 0; i < this.exitHandlers.length && i < 64; i += 1) this.exitHandlers[i]!();
  }

  knownText(io: Io): string | undefined {
    return stdinText(io) ?? decodedText(io.upstream);
  }

  add(id: string, detail: string): void {
    if (this.findings.has(id)) return;
    const r = rule(id);
    this.findings.set(id, { rule: id, tier: r.tier, description: `${r.description}: ${detail}` });
  }

  /** Counts one step of judging; false once the line has taken more than MAX_STEPS (it then asks as too long). */
  protected step(): boolean {
    this.steps += 1;
    if (this.steps > MAX_STEPS) this.add('too-long', `more than ${MAX_STEPS} commands and nested scripts to judge`);
    return this.steps <= MAX_STEPS;
  }

  protected nested(run: () => void): void {
    if (!this.step()) return;
    if (this.depth >= MAX_DEPTH) return this.add('too-deep', `more than ${MAX_DEPTH} levels`);
    this.deeper('depth', run);
  }

  /** Judges a script text; where bash reads its backslash-newlines otherwise than the grammar, both readings. */
  script(text: string, io?: Io): void {
    // A shell cannot take a NUL byte (the terminal refuses such a command), and the grammar's error recovery is
    // quadratic on a run of them (64,000 took 103 s): not parsed, a person reads it.
    if (text.includes('\0')) return this.add('unparsed', 'the command contains a NUL byte, which a shell cannot take');
    if ((this.textLength += text.length) > MAX_TEXT)
      return this.add('too-long', `more than ${MAX_TEXT} characters of commands and nested scripts to judge`);
    const joined = continuationsJoined(text);
    // Where only bash's reading parses (`a \<newline>&& b`, a trailing `\<newline>`), it is the one judged.
    const brokenOnlyAsWritten =
      joined !== undefined &&
      this.parse(text, (root) => root?.hasError !== false) &&
      this.parse(joined.text, (root) => root?.hasError === false);
    if (!brokenOnlyAsWritten) this.scriptReading(text, io);
    if (joined !== undefined && (joined.differs || brokenOnlyAsWritten)) this.scriptReading(joined.text, io);
  }

  private scriptReading(text: string, io?: Io): void {
    // The grammar fails on a here-string after an output redirect (`cat > f <<< 'x'`); bash reads the same command
    // with the two swapped, so that spelling is parsed instead when it is clean.
    const broken = text.includes('<<<') && this.parse(text, (root) => root?.hasError === true);
    const swapped = broken ? hereStringFirst(text) : text;
    const source = swapped !== text && this.parse(swapped, (root) => root?.hasError === false) ? swapped : text;
    lineGrants(source, this);
    lineSkipsChecks(source, this);
    lineScriptsNoop(source, this);
    this.nested(() =>
      this.parse(source, (root) => {
        if (!root) return this.add('unparsed', source.slice(0, 80));
        if (root.hasError) this.add('unparsed', shortened(source));
        // Judging looks up from each command to what encloses it: past this depth that costs more than it could
        // ever be worth (`if` nested 2,000 deep took 40 s), and a person decides.
        if (root.height > MAX_TREE_DEPTH)
          return this.add('too-deep', `the command's syntax nests more than ${MAX_TREE_DEPTH} levels`);
        const [outer, outerFds] = [this.inherited, this.fds];
        this.inherited = io;
        this.fds = new Map();
        try {
          this.walk(root);
        } finally {
          this.inherited = outer;
          this.fds = outerFds;
        }
      }),
    );
  }

  code(source: string, language: string, origin: Origin | undefined = this.origin): void {
    const outer = this.origin;
    // Code given inline (python -c, node -e, standard input) finds its modules in the working directory.
    this.origin = origin ?? (/^(python|javascript|typescript)$/.test(language) ? inlineOrigin(this) : undefined);
    try {
      this.nested(() => {
        analyseCode(source, language, this);
        readLanguage(source, language, this);
        for (const e of this.programs?.(source, language) ?? []) this.effect(e);
      });
    } finally {
      this.origin = outer;
    }
  }

  /** What a program's call would run, judged as the command it amounts to. */
  protected effect(e: ProgramEffect): void {
    // What the program gives the child on standard input: literal text is judged as its program would be; input
    // computed at run time asks where the child runs what it reads (a shell or interpreter without a script).
    const io = e.kind === 'shell' || e.kind === 'argv' ? stdinIo(e.stdin) : undefined;
    if (e.kind === 'shell') this.script(e.text, io);
    else if (e.kind === 'argv') this.argv(e.words.map(programWord), io);
    else if (e.kind === 'code') this.code(e.text, e.language);
    else if (e.kind === 'load') programLoad(e, this);
    else this.add('dynamic-command', e.detail);
  }

  substitutionInput(word: Word): Io | undefined {
    const sub = word.substitutions.find((n) => n.type === 'process_substitution' && n.text === word.text);
    return sub && named(sub)[0] ? this.ioOf(sub) : undefined;
  }

  /** What a command or process substitution's commands print, as standard input for the command reading it. */
  protected ioOf(sub: SyntaxNode): Io {
    const top = named(sub)[0];
    if (!top) return { upstream: [] };
    const leaves = top.type === 'pipeline' ? pipelineLeaves(top) : [top];
    return { upstream: leaves.map((el) => this.printedBy(el)) };
  }

  /** The command that runs first in a pipeline element (or a substitution), with wrappers peeled. */
  protected argvOf(element: SyntaxNode): Argv | null {
    const cmd = firstCommand(element);
    return cmd ? peel(commandWords(cmd, this.vars)).argv : null;
  }

  /** A pipeline element as the input of the next: its command and what it prints, when that is known. */
  protected printedBy(element: SyntaxNode): Upstream {
    const argv = this.argvOf(element);
    return { argv, ...printedText(element, argv, this.vars) };
  }

  argv(words: Word[], io: Io = { upstream: [] }): void {
    this.nested(() => this.judge(words, io));
  }

  protected abstract walk(node: SyntaxNode): void;
  protected abstract judge(words: Word[], io: Io): void;
  abstract writesText(target: Word, text: string | undefined, mode: WriteMode, detail: string): void;
}

/** What a program gives a child on standard input: literal text, or (null) input computed at run time. */
function stdinIo(stdin: ProgramStdin | undefined): Io | undefined {
  if (stdin === undefined) return undefined;
  return stdin === null ? { upstream: [{ argv: null, dynamic: true }] } : { upstream: [], stdinText: stdin };
}

/** A word of a program's argument vector; null is one it computes at run time. */
const programWord = (w: string | null): Word =>
  w === null ? { text: '$COMPUTED', dynamic: true, pattern: false, substitutions: [] } : literal(w);

const WORD = String.raw`(?:'[^']*'|"(?:\\.|[^"\\])*"|\$'(?:\\.|[^'\\])*'|[^\s;&|<>()]+)`;
const OUT_THEN_HERE_STRING = new RegExp(String.raw`((?:\d*>>?|&>>?|\d*>&|>\|)\s*${WORD})(\s*)(<<<\s*${WORD})`, 'g');

/**
 * The text as bash reads its line continuations (undefined where it has none), and whether that differs from the
 * grammar's reading of them.
 * bash removes a backslash-newline and joins the words around it (`r\<newline>m -rf ~` runs rm), where the grammar
 * reads a space; a backslash before a carriage return quotes the return, so the newline after it ends the command
 * (`echo hi\<CR><newline>rm -rf ~`), where the grammar reads one continuation. Comments and single quotes keep
 * their backslashes in bash, so this is a second reading, never the only one. The quoted return is written `$'\\r'`,
 * which the grammar reads as bash does.
 */
export function continuationsJoined(text: string): { text: string; differs: boolean } | undefined {
  if (!text.includes('\\\n') && !text.includes('\\\r')) return undefined;
  let out = '';
  let differs = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c !== '\\') out += c;
    else if (text[i + 1] === '\n') {
      i += 1;
      const after = text[i + 1];
      if (/\S/.test(out.at(-1) ?? '') && after !== undefined && /\S/.test(after)) differs = true;
    } else if (text[i + 1] === '\r') {
      out += "$'\\r'";
      i += 1;
      differs = true;
    } else {
      out += c + (text[i + 1] ?? '');
      i += 1;
    }
  }
  return { text: out, differs };
}

/** `cmd > f <<< 'x'` → `cmd <<< 'x' > f`: an output redirect and a here-string, in the order the grammar can read. */
function hereStringFirst(text: string): string {
  return text.replace(
    OUT_THEN_HERE_STRING,
    (_m, out: string, space: string, here: string) => `${here}${space || ' '}${out}`,
  );
}
