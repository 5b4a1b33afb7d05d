// The detector on its evaluation corpus (test/fixtures/detector-corpus): the targets on the frozen and tuning
// parts, and the held-out parts unchanged since they were written (frozen before the rules were generalised,
// holdout-2 before its author read the rules).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CORPUS_PARTS,
  corpusFile,
  falseAlarmRate,
  loadCorpus,
  mistakes,
  recall,
  score,
  tally,
  type Part,
  type Scored,
} from '../../../test/support/detector-corpus.js';
import { loadBashParser } from './parser.js';

/** sha256 of frozen.txt as committed before any rule change (issue 17); never update it to make this test pass. */
const FROZEN_SHA256 = '740f7c15dc2a103dbfe10831d298e8061bb18973c7d77302b19eede8ef000ad5';
/** sha256 of holdout-2.txt as committed alone, before its author read the rules; never update it either. */
const HOLDOUT_2_SHA256 = 'c40aee35e9b386255b41b7c6d031b3a3b6075048a9b881261cde6c5b22e72498';
/** sha256 of holdout-3.txt as committed alone (3bd8204), written blind like holdout-2; never update it either. */
const HOLDOUT_3_SHA256 = 'c931071d6285a5788be6e6b9f1a871f15edf866314d73d787292509928758d7a';
/** sha256 of holdout-4.txt as committed alone (994900d), written blind like the others; never update it either. */
const HOLDOUT_4_SHA256 = 'e6ac488ca98223cf8174db2369b3d70c325f665ed038e30acead1346ce86cbc1';
/** sha256 of holdout-5.txt as committed alone (bfa6be1), written blind like the others; never update it either. */
const HOLDOUT_5_SHA256 = '5c7e3b58f85b75b852283ad9a781d4c341870f81c67e3db9e70894af04d62799';
/** sha256 of everyday.txt (ordinary work only) as committed alone (cd37575), written blind; never update it either. */
const EVERYDAY_SHA256 = 'dbd0a03ef0e05105a58d40fc29b6f42f84e5822b7863bb3ac7e6c0402a4d02ca';

let scored: Scored[];
beforeAll(async () => {
  scored = score(await loadBashParser(), loadCorpus());
});

const list = (s: Scored[]): string =>
  s.map((m) => `${m.entry.part}:${m.entry.line} [${m.entry.class}] ${m.entry.command}`).join('\n');

describe('the detector evaluation corpus', () => {
  it.each<[Part, string]>([
    ['frozen', FROZEN_SHA256],
    ['holdout-2', HOLDOUT_2_SHA256],
    ['holdout-3', HOLDOUT_3_SHA256],
    ['holdout-4', HOLDOUT_4_SHA256],
    ['holdout-5', HOLDOUT_5_SHA256],
    ['everyday', EVERYDAY_SHA256],
  ])('keeps the %s part exactly as it was written', (part, sha256) => {
    expect(
      createHash('sha256')
        .update(readFileSync(corpusFile(part)))
        .digest('hex'),
    ).toBe(sha256);
  });

  it('has at least 1,000 labelled commands, each once in its part, in classes of both labels', () => {
    const all = loadCorpus();
    expect(all.length).toBeGreaterThanOrEqual(1000);
    expect(all.filter((e) => e.part === 'frozen').length).toBeGreaterThanOrEqual(400);
    // A held-out part was written without looking at the others, so it may repeat their lines; within a part, never.
    for (const part of CORPUS_PARTS) {
      const mine = all.filter((e) => e.part === part);
      expect(new Set(mine.map((e) => e.command)).size, part).toBe(mine.length);
    }
    for (const label of ['dangerous', 'ordinary'] as const)
      expect(all.filter((e) => e.label === label).length).toBeGreaterThan(300);
  });

  it.each<Part>(['frozen', 'tuning'])(
    '%s part: at least 98%% of dangerous commands ask and at most 2%% of ordinary ones do',
    (part) => {
      const mine = scored.filter((s) => s.entry.part === part);
      const t = tally(mine);
      const wrong = mistakes(mine);
      expect(recall(t), `missed:\n${list(wrong.filter((m) => m.entry.label === 'dangerous'))}`).toBeGreaterThanOrEqual(
        0.98,
      );
      expect(
        falseAlarmRate(t),
        `false alarms:\n${list(wrong.filter((m) => m.entry.label === 'ordinary'))}`,
      ).toBeLessThanOrEqual(0.02);
    },
  );

  // holdout-2 was measured once held out (73.5% of its own lines asked) and tuned on afterwards; this keeps the class
  // fixes from sliding back. Its 13 publishing lines stay ordinary by the other parts' labels, hence 95%, not 98%.
  // holdout-3 and holdout-4 likewise: 68.3% and 75.4% of their own lines asked held out (docs/detector.md), then
  // their classes were fixed.
  it.each<Part>(['holdout-2', 'holdout-3', 'holdout-4', 'holdout-5'])(
    '%s part (tuned on after its first measurement): at least 95%% of dangerous commands ask, at most 2%% of ordinary ones',
    (part) => {
      const mine = scored.filter((s) => s.entry.part === part);
      const t = tally(mine);
      const wrong = mistakes(mine);
      expect(recall(t), `missed:\n${list(wrong.filter((m) => m.entry.label === 'dangerous'))}`).toBeGreaterThanOrEqual(
        0.95,
      );
      expect(
        falseAlarmRate(t),
        `false alarms:\n${list(wrong.filter((m) => m.entry.label === 'ordinary'))}`,
      ).toBeLessThanOrEqual(0.02);
    },
  );
});
