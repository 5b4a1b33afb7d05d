// What `tether schedule create` refuses, and how: intervals under 10 seconds, a cron that never fires, ids that are
// not plain names. Each is one line with the reason, and nothing is left behind on the server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { looksLikeACrash } from '../support/cli-process.js';

const env = (): Record<string, string> => ({
  TETHER_HOME: mkdtempSync(join(tmpdir(), 'tether-bad-schedule-')),
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TETHER_TASK_QUEUE: 'bad-schedule',
});
const create = (...args: string[]): Promise<CliResult> =>
  runCli(['schedule', 'create', 'say hello', ...args], { cwd: tmpdir(), env: env() });

function expectRefused(r: CliResult, line: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(looksLikeACrash(r.stderr)).toBe(false);
  expect(r.stdout).toBe('');
  if (typeof line === 'string') expect(r.stderr).toBe(`${line}\n`);
  else expect(r.stderr).toMatch(line);
}

describe('tether schedule create refuses', () => {
  it('--every shorter than 10 seconds, saying the minimum and why', async () => {
    expectRefused(
      await create('--every', '1s'),
      "tether: --every: '1s' is shorter than the minimum of 10s: each firing starts a whole agent run, so a shorter interval only piles runs up or skips them",
    );
    expectRefused(await create('--every', '9s'), /shorter than the minimum of 10s/);
  });

  it('a cron that never fires (31 February), and leaves no schedule behind', async () => {
    const id = `never-${Date.now()}`;
    expectRefused(
      await create('--cron', '0 9 31 2 *', '--id', id),
      "tether: --cron '0 9 31 2 *' never fires (no date matches it), so no schedule was created",
    );
    const listed = await runCli(['schedule', 'list', '--json'], { cwd: tmpdir(), env: env() });
    expect(listed.stdout).not.toContain(id);
  });

  it('ids with spaces or slashes', async () => {
    for (const id of ['my schedule', 'team/daily', '../x']) {
      expectRefused(
        await create('--every', '1h', '--id', id),
        `tether: --id: '${id}' is not a schedule id: use up to 200 letters, digits, '.', '_' and '-', starting with a letter or digit (no spaces or slashes)`,
      );
    }
  });
});
