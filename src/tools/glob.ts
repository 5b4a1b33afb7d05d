// Helper for search tools (registers nothing): shell-style glob patterns as regular expressions. Workflow-safe.

/** `*` matches within a path segment, `**` across segments, `?` one character, `{a,b}` alternatives. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
        i += glob[i + 2] === '/' ? 2 : 1;
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end === -1) {
        re += '\\{';
        continue;
      }
      re += `(?:${glob
        .slice(i + 1, end)
        .split(',')
        .map(escape)
        .join('|')})`;
      i = end;
    } else {
      re += escape(c);
    }
  }
  return new RegExp(`^${re}$`);
}

function escape(s: string): string {
  return s.replace(/[.+^${}()|[\]\\*?]/g, '\\$&');
}

/** Matches the path relative to the search root, or only the base name when the glob has no '/'. */
export function globMatches(re: RegExp, relPath: string, globHasSlash: boolean): boolean {
  return re.test(globHasSlash ? relPath : relPath.slice(relPath.lastIndexOf('/') + 1));
}
