// The prebuilt workflow bundle is used only while every file it was made from is unchanged.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { workflowBuildId, workflowCodeSha256 } from './build-id.js';
import { prebuiltBundle, writePrebuiltBundle } from './prebuilt-bundle.js';

// Inside the project (git-ignored), so webpack resolves @temporalio/workflow from its node_modules.
const scratch = fileURLToPath(new URL('../../.scratch/', import.meta.url));
mkdirSync(scratch, { recursive: true });
const root = mkdtempSync(join(scratch, 'prebuilt-bundle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('prebuilt workflow bundle', () => {
  it('is used while its sources are unchanged, and not once one changes or it is missing', async () => {
    const entry = join(root, 'workflows.js');
    writeFileSync(join(root, 'greet.js'), "export const greeting = 'hi';\n");
    writeFileSync(
      entry,
      "import { greeting } from './greet.js';\nexport async function hello() { return greeting; }\n",
    );
    const dir = join(root, 'bundle');
    expect(prebuiltBundle(entry, dir).reason).toMatch(/^no prebuilt workflow bundle/);

    const made = await writePrebuiltBundle(entry, dir);
    expect(made.files).toBeGreaterThan(2);
    const found = prebuiltBundle(entry, dir);
    expect(found.reason).toBeUndefined();
    expect(found.bundle && 'codePath' in found.bundle && existsSync(found.bundle.codePath)).toBe(true);
    // The manifest carries the code's digest, so the build id is the one hashing the code gives, without hashing it.
    const codePath = join(dir, 'workflow-bundle.js');
    expect(found.sha256).toBe(workflowCodeSha256(readFileSync(codePath, 'utf8')));
    expect(workflowBuildId({ codePath }, found.sha256)).toBe(workflowBuildId({ codePath }));

    expect(prebuiltBundle(join(root, 'other.js'), dir).reason).toMatch(
      /was made from .*workflows\.js, not .*other\.js$/,
    );
    // A code file that is not the one the manifest describes gets no digest: the worker hashes it as before.
    const code = readFileSync(codePath, 'utf8');
    appendFileSync(codePath, '\n');
    expect(prebuiltBundle(entry, dir).bundle).toBeDefined();
    expect(prebuiltBundle(entry, dir).sha256).toBeUndefined();
    writeFileSync(codePath, code);
    expect(prebuiltBundle(entry, dir).sha256).toBe(found.sha256);

    // A module the entry imports counts as much as the entry itself.
    appendFileSync(join(root, 'greet.js'), '// edited\n');
    expect(prebuiltBundle(entry, dir).reason).toMatch(/greet\.js changed since the workflow bundle was built/);
  }, 120_000);
});
