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

  it('reads settings', () => {
    const cfg = loadConfig(file('files:\n  allow_outside_cwd: true\nterminal:\n  backend: docker\n'));
    expect(cfg.files.allow_outside_cwd).toBe(true);
    expect(cfg.terminal).toMatchObject({
      backend: 'docker',
      lifetime_seconds: 300,
      default_timeout: 180,
      max_timeout: 600,
      output_chars: 50_000,
    });
  });

  it.each([
    ['files:\n  allow_outside_cwd: "yes"\n', /files\.allow_outside_cwd: Invalid input: expected boolean/],
    ['files:\n  allow_outside: true\n', /files: Unrecognized key: "allow_outside"/],
    ['files: [unclosed\n', /not valid YAML/],
    ['terminal:\n  lifetime_seconds: -1\n', /terminal\.lifetime_seconds: Too small/],
    ['web:\n  allow_privat: true\n', /web: Unrecognized key: "allow_privat"/],
    ['future_feature:\n  knob: 3\n', /\(top level\): Unrecognized key: "future_feature"/],
  ])('names the wrong setting: %j', (text, message) => {
    const path = file(text);
    expect(() => loadConfig(path)).toThrow(message);
    expect(() => loadConfig(path)).toThrow(path);
  });
});
