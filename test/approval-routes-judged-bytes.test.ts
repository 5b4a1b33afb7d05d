// A script swapped by a background process after the gate's last read, through the real worker in manual mode: the
// run executes only the bytes that were judged. A pre_tool_call hook (it runs after the gate and before the command)
// tells the task's own background process when to swap, so the swap lands in that window every time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { hooks } from '../src/registry/index.js';
import { type Harness } from './support/agent-harness.js';
import { call, denied, processCall, routeSuite, runDenying } from './support/deny-all.js';

let h: Harness;
const { project } = routeSuite('judged-bytes', (made) => (h = made));
afterEach(() => hooks.removeSource('test-judged-bytes'));

/** Waits (at most 10 s) until `path` exists. */
async function until(path: string): Promise<void> {
  for (let i = 0; i < 200 && !existsSync(path); i += 1) await new Promise((r) => setTimeout(r, 50));
}

it('a script swapped between the gate reading it and the command starting is not run', async () => {
  const cwd = project();
  const marker = join(cwd, 'm1');
  let swapped = false;
  // After the gate judged `sh task.sh` (on `echo benign`), before it runs: the background process swaps the file.
  hooks.add(
    'pre_tool_call',
    async (c) => {
      if (c.name !== 'terminal' || c.args?.command !== 'sh task.sh' || swapped) return;
      swapped = true;
      writeFileSync(join(cwd, 'go'), '');
      await until(join(cwd, 'swapped'));
    },
    'test-judged-bytes',
  );
  const { out, asked } = await runDenying(
    h,
    cwd,
    [
      call('write_file', { path: 'task.sh', content: 'echo benign\n' }),
      call('write_file', { path: 'payload.sh', content: `touch ${marker}; kubectl delete pod demo 2>/dev/null\n` }),
      call('terminal', {
        command: 'while [ ! -e go ]; do sleep 0.05; done; cp payload.sh task.sh; touch swapped',
        background: true,
      }),
      call('terminal', { command: 'sh task.sh' }),
      // Judged again, on what is there now: it asks (denied here).
      call('terminal', { command: 'sh task.sh' }),
    ],
    { idPrefix: 'judged-bytes' },
  );
  expect(existsSync(join(cwd, 'swapped'))).toBe(true);
  expect(readFileSync(join(cwd, 'task.sh'), 'utf8')).toContain('kubectl delete pod demo');
  expect(out[3]).toMatchObject({
    exit_code: 126,
    output: expect.stringContaining('task.sh changed after the approval check read it, so the command was not run'),
  });
  // Only the second call asked, showing the person the swapped script.
  expect(asked.map((a) => a.command.split('\n')[0])).toEqual(['sh task.sh']);
  expect(asked[0]!.command).toContain('kubectl delete pod demo');
  expect(out[4]).toMatchObject(denied);
  expect(existsSync(marker)).toBe(false);
}, 120_000);

it('a background process runs only the bytes its verdict read, and a script left alone runs as before', async () => {
  const cwd = project();
  const marker = join(cwd, 'm2');
  hooks.add(
    'pre_tool_call',
    (c) => {
      // The swap lands after the gate's read of the background command's script, before the process starts.
      if (c.name === 'terminal' && c.args?.command === 'sh job.sh')
        writeFileSync(join(cwd, 'job.sh'), `touch ${marker}; kubectl delete pod demo 2>/dev/null\n`);
    },
    'test-judged-bytes',
  );
  const { out } = await runDenying(
    h,
    cwd,
    [
      call('write_file', { path: 'job.sh', content: 'echo job\n' }),
      call('write_file', { path: 'ok.sh', content: 'echo fine\n' }),
      call('terminal', { command: 'sh job.sh', background: true }),
      processCall('wait', { timeout: 10 }),
      call('terminal', { command: 'sleep 1; sh ok.sh' }),
    ],
    { idPrefix: 'judged-bytes-bg' },
  );
  expect(out[4]).toMatchObject({ exit_code: 0, output: 'fine\n' });
  expect(out[3]).toMatchObject({
    status: 'exited',
    exit_code: 126,
    output_tail: expect.stringContaining('job.sh changed after the approval check read it'),
  });
  expect(existsSync(marker)).toBe(false);
}, 120_000);
