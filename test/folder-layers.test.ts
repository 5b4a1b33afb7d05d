// The folder layering lint rule (scripts/eslint-folder-layers.mjs): probes that import up a layer, or make two
// folders import each other, fail it; the real tree of src/ passes it. Lints with the rule alone (no type info).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { folderLayers } from '../scripts/eslint-folder-layers.mjs';
import { FOLDER_LAYERS } from '../scripts/folder-layers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function linter(): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['src/**/*.ts'],
        ignores: ['**/*.test.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { layers: folderLayers },
        rules: { 'layers/folders-layered': 'error' },
      },
    ],
  });
}

async function lintProbe(path: string, code: string): Promise<string[]> {
  const [result] = await linter().lintText(code, { filePath: `${root}/${path}` });
  return (result?.messages ?? []).map((m) => m.message);
}

describe('folder layers', () => {
  it('fails a probe in config that imports up into approval', async () => {
    const messages = await lintProbe('src/config/probe.ts', "import { RULES } from '../approval/detect.js';\n");
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/src\/config \(layer settings\) imports src\/approval, a higher layer/);
  });

  it('fails a probe in acp that reaches up into the command line, and a re-export that does the same', async () => {
    // cli imports acp (the `tether acp` command), so acp importing cli makes the two import each other.
    const back = await lintProbe('src/acp/probe.ts', "import { CliError } from '../cli/errors.js';\n");
    expect(back[0]).toMatch(/src\/acp and src\/cli import each other/);
    const up = await lintProbe('src/common/probe.ts', "export { sendDecision } from '../decisions/decide.js';\n");
    expect(up[0]).toMatch(/src\/common \(layer shared\) imports src\/decisions, a higher layer/);
  });

  it('fails a probe that makes two folders of one layer import each other', async () => {
    // temporal imports payloads (the payload reader), so payloads importing temporal closes a loop.
    const messages = await lintProbe(
      'src/payloads/probe.ts',
      "import { workflowsPath } from '../temporal/settings.js';\n",
    );
    expect(messages[0]).toMatch(/src\/payloads and src\/temporal import each other/);
  });

  it('fails a dynamic import() that runs up', async () => {
    const messages = await lintProbe(
      'src/temporal/probe.ts',
      "export const load = () => import('../cli/errors.js');\n",
    );
    expect(messages[0]).toMatch(/src\/temporal \(layer services\) imports src\/cli, a higher layer/);
  });

  it('names a folder missing from the table', async () => {
    const messages = await lintProbe('src/newfolder/probe.ts', "import { x } from '../common/errors.js';\n");
    expect(messages[0]).toMatch(/src\/newfolder has no layer: add it to FOLDER_LAYERS/);
  });

  it('lets type-only imports and imports down pass', async () => {
    const code =
      "import type { Rule } from '../cli/errors.js';\nimport { type A } from '../acp/agent.js';\nimport { x } from '../common/errors.js';\n";
    expect(await lintProbe('src/config/probe.ts', code)).toEqual([]);
  });

  it('passes the current tree of src/', { timeout: 600_000 }, async () => {
    const results = await linter().lintFiles(['src/**/*.ts']);
    const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`));
    expect(results.length).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('places every top folder of src/ in exactly one layer', () => {
    const all = FOLDER_LAYERS.flatMap((l) => l.folders);
    expect(new Set(all).size).toBe(all.length);
    const units = readdirSync(`${root}/src`, { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')))
      .map((e) => e.name);
    expect(units.filter((u) => !all.includes(u))).toEqual([]);
  });
});
