// A parser of the Prometheus text exposition format (version 0.0.4), for tests that read a metrics endpoint: HELP and
// TYPE lines, samples with escaped label values, and a look-up by name and labels. Strict: a line it cannot read fails.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family → counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  help: Map<string, string>;
}

function unescapeLabel(v: string): string {
  return v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(v: string, line: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  const n = Number(v);
  if (v === '' || Number.isNaN(n)) throw new Error(`prometheus text: bad value '${v}' in: ${line}`);
  return n;
}

/** Labels inside braces: name="value" pairs, values with \\, \" and \n escapes, an optional trailing comma. */
function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 0;
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,?)/y;
  for (;;) {
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new Error(`prometheus text: bad labels in: ${line}`);
    labels[m[1]!] = unescapeLabel(m[2]!);
    i = re.lastIndex;
    while (text[i] === ' ') i++;
    if (!m[3] && text[i] !== '}') throw new Error(`prometheus text: missing comma between labels in: ${line}`);
  }
}

export function parsePrometheusText(body: string): Exposition {
  const out: Exposition = { samples: [], types: new Map(), help: new Map() };
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(.*)$/.exec(line);
      if (m?.[1] === 'TYPE') out.types.set(m[2]!, m[3]!);
      else if (m?.[1] === 'HELP') out.help.set(m[2]!, m[3]!);
      continue; // other comments are allowed and mean nothing
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$/.exec(line);
    if (!m) throw new Error(`prometheus text: bad line: ${line}`);
    let rest = m[2]!;
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest.slice(1), line));
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2) throw new Error(`prometheus text: bad sample: ${line}`);
    out.samples.push({ name: m[1]!, labels, value: parseValue(parts[0]!, line) });
  }
  return out;
}

/** The samples named `name` whose labels include `labels`. */
export function samples(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample's value (summed when several label sets match); undefined when none does. */
export function value(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(e, name, labels);
  return found.length === 0 ? undefined : found.reduce((sum, s) => sum + s.value, 0);
}
