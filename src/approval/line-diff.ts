// A unified diff of two texts, line by line, as a person approving a file change reads it (`@@ -3,2 +3,4 @@`, three
// lines of context). Myers' algorithm after the common start and end are taken off; past a bound on the edits it
// shows the differing middle as removed and added whole. Pure.

/** Edits beyond this many: the middle is shown as replaced whole (the diff stays quick on any input). */
const MAX_EDITS = 2_000;
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string };

/** What diff says under a change of the final newline alone: it is added, or the new text ends without one. */
const newlineNote = (added: boolean): string =>
  added ? '\\ a newline is added at the end' : '\\ the new text has no newline at the end';

/** How many of the ops are not of the `other` kind. */
const count = (ops: Op[], other: Op['kind']): number => ops.filter((o) => o.kind !== other).length;

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out.at(-1) === '') out.pop();
  return out;
}

/** The edit script between `a` and `b` (Myers, O((N+M)·D)), or undefined past MAX_EDITS. */
function myers(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, offset);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], last: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  const same = (): void => {
    x -= 1;
    y -= 1;
    ops.push({ kind: ' ', line: a[x]! });
  };
  for (let d = last; d > 0; d -= 1) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevX = v[offset + (down ? k + 1 : k - 1)]!;
    const prevY = prevX - (down ? k + 1 : k - 1);
    while (x > prevX && y > prevY) same();
    if (down) {
      y -= 1;
      ops.push({ kind: '+', line: b[y]! });
    } else {
      x -= 1;
      ops.push({ kind: '-', line: a[x]! });
    }
  }
  while (x > 0 && y > 0) same();
  return ops.reverse();
}

/** The edit script, common start and end taken off first (an append or a one-line change costs nothing more). */
function script(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  const midA = a.slice(start, a.length - end);
  const midB = b.slice(start, b.length - end);
  const ops = (kind: Op['kind'], of: string[]): Op[] => of.map((line) => ({ kind, line }));
  const mid = myers(midA, midB) ?? [...ops('-', midA), ...ops('+', midB)];
  return [...ops(' ', a.slice(0, start)), ...mid, ...ops(' ', a.slice(a.length - end))];
}

/**
 * `before` → `after` as a unified diff under the two labels; '' when they are equal. A missing final newline is
 * said, as diff does, so a change of it alone shows.
 */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }): string {
  if (before === after) return '';
  const ops = script(lines(before), lines(after));
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  const changed = ops.map((o, i) => (o.kind !== ' ' ? i : -1)).filter((i) => i >= 0);
  if (changed.length === 0) {
    // Only the final newline differs.
    out.push('@@ end of file @@', newlineNote(!before.endsWith('\n')));
    return out.join('\n');
  }
  let i = 0;
  while (i < changed.length) {
    const first = Math.max(0, changed[i]! - CONTEXT);
    let last = changed[i]!;
    while (i + 1 < changed.length && changed[i + 1]! - last <= 2 * CONTEXT) last = changed[(i += 1)]!;
    i += 1;
    const hunk = ops.slice(first, Math.min(ops.length, last + CONTEXT + 1));
    // Lines of the old text are those not added, lines of the new text those not removed.
    const [oldStart, newStart] = [1 + count(ops.slice(0, first), '+'), 1 + count(ops.slice(0, first), '-')];
    const [oldCount, newCount] = [count(hunk, '+'), count(hunk, '-')];
    out.push(
      `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
  }
  if (before !== '' && after !== '' && before.endsWith('\n') !== after.endsWith('\n'))
    out.push(newlineNote(after.endsWith('\n')));
  return out.join('\n');
}
