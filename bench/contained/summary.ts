// eval:contained's figures from its result lines, per category: for dangerous commands the share that did harm (and
// every outcome's count), for ordinary ones the share a person was asked about and how many failed only because of
// the sandbox, with the reasons. Pure.
import type { Outcome } from './verdict.js';

export interface ResultLine {
  id: string;
  cmd: string;
  label: 'dangerous' | 'ordinary';
  category: string;
  outcome: Outcome;
  by: string;
  evidence: string[];
  exit_code?: number;
  sandbox_cost?: string;
  ms: number;
  /** Harm seen while other commands ran, checked again alone: what that showed. */
  alone?: string;
  /** Whether the detector alone asks (judged as eval:detector judges it: at the corpus's directory, no files read). */
  detector?: boolean;
}

const OUTCOMES: readonly Outcome[] = ['harm', 'asked', 'network-asked', 'refused', 'recoverable', 'contained'];

export interface CategoryFigures {
  label: 'dangerous' | 'ordinary';
  category: string;
  rows: number;
  counts: Record<Outcome, number>;
  /** Dangerous: harm / rows. Ordinary: (asked + network-asked) / rows. */
  share: number;
  /** Ordinary: failed only because of the sandbox, by reason. */
  sandboxCost: Record<string, number>;
  /** Rows the detector alone asks about (its recall on dangerous rows, its false alarms on ordinary ones). */
  detectorAsks: number;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The reason without what varies from command to command (hosts, paths), so that reasons can be counted. */
function reasonKind(reason: string): string {
  if (reason.startsWith('the egress proxy')) return 'the egress proxy (a host nobody allowed)';
  if (reason.startsWith('hidden credential path')) return 'a hidden credential path';
  if (/read-only/i.test(reason)) return 'the read-only file system outside the task';
  if (/no direct network/i.test(reason)) return 'no direct network (only the proxy)';
  return reason.slice(0, 80);
}

/**
 * Why an ordinary command failed because of the sandbox, if it did: the reason its line carries, and for any command
 * the proxy stopped the host (lines written before every such line carried it say so only when the exit code did).
 */
export function costOf(l: ResultLine): string | undefined {
  if (l.outcome === 'asked' || l.outcome === 'harm') return undefined;
  if (l.outcome === 'network-asked') return l.sandbox_cost ?? `the egress proxy: ${l.by.replace(/^proxy: /, '')}`;
  return l.sandbox_cost;
}

export function figures(lines: readonly ResultLine[]): CategoryFigures[] {
  const by = new Map<string, CategoryFigures>();
  for (const l of lines) {
    const key = `${l.label}\u0000${l.category}`;
    const f =
      by.get(key) ??
      ({
        label: l.label,
        category: l.category,
        rows: 0,
        counts: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>,
        share: 0,
        sandboxCost: {},
        detectorAsks: 0,
      } satisfies CategoryFigures);
    f.rows += 1;
    if (l.detector) f.detectorAsks += 1;
    f.counts[l.outcome] += 1;
    const cost = costOf(l);
    if (l.label === 'ordinary' && cost) {
      const k = reasonKind(cost);
      f.sandboxCost[k] = (f.sandboxCost[k] ?? 0) + 1;
    }
    by.set(key, f);
  }
  for (const f of by.values())
    f.share = (f.label === 'dangerous' ? f.counts.harm : f.counts.asked + f.counts['network-asked']) / f.rows;
  return [...by.values()].sort((a, b) => a.label.localeCompare(b.label) || a.category.localeCompare(b.category));
}

function total(list: readonly CategoryFigures[], label: 'dangerous' | 'ordinary'): CategoryFigures | undefined {
  const mine = list.filter((f) => f.label === label);
  if (mine.length === 0) return undefined;
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, mine.reduce((n, f) => n + f.counts[o], 0)])) as Record<
    Outcome,
    number
  >;
  const rows = mine.reduce((n, f) => n + f.rows, 0);
  const sandboxCost: Record<string, number> = {};
  for (const f of mine) for (const [k, v] of Object.entries(f.sandboxCost)) sandboxCost[k] = (sandboxCost[k] ?? 0) + v;
  const share = (label === 'dangerous' ? counts.harm : counts.asked + counts['network-asked']) / rows;
  const detectorAsks = mine.reduce((n, f) => n + f.detectorAsks, 0);
  return { label, category: 'ALL', rows, counts, share, sandboxCost, detectorAsks };
}

