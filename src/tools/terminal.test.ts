import { mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
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

/**
 * Host pids of live (not zombie) processes whose command line is exactly `argv`. Commands run in the sandbox's own
 * PID namespace, where `$!` is not a host pid, so tests find their processes by a command line no one else uses.
 */
function running(argv: string[]): number[] {
  const want = `${argv.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return readFileSync(`/proc/${p}/cmdline`, 'utf8') === want && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** A `sleep` argument unique to this test process and call: long, and findable with running(['sleep', it]). */
let sleeps = 0;
const uniqueSleep = (): string => `300.${process.pid}${++sleeps}`;

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
    const sleep = uniqueSleep();
    const r = await run({ command: `sleep ${sleep} & echo started; wait`, timeout: 1 });
    expect(r.error).toMatch(/timed out after 1s/);
    expect(r.output).toMatch(/^started\n/);
    // Waits for the child to go (it would live 300 s if the kill missed it), so no fixed pause decides the outcome.
    await until(`the timed-out command's child (sleep ${sleep}) to be gone`, () => running(['sleep', sleep]).length === 0, 10_000);
  });

  it('kills the command when the call is cancelled', async () => {
    const ctl = new AbortController();
    const sleep = uniqueSleep();
    const call = run({ command: `sleep ${sleep} & wait` }, ctl.signal);
    // Cancel once the command is running, not after a guessed pause.
    await until('the command to start', () => running(['sleep', sleep]).length > 0, 10_000);
    ctl.abort();
    expect((await call).error).toMatch(/cancelled/);
    await until(`the cancelled command's child (sleep ${sleep}) to be gone`, () => running(['sleep', sleep]).length === 0, 10_000);
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
    const sleep = uniqueSleep();
    // Returning at all shows it: the background process would hold the pipe for 300 s, past the test's timeout.
    const r = await run({ command: `sleep ${sleep} & echo started` });
    expect(r).toMatchObject({ exit_code: 0, output: 'started\n' });
    for (const pid of running(['sleep', sleep])) process.kill(pid, 'SIGKILL'); // left running when the sandbox is off
  });
});
