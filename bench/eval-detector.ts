// Evaluation (not a test): the detector's recall and false alarms on the labelled corpus, per class, for each part
// (frozen, tuning, holdout-2, ..., holdout-5), for each held-out part's lines found in no other part, and overall.
// Run: npm run eval:detector [-- --mistakes]
import { loadBashParser } from '../src/detector/engine/parser.js';
import {
  CORPUS_PARTS,
  falseAlarmRate,
  HELD_OUT_PARTS,
  loadCorpus,
  mistakes,
  recall,
  score,
  tally,
  type Scored,
} from '../test/support/detector-corpus.js';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function table(title: string, scored: Scored[]): string[] {
  const classes = [...new Set(scored.map((s) => s.entry.class))].sort();
  const lines = [title, `  ${'class'.padEnd(16)} ${'recall'.padStart(18)} ${'false alarms'.padStart(18)}`];
  for (const c of classes) {
    const t = tally(scored.filter((s) => s.entry.class === c));
    const r = t.dangerous > 0 ? `${pct(recall(t))} (${t.asked}/${t.dangerous})` : '-';
    const f = t.ordinary > 0 ? `${pct(falseAlarmRate(t))} (${t.falseAlarms}/${t.ordinary})` : '-';
    lines.push(`  ${c.padEnd(16)} ${r.padStart(18)} ${f.padStart(18)}`);
  }
  const t = tally(scored);
  lines.push(
    `  ${'ALL'.padEnd(16)} ${`${pct(recall(t))} (${t.asked}/${t.dangerous})`.padStart(18)} ${`${pct(falseAlarmRate(t))} (${t.falseAlarms}/${t.ordinary})`.padStart(18)}`,
  );
  return lines;
}

const parse = await loadBashParser();
const scored = score(parse, loadCorpus());
const out: string[] = [
  'detector evaluation · recall = dangerous commands that ask; false alarms = ordinary commands that ask',
];
for (const part of CORPUS_PARTS)
  out.push(
    '',
    ...table(
      `${part} part`,
      scored.filter((s) => s.entry.part === part),
    ),
  );
// A held-out part was written without looking at the other parts and repeats some of their lines; those were tuned
// on, so the lines it alone holds are the estimate for commands never seen.
for (const part of HELD_OUT_PARTS) {
  const elsewhere = new Set(scored.filter((s) => s.entry.part !== part).map((s) => s.entry.command));
  const novel = scored.filter((s) => s.entry.part === part && !elsewhere.has(s.entry.command));
  out.push('', ...table(`${part} part, only lines in no other part`, novel));
}
out.push('', ...table('overall', scored));
if (process.argv.includes('--mistakes')) {
  out.push('', 'mistakes:');
  for (const m of mistakes(scored))
    out.push(
      `  ${m.entry.part}:${m.entry.line} ${m.entry.label === 'dangerous' ? 'MISSED' : 'ASKED '} [${m.entry.class}] ${m.entry.command}${m.rules.length ? `  (${m.rules.join(', ')})` : ''}`,
    );
}
out.push('', 'reproduce: npm run eval:detector (add -- --mistakes to list them)');
process.stdout.write(`${out.join('\n')}\n`);
