import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectorModule, registrations } from './registry.js';
import './registered.js';

const detectorDir = fileURLToPath(new URL('..', import.meta.url));

/** Every source file under src/detector that registers a table, found by reading the source. */
function registering(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        /(?<!\.test)\.ts$/.test(entry.name) &&
        /^judges\(\s*import\.meta\.url,/m.test(readFileSync(path, 'utf8'))
      )
        found.push(relative(detectorDir, path));
    }
  };
  walk(detectorDir);
  return found.sort();
}

describe('the registry of checks by program name', () => {
  it('holds a table from every module whose source registers one, each once', () => {
    const modules = registrations().map((r) => r.module);
    expect(new Set(modules).size).toBe(modules.length);
    expect([...modules].sort()).toEqual(registering());
  });

  it('is imported, module by module, by registered.ts (what the lookup loads), not only through another module', () => {
    const list = readFileSync(join(detectorDir, 'checks', 'registered.ts'), 'utf8');
    const imported = [...list.matchAll(/^import '([^']+)';$/gm)].map((m) =>
      relative(detectorDir, join(detectorDir, 'checks', m[1]!)).replace(/\.js$/, '.ts'),
    );
    expect(imported.sort()).toEqual(registering());
  });

  it('names a module by its source path whether it runs from the source or from dist', () => {
    expect(detectorModule('file:///w/dist/src/detector/checks/files.js')).toBe('checks/files.ts');
    expect(detectorModule('file:///w/src/detector/programs/http/checks.ts')).toBe('programs/http/checks.ts');
  });

  it('expands a key that names several programs into one entry each', () => {
    const http = registrations().find((r) => r.module === 'programs/http/checks.ts')!;
    expect(Object.keys(http.table)).toEqual(expect.arrayContaining(['curl', 'wget', 'xh']));
    expect(http.table.curl).toBe(http.table.wget);
  });
});
