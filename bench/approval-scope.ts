// Benchmark (not a test): what an approval's scope and rendering add to a dangerous verdict (issues 31 and 37): the
// canonical form and key of each command of the verdict table, and the one rendering every channel shows, next to
// detecting the same command (the baseline, measured in the same run). Run: npm run bench:approval-scope
import { loadavg } from 'node:os';
import { renderApprovalText } from '../src/approval/approval-text.js';
import { detect } from '../src/detector/engine/detect.js';
import { loadBashParser } from '../src/detector/engine/parser.js';
import { approvalScope } from '../src/approval/scope.js';
import { DANGEROUS, TABLE_CWD } from '../test/fixtures/detect-table.js';
import { fmt, machine, summary } from './stats.js';

const parse = await loadBashParser();
const commands = DANGEROUS.map((d) => d[0]);
const detecting: number[] = [];
const scoping: number[] = [];
const rendering: number[] = [];
const us = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1000;
for (let round = 0; round < 20; round += 1) {
  for (const command of commands) {
    let t0 = process.hrtime.bigint();
    const verdict = detect(parse, command, { cwd: TABLE_CWD });
    detecting.push(us(t0));
    t0 = process.hrtime.bigint();
    approvalScope(parse, {
      tool: 'terminal',
      subject: { text: command },
      cwd: TABLE_CWD,
      findings: verdict.findings,
      reads: {},
    });
    scoping.push(us(t0));
    t0 = process.hrtime.bigint();
    renderApprovalText(command, { redact: true });
    rendering.push(us(t0));
  }
}
const d = summary(detecting);
const s = summary(scoping);
const r = summary(rendering);
process.stdout.write(
  [
    `approval scope and rendering · ${commands.length} commands × 20 rounds · ${machine()} · load ${loadavg()
      .map((l) => fmt(l, 1))
      .join(' ')}`,
    `detect (baseline)   median ${fmt(d.median, 1)} µs  p99 ${fmt(d.p99, 1)} µs`,
    `scope (form + key)  median ${fmt(s.median, 1)} µs  p99 ${fmt(s.p99, 1)} µs  (${fmt(s.median / d.median)} × detect)`,
    `render (redacted)   median ${fmt(r.median, 1)} µs  p99 ${fmt(r.p99, 1)} µs  (${fmt(r.median / d.median)} × detect)`,
    'reproduce: npm run bench:approval-scope',
    '',
  ].join('\n'),
);
