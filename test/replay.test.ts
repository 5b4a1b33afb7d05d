// Replays committed workflow histories against today's workflow code: a change that breaks determinism fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { historiesDir } from './support/history.js';
import { tracedWorkflowBundle, workflowBundle } from './support/agent-harness.js';

// Every file, old versions included: a recording is never replaced, and each one must keep replaying.
const files = readdirSync(historiesDir);

describe('replay of recorded histories', () => {
  it('has histories to replay, and nothing else in their folder', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  // A worker that exports traces runs the same workflows with the OpenTelemetry interceptors: it must replay the
  // same histories, whichever worker recorded them.
  describe.each([
    ['plain bundle', workflowBundle],
    ['traced bundle', tracedWorkflowBundle],
  ])('%s', (_, bundle) => {
    it.each(files)('%s replays without nondeterminism', async (file) => {
      const text = readFileSync(join(historiesDir, file), 'utf8');
      // Child workflow ids derive from the parent's id: replay under the recorded id when the history shows one.
      const workflowId = /"workflowId":\s*"([^"]+?)--sub\d+-\d+"/.exec(text)?.[1] ?? file;
      await expect(
        Worker.runReplayHistory({ workflowBundle: await bundle() }, JSON.parse(text) as unknown, workflowId),
      ).resolves.toBeUndefined();
    });
  });
});
