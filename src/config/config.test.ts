import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tether-config-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

describe('loadConfig', () => {
  it('gives defaults when there is no file', () => {
    expect(loadConfig('/nonexistent/config.yaml').files.allow_outside_cwd).toBe(false);
  });

  it('reads settings and keeps sections it does not know', () => {
    const cfg = loadConfig(file('files:\n  allow_outside_cwd: true\nterminal:\n  backend: docker\n'));
    expect(cfg.files.allow_outside_cwd).toBe(true);
    expect(cfg.terminal).toEqual({ backend: 'docker' });
  });

  it.each([
    ['files:\n  allow_outside_cwd: "yes"\n', /files\.allow_outside_cwd: Invalid input: expected boolean/],
    ['files:\n  allow_outside: true\n', /files: Unrecognized key: "allow_outside"/],
    ['files: [unclosed\n', /not valid YAML/],
  ])('names the wrong setting: %j', (text, message) => {
    const path = file(text);
    expect(() => loadConfig(path)).toThrow(message);
    expect(() => loadConfig(path)).toThrow(path);
  });
});
