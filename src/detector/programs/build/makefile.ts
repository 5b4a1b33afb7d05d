// Reads a makefile for the gate: the shell command lines its recipes run (tab lines and `target: ; recipe`), with
// make variables expanded (`$(CC)` is cc, not a command substitution), `$(shell ...)` and `VAR != cmd` kept as
// commands, included makefiles named, and what the gate cannot follow (`$(eval)`, .RECIPEPREFIX, another SHELL,
// .SHELLFLAGS) reported. A dry run (make -n/-q/-t) still runs the `$(shell ...)` calls it expands (in assignments,
// includes, conditionals and the recipes it prints) and recipe lines marked `+` or calling $(MAKE). Pure.
import { keyTable, names } from '../../engine/names.js';

/** make's options that take a value (so the value is not read as a target). */
export const MAKE_VALUE_FLAGS = names(`-f --file --makefile -C --directory -j --jobs -l -o -W -I --eval -E`);

export interface Makefile {
  commands: string[];
  includes: string[];
  problems: string[];
}

/** make's built-in variables that recipes use most. */
const BUILTIN = keyTable<string>({
  CC: 'cc',
  CXX: 'g++',
  CPP: 'cc -E',
  AR: 'ar',
  AS: 'as',
  LD: 'ld',
  RM: 'rm -f',
  MAKE: 'make',
  INSTALL: 'install',
  SHELL: '/bin/sh',
});

