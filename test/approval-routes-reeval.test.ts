// Routes where bash evaluates a value again as code, and where line editing or history changes what an interactive
// shell on a terminal runs, through the real worker in manual mode (dev server, registry, local environment). Each
// member waits for approval (denied here, so its marker file is never made); the benign look-alike runs unasked.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, denied, routeSuite, runDenying, processCall as proc } from './support/deny-all.js';
import type { Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('reeval', (made) => (h = made));

const payload = (marker: string): string => `touch ${marker}; kubectl delete pod demo 2>/dev/null`;

describe('values evaluated again as code and typed input, through the worker in manual mode', () => {
  it('asks for each, never makes its marker, and runs the benign look-alikes', async () => {
    const cwd = project();
    const commands = [
      `bash -c 'x="\\$(${payload('m1')})"; echo \${x@P}'`,
      `bash -c 'declare -a a; i="a[\\$(${payload('m2')})]"; echo $((i))'`,
      `bash -c 'PS4="\\$(${payload('m3')})"; set -x; :'`,
      `printf 'x\\n' > l; bash -c 'mapfile -C "${payload('m4')} #" -c 1 v < l'`,
    ];
    const steps: Step[] = [
      ...commands.map((command) => call('terminal', { command })),
      call('terminal', { command: 'i=3; echo $((i+1))' }),
      call('terminal', { command: 'bash --norc -i', background: true, pty: true }),
      proc('submit', { data: `echo touch ${join(cwd, 'm5')}` }),
      proc('submit', { data: '!!:1-$' }),
      proc('submit', { data: `#${payload(join(cwd, 'm6'))}\u0001\u0004` }),
      proc('submit', { data: 'exit' }),
      proc('wait', { timeout: 30 }),
    ];
    const { out, asked } = await runDenying(h, cwd, steps, { idPrefix: 'reeval' });
    const askedText = asked.map((a) => a.command);
    for (const [i, command] of commands.entries()) {
      expect(askedText, command).toContain(command);
      expect(out[i], command).toMatchObject(denied);
      expect(existsSync(join(cwd, `m${i + 1}`)), `${command}: marker`).toBe(false);
    }
    expect(out[4]).toMatchObject({ exit_code: 0, output: expect.stringMatching(/^4/) });
    // The PTY shell: the plain echo runs; history expansion and the control keys ask and are denied.
    expect(askedText.some((t) => t.includes('echo touch'))).toBe(false);
    expect(askedText.some((t) => t.includes('!!:1-$'))).toBe(true);
    expect(askedText.some((t) => t.includes('\u0001\u0004'))).toBe(true);
    expect(out[7]).toMatchObject(denied);
    expect(out[8]).toMatchObject(denied);
    expect(out[10]).toMatchObject({ status: 'exited' });
    expect(existsSync(join(cwd, 'm5'))).toBe(false);
    expect(existsSync(join(cwd, 'm6'))).toBe(false);
  });
});
