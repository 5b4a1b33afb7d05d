import { describe, expect, it } from 'vitest';
import { allowlistMatch, allowlistProblem } from './allowlist.js';

describe('allowlistMatch', () => {
  it('matches exact commands, glob patterns and rule ids', () => {
    expect(
      allowlistMatch(['git push --force origin main'], {
        command: ' git push --force origin main ',
        rules: ['git-force-push'],
      }),
    ).toBe('git push --force origin main');
    expect(
      allowlistMatch(['git push --force origin feature/*'], {
        command: 'git push --force origin feature/x',
        rules: ['git-force-push'],
      }),
    ).toBe('git push --force origin feature/*');
    expect(allowlistMatch(['git-force-push'], { command: 'git push -f', rules: ['git-force-push'] })).toBe(
      'git-force-push',
    );
  });

  it('needs every finding allowed, and treats glob characters literally elsewhere', () => {
    expect(
      allowlistMatch(['git-force-push'], {
        command: 'git push -f && git reset --hard',
        rules: ['git-force-push', 'git-reset-hard'],
      }),
    ).toBeUndefined();
    expect(
      allowlistMatch(['rm -rf build.(x)'], { command: 'rm -rf build.(y)', rules: ['recursive-delete'] }),
    ).toBeUndefined();
    expect(allowlistMatch(['git push ?'], { command: 'git push -f', rules: ['git-force-push'] })).toBeUndefined();
    expect(allowlistMatch([], { command: 'git push -f', rules: ['git-force-push'] })).toBeUndefined();
  });

  it('a host a person always allowed (network:HOST:PORT) never allows a command spelt like it', () => {
    const entries = ['network:api.example.test:443', 'network:*'];
    expect(
      allowlistMatch(entries, { command: 'network:api.example.test:443', rules: ['dynamic-command'] }),
    ).toBeUndefined();
    expect(allowlistMatch(entries, { command: 'network:anything', rules: ['dynamic-command'] })).toBeUndefined();
  });
});

describe('a wildcard stands for part of one word', () => {
  it('never another argument, an option, or a quoted or escaped space', () => {
    const entry = 'git push origin feature/*';
    expect(allowlistMatch([entry], { command: 'git push origin feature/x-1', rules: ['x'] })).toBe(entry);
    for (const extra of [
      'git push origin feature/x --receive-pack=evil',
      "git push origin 'feature/x --receive-pack=evil'",
      'git push origin feature/x\\ --receive-pack=evil',
      'git push origin feature/x main',
      'git push origin feature/{x,--receive-pack=evil}',
      'git push origin feature/[x]',
      'git push origin feature/x*',
    ])
      expect(allowlistMatch([entry], { command: extra, rules: ['x'] }), extra).toBeUndefined();
    expect(
      allowlistMatch(['git push origin *'], { command: 'git push origin --mirror', rules: ['x'] }),
    ).toBeUndefined();
    expect(allowlistMatch(['git push origin *'], { command: 'git push origin main', rules: ['x'] })).toBe(
      'git push origin *',
    );
  });
});

describe('globs never cross a shell metacharacter', () => {
  it('a pattern for one command does not allow a second one chained after it', () => {
    const entry = 'terraform destroy -target=module.scratch*';
    expect(allowlistMatch([entry], { command: 'terraform destroy -target=module.scratch2', rules: ['x'] })).toBe(entry);
    for (const tail of ['; kubectl delete ns prod', ' && rm -rf ~', ' | sh', ' $(id)', ' `id`', ' > /etc/x', '\nrm x'])
      expect(
        allowlistMatch([entry], { command: `terraform destroy -target=module.scratch${tail}`, rules: ['x'] }),
      ).toBeUndefined();
  });
});

describe('exact commands bound to a directory (what `always` writes)', () => {
  const entry = { command: 'git push --force R feature-x', cwd: '/w' };
  it('match that command in that directory only, and never a call whose judgement read files', () => {
    expect(
      allowlistMatch([entry], { command: 'git push --force R feature-x', rules: ['git-force-push'], cwd: '/w/' }),
    ).toBe('git push --force R feature-x (in /w)');
    expect(allowlistMatch([entry], { command: 'git push --force R feature-x', rules: [], cwd: '/v' })).toBeUndefined();
    expect(allowlistMatch([entry], { command: 'git push --force R main', rules: [], cwd: '/w' })).toBeUndefined();
    expect(
      allowlistMatch([entry], { command: 'git push --force R feature-x', rules: [], cwd: '/w', readsFiles: true }),
    ).toBeUndefined();
  });
});

describe('allowlistProblem: entries refused when the configuration is loaded', () => {
  it('refuses every entry that matches every command', () => {
    for (const e of [
      '*',
      '**',
      '.*',
      '* *',
      '?*',
      '*?',
      ' * ',
      '*rm*',
      'r? -rf x',
      'sudo *',
      'env *',
      'bash -c *',
      '/usr/bin/env *',
      'xargs *',
      'sh *',
      'npm run *',
      'make *',
      'python3 *',
    ])
      expect(allowlistProblem(e), e).toMatch(/matches every command/);
  });
  it('refuses rule ids that mean tether could not read what runs', () => {
    for (const e of [
      'dynamic-command',
      'unread-script',
      'carried-code',
      'unparsed',
      'too-deep',
      'check-failed',
      'remote-code-exec',
      'decoded-to-shell',
      'schedule-unchecked',
      'hijack-path',
      'git-hook',
    ])
      expect(allowlistProblem(e), e).toMatch(/could not read what runs/);
  });
  it('keeps what allowed specific commands before', () => {
    for (const e of [
      'git-force-push',
      'terraform destroy -target=module.scratch*',
      'git push origin feature/*',
      'git push origin *',
      'rm -rf build',
      { command: 'ls', cwd: '/w' },
    ])
      expect(allowlistProblem(e)).toBeUndefined();
    expect(allowlistProblem({ command: 'ls', cwd: 'rel' })).toMatch(/absolute/);
    expect(allowlistProblem({ command: '' })).toMatch(/non-empty/);
    expect(allowlistProblem({ command: 'ls', where: '/' })).toMatch(/unknown key where/);
  });
  it('never lets a rule id allow a finding that means tether could not read what runs', () => {
    expect(allowlistMatch(['dynamic-command'], { command: 'C=ls; $C', rules: ['dynamic-command'] })).toBeUndefined();
  });
});
