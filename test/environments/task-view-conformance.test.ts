// One view for commands and file tools: for each path of a task directory that holds hidden, exposed and nested
// hidden paths (and for a task directory that lies inside a hidden one), a sandboxed `cat` reads it exactly when
// read_file does, and `echo >` writes it exactly when write_file does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { environmentManager } from '../../src/environments/current.js';
import '../../src/tools/read-file.js';
import '../../src/tools/write-file.js';
import { call, configure, dir, type Result } from '../support/local-sandbox.js';

const home = dir('tether-view-conf-', '/var/tmp');
const inner = join(home, '.vault/work');
const FILES = [
  'visible.txt',
  '.ssh/id',
  '.ssh/known_hosts',
  '.cfg/tool/token',
  '.cfg/other',
  'sub/.env',
  'sub/ok.txt',
  '.vault/work/x.txt',
  '.vault/work/.inner/secret',
  '.vault/key',
];
const marker = (p: string): string => `MARK-${p.replace(/[^A-Za-z0-9]/g, '_')}`;

let n = 0;
beforeAll(async () => {
  for (const p of FILES) {
    mkdirSync(join(home, p, '..'), { recursive: true });
    writeFileSync(join(home, p), `${marker(p)}\n`);
  }
  await configure({
    sandbox: {
      hidden: [
        join(home, '.ssh'),
        join(home, '.cfg/tool'),
        join(home, 'sub/.env'),
        join(home, '.vault'),
        join(inner, '.inner'),
      ],
      expose: [join(home, '.ssh/known_hosts')],
    },
  });
});
afterAll(async () => {
  await environmentManager().closeAll();
});

async function sees(cwd: string, rel: string): Promise<{ command: boolean; tool: boolean }> {
  const t = `view-${process.pid}-${++n}`;
  const sh = await call('terminal', t, cwd, { command: `cat '${rel}' 2>&1; true` });
  const tool = await call('read_file', t, cwd, { path: rel });
  return { command: String(sh.output).includes(marker(relTo(cwd, rel))), tool: JSON.stringify(tool).includes('MARK-') };
}
const relTo = (cwd: string, rel: string): string => join(cwd, rel).slice(home.length + 1);

async function writes(cwd: string, rel: string): Promise<{ command: boolean; tool: boolean }> {
  const t = `view-${process.pid}-${++n}`;
  const path = join(cwd, rel);
  const before = readFileSync(path, 'utf8');
  try {
    await call('terminal', t, cwd, { command: `echo by-command >> '${rel}' 2>/dev/null; true` });
    const command = readFileSync(path, 'utf8') !== before;
    writeFileSync(path, before);
    const r: Result = await call('write_file', t, cwd, { path: rel, content: 'by-tool\n' });
    const tool = readFileSync(path, 'utf8') !== before && r.error === undefined;
    return { command, tool };
  } finally {
    writeFileSync(path, before);
  }
}

describe('a task directory that holds hidden paths', () => {
  const cases: [string, boolean][] = [
    ['visible.txt', true],
    ['.ssh/id', false],
    ['.ssh/known_hosts', true],
    ['.cfg/tool/token', false],
    ['.cfg/other', true],
    ['sub/.env', false],
    ['sub/ok.txt', true],
    ['.vault/key', false],
  ];
  it.each(cases)('%s: readable by both or by neither (%s)', async (rel, readable) => {
    expect(await sees(home, rel)).toEqual({ command: readable, tool: readable });
  });
  it.each([
    ['visible.txt', true],
    ['.ssh/known_hosts', false],
    ['.cfg/tool/token', false],
  ] as const)('%s: writable by both or by neither (%s)', async (rel, writable) => {
    expect(await writes(home, rel)).toEqual({ command: writable, tool: writable });
  });
});

describe('a task directory inside a hidden one', () => {
  it.each([
    ['x.txt', true],
    ['.inner/secret', false],
    ['../key', false],
  ] as const)('%s: readable by both or by neither (%s)', async (rel, readable) => {
    expect(await sees(inner, rel)).toEqual({ command: readable, tool: readable });
  });
});
