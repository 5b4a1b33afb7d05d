import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { discoverBuiltinTools, hasTopLevelRegister } from './discover.js';
import { ToolRegistry } from './registry.js';
import { registry as sharedRegistry } from './index.js';

const fixtures = fileURLToPath(new URL('../../test/fixtures/discovery/', import.meta.url));
const g = globalThis as unknown as { __discoveryRegistry?: ToolRegistry; __discoveryLoaded?: string[] };

describe('hasTopLevelRegister', () => {
  it.each([
    ['registry.register({})', true],
    ['await registry.register({})', true],
    ['export const e = registry.register({})', true],
    ['function f() { registry.register({}) }', false],
    ['if (x) { registry.register({}) }', false],
    ['{ registry.register({}) }', false],
    ['const f = () => registry.register({})', false],
    ['other.register({})', false],
    ['registry["register"]({})', false],
    ['// registry.register({})\nconst s = "registry.register()"', false],
  ])('%s → %s', (source, expected) => {
    expect(hasTopLevelRegister('m.ts', source)).toBe(expected);
  });
});

describe('discoverBuiltinTools', () => {
  beforeEach(() => {
    g.__discoveryRegistry = new ToolRegistry(recordingLogger());
    g.__discoveryLoaded = [];
  });
  afterEach(() => {
    delete g.__discoveryRegistry;
    delete g.__discoveryLoaded;
  });

  it('imports only modules with a top-level registration; a broken one is logged and skipped', async () => {
    const log = recordingLogger();
    const found = await discoverBuiltinTools(fixtures, log);
    expect(found.loaded).toEqual(['const-register', 'good', 'plain-js']);
    expect(found.skipped.sort()).toEqual(['helper', 'nested']);
    expect(found.failed.map((f) => f.module).sort()).toEqual(['broken', 'syntax-error']);
    expect(found.failed.find((f) => f.module === 'broken')?.error).toContain(
      'tether-optional-dependency-that-does-not-exist',
    );
    // Helper modules were never evaluated.
    expect(g.__discoveryLoaded).not.toContain('helper');
    expect(g.__discoveryLoaded).not.toContain('nested');
    const reg = g.__discoveryRegistry!;
    expect(
      reg
        .all()
        .map((t) => t.name)
        .sort(),
    ).toEqual(['fixture_const', 'fixture_good', 'fixture_plain_js']);
    expect(
      log.lines
        .filter((l) => l.level === 'warn')
        .map((l) => l.msg)
        .join('\n'),
    ).toMatch(/'broken' failed to load/);
  });

  it('finds the built-in tools with no list to maintain, and leaves helper modules alone', async () => {
    const found = await discoverBuiltinTools();
    expect(found.failed).toEqual([]);
    expect(found.loaded).toEqual(
      expect.arrayContaining(['terminal', 'read-file', 'write-file', 'patch', 'search-files', 'todo']),
    );
    expect(found.skipped).toEqual(expect.arrayContaining(['task-environment', 'glob']));
    const names = sharedRegistry.all().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'terminal',
        'read_file',
        'write_file',
        'patch',
        'search_files',
        'todo',
        'memory',
        'session_search',
        'delegate_task',
      ]),
    );
  });
});
