// Test support: a run that asks for one approval. Its scripted model asks for a `kubectl delete` that, once approved,
// appends a line to a marker file (so a test can see it ran exactly once), then finishes.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';
import { workerEnv } from './worker-process.js';

export interface ApprovalScenario {
  cwd: string;
  /** The file the approved command appends `ran` to. */
  marker: string;
  /** The environment of every `tether` process of the test. */
  env: Record<string, string>;
  taskQueue: string;
}

/** Sets up the scenario against the Temporal at `address`; the model server is pushed to `models` for closing. */
export async function approvalScenario(
  address: string,
  name: string,
  models: ScriptedModel[],
): Promise<ApprovalScenario> {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), `tether-${name}-`)));
  const marker = join(cwd, 'ran.txt');
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: `kubectl delete pod demo 2>/dev/null; echo ran >> ${marker}` } },
      ],
    },
    { content: 'finished after the approval' },
  ]);
  models.push(model);
  return { cwd, marker, ...workerEnv(address, model.url, name) };
}
