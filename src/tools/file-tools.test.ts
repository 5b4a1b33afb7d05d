import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../registry/index.js';
import type { ToolContext } from '../registry/types.js';
import './patch.js';
import './read-file.js';
import './search-files.js';
import './write-file.js';

function workspace(): ToolContext {
  return { taskId: 't', cwd: realpathSync(mkdtempSync(join(tmpdir(), 'tether-files-'))) };
}

async function call(ctx: ToolContext, tool: string, args: object): Promise<Record<string, unknown>> {
  return JSON.parse(await registry.dispatch(tool, JSON.stringify(args), ctx)) as Record<string, unknown>;
}

describe('write_file and read_file', () => {
  it('writes into new folders and reads numbered lines with paging', async () => {
    const ctx = workspace();
    expect(await call(ctx, 'write_file', { path: 'a/b/notes.txt', content: 'one\ntwo\nthree\n' })).toEqual({
      path: 'a/b/notes.txt',
      bytes_written: 14,
    });
    expect(readFileSync(join(ctx.cwd, 'a/b/notes.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    const page = await call(ctx, 'read_file', { path: 'a/b/notes.txt', offset: 2, limit: 1 });
    expect(page).toEqual({ path: 'a/b/notes.txt', content: '     2|two', total_lines: 3, next_offset: 3 });
  });

  it('reports a missing file, a directory and a binary file as errors', async () => {
    const ctx = workspace();
    writeFileSync(join(ctx.cwd, 'bin.dat'), Buffer.from([0, 1, 2, 0]));
    expect((await call(ctx, 'read_file', { path: 'missing.txt' })).error).toBe('File not found: missing.txt');
    expect((await call(ctx, 'read_file', { path: '.' })).error).toMatch(/is a directory/);
    expect((await call(ctx, 'read_file', { path: 'bin.dat' })).error).toMatch(/binary/);
  });

  it('refuses paths outside the working directory, also through a symlink, unless configured', async () => {
    const ctx = workspace();
    // Not under /tmp: commands have a /tmp of their own, and file tools see what commands see.
    const outside = realpathSync(mkdtempSync(join('/var/tmp', 'tether-outside-')));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(ctx.cwd, 'link'));
    expect((await call(ctx, 'read_file', { path: join(outside, 'secret.txt') })).error).toMatch(
      /outside the working directory/,
    );
    expect((await call(ctx, 'read_file', { path: '../x.txt' })).error).toMatch(/outside the working directory/);
    expect((await call(ctx, 'read_file', { path: 'link/secret.txt' })).error).toMatch(/outside the working directory/);
    expect((await call(ctx, 'write_file', { path: 'link/new.txt', content: 'x' })).error).toMatch(
      /outside the working directory/,
    );
    // A dangling link pointing outside: writing through it would create the file out there.
    symlinkSync(join(outside, 'not-yet.txt'), join(ctx.cwd, 'notes.md'));
    expect((await call(ctx, 'write_file', { path: 'notes.md', content: 'x' })).error).toMatch(
      /outside the working directory/,
    );
    expect(existsSync(join(outside, 'not-yet.txt'))).toBe(false);
    const allowed = { ...ctx, allowOutsideCwd: true };
    expect((await call(allowed, 'read_file', { path: join(outside, 'secret.txt') })).content).toBe('     1|secret');
  });
});

describe('patch', () => {
  it('replaces a unique match, refuses an ambiguous one, and replaces all when asked', async () => {
    const ctx = workspace();
    writeFileSync(join(ctx.cwd, 'f.ts'), 'let a = 1;\nlet b = 1;\n');
    expect((await call(ctx, 'patch', { path: 'f.ts', old_string: '= 1', new_string: '= 2' })).error).toMatch(
      /matches 2 places/,
    );
    expect(await call(ctx, 'patch', { path: 'f.ts', old_string: 'let a = 1', new_string: 'let a = $&' })).toEqual({
      path: 'f.ts',
      replacements: 1,
    });
    expect(readFileSync(join(ctx.cwd, 'f.ts'), 'utf8')).toBe('let a = $&;\nlet b = 1;\n');
    expect(
      await call(ctx, 'patch', { path: 'f.ts', old_string: 'let', new_string: 'const', replace_all: true }),
    ).toEqual({ path: 'f.ts', replacements: 2 });
    expect((await call(ctx, 'patch', { path: 'f.ts', old_string: 'var', new_string: 'x' })).error).toMatch(/not found/);
  });
});

describe('search_files', () => {
  function tree(): ToolContext {
    const ctx = workspace();
    mkdirSync(join(ctx.cwd, 'src/deep'), { recursive: true });
    mkdirSync(join(ctx.cwd, 'node_modules/pkg'), { recursive: true });
    writeFileSync(join(ctx.cwd, 'src/a.ts'), 'export const alpha = 1;\n// TODO: beta\n');
    writeFileSync(join(ctx.cwd, 'src/deep/b.test.ts'), 'test("TODO later")\n');
    writeFileSync(join(ctx.cwd, 'README.md'), 'TODO in docs\n');
    writeFileSync(join(ctx.cwd, 'node_modules/pkg/index.ts'), 'TODO ignored\n');
    return ctx;
  }

  it('finds content by regular expression, filtered by file glob, skipping node_modules', async () => {
    const ctx = tree();
    const all = await call(ctx, 'search_files', { pattern: 'TODO' });
    expect((all.matches as string[]).sort()).toEqual([
      'README.md:1:TODO in docs',
      'src/a.ts:2:// TODO: beta',
      'src/deep/b.test.ts:1:test("TODO later")',
    ]);
    const ts = await call(ctx, 'search_files', { pattern: 'TODO', file_glob: '*.ts', limit: 1 });
    expect(ts).toMatchObject({ count: 1, truncated: true });
  });

  it('finds files by glob and reports a bad regular expression', async () => {
    const ctx = tree();
    expect((await call(ctx, 'search_files', { pattern: 'src/**/*.test.ts', target: 'files' })).files).toEqual([
      'src/deep/b.test.ts',
    ]);
    expect(((await call(ctx, 'search_files', { pattern: '*.ts', target: 'files' })).files as string[]).sort()).toEqual([
      'src/a.ts',
      'src/deep/b.test.ts',
    ]);
    expect((await call(ctx, 'search_files', { pattern: '(' })).error).toMatch(/Invalid regular expression/);
  });

  it('stops a catastrophically slow regular expression with an error instead of freezing the worker', async () => {
    const ctx = workspace();
    writeFileSync(join(ctx.cwd, 'slow.txt'), `${'a'.repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 100);
    const r = await call(ctx, 'search_files', { pattern: '^(a+)+$' });
    clearInterval(ticker);
    expect(String(r.error)).toMatch(/took longer than 5000 ms/);
    // The event loop kept running meanwhile (heartbeats would have gone on).
    expect(ticks).toBeGreaterThan(20);
  });
});

describe('search_files with a pattern that breaks the regular expression engine', () => {
  it('reports a stack overflow in the matcher as an error the model sees; the worker goes on', async () => {
    const ctx = workspace();
    writeFileSync(join(ctx.cwd, 'big.txt'), 'a'.repeat(1_000_000));
    const r = await call(ctx, 'search_files', { pattern: '^(?:(a)(b?)(c?)(d?)(e?)(f?)(g?)(h?))*x' });
    expect(String(r.error)).toMatch(/the regular expression failed on one file \(Maximum call stack size exceeded\)/);
    // The process is still here, and the next search works.
    expect((await call(ctx, 'search_files', { pattern: 'nothing-here' })).count).toBe(0);
  });
});
