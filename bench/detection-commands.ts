// The commands the detection benchmarks time: every command of the verdict table and of the evaluation corpus, with
// the project directory each is judged in.
import { DANGEROUS, ORDINARY, TABLE_CWD } from '../test/fixtures/detect-table.js';
import { CORPUS_CWD, loadCorpus } from '../test/support/detector-corpus.js';

export const detectionCommands = (): [command: string, cwd: string][] => [
  ...DANGEROUS.map((d): [string, string] => [d[0], TABLE_CWD]),
  ...ORDINARY.map((c): [string, string] => [c, TABLE_CWD]),
  ...loadCorpus().map((e): [string, string] => [e.command, CORPUS_CWD]),
];
