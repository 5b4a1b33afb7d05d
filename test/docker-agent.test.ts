// An agent run (scripted model) whose terminal is the Docker backend: a real dockerd, the locally built test
// image, the run's directory mounted; the container is removed when the run ends.
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { defaultSocketPath } from '../src/environments/backends/docker/settings.js';
import { harness, type Harness } from './support/agent-harness.js';
import { dockerAvailable, ensureTestImage } from './support/docker-fixture.js';
import { recordHistory } from './support/history.js';
import { lastToolResults, startScriptedModel } from './support/scripted-model.js';

let h: Harness | undefined;
let skip: string | undefined;

beforeAll(async () => {
  skip = await dockerAvailable();
  if (skip) return;
  const image = await ensureTestImage();
  h = await harness(parseConfig({ terminal: { backend: 'docker', docker: { image, mount_cwd: true } } }));
}, 300_000);
afterAll(async () => {
  await h?.close();
});

it('runs an agent whose terminal commands run in a Docker container', async (ctx) => {
  if (skip || !h) return ctx.skip(skip ?? 'no harness');
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-docker-agent-')));
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'write_file', arguments: { path: 'in/task.txt', content: 'from the host\n' } }] },
    {
      toolCalls: [
        {
          name: 'terminal',
          arguments: {
            command:
              'test -f /.dockerenv && echo in-container; cat in/task.txt; mkdir -p out && cd out && export STAGE=two',
          },
        },
      ],
    },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: 'echo "$STAGE $(pwd)" | tee result.txt; wc -l < /proc/net/dev' } },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo background done', background: true } }] },
    (req) => {
      const started = JSON.parse(req.messages.at(-1)!.content!) as { process_id: string };
      return {
        toolCalls: [{ name: 'process', arguments: { action: 'wait', process_id: started.process_id, timeout: 30 } }],
      };
    },
    { content: 'worked in the container' },
  ]);
  const workflowId = `docker-agent-${Date.now()}`;
  const result = await h.withWorker(model.url, () => h!.run({ task: 'use the container', cwd }, workflowId));
  recordHistory(h.address, workflowId, 'docker-routed');
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', answer: 'worked in the container', turns: 6, toolCalls: 5 });
  const results = lastToolResults(model) as Record<string, unknown>[];
  expect(results[1]).toEqual({ exit_code: 0, output: 'in-container\nfrom the host\n' });
  // cd and export carried over; only loopback in the container's network (header lines + lo).
  expect(results[2]).toEqual({ exit_code: 0, output: 'two /workspace/out\n3\n' });
  expect(results[4]).toMatchObject({ status: 'exited', exit_code: 0, output_tail: 'background done\n' });
  // The container wrote into the mounted run directory.
  expect(readFileSync(join(cwd, 'out/result.txt'), 'utf8')).toBe('two /workspace/out\n');
  // The run ended, so its container is gone.
  const docker = new Docker({ socketPath: defaultSocketPath() });
  expect(await docker.listContainers({ all: true, filters: { label: [`tether.task=${workflowId}`] } })).toEqual([]);
  await model.close();
}, 180_000);
