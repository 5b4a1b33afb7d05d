// Outside attack on issue 41: with files.allow_outside_cwd the file tools read what a command can read, and a
// sandboxed command has a /proc, /dev, /run and /tmp of its own. The worker's (its process status and descriptors, the
// machine's /run with daemons' sockets and pid files, /dev/shm, devices) must stay out of every file tool's reach, as
// they are out of a command's. Real worker, manual mode, every approval denied.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../src/config/config.js';
import { harness, type Harness } from './support/agent-harness.js';
import { call, runDenying } from './support/deny-all.js';

const tag = Math.random().toString(36).slice(2, 8);
const secret = (name: string): string => `${name}SEC${tag}Q7`;
const runFile = `/run/tether-b41-${tag}.txt`;
const shmFile = `/dev/shm/tether-b41-${tag}.txt`;
let h: Harness;
let cwd: string;

beforeAll(async () => {
  cwd = realpathSync(mkdtempSync(join('/var/tmp', 'tether-b41-mounts-')));
  writeFileSync(runFile, `${secret('RUN')}\n`);
  writeFileSync(shmFile, `${secret('SHM')}\n`);
  h = await harness(
    parseConfig({
      files: { allow_outside_cwd: true },
      terminal: { backend: 'local', local: { sandbox: { enabled: true } } },
    }),
  );
});
afterAll(async () => {
  await h?.close();
  for (const p of [runFile, shmFile]) rmSync(p, { force: true });
});

it("no file tool reads or lists the worker's /proc, /dev or /run, which a command does not see", async () => {
  const { out, model } = await runDenying(
    h,
    cwd,
    [
      call('terminal', { command: `cat ${runFile} ${shmFile} 2>&1; echo end` }),
      call('read_file', { path: runFile }),
      call('read_file', { path: shmFile }),
      call('search_files', { pattern: 'SEC', path: '/run', target: 'content' }),
      call('search_files', { pattern: '*', path: '/dev/shm', target: 'files' }),
      call('read_file', { path: `/proc/${process.pid}/status` }),
      call('read_file', { path: '/proc/net/unix' }),
      call('search_files', { pattern: 'PATH=', path: '/proc/self/environ' }),
    ],
    { idPrefix: 'b41-mounts' },
  );
  // What a command sees: neither file.
  expect(out[0]).toMatchObject({ output: expect.stringMatching(/No such file or directory[\s\S]*No such file/) });
  for (const [i, dir] of [
    [1, '/run'],
    [2, '/dev'],
    [3, '/run'],
    [4, '/dev'],
    [5, '/proc'],
    [6, '/proc'],
    [7, '/proc'],
  ] as const)
    expect(out[i], `step ${i}`).toEqual({
      error: expect.stringContaining(`is not the task's: its commands have a ${dir} of their own`),
    });
  const seen = JSON.stringify(model.requests);
  expect(['RUN', 'SHM'].filter((n) => seen.includes(secret(n)))).toEqual([]);
}, 300_000);
