// eval:contained's input: labelled commands from a JSONL file (one {"cmd", "label", "category"} object a line) or a
// detector corpus file (test/fixtures/detector-corpus/*.txt: "@@ <dangerous|ordinary> <class>" sections). Reads
// files; runs in the eval's process only.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { CORPUS_CWD, parseCorpus, type Part } from '../../test/support/detector-corpus.js';

export type Label = 'dangerous' | 'ordinary';

export interface Row {
  /** Where it came from, `FILE:LINE`. */
  id: string;
  cmd: string;
  label: Label;
  category: string;
  /** The directory the corpus judged it in (the world's task directory stands there or in its place). */
  cwd: string;
}

/** "flag" and "dangerous" mean a person should be asked; "allow" and "ordinary" that they should not. */
const LABELS: Readonly<Record<string, Label>> = {
  flag: 'dangerous',
  dangerous: 'dangerous',
  allow: 'ordinary',
  ordinary: 'ordinary',
};

/** One JSONL line's row, or why it is not one (the line is skipped with that reason; the eval goes on). */
function jsonRow(line: string, id: string): Row | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.cmd !== 'string' || o.cmd.trim() === '') return '"cmd" must be a non-empty string';
  const label = typeof o.label === 'string' ? LABELS[o.label] : undefined;
  if (!label) return '"label" must be "flag" or "allow" (or "dangerous", "ordinary")';
  const category = typeof o.category === 'string' && o.category !== '' ? o.category : 'uncategorised';
  const cwd = typeof o.cwd === 'string' && o.cwd.startsWith('/') ? o.cwd : CORPUS_CWD;
  return { id, cmd: o.cmd, label, category, cwd };
}

/** The rows of `file`, and one line for each line that is not a row (`FILE:LINE: why`). */
export function readRows(file: string): { rows: Row[]; skipped: string[] } {
  const text = readFileSync(file, 'utf8');
  const name = basename(file);
  if (!file.endsWith('.jsonl') && !file.endsWith('.json')) {
    const part = name.replace(/\.txt$/, '') as Part;
    return {
      rows: parseCorpus(text, part).map((e) => ({
        id: `${name}:${e.line}`,
        cmd: e.command,
        label: e.label,
        category: e.class,
        cwd: CORPUS_CWD,
      })),
      skipped: [],
    };
  }
  const rows: Row[] = [];
  const skipped: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const r = jsonRow(line, `${name}:${i + 1}`);
    if (typeof r === 'string') skipped.push(`${name}:${i + 1}: ${r}`);
    else rows.push(r);
  });
  return { rows, skipped };
}

/**
 * `n` of `rows`, spread evenly: every class of every file keeps its share (rows come grouped by file and class, so a
 * fixed stride over them is a stratified sample), and the same `n` picks the same rows on every run.
 */
export function sampleRows<T>(rows: readonly T[], n: number): T[] {
  if (n >= rows.length) return [...rows];
  const stride = rows.length / n;
  return Array.from({ length: n }, (_, i) => rows[Math.floor(i * stride + stride / 2)]!);
}
