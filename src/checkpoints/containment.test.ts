// Checkpoints as an attacker inside the task would try them: links to secrets outside, a directory swapped for a
// link while a checkpoint reads or a rollback writes, a FIFO, git attributes and hooks that would run a program.
// Nothing from outside the task directory may reach the store, and no rollback may write outside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/config.js';
import { flatten } from './catalog.js';
import { ExcludeRules } from '../config/checkpoint-exclude.js';
import { rollback } from './rollback.js';
import { scanTree } from './scan.js';
import { takeCheckpoint } from './snapshot.js';
import { CheckpointStore } from './store.js';

const settings = parseConfig({}).checkpoints;
const dir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

/** Every stored object's content (after its git header). */
function storedContents(store: CheckpointStore): Buffer[] {
  const out: Buffer[] = [];
  for (const sub of readdirSync(store.objects.dir)) {
    if (!/^[0-9a-f]{2}$/.test(sub)) continue;
    for (const f of readdirSync(join(store.objects.dir, sub))) {
      const raw = inflateSync(readFileSync(join(store.objects.dir, sub, f)));
      out.push(raw.subarray(raw.indexOf(0) + 1));
    }
  }
  return out;
}

const holds = (store: CheckpointStore, secret: string): boolean =>
  storedContents(store).some((b) => b.includes(Buffer.from(secret)));

let swapper: ChildProcess | undefined;
afterEach(() => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
});

