// The task shell on the real local transport (unsandboxed, this machine's sh/bash): framing, sentinels, fallbacks.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalTransport } from './backends/local/transport.js';
import { ShellEnvironment } from './shell-environment.js';

const envs: ShellEnvironment[] = [];
afterEach(async () => {
  for (const e of envs.splice(0)) await e.close();
});

async function started(): Promise<ShellEnvironment> {
  const env = new ShellEnvironment(new LocalTransport(realpathSync(mkdtempSync(join(tmpdir(), 'tether-session-')))));
  envs.push(env);
  await env.start();
  return env;
}

describe('the task shell', () => {
  it('passes commands and stdin verbatim: quotes, newlines, $, backslashes, no trailing newline', async () => {
    const env = await started();
    const command = `printf '%s|' "it's" 'a "b"' '$HOME' 'back\\slash'; echo\nprintf 'two\\n'`;
    expect((await env.run({ command, timeoutSeconds: 10 })).output).toBe(`it's|a "b"|$HOME|back\\slash|\ntwo\n`);
    const stdin = "line 1\n'quoted' $x \\ ünïcode\nno newline";
    expect((await env.run({ command: 'cat', stdin, timeoutSeconds: 10 })).output).toBe(stdin);
  });

  it('output that looks like a sentinel without the nonce does not end the command', async () => {
    const env = await started();
    const r = await env.run({ command: `printf 'a\\000c1:0:/\\000b'; sleep 0.2; echo end`, timeoutSeconds: 10 });
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/end\n$/);
  });

  it('a second command while one runs takes a process of its own, and both finish', async () => {
    const env = await started();
    const flag = `flag-${process.pid}`;
    const first = env.run({
      command: `i=0; while [ ! -f ${flag} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; echo saw; rm -f ${flag}`,
      timeoutSeconds: 30,
    });
    const second = await env.run({ command: `touch ${flag}; echo touched`, timeoutSeconds: 30 });
    expect(second.output).toBe('touched\n');
    expect((await first).output).toBe('saw\n');
  });

  it('a shell that dies is replaced, and the next command keeps cd and exports', async () => {
    const env = await started();
    await env.run({ command: 'mkdir -p d && cd d && export KEEP=yes', timeoutSeconds: 10 });
    const killed = await env.run({ command: 'kill -9 $$', timeoutSeconds: 10 });
    expect(killed.exitCode).toBe(137);
    expect(killed.shellReplaced).toMatch(/new shell/);
    const after = await env.run({ command: 'basename "$PWD"; echo $KEEP', timeoutSeconds: 10 });
    expect(after).toMatchObject({ exitCode: 0, output: 'd\nyes\n' });
    expect(after.shellReplaced).toBeUndefined();
  });
});
