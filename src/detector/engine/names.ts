// Knowledge kept as data: lists of names, options and verbs written as words, the way a person reads them. Pure.

const read = new Map<string, readonly string[]>();

/**
 * The words of a table written as text (`names('delete destroy remove')`): white space separates them. Read once per
 * text (a check may name its options where it parses them), and never changed after.
 */
export function names(text: string): readonly string[] {
  let words = read.get(text);
  if (words === undefined) read.set(text, (words = Object.freeze(text.split(/\s+/).filter(Boolean))));
  return words;
}

/**
 * A table where one key may name several entries alike (`keyTable({ 'os.execl os.execlp': execFamily(...) })`),
 * white space separating the names; a later key overrides an earlier one, as in an object literal.
 */
export function keyTable<T>(spec: Readonly<Record<string, T>>): Record<string, T> {
  const table = Object.create(null) as Record<string, T>;
  for (const [key, value] of Object.entries(spec)) for (const name of names(key)) table[name] = value;
  return table;
}
