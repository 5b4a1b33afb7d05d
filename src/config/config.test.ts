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

  it('reads exact commands bound to a directory beside the other entries', () => {
    const cfg = loadConfig(file("command_allowlist:\n  - git-force-push\n  - {command: 'make deploy', cwd: /w}\n"));
    expect(cfg.command_allowlist).toEqual(['git-force-push', { command: 'make deploy', cwd: '/w' }]);
  });

  it.each([
    ['files:\n  allow_outside_cwd: "yes"\n', /files\.allow_outside_cwd: Invalid input: expected boolean/],
    ['files:\n  allow_outside: true\n', /files\.allow_outside: unknown key \(did you mean allow_outside_cwd\?\)/],
    ['files: [unclosed\n', /not valid YAML/],
    ['terminal:\n  lifetime_seconds: -1\n', /terminal\.lifetime_seconds: Too small/],
    ['web:\n  allow_privat: true\n', /web\.allow_privat: unknown key \(did you mean allow_private\?\)/],
    ['future_feature:\n  knob: 3\n', /future_feature: unknown key \(known here: model, terminal, web, /],
    ["command_allowlist: ['git-force-push', '*']\n", /command_allowlist\.1: "\*" matches every command/],
    ["command_allowlist: ['* *']\n", /command_allowlist\.0: "\* \*" matches every command/],
    ["command_allowlist: ['sudo *']\n", /command_allowlist\.0: "sudo \*" matches every command sudo can run/],
    ['command_allowlist: [dynamic-command]\n', /command_allowlist\.0: "dynamic-command" means tether could not read/],
    ['command_allowlist: [{command: ls, cwd: here}]\n', /command_allowlist\.0: cwd must be an absolute directory/],
  ])('names the wrong setting: %j', (text, message) => {
    const path = file(text);
    expect(() => loadConfig(path)).toThrow(message);
    expect(() => loadConfig(path)).toThrow(path);
  });
});
