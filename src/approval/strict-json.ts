// JSON.parse that refuses an object holding the same key twice (`{"choice":"deny","choice":"always"}`): a signed or
// posted decision means one thing to every reader, not "the last one wins". Pure.

/** Nesting deeper than this is refused (a decision is one flat object). */
const MAX_DEPTH = 64;

/** Walks well-formed JSON text (JSON.parse has checked it) and throws at the first object with a repeated key. */
function checkKeys(text: string): void {
  let i = 0;
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const string = (): string => {
    const start = i;
    i += 1;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
    // Decoded, so "a" and "\u0061" are the same key, as they are to JSON.parse.
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new Error(`nested more than ${MAX_DEPTH} levels deep`);
    space();
    const c = text[i];
    if (c === '"') return void string();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const seen = new Set<string>();
      i += 1;
      space();
      if (text[i] === close) return void (i += 1);
      for (;;) {
        if (c === '{') {
          space();
          const key = string();
          if (seen.has(key)) throw new Error(`the key ${JSON.stringify(key)} appears twice in one object`);
          seen.add(key);
          space();
          i += 1; // the colon
        }
        value(depth + 1);
        space();
        const sep = text[i];
        i += 1;
        if (sep === close) return;
      }
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i += 1;
  };
  value(0);
}

/** Parses JSON; throws (with JSON.parse's message, or naming the repeated key) when it is not JSON or repeats a key. */
export function parseStrictJson(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  checkKeys(text);
  return parsed;
}
