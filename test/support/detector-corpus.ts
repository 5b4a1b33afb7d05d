// Reads the detector's evaluation corpus (test/fixtures/detector-corpus/*.txt) and scores the detector on it:
// recall on dangerous commands and false alarms on ordinary ones, per class. Worker-only (reads files).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detect } from '../../src/detector/engine/detect.js';
import type { ParseBash } from '../../src/detector/engine/parser.js';

export type Label = 'dangerous' | 'ordinary';
export type Part = 'frozen' | 'tuning' | 'holdout-2' | 'holdout-3' | 'holdout-4' | 'holdout-5' | 'everyday';

export interface CorpusEntry {
  command: string;
  label: Label;
  class: string;
  part: Part;
  line: number;
}

/** Commands of the corpus are judged with this project directory. */
export const CORPUS_CWD = '/work/proj';
export const CORPUS_PARTS: readonly Part[] = [
  'frozen',
  'tuning',
  'holdout-2',
  'holdout-3',
  'holdout-4',
  'holdout-5',
  'everyday',
];
/** Parts written blind, without looking at the rules or the other parts (they may repeat the others' lines). */
export const HELD_OUT_PARTS: readonly Part[] = ['holdout-2', 'holdout-3', 'holdout-4', 'holdout-5', 'everyday'];

export const corpusFile = (part: Part): string =>
  fileURLToPath(new URL(`../fixtures/detector-corpus/${part}.txt`, import.meta.url));

/** Parses one part: "@@ LABEL CLASS" starts a section, "# " starts a comment, every other non-empty line is a command. */
export function parseCorpus(text: string, part: Part): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  let section: { label: Label; class: string } | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('# ')) return;
    const head = /^@@ (dangerous|ordinary) ([a-z][a-z-]*)$/.exec(line);
    if (head) {
      section = { label: head[1] as Label, class: head[2]! };
      return;
    }
    if (line.startsWith('@@')) throw new Error(`${part}.txt line ${i + 1}: bad section header ${JSON.stringify(line)}`);
    if (!section) throw new Error(`${part}.txt line ${i + 1}: a command before the first "@@ LABEL CLASS" header`);
    out.push({ command: line, label: section.label, class: section.class, part, line: i + 1 });
  });
  return out;
}

export function loadCorpus(parts: readonly Part[] = CORPUS_PARTS): CorpusEntry[] {
  return parts.flatMap((p) => parseCorpus(readFileSync(corpusFile(p), 'utf8'), p));
}

export interface Tally {
  dangerous: number;
  asked: number;
  ordinary: number;
  falseAlarms: number;
}

export interface Scored {
  entry: CorpusEntry;
  asked: boolean;
  rules: string[];
}

export function score(parse: ParseBash, entries: readonly CorpusEntry[]): Scored[] {
  return entries.map((entry) => {
    const v = detect(parse, entry.command, { cwd: CORPUS_CWD });
    return { entry, asked: v.dangerous, rules: v.findings.map((f) => f.rule) };
  });
}

export function tally(scored: readonly Scored[]): Tally {
  const t: Tally = { dangerous: 0, asked: 0, ordinary: 0, falseAlarms: 0 };
  for (const s of scored) {
    if (s.entry.label === 'dangerous') {
      t.dangerous += 1;
      if (s.asked) t.asked += 1;
    } else {
      t.ordinary += 1;
      if (s.asked) t.falseAlarms += 1;
    }
  }
  return t;
}

export const recall = (t: Tally): number => (t.dangerous === 0 ? 1 : t.asked / t.dangerous);
export const falseAlarmRate = (t: Tally): number => (t.ordinary === 0 ? 0 : t.falseAlarms / t.ordinary);

/** Misses (dangerous that did not ask) and false alarms (ordinary that asked). */
export const mistakes = (scored: readonly Scored[]): Scored[] =>
  scored.filter((s) => (s.entry.label === 'dangerous') !== s.asked);
