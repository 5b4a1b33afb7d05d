// The lint configuration guards the architecture: an import cycle, or a Node built-in or worker folder imported
// by workflow code, fails `npm run lint`. Probe files are written into the source tree (where the rules apply),
// linted with ESLint's Node API and removed again.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const tag = `lint-probe-${randomBytes(4).toString('hex')}`;
const written: string[] = [];

function probe(folder: string, name: string, text: string): string {
  const path = join(root, 'src', folder, `${tag}-${name}.ts`);
  writeFileSync(
    path,
    `// A probe of the lint boundary rules, written and removed by test/lint-boundaries.test.ts.\n${text}`,
  );
  written.push(path);
  return path;
}

/** The ids of the rules each file breaks. */
async function brokenRules(files: string[]): Promise<string[][]> {
  const results = await new ESLint({ cwd: root }).lintFiles(files);
  return files.map(
    (f) => results.find((r) => r.filePath === f)?.messages.map((m) => m.ruleId ?? m.message) ?? ['not linted'],
  );
}

afterAll(() => {
  for (const f of written) rmSync(f, { force: true });
});

describe('lint boundary rules', () => {
  it('fails on an import cycle, a node: import and a worker folder in workflow code; passes the real workflow entry', async () => {
    const a = probe('registry', 'a', `import { b } from './${tag}-b.js';\nexport const a = (): number => b() + 1;\n`);
    const b = probe(
      'registry',
      'b',
      `import { a } from './${tag}-a.js';\nexport const b = (): number => (a.length > 0 ? 1 : 0);\n`,
    );
    const fs = probe(
      'workflows',
      'fs',
      `import { readFileSync } from 'node:fs';\nexport const read = (): string => readFileSync('/etc/hostname', 'utf8');\n`,
    );
    const worker = probe(
      'common',
      'worker',
      `import type { ToolContext } from '../registry/types.js';\nexport type Probe = ToolContext;\n`,
    );
    const real = join(root, 'src', 'workflows', 'index.ts');
    const [ra, rb, rfs, rworker, rreal] = await brokenRules([a, b, fs, worker, real]);
    expect(ra).toContain('import-x/no-cycle');
    expect(rb).toContain('import-x/no-cycle');
    expect(rfs).toContain('no-restricted-imports');
    expect(rworker).toContain('no-restricted-imports');
    expect(rreal).toEqual([]);
  }, 300_000);
});
