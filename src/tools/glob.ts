// Helper for search tools (registers nothing): shell-style glob patterns, matched in time bounded by the pattern's
// and the path's lengths (no regular expression, so no catastrophic backtracking on a model-given pattern).
// Workflow-safe.

/** A compiled glob: its brace alternatives, each as path segments ('**' = any number of segments). */
export interface Glob {
  alternatives: string[][];
  /** A glob without '/' matches a path's base name only. */
  hasSlash: boolean;
}

/** More `{a,b}` alternatives than this are not expanded: the braces are then taken literally. */
const MAX_ALTERNATIVES = 256;

/** `{a,b}` groups (not nested) expanded into every combination, at most MAX_ALTERNATIVES. */
function expandBraces(glob: string): string[] {
  let out = [''];
  let i = 0;
  while (i < glob.length) {
    const open = glob.indexOf('{', i);
    const close = open === -1 ? -1 : glob.indexOf('}', open);
    if (open === -1 || close === -1) {
      out = out.map((o) => o + glob.slice(i));
      break;
    }
    const head = glob.slice(i, open);
    const choices = glob.slice(open + 1, close).split(',');
    if (out.length * choices.length > MAX_ALTERNATIVES) return [glob];
    out = out.flatMap((o) => choices.map((c) => o + head + c));
    i = close + 1;
  }
  return out;
}

/** `*` any run of characters within a segment, `**` across segments, `?` one character, `{a,b}` alternatives. */
export function compileGlob(glob: string): Glob {
  return {
    alternatives: expandBraces(glob).map((g) => g.split('/')),
    hasSlash: glob.includes('/'),
  };
}

/**
 * One segment against a segment pattern (`*` and `?`; a `**` inside a segment acts as `*`). The classic two-pointer
 * walk that returns to the last star: at most pattern length × text length steps.
 */
export function segmentMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === '?' || (pattern[p] !== '*' && pattern[p] === text[t]))) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      mark = t;
      p += 1;
    } else if (star !== -1) {
      p = star + 1;
      mark += 1;
      t = mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** Pattern segments against path segments; `**` matches any number of them (memoised: segments × segments). */
function segmentsMatch(pattern: string[], path: string[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (path.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let ok: boolean;
    if (i === pattern.length) ok = j === path.length;
    else if (pattern[i] === '**') ok = go(i + 1, j) || (j < path.length && go(i, j + 1));
    else ok = j < path.length && segmentMatches(pattern[i]!, path[j]!) && go(i + 1, j + 1);
    memo.set(key, ok);
    return ok;
  };
  return go(0, 0);
}

/** Matches the path relative to the search root, or only the base name when the glob has no '/'. */
export function globMatches(glob: Glob, relPath: string): boolean {
  const target = glob.hasSlash ? relPath.split('/') : [relPath.slice(relPath.lastIndexOf('/') + 1)];
  return glob.alternatives.some((a) => segmentsMatch(a, target));
}
