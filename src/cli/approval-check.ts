// `tether approval check`: the verdict on commands, one at a time or as JSON lines on standard input. Worker-only.
import { createInterface } from 'node:readline';
import { detect, type Verdict } from '../approval/detect.js';
import { loadBashParser } from '../approval/parser.js';
import { visibleText } from '../approval/visible-text.js';

export interface CheckOptions {
  json?: boolean;
  jsonl?: boolean;
  cwd?: string;
}

/** Exit code of `approval check` for a dangerous verdict (0 when nothing was found). */
export const DANGEROUS_EXIT = 3;

const publicVerdict = (v: Verdict) => ({
  command: v.command,
  dangerous: v.dangerous,
  tier: v.tier,
  findings: v.findings.map((f) => ({ rule: f.rule, tier: f.tier, description: f.description })),
});

function printHuman(v: Verdict): void {
  if (!v.dangerous) {
    process.stdout.write('ok: nothing dangerous found\n');
    return;
  }
  const head = v.tier === 'hardline' ? 'HARDLINE: never run, whatever the approval mode' : 'DANGEROUS: asks for approval';
  process.stdout.write(`${head}\n${v.findings.map((f) => `  [${f.rule}] ${visibleText(f.description, { newlines: 'escape' })}`).join('\n')}\n`);
}

/** Reads JSON-encoded command strings, one per line, and writes one verdict per line in the same order. */
async function checkLines(cwd: string): Promise<number> {
  const parse = await loadBashParser();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  const out: string[] = [];
  const flush = (): void => {
    if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
    out.length = 0;
  };
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let command: unknown;
    try {
      command = JSON.parse(line);
    } catch (err) {
      out.push(JSON.stringify({ line: n, error: `line ${n} is not JSON: ${(err as Error).message}` }));
      continue;
    }
    if (typeof command !== 'string') {
      out.push(JSON.stringify({ line: n, error: `line ${n} is not a JSON string (got ${Array.isArray(command) ? 'array' : typeof command})` }));
      continue;
    }
    out.push(JSON.stringify(publicVerdict(detect(parse, command, { cwd }))));
    if (out.length >= 256) flush();
  }
  flush();
  return 0;
}

export async function runApprovalCheck(words: string[], opts: CheckOptions): Promise<number> {
  const cwd = opts.cwd ?? process.cwd();
  if (opts.jsonl) return checkLines(cwd);
  const command = words.join(' ');
  const verdict = detect(await loadBashParser(), command, { cwd });
  if (opts.json) process.stdout.write(`${JSON.stringify(publicVerdict(verdict), null, 2)}\n`);
  else printHuman(verdict);
  return verdict.dangerous ? DANGEROUS_EXIT : 0;
}
