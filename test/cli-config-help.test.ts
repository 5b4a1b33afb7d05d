// The CLI's own words, through the compiled command: `tether config check` on a file with three mistakes (every one
// at once, each with its path and the key a typo meant), `tether config show` (each setting with where it came
// from, no secret shown), help grouped by task with examples and the environment it reads, and a mistyped command
// answered in one line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeQueue } from '../src/temporal/default-queue.js';
import { runCli } from './support/cli.js';
import { looksLikeACrash } from './support/cli-process.js';

const home = (): string => mkdtempSync(join(tmpdir(), 'tether-cfg-'));
const tether = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: tmpdir(), env: { TETHER_HOME: home(), ...env } });

describe('tether config check', () => {
  it('names every mistake at once, each with its path and the key a typo meant', async () => {
    const dir = home();
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      [
        'aprovals:',
        '  mode: manual',
        'terminal:',
        '  default_timout: 30',
        'checkpoints:',
        '  keep:',
        '    count: 0',
      ].join('\n'),
    );
    const r = await tether(['config', 'check'], { TETHER_HOME: dir });
    expect(r.code).toBe(1);
    expect(looksLikeACrash(r.stderr)).toBe(false);
    expect(r.stdout.trim().split('\n').sort()).toEqual(
      [
        `${file}: aprovals: unknown key (did you mean approvals?)`,
        `${file}: checkpoints.keep.count: Too small: expected number to be >0`,
        `${file}: terminal.default_timout: unknown key (did you mean default_timeout?)`,
      ].sort(),
    );
    expect(r.stderr).toBe(`tether: 3 problems in ${file}\n`);
    // A command that reads the file refuses it with the same words, every problem at once.
    const run = await tether(['run', '--detach', 'x'], { TETHER_HOME: dir, OPENAI_API_KEY: 'k' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('aprovals: unknown key (did you mean approvals?)');
    expect(run.stderr).toContain('checkpoints.keep.count');
  });

  it('says a good file has no problems, and a missing one has only defaults', async () => {
    const dir = home();
    expect((await tether(['config', 'check'], { TETHER_HOME: dir })).stdout).toBe(
      `${join(dir, 'config.yaml')} does not exist: every setting has its default\n`,
    );
    writeFileSync(join(dir, 'config.yaml'), 'model: local:qwen2.5-coder-1.5b\napprovals:\n  mode: smart\n');
    const r = await tether(['config', 'check'], { TETHER_HOME: dir });
    expect(r).toMatchObject({ code: 0, stdout: `${join(dir, 'config.yaml')}: no problems\n` });
  });
});

describe('tether config show', () => {
  it('shows each setting in effect and where it came from, never a secret', async () => {
    const dir = home();
    writeFileSync(
      join(dir, 'config.yaml'),
      'model: my-model\napprovals:\n  mode: smart\n  secret: a-secret-of-24-characters\n',
    );
    const r = await tether(['config', 'show', '--json'], { TETHER_HOME: dir, OPENAI_API_KEY: 'sk-not-shown-1234' });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { setting: string; value: string; from: string }[];
    const row = (s: string) => rows.find((x) => x.setting === s);
    expect(row('model')).toEqual({ setting: 'model', value: 'my-model', from: 'config.yaml model:' });
    expect(row('approvals.mode')).toMatchObject({ value: 'smart', from: 'config.yaml' });
    expect(row('approvals.timeout')).toMatchObject({ value: '3600', from: 'the default' });
    expect(row('task queue')).toMatchObject({ value: homeQueue(dir) });
    expect(row('OPENAI_API_KEY')!.value).toBe('(set, 17 characters, not shown)');
    expect(r.stdout).not.toContain('a-secret-of-24-characters');
    expect(r.stdout).not.toContain('sk-not-shown-1234');
    // TETHER_MODEL is above config.yaml.
    const env = await tether(['config', 'show', '--json'], { TETHER_HOME: dir, TETHER_MODEL: 'env-model' });
    expect(
      (JSON.parse(env.stdout) as { setting: string; from: string }[]).find((x) => x.setting === 'model'),
    ).toMatchObject({ from: 'TETHER_MODEL' });
  });
});

describe('tether --help and mistakes on the command line', () => {
  it('groups the commands by task, with examples and the environment variables it reads', async () => {
    const r = await tether(['--help']);
    expect(r.code).toBe(0);
    const headings = r.stdout.split('\n').filter((l) => /^[A-Z][a-z ]+:$/.test(l));
    expect(headings).toEqual([
      'Options:',
      'Run and follow:',
      'Decide:',
      'Schedule and batch:',
      'Inspect and restore:',
      'Operate:',
      'Commands:',
      'Examples:',
      'Environment:',
    ]);
    for (const v of ['OPENAI_BASE_URL', 'TETHER_MODEL', 'TETHER_HOME', 'TEMPORAL_ADDRESS', 'TETHER_TASK_QUEUE'])
      expect(r.stdout).toMatch(new RegExp(`\\n  ${v} +\\S`));
    expect(r.stdout).toContain('tether run "Read README.md and tell me in one sentence what this project is"');
  });

  it('answers a mistyped command and a wrong option in one line each', async () => {
    const typo = await tether(['runn', 'x']);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe("tether: unknown command 'runn' (did you mean run?); tether --help lists the commands\n");
    const option = await tether(['list', '--bogus']);
    expect(option.stderr).toBe("tether: unknown option '--bogus'; --help shows how to use it\n");
  });

  it('run --help says what the default model is', async () => {
    const r = await tether(['run', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('else the local local:qwen2.5-coder-1.5b, or local:tiny');
    for (const flag of ['--approval-mode', '--backend', '--approval-timeout'])
      for (const cmd of [
        ['schedule', 'create'],
        ['batch', 'run'],
      ])
        expect((await tether([...cmd, '--help'])).stdout, `${cmd.join(' ')} ${flag}`).toContain(flag);
  });
});
