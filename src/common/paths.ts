// POSIX path normalisation as plain string work, for workflow code (no node:path) and worker code alike. Workflow-safe.

/** POSIX path normalisation without node:path: collapses '//', '.', and '..' (which cannot climb above '/'). */
export function normalizePath(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out.at(-1) !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined || '.';
}
