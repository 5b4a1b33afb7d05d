// A background command is judged on the files it runs as they are when it starts, and may run them at any later
// time: a later call that changes one of them asks, while the process runs (found by the third attack pass), through
// the real worker in manual mode. Once the process has ended, the same write needs nobody.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, denied, processCall, routeSuite, runDenying } from './support/deny-all.js';

let h: Harness;
const { project } = routeSuite('background', (made) => (h = made));

it('a file a running background process was judged on asks before a later call changes it, by any tool', async () => {
  const cwd = project();
  const marker = (n: number): string => join(cwd, `m${n}`);
  const payload = (n: number): string => `touch ${marker(n)}; kubectl delete pod demo 2>/dev/null\n`;
  const { out, asked } = await runDenying(
    h,
    cwd,
    [
      call('write_file', { path: 'later.sh', content: 'echo benign\n' }),
      call('write_file', { path: 'payload.txt', content: payload(2) }),
      call('terminal', { command: 'sleep 4; sh later.sh', background: true }),
      // The file tool, a redirect, and a copy: each would change what the process runs.
      call('write_file', { path: 'later.sh', content: payload(1) }),
      call('terminal', { command: `echo 'touch ${marker(3)}' >> later.sh` }),
      call('terminal', { command: 'cp payload.txt later.sh' }),
      // Another file is not the process's: written without asking.
      call('write_file', { path: 'notes.txt', content: 'hello\n' }),
      processCall('wait', { timeout: 30 }),
      // The process has ended: nothing runs later.sh any more.
      call('write_file', { path: 'later.sh', content: 'echo changed\n' }),
    ],
    { idPrefix: 'background' },
  );
  expect(out[3]).toMatchObject(denied);
  expect(out[4]).toMatchObject(denied);
  expect(out[5]).toMatchObject(denied);
  expect(asked).toHaveLength(3);
  for (const a of asked)
    expect(a.findings.map((f) => f.description).join(' ')).toMatch(/later\.sh, which background process proc_\d+/);
  expect(out[7]).toMatchObject({ status: 'exited', exit_code: 0 });
  expect(out[7]!.output_tail).toBe('benign\n'); // what was judged is what ran
  expect(readFileSync(join(cwd, 'later.sh'), 'utf8')).toBe('echo changed\n');
  for (const n of [1, 2, 3]) expect(existsSync(marker(n))).toBe(false);
});
