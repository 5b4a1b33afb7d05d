// The per-command script run for real through this machine's sh: what the user's shell start-up files print never
// reaches a command's output. Worker-only.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandScript } from './shell-scripts.js';

const hasBash = (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(d, 'bash')));

describe('commandScript', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it.skipIf(!hasBash)(
    "does not let bash read the user's ~/.bashrc (its rshd guess: standard input a socket, SHLVL unset)",
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'tether-rc-home-'));
      dirs.push(home);
      writeFileSync(join(home, '.bashrc'), 'echo "rc-noise: pyenv: command not found" >&2\necho rc-noise\n');
      const script = commandScript({
        stateDir: join(home, 'state'),
        id: 'c1',
        command: 'echo out; echo err >&2',
        defaultCwd: home,
        timeoutSeconds: 0,
        pty: false,
        saveState: false,
      });
      // Node's pipes are socket pairs: what bash sees when a worker runs it. No SHLVL, as in a worker's clean env.
      const child = spawn('sh', ['-c', script], { env: { PATH: process.env.PATH, HOME: home }, stdio: 'pipe' });
      child.stdin.end();
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(code).toBe(0);
      expect(out.split('\n').sort()).toEqual(['', 'err', 'out']);
    },
  );
});
