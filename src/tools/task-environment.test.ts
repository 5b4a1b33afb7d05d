import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli/errors.js';
import { describeError, isRetryable, isTetherError, TetherError } from '../common/errors.js';
import { closeEnvironments } from '../environments/current.js';
import { EnvironmentError } from '../environments/types.js';
import { inTaskEnvironment } from './task-environment.js';

const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-task-env-')));
afterAll(closeEnvironments);

describe('one error base', () => {
  it('makes environment and CLI errors TetherErrors with their own codes; retryable follows the code', () => {
    const gone = new EnvironmentError('Environment.Gone', 'docker', 'container x is gone');
    expect(gone).toBeInstanceOf(TetherError);
    expect(gone).toMatchObject({
      code: 'Environment.Gone',
      retryable: true,
      backend: 'docker',
      message: 'docker backend: container x is gone',
    });
    expect(new EnvironmentError('Environment.Config', 'docker', 'no image').retryable).toBe(false);
    expect(isRetryable(new TetherError('Environment.Unreachable', 'down'))).toBe(true);
    expect(new TetherError('Environment.Unreachable', 'down', false).retryable).toBe(false);
    const cli = new CliError('bad option', 3);
    expect(isTetherError(cli, 'Cli.Usage')).toBe(true);
    expect(isTetherError(cli, 'Config.Invalid')).toBe(false);
    expect(describeError(new TetherError('Path.OutsideWorkdir', 'outside'))).toEqual({
      type: 'Path.OutsideWorkdir',
      message: 'outside',
    });
  });
});

describe('inTaskEnvironment', () => {
  const ctx = { taskId: 'task-env-test', cwd };

  it('lets a gone environment through as Environment.Gone (retryable), not as another code', async () => {
    const failure = inTaskEnvironment(ctx, () =>
      Promise.reject(new EnvironmentError('Environment.Gone', 'local', 'it vanished')),
    );
    await expect(failure).rejects.toMatchObject({ code: 'Environment.Gone', retryable: true });
  });

  it('gives the model a backend error it can act on as an error result', async () => {
    const result = await inTaskEnvironment(ctx, () =>
      Promise.reject(new EnvironmentError('Environment.Unsupported', 'local', 'no PTY here')),
    );
    expect(JSON.parse(result)).toEqual({ error: 'local backend: no PTY here' });
  });
});
