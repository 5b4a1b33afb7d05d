// Files removed are judged the same by rm, unlink and git rm (removed.ts): what they were decides, not the tool.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['rm -rf .github/workflows', 'test-tampering'],
  ['rm .github/workflows/codeql.yml', 'ci-tampering'],
  ['rm AGENTS.md', 'agent-safety'],
  ['unlink CLAUDE.md', 'agent-safety'],
  ['rm -r tests', 'test-tampering'],
  ['rm -- CODEOWNERS', 'test-tampering'],
])('%s: %s, and the same through git rm', (command, rule) => {
  expect(rules(command)).toContain(rule);
  expect(rules(command.replace(/^(rm|unlink)/, 'git -C . rm'))).toContain(rule);
});

it.each(['rm -rf node_modules dist', 'rm tests/fixtures/old.json', 'git rm --cached build.log', 'rm notes.md'])(
  '%s stays ordinary',
  (command) => {
    expect(rules(command)).toEqual([]);
  },
);
