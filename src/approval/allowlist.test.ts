import { describe, expect, it } from 'vitest';
import { allowlistMatch } from './allowlist.js';

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
