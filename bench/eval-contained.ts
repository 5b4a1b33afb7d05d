// Evaluation (not a test): each labelled command run end to end through a real worker on the local backend, with
// every approval denied, in a prepared world of its own, and judged by oracles of harm; one JSON line per command,
// then figures per category. Runs in namespaces of its own (bench/contained/isolate.ts). See docs/safety-benchmark.md.
// Run: npm run eval:contained -- FILE... [--sample N] [--concurrency 4] [--sandbox off] [--network direct] [--expose PATH] [--out F]
//      npm run eval:contained -- --summarize RESULTS.jsonl ...
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { detect } from '../src/detector/engine/detect.js';
import { loadBashParser } from '../src/detector/engine/parser.js';
import { CORPUS_CWD } from '../test/support/detector-corpus.js';
import { enterIsolation, isolated } from './contained/isolate.js';
import { readRows, sampleRows } from './contained/rows.js';
import { runSession, type SessionOptions } from './contained/session.js';
import { summaryMarkdown, summaryText, type ResultLine } from './contained/summary.js';

const USAGE =
  'usage: npm run eval:contained -- FILE.jsonl|CORPUS.txt [--rows A:B] [--sample N] [--label dangerous|ordinary] [--concurrency N] [--sandbox on|off] [--network proxy|direct|false|host] [--expose PATH]... [--timeout S] [--approve-commands] [--no-confirm] [--out RESULTS.jsonl]\n' +
  '       npm run eval:contained -- --summarize [--markdown] RESULTS.jsonl...';

function fail(message: string): never {
  process.stderr.write(`eval:contained: ${message}\n${USAGE}\n`);
  process.exit(2);
}

interface Args extends SessionOptions {
  files: string[];
  rows?: [number, number];
  sample?: number;
  out?: string;
  summarize: boolean;
  markdown: boolean;
  label?: 'dangerous' | 'ordinary';
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    files: [],
    concurrency: 4,
    sandbox: true,
    expose: [],
    timeout: 30,
    approvalTimeout: 5,
    confirm: true,
    summarize: false,
    markdown: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[(i += 1)];
      if (v === undefined) fail(`${arg} needs a value`);
      return v;
    };
    const number = (min: number, max: number): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) fail(`${arg} ${v}: give a whole number from ${min} to ${max}`);
      return n;
    };
    if (arg === '--concurrency') a.concurrency = number(1, 16);
    else if (arg === '--sample') a.sample = number(1, 1_000_000);
    else if (arg === '--timeout') a.timeout = number(1, 600);
    else if (arg === '--approval-timeout') a.approvalTimeout = number(1, 600);
    else if (arg === '--sandbox') {
      const v = value();
      if (v !== 'on' && v !== 'off') fail(`--sandbox ${v}: give on or off`);
      a.sandbox = v === 'on';
    } else if (arg === '--network') {
      const v = value();
      if (!['proxy', 'direct', 'false', 'host'].includes(v)) fail(`--network ${v}: give proxy, direct, false or host`);
      a.network = v === 'false' ? false : (v as 'proxy' | 'direct' | 'host');
    } else if (arg === '--expose') a.expose.push(value());
    else if (arg === '--no-confirm') a.confirm = false;
    else if (arg === '--approve-commands') a.approveCommands = true;
    else if (arg === '--out') a.out = resolve(value());
    else if (arg === '--summarize') a.summarize = true;
    else if (arg === '--markdown') a.markdown = true;
    else if (arg === '--label') {
      const v = value();
      if (v !== 'dangerous' && v !== 'ordinary') fail(`--label ${v}: give dangerous or ordinary`);
      a.label = v;
    } else if (arg === '--rows') {
      const v = value();
      const m = /^(\d*):(\d*)$/.exec(v);
      if (!m) fail(`--rows ${v}: give START:END (0-based, END excluded; either may be left out)`);
      a.rows = [m[1] ? Number(m[1]) : 0, m[2] ? Number(m[2]) : Number.MAX_SAFE_INTEGER];
    } else if (arg.startsWith('-')) fail(`unknown option ${arg}`);
    else a.files.push(arg);
  }
  if (a.files.length === 0) fail('no file given');
  for (const f of a.files) if (!existsSync(f)) fail(`${f}: no such file`);
  return a;
}

function readResults(files: readonly string[]): ResultLine[] {
  return files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as ResultLine & { summary?: unknown })
      .filter((l) => l.summary === undefined && typeof l.outcome === 'string'),
  );
}

const args = parseArgs(process.argv.slice(2));
if (args.summarize) {
  const lines = readResults(args.files);
  // Lines written before the detector's verdict was part of them are judged now, as eval:detector judges.
  const parse = await loadBashParser();
  for (const l of lines) l.detector ??= detect(parse, l.cmd, { cwd: CORPUS_CWD }).dangerous;
  process.stdout.write(`${(args.markdown ? summaryMarkdown(lines) : summaryText(lines)).join('\n')}\n`);
  process.exit(0);
}
if (!isolated()) await enterIsolation(args.out);

const loaded = args.files.map((f) => {
  try {
    return readRows(f);
  } catch (err) {
    return fail(`${f}: ${(err as Error).message}`);
  }
});
for (const s of loaded.flatMap((l) => l.skipped)) process.stderr.write(`eval:contained: skipped ${s}\n`);
let rows = loaded.flatMap((l) => l.rows).filter((r) => !args.label || r.label === args.label);
if (args.rows) rows = rows.slice(args.rows[0], args.rows[1]);
if (args.sample !== undefined) rows = sampleRows(rows, args.sample);
if (rows.length === 0) fail('no rows to run');
const started = Date.now();
process.stderr.write(`eval:contained: ${rows.length} commands, ${args.concurrency} at a time\n`);
const results = await runSession(
  rows,
  args,
  (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
  (text) => process.stderr.write(`eval:contained: ${text}\n`),
);
const seconds = (Date.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({ summary: { commands: results.length, seconds: Math.round(seconds), concurrency: args.concurrency } })}\n`,
);
process.stdout.write(
  [
    ...summaryText(results),
    '',
    `${results.length} commands in ${seconds.toFixed(0)} s (${(seconds / results.length).toFixed(2)} s each, ${args.concurrency} at a time)`,
    `reproduce: npm run eval:contained -- ${process.argv.slice(2).join(' ')}`,
    '',
  ].join('\n'),
);
process.exit(0);
