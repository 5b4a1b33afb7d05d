import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../registry/index.js';
import { until } from '../../test/support/cli.js';
import './terminal.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-terminal-')));
const run = async (args: object, signal?: AbortSignal) =>
  JSON.parse(await registry.dispatch('terminal', JSON.stringify(args), { taskId: 't', cwd, signal })) as {
    exit_code: number | null;
    output: string;
    error?: string;
  };

/** Running, as opposed to gone or a zombie waiting for a parent that does not reap (PID 1 in some containers). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('terminal (local)', () => {
  it('returns output and exit code, in the task working directory', async () => {
    expect(await run({ command: 'pwd; echo err >&2; exit 3' })).toEqual({ exit_code: 3, output: `${cwd}\nerr\n` });
  });

  it('runs in a workdir below the working directory and refuses one outside it', async () => {
    await run({ command: 'mkdir -p sub' });
    expect((await run({ command: 'pwd', workdir: 'sub' })).output).toBe(`${join(cwd, 'sub')}\n`);
    const outside = JSON.parse(await registry.dispatch('terminal', { command: 'pwd', workdir: '/' }, { taskId: 't', cwd }));
    expect(outside.error).toMatch(/outside the working directory/);
  });

  it('kills the whole process tree on timeout', async () => {
    const r = await run({ command: 'sleep 30 & echo $!; wait', timeout: 1 });
    expect(r.error).toMatch(/timed out after 1s/);
    const child = Number(r.output.trim().split("\n")[0]);
    expect(child).toBeGreaterThan(0);
    // Waits for the child to go (it would live 30 s if the kill missed it), so no fixed pause decides the outcome.
    await until(`the timed-out command's child ${child} to be gone`, () => !alive(child), 10_000);
  });

  it('kills the command when the call is cancelled', async () => {
    const ctl = new AbortController();
    const pidFile = join(cwd, 'cancelled.pid');
    const call = run({ command: `sleep 30 & echo $! > ${pidFile}; wait` }, ctl.signal);
    // Cancel once the command is running (its child wrote its pid), not after a guessed pause.
    await until('the command to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 10_000);
    const child = Number(readFileSync(pidFile, 'utf8').trim());
    ctl.abort();
    expect((await call).error).toMatch(/cancelled/);
    await until(`the cancelled command's child ${child} to be gone`, () => !alive(child), 10_000);
  });

  it('caps long output, keeping head and tail', async () => {
    const r = await run({ command: 'echo FIRST; head -c 200000 /dev/zero | tr "\\0" a; echo; echo LAST' });
    expect(r.output.length).toBeLessThan(51_000);
    expect(r.output.startsWith('FIRST')).toBe(true);
    expect(r.output.trimEnd().endsWith('LAST')).toBe(true);
    expect(r.output).toMatch(/characters cut/);
  });

  it('turns binary output into readable text with a note', async () => {
    const r = await run({ command: 'head -c 4000 /dev/urandom' });
    expect(() => JSON.stringify(r)).not.toThrow();
    expect(r.output).toMatch(/^\[binary output:/);
  });

  it('does not wait for a background process that keeps the output pipe open', async () => {
    const r = await run({ command: 'sleep 30 & echo $!' });
    const background = Number(r.output.trim());
    expect(r.exit_code).toBe(0);
    // The call returned while the background process, which holds the output pipe, still runs.
    expect(alive(background)).toBe(true);
    process.kill(background, 'SIGKILL');
  });
});
