// The patch ids in the workflow code and the retirement table of docs/upgrades.md name the same patches.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('./', import.meta.url);
const doc = readFileSync(new URL('../../docs/upgrades.md', import.meta.url), 'utf8');

/** Every id given to patched() or deprecatePatch() through a `*_PATCH` constant or a literal. */
function idsInCode(): Set<string> {
  const ids = new Set<string>();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const text = readFileSync(new URL(file, dir), 'utf8');
    for (const m of text.matchAll(/_PATCH = '([^']+)'/g)) ids.add(m[1]!);
    for (const m of text.matchAll(/(?:patched|deprecatePatch)\('([^']+)'\)/g)) ids.add(m[1]!);
  }
  return ids;
}

function idsInTable(): Set<string> {
  const section = doc.slice(doc.indexOf('## Retiring patches'));
  return new Set([...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));
}

describe('patch retirement table', () => {
  it('lists exactly the patches the workflow code uses', () => {
    const code = idsInCode();
    expect(code.size).toBeGreaterThan(10);
    expect([...idsInTable()].sort()).toEqual([...code].sort());
  });
});
