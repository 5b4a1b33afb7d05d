// The check that binds a command to the bytes the gate judged, run by a real sh in a temporary directory: unchanged
// files let the command run; a changed, replaced, removed or newly made file refuses it with one line naming the file.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { boundToJudged, CHANGED_EXIT, comparableDigests } from './judged-bytes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'judged-bytes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const digest = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const run = (script: string, env: Record<string, string> = {}) =>
  spawnSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });

it('runs the command when every judged file is as it was judged, and refuses it once one changed', () => {
  writeFileSync(join(dir, 'task.sh'), 'echo benign\n');
  const bound = boundToJudged('sh task.sh', { 'task.sh': digest('echo benign\n'), 'later.sh': 'missing' });
  expect(run(bound)).toMatchObject({ status: 0, stdout: 'benign\n' });

  writeFileSync(join(dir, 'task.sh'), 'echo swapped\n');
  const r = run(bound);
  expect(r.status).toBe(CHANGED_EXIT);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(
    'tether: task.sh changed after the approval check read it, so the command was not run (what runs must be what was judged); run it again to have it judged on what is there now.\n',
  );
});

it('refuses a file judged missing that now exists, a judged file now removed, and one replaced by a link', () => {
  writeFileSync(join(dir, 'later.sh'), 'echo made\n');
  expect(run(boundToJudged('sh later.sh', { 'later.sh': 'missing' })).status).toBe(CHANGED_EXIT);

  const judged = { 'task.sh': digest('echo benign\n') };
  expect(run(boundToJudged('echo ran', judged)).status).toBe(CHANGED_EXIT);

  writeFileSync(join(dir, 'other.sh'), 'echo benign\n');
  symlinkSync(join(dir, 'other.sh'), join(dir, 'task.sh'));
  // A link to the same bytes runs those bytes: it is what was read.
  expect(run(boundToJudged('sh task.sh', judged))).toMatchObject({ status: 0, stdout: 'benign\n' });
});

it('reads keys under the home directory from $HOME, and quotes names the shell would otherwise expand', () => {
  writeFileSync(join(dir, 'a $(touch pwned) b.sh'), 'echo odd\n');
  writeFileSync(join(dir, 'rc'), 'x\n');
  const bound = boundToJudged("sh 'a $(touch pwned) b.sh'", {
    'a $(touch pwned) b.sh': digest('echo odd\n'),
    '~/rc': digest('x\n'),
  });
  expect(run(bound, { HOME: dir })).toMatchObject({ status: 0, stdout: 'odd\n' });
  expect(existsSync(join(dir, 'pwned'))).toBe(false);
});

it('leaves a command with nothing judged unchanged, and keeps only digests a shell can compare', () => {
  expect(boundToJudged('ls', undefined)).toBe('ls');
  expect(boundToJudged('ls', {})).toBe('ls');
  expect(
    comparableDigests({
      'a.sh': digest('x'),
      b: 'missing',
      c: 'directory',
      d: 'binary',
      e: 'unread: is too big to check',
      f: 'entries:abc',
    }),
  ).toEqual({ 'a.sh': digest('x'), b: 'missing' });
  expect(comparableDigests({ c: 'directory' })).toBeUndefined();
});

it('ends only the shell it runs in: the refusal is an exit of the command, and what follows the check is the command', () => {
  writeFileSync(join(dir, 'task.sh'), 'echo benign\n');
  // Run as tether does, inside a shell of its own (eval in a subshell): the outer shell goes on.
  const inner = boundToJudged('sh task.sh', { 'task.sh': digest('echo other\n') });
  const r = run('( eval "$CMD" ); echo "after $?"', { CMD: inner });
  expect(r.stdout).toBe(`after ${CHANGED_EXIT}\n`);
});
