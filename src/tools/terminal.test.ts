import { mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { closeEnvironments, configureEnvironments } from '../environments/current.js';
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

/**
 * Live processes (as this machine sees them) whose arguments include `arg`. A pid printed by the command would be
 * one of its sandbox's PID namespace, not of this machine, so children are found by a unique argument instead.
 */
function running(arg: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0').includes(arg) && alive(Number(n));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('terminal (local)', () => {
  it('returns output and exit code, in the task working directory', async () => {
    expect(await run({ command: 'pwd; echo err >&2; exit 3' })).toEqual({ exit_code: 3, output: `${cwd}\nerr\n` });
  });

  it('runs in a workdir below the working directory and refuses one outside it', async () => {
    await run({ command: 'mkdir -p sub' });
    expect((await run({ command: 'pwd', workdir: 'sub' })).output).toBe(`${join(cwd, 'sub')}\n`);
    const outside = JSON.parse(
      await registry.dispatch('terminal', { command: 'pwd', workdir: '/' }, { taskId: 't', cwd }),
    );
    expect(outside.error).toMatch(/outside the working directory/);
  });

  it('kills the whole process tree on timeout', async () => {
    const marker = `30.${process.pid}1`;
    const call = run({ command: `sleep ${marker} & wait`, timeout: 1 });
    await until('the command to start its child', () => running(marker).length === 1, 10_000);
    expect((await call).error).toMatch(/timed out after 1s/);
    // Waits for the child to go (it would live 30 s if the kill missed it), so no fixed pause decides the outcome.
    await until(`the timed-out command's child to be gone`, () => running(marker).length === 0, 10_000);
  });

  it('kills the command when the call is cancelled', async () => {
    const ctl = new AbortController();
    const marker = `30.${process.pid}2`;
    const call = run({ command: `sleep ${marker} & wait` }, ctl.signal);
    // Cancel once the command is running (its child is there), not after a guessed pause.
    await until('the command to start its child', () => running(marker).length === 1, 10_000);
    ctl.abort();
    expect((await call).error).toMatch(/cancelled/);
    await until(`the cancelled command's child to be gone`, () => running(marker).length === 0, 10_000);
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
    // In the sandbox (the default on Linux) such a process ends with its command; without it, it outlives the call.
    await configureEnvironments(parseConfig({ terminal: { local: { sandbox: 'off' } } }).terminal);
    const marker = `30.${process.pid}3`;
    const r = await run({ command: `sleep ${marker} & echo started` });
    expect(r).toMatchObject({ exit_code: 0, output: 'started\n' });
    // The call returned while the background process, which holds the output pipe, still runs. (It may not have
    // exec'd `sleep` yet on a loaded machine: looked for until it has.)
    const deadline = Date.now() + 10_000;
    while (running(marker).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const [background, ...more] = running(marker);
    expect(more).toEqual([]);
    expect(alive(background!)).toBe(true);
    process.kill(background!, 'SIGKILL');
    await closeEnvironments();
  });
});
