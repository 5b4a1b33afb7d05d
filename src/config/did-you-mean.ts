// "Did you mean ...?" for a mistyped name: the closest of the known names, when it is close enough to be a typo.
// Worker-only (pure).

/** Edits (insert, delete, replace, swap two neighbours) between a and b, giving up above `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** The known name `word` most likely meant (case and `-`/`_` ignored), or undefined when none is near. */
export function didYouMean(word: string, known: readonly string[]): string | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/-/g, '_');
  const w = norm(word);
  const max = Math.max(1, Math.floor(w.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(w, norm(name), max);
    if (d <= max && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
