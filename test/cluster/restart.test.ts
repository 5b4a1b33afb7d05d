// The whole cluster (Temporal server and PostgreSQL) stops and starts again while an approval waits: the run, its
// pending approval and the decision survive in PostgreSQL, and the command runs once.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { afterAll, expect, inject, it } from 'vitest';
import type { AgentResult } from '../../src/common/types.js';
import { runCli, until } from '../support/cli.js';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model.js';
import { WorkerPool, workerEnv } from '../support/worker-process.js';

const script = fileURLToPath(new URL('../../scripts/cluster.sh', import.meta.url));
const workers = new WorkerPool();
let model: ScriptedModel | undefined;

afterAll(async () => {
  await workers.killAll();
  await model?.close();
});

function cluster(command: 'start' | 'stop'): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', [script, command], (err, stdout, stderr) =>
      err ? reject(new Error(`cluster.sh ${command}: ${stderr}`)) : resolve(stderr),
    ),
  );
}

// A cluster given by TETHER_CLUSTER_ADDRESS is not ours to stop.
it.skipIf(Boolean(process.env.TETHER_CLUSTER_ADDRESS))(
  'server and PostgreSQL restart while an approval waits; the decision made afterwards runs the command once',
  async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-cluster-restart-')));
    const marker = join(cwd, 'ran.txt');
    model = await startScriptedModel([
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: `kubectl delete pod x 2>/dev/null; echo ran >> ${marker}` } },
        ],
      },
      { content: 'done after the restart' },
    ]);
    const { env } = workerEnv(inject('temporalAddress'), model.url, 'cluster-restart');
    const tether = (args: string[]): ReturnType<typeof runCli> => runCli(args, { cwd, env });
    const worker = await workers.start(env);
    const started = await tether(['run', '--detach', '--no-prompt', '--model', 'scripted', 'delete pod x']);
    expect(started.code, started.stderr).toBe(0);
    const workflowId = started.stdout.trim();
    let approvalId = '';
    await until('the approval to be listed', async () => {
      const listed = JSON.parse((await tether(['approvals', '--json'])).stdout || '[]') as {
        workflowId: string;
        approvalId: string;
      }[];
      approvalId = listed.find((a) => a.workflowId === workflowId)?.approvalId ?? '';
      return approvalId !== '';
    });
    await worker.kill('SIGKILL');

    expect(await cluster('stop')).toContain('PostgreSQL stopped');
    const down = await tether(['status', workflowId]);
    expect(down.stderr).toMatch(/^tether: cannot reach Temporal at \S+ \(TEMPORAL_ADDRESS\)/);
    await cluster('start');

    await workers.start(env);
    const approved = await tether(['approve', workflowId, approvalId]);
    expect(approved.code, approved.stderr).toBe(0);
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const result = (await new Client({ connection }).workflow.getHandle(workflowId).result()) as AgentResult;
      expect(result).toMatchObject({ status: 'completed', answer: 'done after the restart' });
    } finally {
      await connection.close();
    }
    expect(existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []).toEqual(['ran']);
  },
  240_000,
);
