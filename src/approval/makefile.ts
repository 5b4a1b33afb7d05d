// Reads a makefile for the gate: the shell command lines its recipes run (tab lines and `target: ; recipe`), with
// make variables expanded (`$(CC)` is cc, not a command substitution), `$(shell ...)` and `VAR != cmd` kept as
// commands, included makefiles named, and what the gate cannot follow (`$(eval)`, .RECIPEPREFIX, another SHELL)
// reported. Pure.

/** make's options that take a value (so the value is not read as a target). */
export const MAKE_VALUE_FLAGS = [
  '-f',
  '--file',
  '--makefile',
  '-C',
  '--directory',
  '-j',
  '--jobs',
  '-l',
  '-o',
  '-W',
  '-I',
  '--eval',
];

export interface Makefile {
  commands: string[];
  includes: string[];
  problems: string[];
}

/** make's built-in variables that recipes use most. */
const BUILTIN: Record<string, string> = {
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
};

const ASSIGN = /^(?:override\s+|export\s+)*([A-Za-z_.][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$/;
const RULE = /^([^\t:=#][^:=#]*?)\s*::?(?!=)\s*([^;]*?)\s*(?:;(.*))?$/;

const OPEN = '\u0001';
const CLOSE = '\u0002';
const DOLLAR = '\u0003';

class Expander {
  readonly vars = new Map<string, string>(Object.entries(BUILTIN));
  readonly problems: string[] = [];
  auto: Record<string, string> = {};

  /** Expands innermost references first; what make computes that the gate does not becomes a shell variable. */
  expand(text: string): string {
    let out = text.replace(/\$\$/g, DOLLAR);
    for (let round = 0; round < 20; round += 1) {
      const next = out
        .replace(/\$[({]([^(){}$]*)[)}]/g, (_, inner: string) => this.reference(inner))
        .replace(/\$([@<^+?*|%])/g, (_, c: string) => this.auto[c] ?? 'target')
        .replace(/\$([A-Za-z_])/g, (_, c: string) => this.reference(c));
      if (next === out) break;
      out = next;
    }
    return out.replaceAll(OPEN, '$(').replaceAll(CLOSE, ')').replaceAll(DOLLAR, '$');
  }

  private reference(inner: string): string {
    const shell = /^shell\s+([\s\S]*)$/.exec(inner);
    if (shell) return `${OPEN}${shell[1]}${CLOSE}`;
    const fn = /^([a-z-]+)\s+([\s\S]*)$/.exec(inner);
    if (fn) return this.call(fn[1]!, fn[2]!);
    if (/^[@<^*?+%][DF]$/.test(inner)) return this.auto[inner[0]!] ?? 'target';
    const value = this.vars.get(inner);
    // A variable the makefile does not set comes from the environment or the command line: known only at run time.
    return value ?? `${DOLLAR}{${inner.replace(/\W/g, '_')}}`;
  }

  /** The text functions the gate can compute; any other function's result is known only at run time. */
  private call(name: string, args: string): string {
    const [a = '', b = '', c = ''] = args.split(',');
    const words = (t: string): string[] => t.split(/\s+/).filter(Boolean);
    const pattern = (pat: string, repl: string, w: string): string => {
      const [pre, post] = pat.includes('%') ? pat.split('%') : [pat, ''];
      if (!w.startsWith(pre!) || !w.endsWith(post!) || w.length < pre!.length + post!.length) return w;
      const stem = w.slice(pre!.length, w.length - post!.length);
      return repl.includes('%') ? repl.replace('%', stem) : repl;
    };
    switch (name) {
      case 'subst':
        return c.split(a).join(b);
      case 'patsubst':
        return words(c)
          .map((w) => pattern(a.trim(), b.trim(), w))
          .join(' ');
      case 'addprefix':
        return words(b)
          .map((w) => a.trim() + w)
          .join(' ');
      case 'addsuffix':
        return words(b)
          .map((w) => w + a.trim())
          .join(' ');
      // A selection or a copy of the argument: the argument stands for it.
      case 'wildcard':
      case 'strip':
      case 'sort':
      case 'dir':
      case 'notdir':
      case 'basename':
      case 'abspath':
      case 'realpath':
      case 'firstword':
      case 'lastword':
        return args;
      case 'filter':
      case 'filter-out':
        return b;
      default:
        this.problems.push(`$(${name} ...) is computed when make runs`);
        return `${DOLLAR}{MAKE_COMPUTED}`;
    }
  }
}

/** `overrides`: `make NAME=VALUE` on the command line, which win over the makefile's own assignments. */
export function readMakefile(text: string, overrides: ReadonlyMap<string, string> = new Map()): Makefile {
  // A backslash-newline continues a line (a recipe's next line may start with its tab).
  const lines = text.replace(/\\\n\t?/g, ' ').split('\n');
  const ex = new Expander();
  for (const [k, v] of overrides) ex.vars.set(k, v);
  const raw: { text: string; auto: Record<string, string> }[] = [];
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
    if (def) {
      define = { name: def[1]!, body: [] };
      continue;
    }
    const inc = /^-?s?include\s+(.+)$/.exec(trimmed);
    if (inc) {
      includes.push(...ex.expand(inc[1]!).split(/\s+/).filter(Boolean));
      continue;
    }
    const assign = ASSIGN.exec(trimmed);
    if (assign && overrides.has(assign[1]!) && !/^override\s/.test(trimmed)) continue;
    if (assign) {
      const [, name, op, value] = assign;
      if (name === '.RECIPEPREFIX') ex.problems.push('.RECIPEPREFIX changes how recipes are written');
      if (op === '!=') raw.push({ text: value!, auto: {} });
      const v = op === '+=' ? `${ex.vars.get(name!) ?? ''} ${value}` : value!;
      ex.vars.set(name!, op === ':=' || op === '::=' ? ex.expand(v) : v);
      continue;
    }
    const rule = RULE.exec(trimmed);
    if (rule) {
      const targets = ex.expand(rule[1]!).split(/\s+/);
      const prereqs = ex.expand(rule[2]!).replace('|', ' ').split(/\s+/).filter(Boolean);
      auto = {
        '@': targets[0] ?? 'target',
        '<': prereqs[0] ?? '',
        '^': prereqs.join(' '),
        '+': prereqs.join(' '),
        '?': prereqs.join(' '),
      };
      if (rule[3] !== undefined && rule[3].trim() !== '') raw.push({ text: rule[3], auto });
    }
  }
  const shell = ex.vars.get('SHELL') ?? '/bin/sh';
  if (!/^(\/usr)?(\/bin\/)?(ba|da)?sh$/.test(shell.trim()))
    ex.problems.push(`recipes run with SHELL=${shell.slice(0, 60)}`);
  const commands: string[] = [];
  for (const r of raw) {
    ex.auto = r.auto;
    commands.push(ex.expand(r.text).replace(/^[@+-]+/, ''));
  }
  return { commands, includes, problems: ex.problems };
}
