// What tether refuses in config.yaml and in `exec --timeout`, and how: one line naming the setting, before anything runs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';

/** `tether exec echo hi` with this config.yaml: the command that shows a config problem soonest. */
async function execWith(configYaml: string, args: string[] = []): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), 'tether-bad-config-'));
  writeFileSync(join(home, 'config.yaml'), configYaml);
  return runCli(['exec', ...args, 'echo', 'hi'], { cwd: home, env: { TETHER_HOME: home } });
}

function expectRefused(r: CliResult, line: RegExp): void {
  expect(r.code, r.stderr).not.toBe(0);
  expect(looksLikeACrash(r.stderr), r.stderr).toBe(false);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr.trim()).toMatch(line);
  expect(r.stdout).not.toContain('hi');
}

describe('config.yaml: tether refuses', () => {
  it('terminal.default_timeout larger than terminal.max_timeout, naming both', async () => {
    expectRefused(
      await execWith('terminal:\n  default_timeout: 900\n  max_timeout: 600\n'),
      /terminal\.default_timeout: 900 is larger than terminal\.max_timeout \(600\)/,
    );
  });

  it('terminal.max_timeout over the 3600 s ceiling', async () => {
    expectRefused(
      await execWith('terminal:\n  max_timeout: 7200\n'),
      /terminal\.max_timeout: Too big: expected number to be <=3600/,
    );
  });

  it('an unknown key in terminal, naming it and what is allowed', async () => {
    expectRefused(
      await execWith('terminal:\n  default_timout: 30\n'),
      /terminal: Unrecognized key "default_timout" \(terminal's settings: backend, lifetime_seconds, default_timeout, max_timeout, output_chars, env, env_passthrough; backend sections: local, docker/,
    );
  });

  it('an unknown key in the section of a backend that is not selected', async () => {
    expectRefused(
      await execWith('terminal:\n  backend: local\n  docker:\n    imagee: alpine\n'),
      /terminal\.docker: Unrecognized key: "imagee"/,
    );
  });

  it('approvals.timeout in a format it does not take, listing the formats it does', async () => {
    expectRefused(
      await execWith('approvals:\n  timeout: 1w\n'),
      /approvals\.timeout: "1w" is not a duration: give seconds as a number \(3600\) or a number with s, m, h or d \(90s, 30m, 1h, 2d\)$/,
    );
  });
});

describe('tether exec --timeout: one truth with terminal.max_timeout (600 s unless config.yaml raises it)', () => {
  it('refuses more than terminal.max_timeout, naming it', async () => {
    const r = await execWith('', ['--timeout', '99999']);
    expectRefused(
      r,
      /^tether: --timeout 99999 is over the foreground limit of 600 s \(terminal\.max_timeout in config\.yaml, which may be raised to 3600\)$/,
    );
    expectRefused(await execWith('', ['--timeout', '601']), /--timeout 601 is over the foreground limit of 600 s/);
  });

  it('takes up to a raised terminal.max_timeout', async () => {
    const r = await execWith('terminal:\n  max_timeout: 1200\n', ['--timeout', '900']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('hi\n');
  });
});
