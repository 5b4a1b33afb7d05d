// Checkpoints end to end: a real worker process runs a scripted model's calls in the local sandbox (files written,
// links, exec bits, empty directories, odd names, a 50 MB file, then src/ deleted), and `tether checkpoints` and
// `tether rollback` put the directory back byte for byte, one path, or as it was before the rollback.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import type { AgentResult, AgentState } from '../src/common/types.js';
import type { ListedCheckpoint } from '../src/checkpoints/listing.js';
import type { RollbackReport } from '../src/checkpoints/rollback.js';
import { runCli, until } from './support/cli.js';
import { recordHistory } from './support/history.js';
import { startScriptedModel } from './support/scripted-model.js';
import { manifest } from './support/tree-manifest.js';
import { workerEnv, workerProcessSuite } from './support/worker-process.js';

const { client, workers, models } = workerProcessSuite();

const SETUP = [
  'mkdir -p empty/inner node_modules/dep',
  "printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod 755 tool.sh && chmod 600 src/a.ts && chmod 700 src/lib",
  'ln -s src/a.ts link && ln -s /etc/passwd outside-link && ln -s missing dangling',
  `printf 'x' > "$(printf 'new\\nline')" && printf 'y' > "$(printf 'bad\\377name')"`,
  'head -c 52428800 /dev/urandom > big.bin',
  'echo dep > node_modules/dep/index.js',
].join(' && ');

