// What checkpoints leave out: .gitignore-style patterns (the defaults, then checkpoints.exclude), last match wins.
// Pure string work, no I/O. Worker-only (uses Buffer).

/**
 * Left out unless checkpoints.exclude re-includes one with `!`: version-control data, dependencies, caches and build
 * output, which are large, rebuilt from the sources, and not what a rollback should bring back.
 */
export const DEFAULT_EXCLUDES: readonly string[] = [
  '.git/',
  '.hg/',
  '.svn/',
  '.jj/',
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '*.pyc',
  '.mypy_cache/',
  '.pytest_cache/',
  '.ruff_cache/',
  '.tox/',
  '.gradle/',
  '.next/',
  '.nuxt/',
  '.terraform/',
  '.cache/',
  'dist/',
  'build/',
  'target/',
  'coverage/',
  '*.o',
  '*.class',
  '.DS_Store',
];

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Has a '/' before its end: matched against the whole path from the task directory, not the last name only. */
  anchored: boolean;
}

function escape(c: string): string {
  return /[.+^${}()|[\]\\]/.test(c) ? `\\${c}` : c;
}

/** `*` and `?` within a name, `**` across names, `[...]` a class, as in .gitignore. */
function globSource(glob: string): string {
  let re = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      const slashBefore = i === 0 || glob[i - 1] === '/';
      if (slashBefore && slashAfter) {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      re += escape(glob[i + 1]!);
      i += 1;
    } else re += escape(c);
  }
  return re;
}

/** One pattern line; undefined for a blank line or a comment. Throws with the reason for one that cannot work. */
function compile(line: string): Rule | undefined {
  let p = line.replace(/(?<!\\)\s+$/, '');
  if (p === '' || p.startsWith('#')) return undefined;
  const negate = p.startsWith('!');
  if (negate) p = p.slice(1);
  const dirOnly = p.endsWith('/');
  if (dirOnly) p = p.replace(/\/+$/, '');
  const anchored = p.includes('/');
  p = p.replace(/^\/+/, '');
  if (p === '') throw new Error(`'${line}' matches nothing`);
  return { re: new RegExp(`^${globSource(p)}$`, 's'), negate, dirOnly, anchored };
}

/** Decides, path by path, what a checkpoint leaves out. Paths are relative to the task directory, '/'-separated. */
export class ExcludeRules {
  private readonly rules: Rule[];

  /** `extra` follow the defaults (so `!dist/` brings dist back). A bad pattern throws, naming it. */
  constructor(extra: readonly string[] = [], defaults: readonly string[] = DEFAULT_EXCLUDES) {
    this.rules = [];
    for (const line of [...defaults, ...extra]) {
      // Paths come as their bytes read as latin1 (any name, valid UTF-8 or not); a pattern is matched the same way.
      const rule = compile(Buffer.from(line, 'utf8').toString('latin1'));
      if (rule) this.rules.push(rule);
    }
  }

  /**
   * Whether `path` is left out. A directory left out is not entered, so nothing below it comes back (as in git);
   * the walk asks for each directory before its entries.
   */
  excluded(path: string, isDir: boolean): boolean {
    const name = path.slice(path.lastIndexOf('/') + 1);
    let out = false;
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.re.test(r.anchored ? path : name)) out = !r.negate;
    }
    return out;
  }
}

/** The first pattern of `patterns` that cannot be used, with why; undefined when all are fine. */
export function badPattern(patterns: readonly string[]): string | undefined {
  for (const p of patterns) {
    try {
      compile(p);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return undefined;
}
