// The short build id names the same bundle hash as the SDK's default id.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBuildId, workflowCodeSha256 } from './build-id.js';

describe('workflowBuildId', () => {
  it('is tether- and the first 12 hex digits of the bundle code SHA-256, from code or from a file', () => {
    const code = 'var workflows = {}; // a bundle';
    const full = createHash('sha256').update(code).digest('hex');
    expect(workflowBuildId({ code })).toBe(`tether-${full.slice(0, 12)}`);
    const dir = mkdtempSync(join(tmpdir(), 'tether-build-id-'));
    writeFileSync(join(dir, 'bundle.js'), code);
    expect(workflowBuildId({ codePath: join(dir, 'bundle.js') })).toBe(workflowBuildId({ code }));
    expect(workflowBuildId({ code: `${code} ` })).not.toBe(workflowBuildId({ code }));
  });

  it('names a digest already known (the prebuilt manifest records it) without hashing the code', () => {
    const code = 'var workflows = {}; // a bundle';
    expect(workflowCodeSha256(code)).toBe(createHash('sha256').update(code).digest('hex'));
    const other = workflowCodeSha256('other code');
    expect(workflowBuildId({ code }, other)).toBe(`tether-${other.slice(0, 12)}`);
  });
});
