import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from './sha256.js';

describe('sha256Hex', () => {
  it('agrees with node:crypto on every block boundary and on text beyond ASCII', () => {
    const texts = [
      '',
      'abc',
      'é',
      '日本',
      '\u{1f600}',
      'x\ud800y',
      ...Array.from({ length: 140 }, (_, n) => 'a'.repeat(n)),
    ];
    texts.push('{"command":"kubectl delete pod x","workdir":"sub"}'.repeat(1000));
    for (const t of texts)
      expect(sha256Hex(t), JSON.stringify(t.slice(0, 20))).toBe(createHash('sha256').update(t).digest('hex'));
  });
});
