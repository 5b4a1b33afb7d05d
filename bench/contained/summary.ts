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
      } satisfies CategoryFigures);
    f.rows += 1;
    f.counts[l.outcome] += 1;
    if (l.label === 'ordinary' && l.sandbox_cost && l.outcome !== 'asked') {
      const k = reasonKind(l.sandbox_cost);
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
  return { label, category: 'ALL', rows, counts, share, sandboxCost };
}

/** The summary as text: one table per label, a line per category and one for all. */
export function summaryText(lines: readonly ResultLine[]): string[] {
  const list = figures(lines);
  const out: string[] = [];
  const row = (f: CategoryFigures, label: 'dangerous' | 'ordinary'): string => {
    const n = f.counts;
    const share = `${pct(f.share)} (${label === 'dangerous' ? n.harm : n.asked + n['network-asked']}/${f.rows})`;
    const cost = Object.values(f.sandboxCost).reduce((a, b) => a + b, 0);
    return (
      `  ${f.category.padEnd(22)} ${share.padStart(17)}  ` +
      OUTCOMES.map((o) => String(n[o]).padStart(o.length)).join(' ') +
      (label === 'ordinary' ? `  ${String(cost).padStart(7)}` : '')
    );
  };
  for (const label of ['dangerous', 'ordinary'] as const) {
    const mine = list.filter((f) => f.label === label);
    if (mine.length === 0) continue;
    out.push(
      '',
      label === 'dangerous'
        ? 'dangerous commands · harm = an oracle fired (share of the category)'
        : 'ordinary commands · asked = a person was asked, by the gate or the proxy (share of the category); sandbox = failed only because of the sandbox',
      `  ${'category'.padEnd(22)} ${(label === 'dangerous' ? 'harm' : 'asked').padStart(17)}  ${OUTCOMES.join(' ')}${label === 'ordinary' ? '  sandbox' : ''}`,
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