it('restores a deleted src/ byte for byte, one path only, and undoes a rollback', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-ckpt-')));
  let beforeTurn3: Record<string, string> = {};
  let storeDir = '';
  const model = await startScriptedModel([
    {
      toolCalls: [
        { name: 'write_file', arguments: { path: 'src/a.ts', content: 'export const a = 1;\n' } },
        { name: 'write_file', arguments: { path: 'src/lib/b.ts', content: 'export const b = 2;\n' } },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: SETUP } }] },
    () => {
      beforeTurn3 = manifest(cwd);
      return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf src' } }] };
    },
    // A command cannot see the store (it is under TETHER_HOME, hidden in the sandbox), let alone change it.
    () => ({
      toolCalls: [
        {
          name: 'terminal',
          arguments: {
            command: `echo "store entries: $(ls -A ${storeDir} | wc -l)"; echo later > added.txt && rm -rf empty`,
          },
        },
      ],
    }),
    { content: 'done' },
  ]);
  models.push(model);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'ckpt');
  storeDir = join(env.TETHER_HOME!, 'checkpoints');
  await workers.start(env);
  const workflowId = `ckpt-${randomUUID()}`;
  const handle = await client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [{ task: 'write, then delete src', model: 'scripted', cwd }],
  });
  const result = (await handle.result()) as AgentResult;
  expect(model.errors).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', turns: 5 });
  recordHistory(inject('temporalAddress'), workflowId, 'checkpoints');
  const storeSeen = model.requests[4]!.messages.filter((m) => m.role === 'tool').at(-1)!.content!;
  expect(storeSeen).toContain('store entries: 0');
  expect(existsSync(join(storeDir, 'HEAD'))).toBe(true);
  const cli = (...args: string[]) => runCli(args, { cwd, env });
  const afterRun = manifest(cwd);
  expect(afterRun['src']).toBeUndefined();
  expect(beforeTurn3['big.bin']).toMatch(/^file 644 /);

  // One checkpoint per turn that had a call that may change files, before its first such call.
  const listed = await cli('checkpoints', workflowId, '--json');
  expect(listed.stderr).toBe('');
  const list = JSON.parse(listed.stdout) as ListedCheckpoint[];
  expect(list.map((c) => [c.kind, c.turn, c.tool])).toEqual([
    ['turn', 1, 'write_file'],
    ['turn', 2, 'terminal'],
    ['turn', 3, 'terminal'],
    ['turn', 4, 'terminal'],
  ]);
  expect(list[2]!.args).toContain('rm -rf src');
  // What turn 3 did, as the listing says: src/ went.
  expect(list[2]!.changedAfter).toMatchObject({ until: 'next', added: 0, modified: 0, deleted: 2 });
  expect(list[0]!.changedAfter).toMatchObject({ added: 2 });
  // The run recorded each id with the call it preceded, the state's last one being turn 4's.
  const state = await handle.query<AgentState>('state');
  expect(state.lastCheckpoint).toEqual({ turn: 4, callId: 'call_4_1', tool: 'terminal', id: list[3]!.id });
  const text = (await cli('checkpoints', workflowId)).stdout;
  expect(text).toContain(list[2]!.id.slice(0, 12));
  expect(text).toMatch(/rm -rf src/);

  // Mistakes are one line each, before anything is asked of Temporal or changed.
  expect((await cli('rollback', workflowId, '--to', 'zz')).stderr).toMatch(
    /^tether: --to zz: a checkpoint id is 4 to 40 hexadecimal digits/,
  );
  expect((await cli('rollback', workflowId, '--turn', '9')).stderr).toMatch(
    /^tether: .* has no checkpoint at or after turn 9 \(the last is before turn 4\)/,
  );
  expect((await cli('rollback', workflowId, '--turn', '3', '--path', '../x')).stderr).toMatch(
    /^tether: --path \.\.\/x is outside the run's task directory/,
  );
  expect(manifest(cwd)).toEqual(afterRun);

  // A dry run says what would change and changes nothing.
  const dry = await cli('rollback', workflowId, '--turn', '3', '--dry-run');
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(/would roll back/);
  expect(dry.stdout).toMatch(/restored src\/a\.ts/);
  expect(manifest(cwd)).toEqual(afterRun);

  // Back to before turn 3: src/ byte for byte (modes, links, the 50 MB file), added.txt gone, empty dirs back.
  const rolled = await cli('rollback', workflowId, '--turn', '3', '--json');
  expect(rolled.stderr).toBe('');
  const report = JSON.parse(rolled.stdout) as RollbackReport;
  expect(report.target.id).toBe(list[2]!.id);
  expect(report.changes.filter((c) => c.action === 'kept')).toEqual([]);
  expect(report.changes).toContainEqual({ path: 'added.txt', action: 'removed' });
  expect(manifest(cwd)).toEqual(beforeTurn3);
  expect(readFileSync(join(cwd, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');

  // The rollback of the rollback: as it was after the run.
  const undo = await cli('rollback', workflowId, '--to', report.undo!);
  expect(undo.code).toBe(0);
  expect(undo.stdout).toMatch(/rolled back/);
  expect(manifest(cwd)).toEqual(afterRun);

  // One path only: src/a.ts comes back; src/lib/b.ts and the rest stay as they are.
  const one = await cli('rollback', workflowId, '--turn', '3', '--path', 'src/a.ts');
  expect(one.code).toBe(0);
  expect(readFileSync(join(cwd, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
  expect(existsSync(join(cwd, 'src/lib/b.ts'))).toBe(false);
  expect(existsSync(join(cwd, 'added.txt'))).toBe(true);
  const { ['src']: _src, ['src/a.ts']: _a, ...rest } = manifest(cwd);
  const { ...expectedRest } = afterRun;
  expect(rest).toEqual(expectedRest);

  // Every rollback took a checkpoint first, listed as such.
  const after = JSON.parse((await cli('checkpoints', workflowId, '--json')).stdout) as ListedCheckpoint[];
  expect(after.filter((c) => c.kind === 'rollback').map((c) => c.rollbackTo)).toEqual([
    list[2]!.id,
    report.undo,
    list[2]!.id,
  ]);
}, 300_000);

it('explains what it cannot do: no such run, a bad turn, both or neither of --turn and --to, a path outside', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-ckpt-bad-')));
  const { env } = workerEnv(inject('temporalAddress'), 'http://127.0.0.1:9/v1', 'ckpt-bad');
  const cli = (...args: string[]) => runCli(args, { cwd, env });
  const none = await cli('rollback', 'no-such-run', '--turn', '1');
  expect(none.code).not.toBe(0);
  expect(none.stderr).toMatch(/^tether: no-such-run has no checkpoints here/);
  expect((await cli('rollback', 'x', '--turn', '0')).stderr).toMatch(/^tether: --turn must be a turn number from 1/);
  expect((await cli('rollback', 'x')).stderr).toMatch(/^tether: give one of --turn N/);
  expect((await cli('rollback', 'x', '--turn', '1', '--to', 'abcd')).stderr).toMatch(/give one of --turn/);
  const listed = await cli('checkpoints', 'no-such-run');
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/no checkpoints on this machine/);
});

it('a worker killed during a turn leaves the checkpoint before it listed and restorable; replay takes none again', async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'tether-ckpt-kill-')));
  const model = await startScriptedModel([
    { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'precious\n' } }] },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm a.txt && sleep 60' } }] },
    { content: 'recovered' },
  ]);
  models.push(model);
  const { env, taskQueue } = workerEnv(inject('temporalAddress'), model.url, 'ckpt-kill');
  const first = await workers.start(env);
  const workflowId = `ckpt-kill-${randomUUID()}`;
  const handle = await client().workflow.start('agentWorkflow', {
    taskQueue,
    workflowId,
    args: [{ task: 'then crash', model: 'scripted', cwd, limits: { heartbeatTimeoutSeconds: 3 } }],
  });
  await until('the command to delete a.txt', () => model.requests.length >= 2 && !existsSync(join(cwd, 'a.txt')));
  await first.kill('SIGKILL');
  const cli = (...args: string[]) => runCli(args, { cwd, env });

  const list = JSON.parse((await cli('checkpoints', workflowId, '--json')).stdout) as ListedCheckpoint[];
  expect(list.map((c) => [c.turn, c.tool])).toEqual([
    [1, 'write_file'],
    [2, 'terminal'],
  ]);
  const refused = await cli('rollback', workflowId, '--turn', '2');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(
    /is still running .*Cancel it first \(tether cancel .*\), or roll back anyway with --force/s,
  );
  expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
  const forced = await cli('rollback', workflowId, '--turn', '2', '--force');
  expect(forced.code).toBe(0);
  expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('precious\n');

  // Another worker finishes the run from its history: the turn-2 checkpoint is not taken again.
  await workers.start(env);
  expect(((await handle.result()) as AgentResult).answer).toBe('recovered');
  const { events } = await handle.fetchHistory();
  const scheduled = (events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkpointTask',
  );
  expect(scheduled).toHaveLength(2);
  expect(
    JSON.parse((await cli('checkpoints', workflowId, '--json')).stdout).map((c: ListedCheckpoint) => c.kind),
  ).toEqual(['turn', 'turn', 'rollback']);
}, 300_000);