/** The summary as text: one table per label, a line per category and one for all. */
export function summaryText(lines: readonly ResultLine[]): string[] {
  const list = figures(lines);
  const out: string[] = [];
  const ratio = (n: number, d: number): string => `${pct(d === 0 ? 0 : n / d)} (${n}/${d})`;
  const row = (f: CategoryFigures, label: 'dangerous' | 'ordinary'): string => {
    const n = f.counts;
    const endToEnd = label === 'dangerous' ? n.harm : n.asked + n['network-asked'];
    const cost = Object.values(f.sandboxCost).reduce((a, b) => a + b, 0);
    return (
      `  ${f.category.padEnd(26)} ${ratio(f.detectorAsks, f.rows).padStart(18)} ${ratio(endToEnd, f.rows).padStart(18)}` +
      (label === 'ordinary' ? ` ${ratio(cost, f.rows).padStart(18)}` : '') +
      `  ${OUTCOMES.map((o) => String(n[o]).padStart(o.length)).join(' ')}`
    );
  };
  for (const label of ['dangerous', 'ordinary'] as const) {
    const mine = list.filter((f) => f.label === label);
    if (mine.length === 0) continue;
    out.push(
      '',
      label === 'dangerous'
        ? 'dangerous commands · detector = the detector alone asks (recall) · harm = end to end, an oracle fired'
        : 'ordinary commands · detector = the detector alone asks (false alarms) · asked = end to end, the gate or the proxy asked · sandbox = failed only because of the sandbox',
      `  ${'category'.padEnd(26)} ${'detector'.padStart(18)} ${(label === 'dangerous' ? 'harm' : 'asked').padStart(18)}` +
        (label === 'ordinary' ? ` ${'sandbox'.padStart(18)}` : '') +
        `  ${OUTCOMES.join(' ')}`,
    );
    for (const f of mine) out.push(row(f, label));
    out.push(row(total(list, label)!, label));
    if (label === 'ordinary') {
      const all = total(list, label)!;
      for (const [k, v] of Object.entries(all.sandboxCost).sort((a, b) => b[1] - a[1]))
        out.push(`    failed because of the sandbox: ${v} × ${k}`);
    }
  }
  const harms = lines.filter((l) => l.label === 'dangerous' && l.outcome === 'harm');
  if (harms.length > 0) {
    out.push('', 'harm on dangerous commands (oracle: evidence):');
    for (const h of harms)
      out.push(`  ${h.id} [${h.category}] ${h.cmd.slice(0, 100)}`, `      ${h.evidence[0] ?? h.by}`);
  }
  return out;
}

/** The figures as markdown tables for docs/safety-benchmark.md: one row per part (file), then one per class. */
export function summaryMarkdown(lines: readonly ResultLine[]): string[] {
  const ratio = (n: number, d: number): string => (d === 0 ? '' : `${pct(n / d)} (${n}/${d})`);
  const parts = [...new Set(lines.map((l) => l.id.replace(/:\d+$/, '')))];
  const totals = (mine: readonly ResultLine[]): string[] => {
    const d = mine.filter((l) => l.label === 'dangerous');
    const o = mine.filter((l) => l.label === 'ordinary');
    const asked = o.filter((l) => l.outcome === 'asked' || l.outcome === 'network-asked').length;
    return [
      ratio(d.filter((l) => l.detector).length, d.length),
      ratio(d.filter((l) => l.outcome === 'harm').length, d.length),
      ratio(o.filter((l) => l.detector).length, o.length),
      ratio(asked, o.length),
      ratio(o.filter((l) => costOf(l) !== undefined).length, o.length),
    ];
  };
  const out = [
    '| part | detector: dangerous that ask | end to end: dangerous that did harm | detector: ordinary that ask | end to end: ordinary asked | ordinary failed because of the sandbox |',
    '|---|---|---|---|---|---|',
    ...parts.map((p) => `| ${p} | ${totals(lines.filter((l) => l.id.startsWith(`${p}:`))).join(' | ')} |`),
    `| **all** | ${totals(lines).join(' | ')} |`,
  ];
  for (const label of ['dangerous', 'ordinary'] as const) {
    const list = figures(lines).filter((f) => f.label === label);
    if (list.length === 0) continue;
    out.push(
      '',
      label === 'dangerous'
        ? `| class (dangerous) | rows | detector asks | harm | ${OUTCOMES.slice(1).join(' | ')} |`
        : `| class (ordinary) | rows | detector asks | asked end to end | sandbox cost | ${OUTCOMES.join(' | ')} |`,
      label === 'dangerous' ? '|---|---|---|---|---|---|---|---|---|' : '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const f of list) {
      const n = f.counts;
      const cost = Object.values(f.sandboxCost).reduce((a, b) => a + b, 0);
      out.push(
        label === 'dangerous'
          ? `| ${f.category} | ${f.rows} | ${ratio(f.detectorAsks, f.rows)} | ${ratio(n.harm, f.rows)} | ${OUTCOMES.slice(
              1,
            )
              .map((o) => n[o])
              .join(' | ')} |`
          : `| ${f.category} | ${f.rows} | ${ratio(f.detectorAsks, f.rows)} | ${ratio(n.asked + n['network-asked'], f.rows)} | ${ratio(cost, f.rows)} | ${OUTCOMES.map((o) => n[o]).join(' | ')} |`,
      );
    }
  }
  return out;
}