/** A process that swaps `target` (a directory) for a link to `outside` and back, as fast as it can. */
async function startSwapping(target: string, outside: string): Promise<() => number> {
  const script = `
    const fs = require('fs');
    const [target, outside] = process.argv.slice(1);
    let n = 0;
    setInterval(() => process.stdout.write(String(n) + '\\n'), 50);
    for (;;) {
      try {
        fs.renameSync(target, target + '.real');
        fs.symlinkSync(outside, target);
        fs.unlinkSync(target);
        fs.renameSync(target + '.real', target);
        n += 1;
        if (n % 200 === 0) { const t = Date.now(); while (Date.now() - t < 1) {} }
      } catch {}
      if (n % 1000 === 0) await new Promise((r) => setImmediate(r));
    }
  `;
  const child = spawn(process.execPath, ['-e', `(async () => {${script}})()`, target, outside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  swapper = child;
  let swaps = 0;
  child.stdout!.on('data', (c: Buffer) => (swaps = Number(c.toString().trim().split('\n').at(-1))));
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return () => swaps;
}

/** Stops the swapping process and puts the directory back under its own name. */
async function stopSwapping(target: string): Promise<void> {
  const child = swapper;
  swapper = undefined;
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  if (existsSync(`${target}.real`)) {
    rmSync(target, { force: true });
    renameSync(`${target}.real`, target);
  }
}

describe('a checkpoint never follows a link out of the task directory', () => {
  it('keeps links as links: a link to a secret stores the link, a linked directory is not entered', async () => {
    const outside = dir('tether-outside-');
    const secret = `TOP-SECRET-${randomBytes(8).toString('hex')}`;
    writeFileSync(join(outside, 'secret.txt'), secret);
    const cwd = dir('tether-task-');
    symlinkSync(join(outside, 'secret.txt'), join(cwd, 'file-link'));
    symlinkSync(outside, join(cwd, 'dir-link'));
    symlinkSync('/proc/self/root/etc/passwd', join(cwd, 'proc-link'));
    const store = new CheckpointStore(dir('tether-home-'));
    const taken = await takeCheckpoint(
      store,
      settings,
      cwd,
      { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 },
      't1',
    );
    if (!('checkpoint' in taken)) throw new Error(taken.skipped);
    expect([...flatten(store.objects, taken.checkpoint).entries()].map(([p, e]) => [p, e.mode]).sort()).toEqual([
      ['dir-link', '120000'],
      ['file-link', '120000'],
      ['proc-link', '120000'],
    ]);
    expect(holds(store, secret)).toBe(false);
    expect(storedContents(store).some((b) => b.equals(Buffer.from(join(outside, 'secret.txt'))))).toBe(true);
  });

  it('reads nothing from outside, not even a name, while a directory is swapped for a link to it', async () => {
    const outside = dir('tether-outside-');
    const secret = `TOP-SECRET-${randomBytes(8).toString('hex')}`;
    const cwd = dir('tether-task-');
    mkdirSync(join(cwd, 'd'));
    // The same names inside and outside: a read through the swapped link would find a file of the expected name.
    for (let i = 0; i < 200; i += 1) {
      writeFileSync(join(cwd, 'd', `f${i}`), `inside ${i}`);
      writeFileSync(join(outside, `f${i}`), `${secret} ${i}`);
    }
    // Names only outside: a listing through the swapped link would put them in the store (as empty directories).
    for (let i = 0; i < 20; i += 1) mkdirSync(join(outside, `${secret}-dir${i}`));
    const store = new CheckpointStore(dir('tether-home-'));
    store.ensure();
    const swaps = await startSwapping(join(cwd, 'd'), outside);
    for (let i = 0; i < 40; i += 1) {
      // No cache: every file is read again each time.
      await scanTree({
        root: cwd,
        rules: new ExcludeRules(),
        objects: store.objects,
        write: true,
        cache: new Map(),
        maxFileBytes: 1 << 20,
        maxFiles: 10_000,
      });
    }
    expect(swaps()).toBeGreaterThan(100);
    expect(holds(store, secret)).toBe(false);
  }, 120_000);

  it('skips a FIFO without waiting for a writer, and stores git attributes and hooks as plain files', async () => {
    const cwd = dir('tether-task-');
    const marker = join(dir('tether-marker-'), 'ran');
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    // A filter driver and hooks that would run a program if git ran here (it never does).
    writeFileSync(join(cwd, '.gitattributes'), '* filter=evil text eol=crlf\n');
    writeFileSync(join(cwd, '.gitconfig'), `[filter "evil"]\n\tclean = touch ${marker}\n`);
    writeFileSync(join(cwd, 'crlf.txt'), 'one\r\ntwo\n');
    const store = new CheckpointStore(dir('tether-home-'));
    const taken = await takeCheckpoint(
      store,
      settings,
      cwd,
      { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 },
      't1',
    );
    if (!('checkpoint' in taken)) throw new Error(taken.skipped);
    expect(taken.scan.special).toBe(1);
    rmSync(join(cwd, 'crlf.txt'));
    await rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test' });
    expect(readFileSync(join(cwd, 'crlf.txt'), 'utf8')).toBe('one\r\ntwo\n');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a rollback never writes outside the task directory', () => {
  it('replaces a directory that became a link to outside instead of writing through it', async () => {
    const outside = dir('tether-outside-');
    writeFileSync(join(outside, 'keep.txt'), 'outside');
    const cwd = dir('tether-task-');
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'src', 'keep.txt'), 'inside');
    writeFileSync(join(cwd, 'src', 'new.txt'), 'inside new');
    const store = new CheckpointStore(dir('tether-home-'));
    await takeCheckpoint(store, settings, cwd, { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 }, 't1');
    rmSync(join(cwd, 'src'), { recursive: true });
    symlinkSync(outside, join(cwd, 'src'));
    const report = await rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test' });
    expect(report.changes.filter((c) => c.action === 'kept')).toEqual([]);
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('outside');
    expect(readFileSync(join(cwd, 'src', 'keep.txt'), 'utf8')).toBe('inside');
    expect(readFileSync(join(cwd, 'src', 'new.txt'), 'utf8')).toBe('inside new');
  });

  it('writes nothing outside while the directory it restores into is swapped for a link', async () => {
    const outside = dir('tether-outside-');
    const cwd = dir('tether-task-');
    mkdirSync(join(cwd, 'd'));
    for (let i = 0; i < 300; i += 1) writeFileSync(join(cwd, 'd', `f${i}`), `inside ${i}`);
    const store = new CheckpointStore(dir('tether-home-'));
    await takeCheckpoint(store, settings, cwd, { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 }, 't1');
    let swapped = 0;
    for (let round = 0; round < 5; round += 1) {
      // The files go while nothing swaps (never through a link), then the rollback writes them again while it does.
      for (let i = 0; i < 300; i += 1) rmSync(join(cwd, 'd', `f${i}`), { force: true });
      const swaps = await startSwapping(join(cwd, 'd'), outside);
      await rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test' }).catch(() => undefined);
      swapped += swaps();
      await stopSwapping(join(cwd, 'd'));
      expect(readdirSync(outside)).toEqual([]);
    }
    expect(swapped).toBeGreaterThan(100);
  }, 120_000);

  it('refuses a --path outside the task directory', async () => {
    const cwd = dir('tether-task-');
    writeFileSync(join(cwd, 'a'), 'a');
    const store = new CheckpointStore(dir('tether-home-'));
    await takeCheckpoint(store, settings, cwd, { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 }, 't1');
    for (const path of ['../etc/passwd', '/etc/passwd', 'a/../../x'])
      await expect(
        rollback(store, settings, { workflowId: 'w', target: { turn: 1 }, by: 'test', path }),
      ).rejects.toThrow(/is outside the run's task directory/);
  });
});

describe('what a checkpoint leaves out is never lost by a rollback', () => {
  it('keeps a file over the size cap and an excluded directory, and says so instead of overwriting', async () => {
    const cwd = dir('tether-task-');
    const small = { ...settings, max_file_bytes: 100 };
    writeFileSync(join(cwd, 'big.bin'), Buffer.alloc(200, 1));
    writeFileSync(join(cwd, 'grows.txt'), 'small');
    mkdirSync(join(cwd, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(cwd, 'node_modules', 'x', 'i.js'), 'dep');
    const store = new CheckpointStore(dir('tether-home-'));
    const taken = await takeCheckpoint(store, small, cwd, { kind: 'turn', workflowId: 'w', chain: 'c', turn: 1 }, 't1');
    if (!('checkpoint' in taken)) throw new Error(taken.skipped);
    expect(taken.checkpoint.meta.skipped).toMatchObject({ oversize: ['big.bin'], oversizeCount: 1 });
    writeFileSync(join(cwd, 'grows.txt'), Buffer.alloc(300, 2)); // now over the cap: not in the next checkpoint
    const report = await rollback(store, small, { workflowId: 'w', target: { turn: 1 }, by: 'test' });
    expect(report.changes).toEqual([
      { path: 'grows.txt', action: 'kept', why: expect.stringMatching(/could not be undone/) },
    ]);
    expect(readFileSync(join(cwd, 'grows.txt'))).toHaveLength(300);
    expect(readFileSync(join(cwd, 'big.bin'))).toHaveLength(200);
    expect(readFileSync(join(cwd, 'node_modules', 'x', 'i.js'), 'utf8')).toBe('dep');
  });

  it('sees a change made within the same second, at the same size', async () => {
    const cwd = dir('tether-task-');
    writeFileSync(join(cwd, 'f'), 'aaaa');
    const store = new CheckpointStore(dir('tether-home-'));
    const meta = { kind: 'turn' as const, workflowId: 'w', chain: 'c', turn: 1 };
    await takeCheckpoint(store, settings, cwd, meta, 't1');
    writeFileSync(join(cwd, 'f'), 'bbbb');
    chmodSync(join(cwd, 'f'), 0o644);
    const second = await takeCheckpoint(store, settings, cwd, { ...meta, turn: 2 }, 't2');
    if (!('checkpoint' in second)) throw new Error(second.skipped);
    writeFileSync(join(cwd, 'f'), 'cccc');
    await rollback(store, settings, { workflowId: 'w', target: { turn: 2 }, by: 'test' });
    expect(readFileSync(join(cwd, 'f'), 'utf8')).toBe('bbbb');
  });
});
