// More routes where text is evaluated again or carried into a later program, through the real worker in manual mode
// (dev server, registry, local environment): make variable references inside `$(shell ...)` and an include read from
// the -C directory, a compgen -W word list, a BASH_FUNC_ import, and INPUTRC for an interactive shell on a terminal.
// Each member waits for approval (denied here, so its marker file is never made); the look-alikes run unasked.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Harness } from './support/agent-harness.js';
import { call, denied, routeSuite, runDenying, processCall as proc } from './support/deny-all.js';
import type { Step } from './support/scripted-model.js';

let h: Harness;
const { project } = routeSuite('make-compgen', (made) => (h = made));

const payload = (marker: string): string => `touch ${marker}; kubectl delete pod demo 2>/dev/null`;

describe('make $(shell) text, compgen -W, BASH_FUNC_ and INPUTRC, through the worker in manual mode', () => {
  it('asks for each, never makes its marker, and runs the benign look-alikes', async () => {
    const cwd = project();
    writeFileSync(
      join(cwd, 'Makefile'),
      'X := $(shell touch $(CURDIR)/m1; kubectl delete pod demo 2>/dev/null)\nall:\n\t@echo hi\n',
    );
    mkdirSync(join(cwd, 'c'));
    writeFileSync(join(cwd, 'c', 'Makefile'), 'include ../inc.mk\nall:\n\t@echo hi\n');
    writeFileSync(join(cwd, 'inc.mk'), `X := $(shell ${payload('$(CURDIR)/../m2')})\n`);
    mkdirSync(join(cwd, 'ok'));
    writeFileSync(join(cwd, 'ok', 'Makefile'), 'OUT := $(CURDIR)/out\nall:\n\t@echo $(OUT)\n');
    const commands = [
      'make -n',
      'make -n -C c',
      `bash -c 'compgen -W "\\$(${payload(join(cwd, 'm3'))})" x'`,
      `env 'BASH_FUNC_ls%%=() { ${payload(join(cwd, 'm4'))}; }' bash -c ls`,
      'INPUTRC=ir bash --norc -i',
    ];
    const steps: Step[] = [
      call('write_file', { path: 'ir', content: '"z": "\\C-a\\C-d"\n' }),
      ...commands.map((command) => call('terminal', { command })),
      call('terminal', { command: 'make -n -C ok' }),
      call('terminal', { command: `compgen -W "a b c" a; env FOO=1 bash -c 'echo $FOO'` }),
      // Without INPUTRC the same typed line is a comment: it runs nothing.
      call('terminal', { command: 'bash --norc -i', background: true, pty: true }),
      proc('submit', { data: `#${payload(join(cwd, 'm5'))}z` }),
      proc('submit', { data: 'exit' }),
      proc('wait', { timeout: 30 }),
    ];
    const { out, asked } = await runDenying(h, cwd, steps, { idPrefix: 'make-compgen' });
    // A makefile's run shows the files it reads below the command line: the first line is the command.
    const askedText = asked.map((a) => a.command.split('\n')[0]);
    expect(asked[1]?.command).toContain('# inc.mk:');
    expect(out[0]).not.toMatchObject({ denied: true });
    for (const [i, command] of commands.entries()) {
      expect(askedText, command).toContain(command);
      expect(out[i + 1], command).toMatchObject(denied);
    }
    for (const m of ['m1', 'm2', 'm3', 'm4', 'm5']) expect(existsSync(join(cwd, m)), m).toBe(false);
    expect(out[6]).toMatchObject({ exit_code: 0, output: expect.stringContaining(join(cwd, 'ok', 'out')) });
    expect(out[7]).toMatchObject({ exit_code: 0, output: expect.stringMatching(/a\s+1/) });
    expect(out[11]).toMatchObject({ status: 'exited' });
    expect(asked).toHaveLength(commands.length);
  });
});