const ASSIGN = /^(?:override\s+|export\s+)*([A-Za-z_.][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$/;
const RULE = /^([^\t:=#][^:=#]*?)\s*::?(?!=)\s*([^;]*?)\s*(?:;(.*))?$/;

const OPEN = '\u0001';
const CLOSE = '\u0002';
const DOLLAR = '\u0003';
// A shell variable standing for what the gate cannot compute (`${NAME}`): marked, so that the `$(shell ...)` around
// it is still found (plain braces would stop the reference pattern from matching it).
const BRACE_OPEN = '\u0004';
const BRACE_CLOSE = '\u0005';
const shellVariable = (name: string): string => `${DOLLAR}${BRACE_OPEN}${name.replace(/\W/g, '_')}${BRACE_CLOSE}`;

const finish = (marked: string): string =>
  marked
    .replaceAll(OPEN, '$(')
    .replaceAll(CLOSE, ')')
    .replaceAll(DOLLAR, '$')
    .replaceAll(BRACE_OPEN, '{')
    .replaceAll(BRACE_CLOSE, '}');

/** The outermost `$(shell ...)` calls in marked text, still marked. */
function shellSpans(marked: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < marked.length; i += 1) {
    if (marked[i] === OPEN && (depth += 1) === 1) start = i;
    else if (marked[i] === CLOSE && depth > 0 && (depth -= 1) === 0) out.push(marked.slice(start, i + 1));
  }
  return out;
}

/** The outermost `$(shell ...)` calls in marked text, as shell command lines. */
const shellCalls = (marked: string): string[] => shellSpans(marked).map((span) => finish(span.slice(1, -1)));

/** .SHELLFLAGS values that only ask the shell to run the recipe (`-c`, `-ec`, `-eu -o pipefail -c`). */
const PLAIN_SHELLFLAGS = /^((-[a-zA-Z]+|[-+]o\s+\w+)\s+)*-[a-zA-Z]*c$/;

/** make functions whose result is a selection or a copy of their argument: the argument stands for it. */
const SELECTIONS = new Set(names('wildcard strip sort dir notdir basename abspath realpath firstword lastword'));

class Expander {
  readonly vars = new Map<string, string>(Object.entries(BUILTIN));
  readonly problems: string[] = [];
  auto: Record<string, string> = {};
  /**
   * Expanding only to find `$(shell ...)` calls (a conditional, a recipe a dry run prints): text functions whose
   * result is unknown are no problem there; make code that defines more ($(eval), $(call), $(file)...) still is.
   */
  private quiet = false;

  /** Expands innermost references first; what make computes that the gate does not becomes a shell variable. */
  expand(text: string): string {
    return finish(this.expandMarked(text));
  }

  /** `expand` with `$(shell ...)` calls still marked (OPEN ... CLOSE), so that they can be found. */
  expandMarked(text: string, quiet = false): string {
    this.quiet = quiet;
    let out = text.replace(/\$\$/g, DOLLAR);
    for (let round = 0; round < 20; round += 1) {
      const next = out
        .replace(/\$[({]([^(){}$]*)[)}]/g, (_, inner: string) => this.reference(inner))
        .replace(/\$([@<^+?*|%])/g, (_, c: string) => this.auto[c] ?? 'target')
        .replace(/\$([A-Za-z_])/g, (_, c: string) => this.reference(c));
      if (next === out) break;
      out = next;
    }
    this.quiet = false;
    return out;
  }

  private reference(inner: string): string {
    const shell = /^shell\s+([\s\S]*)$/.exec(inner);
    if (shell) return `${OPEN}${shell[1]}${CLOSE}`;
    const fn = /^([a-z-]+)\s+([\s\S]*)$/.exec(inner);
    if (fn) return this.call(fn[1]!, fn[2]!);
    if (/^[@<^*?+%][DF]$/.test(inner)) return this.auto[inner[0]!] ?? 'target';
    const value = this.vars.get(inner);
    // A variable the makefile does not set comes from the environment or the command line: known only at run time.
    return value ?? shellVariable(inner);
  }

  /** The text functions the gate can compute; any other function's result is known only at run time. */
  private call(name: string, args: string): string {
    const [a = '', b = '', c = ''] = args.split(',');
    const each = (list: string, f: (w: string) => string): string => list.split(/\s+/).filter(Boolean).map(f).join(' ');
    const pattern = (pat: string, repl: string, w: string): string => {
      const [pre, post] = pat.includes('%') ? pat.split('%') : [pat, ''];
      if (!w.startsWith(pre!) || !w.endsWith(post!) || w.length < pre!.length + post!.length) return w;
      const stem = w.slice(pre!.length, w.length - post!.length);
      return repl.includes('%') ? repl.replace('%', stem) : repl;
    };
    if (SELECTIONS.has(name)) return args;
    switch (name) {
      case 'subst':
        return c.split(a).join(b);
      case 'patsubst':
        return each(c, (w) => pattern(a.trim(), b.trim(), w));
      case 'addprefix':
        return each(b, (w) => a.trim() + w);
      case 'addsuffix':
        return each(b, (w) => w + a.trim());
      case 'filter':
      case 'filter-out':
        return b;
      default:
        if (!this.quiet || /^(eval|call|value|file|guile|load)$/.test(name))
          this.problems.push(`$(${name} ...) is computed when make runs`);
        // The `$(shell ...)` calls in its arguments still run.
        return `${shellVariable('MAKE_COMPUTED')}${shellSpans(args).join('')}`;
    }
  }
}

/**
 * `overrides`: `make NAME=VALUE` on the command line, which win over the makefile's own assignments. `dry`: make -n,
 * -q or -t, which run no recipe but the lines marked `+` or calling $(MAKE), and still expand everything else.
 * `known`: values make starts with that the makefile may change (CURDIR, variables from the environment).
 */
export function readMakefile(
  text: string,
  overrides: ReadonlyMap<string, string> = new Map(),
  dry = false,
  known: ReadonlyMap<string, string> = new Map(),
): Makefile {
  // A backslash-newline continues a line (a recipe's next line may start with its tab).
  const lines = text.replace(/\\\n\t?/g, ' ').split('\n');
  const ex = new Expander();
  for (const [k, v] of known) ex.vars.set(k, v);
  for (const [k, v] of overrides) ex.vars.set(k, v);
  const raw: { text: string; auto: Record<string, string> }[] = [];
  // Commands make runs while it reads the makefile, dry run or not: `$(shell ...)` expanded at once, `VAR != cmd`.
  const immediate: string[] = [];
  const now = (t: string, quiet = false): string => {
    const marked = ex.expandMarked(t, quiet);
    immediate.push(...shellCalls(marked));
    return marked;
  };
  const includes: string[] = [];
  let auto: Record<string, string> = {};
  let define: { name: string; body: string[] } | undefined;
  for (const line of lines) {
    if (define) {
      if (/^\s*endef\b/.test(line)) {
        ex.vars.set(define.name, define.body.join('\n'));
        define = undefined;
      } else define.body.push(line);
      continue;
    }
    if (line.startsWith('\t')) {
      raw.push({ text: line.slice(1), auto });
      continue;
    }
    const trimmed = line.replace(/(^|[^\\])#.*$/, '$1').trim();
    if (trimmed === '') continue;
    const def = /^(?:override\s+|export\s+)*define\s+([\w.-]+)/.exec(trimmed);
    const inc = /^-?s?include\s+(.+)$/.exec(trimmed);
    const cond = /^(?:else\s+)?(ifeq|ifneq|ifdef|ifndef)\s+(.*)$/.exec(trimmed);
    const assign = ASSIGN.exec(trimmed);
    if (def) define = { name: def[1]!, body: [] };
    else if (inc) includes.push(...finish(now(inc[1]!)).split(/\s+/).filter(Boolean));
    else if (cond) now(cond[2]!, true);
    else if (assign) {
      const [, name, op, value] = assign;
      // `make NAME=VALUE` wins over the makefile's own assignment, unless that says `override`.
      if (overrides.has(name!) && !/^override\s/.test(trimmed)) continue;
      if (name === '.RECIPEPREFIX') ex.problems.push('.RECIPEPREFIX changes how recipes are written');
      if (name === '.SHELLFLAGS' && !PLAIN_SHELLFLAGS.test(value!.trim()))
        ex.problems.push(`recipes run with .SHELLFLAGS=${value!.slice(0, 60)}`);
      if (op === '!=') immediate.push(ex.expand(value!));
      const v = op === '+=' ? `${ex.vars.get(name!) ?? ''} ${value}` : value!;
      ex.vars.set(name!, op === ':=' || op === '::=' || op === ':::=' ? now(v) : v);
    } else {
      const rule = RULE.exec(trimmed);
      if (rule) {
        const targets = finish(now(rule[1]!)).split(/\s+/);
        const prereqs = finish(now(rule[2]!)).replace('|', ' ').split(/\s+/).filter(Boolean);
        const all = prereqs.join(' ');
        auto = { '@': targets[0] ?? 'target', '<': prereqs[0] ?? '', '^': all, '+': all, '?': all };
        if (rule[3] !== undefined && rule[3].trim() !== '') raw.push({ text: rule[3], auto });
      }
      // Any other line (`$(eval ...)`, `$(info $(shell ...))`) is expanded as make reads it.
      else if (trimmed.includes('$')) now(trimmed, true);
    }
  }
  const shell = ex.vars.get('SHELL') ?? '/bin/sh';
  if (!/^(\/usr)?(\/bin\/)?(ba|da)?sh$/.test(shell.trim()))
    ex.problems.push(`recipes run with SHELL=${shell.slice(0, 60)}`);
  const commands: string[] = [...immediate];
  for (const r of raw) {
    ex.auto = r.auto;
    // A dry run prints the recipe (expanding its `$(shell ...)` calls) and runs only `+` lines and $(MAKE) calls.
    const runs = !dry || /^[@-]*\+/.test(r.text.trimStart()) || /\$[({]MAKE[)}]/.test(r.text);
    const marked = ex.expandMarked(r.text, !runs);
    if (runs) commands.push(finish(marked).replace(/^[@+-]+/, ''));
    else commands.push(...shellCalls(marked));
  }
  return { commands, includes, problems: ex.problems };
}
